"""scripts/hunger_show_robustness.py: its tables' labels, sb3-contrib's MaskablePPO left at
every default and measured over whole seat rotations, and a tiny end-to-end run whose strength
figures are the same games `evaluate` plays with the seed it names."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
import sb3_contrib
from scripts_under_test import load_script

from hunger_rl.arena.evaluation import evaluate

robustness = load_script("hunger_show_robustness")


def test_table_labels_name_every_seat_but_the_agents():
    label = robustness.table_label
    assert label(["expert", "crowd", "greedy"], 4) == "expert+crowd+greedy"
    assert label(["smmcts:100"], 4) == "3 x smmcts:100"
    assert label(["crowd"], 6) == "5 x crowd"
    assert label(["expert"], 2) == "1 x expert"


class FirstLegalModel:
    """Stands in for MaskablePPO: records how it was built and plays the first legal action."""

    built: list[dict] = []

    def __init__(self, policy, env, **settings):
        FirstLegalModel.built.append({"policy": policy, **settings})
        self.env = env
        self.num_timesteps = 0

    def learn(self, steps, callback):
        self.num_timesteps = steps

    def get_env(self):
        return SimpleNamespace(envs=[self.env])

    def predict(self, observation, action_masks, deterministic):
        assert deterministic
        return np.flatnonzero(action_masks)[0], None


def test_maskable_ppo_keeps_its_defaults_and_plays_whole_rotations(monkeypatch):
    monkeypatch.setattr(sb3_contrib, "MaskablePPO", FirstLegalModel)
    FirstLegalModel.built = []
    figure = robustness.sb3_default_exploiter("random", 3, 100, games=4, seed=5)
    # Only the seed and the silence are set: every learning setting is the library's default.
    assert FirstLegalModel.built == [{"policy": "MlpPolicy", "seed": 5, "verbose": 0}]
    assert figure["steps"] == 100
    assert figure["games"] == 6  # 4 games rounded up to two whole rotations of 3 seats
    assert 0.0 <= figure["win_share"] <= 1.0
    assert figure["ci_low"] <= figure["win_share"] <= figure["ci_high"]


def test_a_tiny_run_reports_evaluates_games_and_a_batched_exploiter(monkeypatch, tmp_path):
    out = tmp_path / "figures.json"
    monkeypatch.setattr(sys, "argv", [
        "hunger_show_robustness.py", "--spec", "random", "--players", "2", "--games", "6",
        "--seed", "3", "--steps", "256", "--sb3-steps", "0", "--json", str(out)])
    robustness.main()
    (entry,) = json.loads(out.read_text())
    assert (entry["spec"], entry["num_players"], entry["seed"]) == ("random", 2, 3)
    assert list(entry["tables"]) == ["1 x crowd", "1 x expert"]
    for opponent, label in (("crowd", "1 x crowd"), ("expert", "1 x expert")):
        row = evaluate("hunger_show", 2, ["random", opponent], games=6, seed=3,
                       progress=False).rows[0]
        assert entry["tables"][label]["win_share"] == row.win_share
        assert entry["tables"][label]["games"] == row.games
    (label,) = entry["exploiters"]
    assert label == "suite recipe, 256 steps"
    exploiter = entry["exploiters"][label]
    assert exploiter["batched"] is True  # random is compiled: the batched engine trains it
    assert exploiter["steps"] >= 256
    assert exploiter["games"] == 6
