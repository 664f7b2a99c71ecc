"""``pip install hunger-rl`` without extras plays the shipped agents: a fresh virtual
environment (no torch in it) gets the package from this tree, then ``hunger-rl evaluate``
plays a shipped agent of each game. Slow: pip fetches the base dependencies."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_fresh_install_without_extras_plays_the_shipped_agents(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT / "hunger_rl", source / "hunger_rl",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    binaries = environment / ("Scripts" if sys.platform == "win32" else "bin")
    subprocess.run([binaries / "python", "-m", "pip", "install", "--quiet", str(source)],
                   check=True, timeout=1800)
    no_torch = subprocess.run([binaries / "python", "-c", "import torch"], capture_output=True,
                              text=True)
    assert "No module named 'torch'" in no_torch.stderr
    for game, players, agent in (("hungry", 2, "pretrained:hungry_2p"),
                                 ("hunger_show", 4, "pretrained:hunger_show_4p")):
        played = subprocess.run(
            [binaries / "hunger-rl", "evaluate", "--game", game, "--players", str(players),
             "--policies", agent, "expert", "--games", str(players), "--workers", "1",
             "--no-progress"], capture_output=True, text=True, timeout=900, cwd=tmp_path)
        assert played.returncode == 0, played.stdout + played.stderr
        assert agent in played.stdout and "expert" in played.stdout
