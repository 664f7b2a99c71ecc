"""The README's batched HUNGER section: its Python snippet and its command run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("### Batched HUNGER engine")
    return text[start:text.index("\n## ", start)]


def test_readme_snippet_runs(capsys):
    code = re.search(r"```python\n(.*?)```", section(), re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.endswith("shows finished\n")


def test_readme_bench_command_runs():
    command = re.search(r"`python (scripts/bench_envs\.py --batched --game hunger_show[^`]*)`",
                        section()).group(1).split()
    result = subprocess.run(
        [sys.executable, *command, "--rounds", "1", "--seconds", "0.05"], cwd=ROOT,
        capture_output=True, text=True, timeout=600, check=True)
    assert "hunger_show 4p B=4096" in result.stdout
    assert "hunger_show_v0 6p (Python)" in result.stdout


def test_readme_expert_comparison_command_runs():
    command = re.search(r"`python (scripts/compare_show_expert\.py[^`]*)`", section()).group(1)
    result = subprocess.run(
        [sys.executable, *command.split(), "--shows", "2", "--batch", "2"], cwd=ROOT,
        capture_output=True, text=True, timeout=600, check=True)
    assert "agreement compiled vs python" in result.stdout
