"""scripts/train_maskable_ppo.py: sb3-contrib's MaskablePPO at its defaults on a Gymnasium view,
saved as a model file that the ``sb3:`` spec plays; the same seed gives the same model."""

from __future__ import annotations

import json

import pytest
import torch
from sb3_contrib import MaskablePPO
from scripts_under_test import load_script

from hunger_rl.arena.evaluation import evaluate

train_maskable_ppo = load_script("train_maskable_ppo")


def train(out, capsys, seed=3):
    assert train_maskable_ppo.main(["--game", "hungry", "--players", "2", "--opponents", "random",
                                    "--steps", "64", "--seed", str(seed), "--out", str(out),
                                    "--no-progress"]) == 0
    return json.loads(capsys.readouterr().out.splitlines()[-1])


def test_the_default_recipe_saves_a_model_the_sb3_spec_plays(tmp_path, capsys):
    report = train(tmp_path / "first.zip", capsys)
    # MaskablePPO's default rollout is 2,048 steps, so 64 requested steps train one rollout:
    # the library's n_steps was left alone.
    assert report["steps"] == 2048 and report["model"] == str(tmp_path / "first.zip")
    rows = evaluate("hungry", 2, [f"sb3:{tmp_path / 'first.zip'}", "random"], games=4, seed=0,
                    progress=False).rows
    assert [row.games for row in rows] == [4, 4]
    train(tmp_path / "again.zip", capsys)
    first, again = (MaskablePPO.load(tmp_path / name).policy.state_dict()
                    for name in ("first.zip", "again.zip"))
    assert all(torch.equal(first[key], again[key]) for key in first)
    other = MaskablePPO.load(train(tmp_path / "other.zip", capsys, seed=4)["model"])
    assert not all(torch.equal(first[key], value)
                   for key, value in other.policy.state_dict().items())


@pytest.mark.parametrize("arguments, message", [
    (["--steps", "0", "--out", "m.zip"], "--steps must be at least 1, got 0"),
    (["--steps", "9", "--out", "m.pt"], "--out must name a .zip model file, got m.pt"),
    (["--steps", "9", "--out", "m.zip", "--players", "5"], "Hungry is for 2 to 4 players"),
])
def test_bad_arguments_stop_with_a_message_naming_them(arguments, message, capsys):
    with pytest.raises(SystemExit):
        train_maskable_ppo.main(["--game", "hungry", "--players", "2", "--opponents", "expert",
                                 *arguments])
    assert message in capsys.readouterr().err
