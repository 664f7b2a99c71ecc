"""Policies from outside the suite: ``python:MODULE:NAME`` (a user's function or class, in
user_policies.py beside this file) and ``sb3:PATH`` (a MaskablePPO or PPO model file trained
on the Gymnasium view) play through evaluate, tournament and exploit, in worker processes too;
the ones that do not fit are refused, named, before a game or as soon as they play an illegal
action."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.arena.tournament import tournament
from hunger_rl.cli import main
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.registry import make_policy

HERE = Path(__file__).parent
TINY_EXPLOIT = HERE.parent / "training" / "tiny_exploit_hungry.yaml"


def outcomes(result):
    return [(record.win_shares, record.scores) for record in result.records]


def test_a_users_function_and_class_play_as_the_suites_own_players():
    """python:user_policies:forecast_play wraps the forecast, Expert the expert: game by game
    (in two worker processes, which import the module again), the same results as theirs."""
    users = evaluate("hungry", 2, ["python:user_policies:forecast_play",
                                   "python:user_policies:Expert"], games=16, seed=3, workers=2,
                     progress=False)
    suites = evaluate("hungry", 2, ["forecast", "expert"], games=16, seed=3, workers=2,
                      progress=False)
    assert users.games == 16 and outcomes(users) == outcomes(suites)
    assert [row.policy for row in users.rows] == ["python:user_policies:forecast_play",
                                                  "python:user_policies:Expert"]
    show = evaluate("hunger_show", 4, ["python:user_policies:Expert", "crowd"], games=4, seed=1,
                    progress=False)
    assert outcomes(show) == outcomes(evaluate("hunger_show", 4, ["expert", "crowd"], games=4,
                                               seed=1, progress=False))


def test_a_users_policy_plays_a_tournament_and_is_reset_between_games():
    result = tournament("hungry", 2, ["python:user_policies:highest_legal", "random"], games=4,
                        progress=False)
    assert result.games == 4
    policy = make_policy("python:user_policies:Expert", "hunger_show", 4)
    policy.reset()
    policy.reset()
    assert policy._reset.__self__.resets == 2


@pytest.mark.parametrize("spec, game, players, message", [
    ("python:user_policies:forecast_play", "hunger_show", 4, "plays 'hungry', not 'hunger_show'"),
    ("python:user_policies:TwoPlayers", "hungry", 3, r"plays with \[2\] players, not 3"),
    ("python:user_policies:NotSix", "hunger_show", 6,
     r"NotSix\(num_players=6\) failed: six players are too many for me"),
    ("python:user_policies:observation_only", "hungry", 2,
     r"observation_only must take \(observation, rng, view\)"),
    ("python:user_policies:NoAct", "hungry", 2, r"class NoAct has no act\(observation"),
    ("python:user_policies:NOT_A_POLICY", "hungry", 2, "NOT_A_POLICY is a int, neither a class"),
    ("python:user_policies:missing", "hungry", 2, "module 'user_policies' has no 'missing'"),
    ("python:no_such_module_here:act", "hungry", 2, "cannot import 'no_such_module_here'"),
    ("python:user_policies", "hungry", 2, "a Python policy is python:package.module:name"),
    ("python:user_policies:Forward:", "hungry", 2, "a Python policy is python:package"),
    ("python:user_policies:Forward:two", "hungry", 2,
     r"Forward\('two', num_players=2\) failed: invalid literal"),
    ("python:user_policies:highest_legal:3", "hungry", 2,
     r"highest_legal is a function; only a class takes an argument \(:3\)"),
])
def test_a_policy_that_does_not_fit_is_refused_before_any_game(spec, game, players, message):
    with pytest.raises(ValueError, match=message) as error:
        make_policy(spec, game, players)
    assert str(error.value).startswith(repr(spec))


@pytest.mark.parametrize("spec, returned", [
    ("python:user_policies:first_illegal", r"returned action \d+, which is illegal here; "
                                           r"legal: \[\d+(, \d+)*\]"),
    ("python:user_policies:a_string", "returned '3', which is not an action number"),
])
@pytest.mark.parametrize("workers", [1, 2])
def test_an_illegal_action_stops_the_games_naming_the_policy(spec, returned, workers, capsys):
    assert main(["evaluate", "--game", "hungry", "--policies", spec, "random", "--games", "16",
                 "--workers", str(workers), "--no-progress"]) == 2
    printed = capsys.readouterr()
    assert re.search(f"hunger-rl: error: policy '{spec}' {returned}", printed.err), printed.err
    assert printed.out == ""  # no table: nothing was played on


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    """A MaskablePPO and a PPO model trained for a few hundred steps on Hungry's Gymnasium
    view at 2 players."""
    folder = tmp_path_factory.mktemp("sb3")
    env = gym.make("hunger_rl/Hungry-v0", num_players=2, opponents="random")
    maskable = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                           device="cpu")
    maskable.learn(256)
    maskable.save(folder / "maskable.zip")
    plain = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    plain.learn(128)
    plain.save(folder / "ppo.zip")
    return {"maskable": folder / "maskable.zip", "ppo": folder / "ppo.zip"}


def test_an_sb3_model_plays_the_librarys_masked_action(model_files):
    """On the Gymnasium view's own positions, sb3:PATH plays what MaskablePPO.predict plays
    with the mask, deterministically."""
    model = MaskablePPO.load(model_files["maskable"], device="cpu")
    policy = make_policy(f"sb3:{model_files['maskable']}", "hungry", 2)
    env = gym.make("hunger_rl/Hungry-v0", num_players=2, opponents="expert")
    view = env.unwrapped
    observation, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = view.action_masks()
        expected, _ = model.predict(observation, action_masks=mask, deterministic=True)
        played = policy.act(view.game_env.observe(view.learner), rng)
        assert played == int(expected)
        observation, _, over, _, _ = env.step(played)
        if over:
            observation, _ = env.reset()


def test_sb3_models_play_legal_games_through_evaluate(model_files):
    # Worker processes load the model by its spec (each spawn imports torch and sb3: seconds),
    # so one kind plays in workers, the other in this process.
    for kind, workers in (("maskable", 2), ("ppo", 1)):
        result = evaluate("hungry", 2, [f"sb3:{model_files[kind]}", "random"], games=16,
                          workers=workers, progress=False)
        assert result.games == 16
    guided = evaluate("hungry", 2, [f"search:8:sb3:{model_files['maskable']}", "random"],
                      games=2, progress=False)  # the model's logits as the search's prior
    assert guided.games == 2
    sampled = [outcomes(evaluate("hungry", 2, [f"sample:sb3:{model_files['maskable']}", "random"],
                                 games=4, seed=2, progress=False, record=True))
               for _ in range(2)]
    assert sampled[0] == sampled[1]  # reproducible by the seed


def test_an_sb3_model_for_another_view_is_refused(model_files, tmp_path):
    spec = f"sb3:{model_files['maskable']}"
    for game, players in (("hungry", 3), ("hunger_show", 2)):
        size = make_encoder(game, players).size
        with pytest.raises(ValueError, match=(
                rf"was trained on observations of shape \(748,\) and 50 actions; "
                rf"hunger_rl/\w+-v0 with num_players={players} gives shape \({size},\)")):
            make_policy(spec, game, players)
    with pytest.raises(ValueError, match="the cut-off 2 needs a network whose value head"):
        make_policy(f"search:8:2:{spec}", "hungry", 2)
    not_a_model = tmp_path / "notes.zip"
    not_a_model.write_text("hello")
    with pytest.raises(ValueError, match="is not a Stable-Baselines3 model file"):
        make_policy(f"sb3:{not_a_model}", "hungry", 2)
    with pytest.raises(ValueError, match="no model file at"):
        make_policy(f"sb3:{tmp_path / 'missing.zip'}", "hungry", 2)


def test_an_sb3_model_needs_the_train_extra(model_files):
    script = textwrap.dedent(f"""
        import sys
        for name in ("torch", "stable_baselines3", "sb3_contrib"):
            sys.modules[name] = None
        from hunger_rl.policies.registry import make_policy
        try:
            make_policy({f"sb3:{model_files['maskable']}"!r}, "hungry", 2)
        except ValueError as error:
            print(error)
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=300, check=True)
    assert "needs the train extra (pip install 'hunger-rl[train]')" in completed.stdout


def test_exploit_trains_against_a_users_policy_and_an_sb3_model(tmp_path, model_files):
    for spec in ("python:user_policies:forecast_play", f"sb3:{model_files['maskable']}"):
        out = tmp_path / spec.split(":")[0]
        assert main(["exploit", spec, "--game", "hungry", "--steps", "256", "--games", "4",
                     "--config", str(TINY_EXPLOIT), "--out", str(out), "--no-progress"]) == 0
        report = json.loads((out / "exploit.json").read_text())
        assert report["spec"] == spec and report["games"] == 4 and not report["batched"]


def test_a_users_class_is_made_with_the_text_after_its_name():
    """python:MODULE:NAME:TEXT: TEXT (colons included) is the constructor's first argument."""
    observation = {"observation": np.zeros(3), "action_mask": np.array([0, 1, 1, 0, 1], np.int8)}
    rng = np.random.default_rng(0)
    assert make_policy("python:user_policies:Forward:1", "hungry", 2).act(observation, rng) == 2
    assert make_policy("python:user_policies:Forward:0", "hungry", 2).act(observation, rng) == 1
    with pytest.raises(ValueError, match=r"Forward\('1:2', num_players=2\) failed"):
        make_policy("python:user_policies:Forward:1:2", "hungry", 2)
