"""scripts/bench_envs.py --against, as the README gives it: this checkout against a git commit,
each side in its own process, in one run; the temporary worktree of the commit goes away."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worktrees() -> set[str]:
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    return {line.split(" ", 1)[1] for line in listed.splitlines() if line.startswith("worktree ")}


def test_readme_against_command_compares_this_checkout_with_a_commit():
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"`python (scripts/bench_envs\.py --against [^`]*)`", readme).group(1)
    before = worktrees()
    result = subprocess.run(
        [sys.executable, *command.split(), "--only", "hunger_show", "--rounds", "2",
         "--seconds", "0.05"], cwd=ROOT, capture_output=True, text=True, timeout=600,
        check=True)
    ref = command.split("--against ")[1].split()[0]
    assert f"this checkout against {ref}: medians of 2 alternating rounds" in result.stdout
    rates = re.search(r"^hunger_show_v0 parallel 4p +([\d,]+) +([\d,]+) +([\d.]+)x "
                      r"\(([\d.]+)-([\d.]+)\)$", result.stdout, re.M)
    assert rates, result.stdout
    ours, theirs, ratio, low, high = (float(g.replace(",", "")) for g in rates.groups())
    assert ours > 0 and theirs > 0 and low <= ratio <= high
    assert worktrees() == before


def test_against_refuses_what_is_not_a_commit():
    result = subprocess.run(
        [sys.executable, "scripts/bench_envs.py", "--against", "no-such-ref", "--only",
         "hunger_show"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "'no-such-ref' is not a commit of this repository" in result.stderr
