"""A tiny run of scripts/train_interop.py per library: it trains, and the learned policy plays
only legal cards through whole games (the env raises on a masked one)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_interop.py"


def load_script():
    spec = importlib.util.spec_from_file_location("train_interop", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("library", ["torchrl", "tianshou"])
def test_tiny_training_plays_legal_games(library):
    pytest.importorskip(library)
    script = load_script()
    act = script.TRAINERS[library](games=16, seed=0)
    share = script.play_against_random(act, games=4, seed=0)
    assert 0.0 <= share <= 1.0
