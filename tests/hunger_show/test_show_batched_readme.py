"""docs/batched_show.md: its Python snippet and its commands run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def section() -> str:
    text = (ROOT / "docs" / "batched_show.md").read_text()
    return text[text.index("### Batched HUNGER engine"):]


def test_readme_snippet_runs(capsys):
    code = re.search(r"```python\n(.*?)```", section(), re.S).group(1)
    exec(compile(code, "docs/batched_show.md", "exec"), {})
    assert capsys.readouterr().out.endswith("shows finished\n")


def test_readme_bench_command_runs():
    command = re.search(r"`python (scripts/bench_envs\.py --batched --game hunger_show[^`]*)`",
                        section()).group(1).split()
    result = subprocess.run(
        [sys.executable, *command, "--rounds", "1", "--seconds", "0.05"], cwd=ROOT,
        capture_output=True, text=True, timeout=600, check=True)
    assert "hunger_show 4p B=4096" in result.stdout
    assert "hunger_show_v0 6p (one show)" in result.stdout


def test_readme_expert_comparison_command_runs():
    command = re.search(r"`python (scripts/compare_show_expert\.py[^`]*)`", section()).group(1)
    result = subprocess.run(
        [sys.executable, *command.split(), "--shows", "2", "--batch", "2"], cwd=ROOT,
        capture_output=True, text=True, timeout=600, check=True)
    assert "agreement compiled vs python" in result.stdout
