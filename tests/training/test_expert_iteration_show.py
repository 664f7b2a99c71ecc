"""Expert iteration on HUNGER: The Show (``smmcts:N:SPEC`` as the teacher) on a tiny budget:
its games and targets, its artefacts, a resume after a kill that continues identically, and
bad configs."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from hunger_rl.cli import main
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies.learned import build_network, network_weights, read_metadata
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.registry import make_policy
from hunger_rl.training import expert_iteration
from hunger_rl.training.config import config_from_dict, load_config
from hunger_rl.training.expert_iteration import GameSettings, game_seeds, play_games

TINY = Path(__file__).with_name("tiny_expert_iteration_show.yaml")
REPOSITORY = Path(__file__).resolve().parents[2]


def tiny_settings(explore=True):
    config = load_config(TINY)
    metadata = expert_iteration._metadata(config, make_encoder("hunger_show", 3).size)
    torch.manual_seed(0)
    return config, GameSettings(metadata, network_weights(build_network(metadata)), 6, None,
                                explore)


def test_shows_record_every_search_with_a_legal_target_and_the_searchers_win_share():
    config, settings = tiny_settings()
    seeds = game_seeds(config.seed, 0, 2)
    games = play_games("hunger_show", 3, {}, settings, seeds)
    assert len(games) == 2
    for game in games:
        # At least the first day of all three players, one position per living player a day.
        assert len(game) >= 3
        assert (game.targets[~game.masks] == 0).all()
        assert np.allclose(game.targets.sum(axis=1), 1.0)
        # The targets are over the 15 picks of a 3-player show, of 20 actions.
        assert (game.masks.sum(axis=1) == 15).all()
        # The first day holds each seat once, in seat order; the shares are a show's: a
        # winner's 1/k, the others' 0, adding up to 1 over the seats.
        first_day = game.win_shares[:3]
        assert first_day.sum() == pytest.approx(1.0)
        assert set(np.unique(game.win_shares)) <= {0.0, *np.unique(first_day)}
    # Each show is played from its own seeds: chunks of shows make the same shows.
    apart = (play_games("hunger_show", 3, {}, settings, seeds[:1])
             + play_games("hunger_show", 3, {}, settings, seeds[1:]))
    for alone, together in zip(apart, games, strict=True):
        for name in ("observations", "masks", "targets", "win_shares"):
            assert np.array_equal(getattr(alone, name), getattr(together, name))


def test_the_positions_are_the_envs_observations_of_the_searching_seats():
    """The first day's positions are the env's first observations, seat by seat."""
    config, settings = tiny_settings(explore=False)
    seeds = game_seeds(config.seed, 0, 1)
    game = play_games("hunger_show", 3, {}, settings, seeds)[0]
    observations, _ = hunger_show_v0.parallel_env(num_players=3).reset(seed=int(seeds[0, 0]))
    for seat in range(3):
        assert np.array_equal(game.observations[seat],
                              observations[f"player_{seat}"]["observation"])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny run through the command line (2 iterations of 3 shows)."""
    out = tmp_path_factory.mktemp("expert_iteration_show")
    assert main(["train", str(TINY), "--out", str(out), "--no-progress"]) == 0
    return out


def test_a_run_writes_its_artefacts_and_its_network_guides_the_search(trained):
    for name in ("policy.safetensors", "policy.json", "config.yaml", "evaluation.csv",
                 "evaluation.json", "learning_curve.csv", "learning_curve.png",
                 "iterations.jsonl"):
        assert (trained / name).is_file(), name
    log = [json.loads(line) for line in (trained / "iterations.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in log] == [1, 2]
    assert [row["cutoff"] for row in log] == [None, None]
    steps = [log[0]["positions"], log[0]["positions"] + log[1]["positions"]]
    assert [row["steps"] for row in log] == steps
    assert sorted(p.name for p in (trained / "checkpoints").iterdir()) == [
        f"step_{step:09d}" for step in steps]
    curve = (trained / "learning_curve.csv").read_text().splitlines()
    assert [line.split(",")[:2] for line in curve[1:]] == [
        ["0", "random"], ["0", "crowd"], [str(steps[0]), "random"], [str(steps[0]), "crowd"],
        [str(steps[1]), "random"], [str(steps[1]), "crowd"]]
    metadata = read_metadata(trained / "policy.safetensors")
    assert metadata.steps == steps[1] and metadata.extra["value"] == "win_share"
    search = make_policy(f"smmcts:4:{trained / 'policy.safetensors'}", "hunger_show", 3)
    observation = hunger_show_v0.parallel_env(num_players=3).reset(seed=0)[0]["player_1"]
    assert observation["action_mask"][search.act(observation, np.random.default_rng(0))]


def test_a_killed_run_resumes_and_continues_identically(trained, tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "hunger_rl.cli", "train", str(TINY), "--out", str(out),
               "--no-progress"]
    run = subprocess.Popen(command, cwd=REPOSITORY, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL,
                           env={**os.environ, "PYTHONPATH": str(REPOSITORY)})
    try:
        while not list((out / "checkpoints").glob("*/state.json")):
            assert run.poll() is None, "the run ended before its first checkpoint"
            time.sleep(0.02)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    # Whatever the kill left of the second iteration, the resumed run starts after the first.
    first, *later = sorted((out / "checkpoints").iterdir())
    for folder in later:
        shutil.rmtree(folder)
    assert (first / "state.json").is_file()
    assert main(["train", str(TINY), "--out", str(out), "--resume", str(out),
                 "--no-progress"]) == 0
    for name, weights in load_file(trained / "policy.safetensors").items():
        assert torch.equal(weights, load_file(out / "policy.safetensors")[name]), name
    for name in ("learning_curve.csv", "evaluation.csv"):
        assert (out / name).read_text() == (trained / name).read_text()
    losses = [{k: v for k, v in json.loads(line).items() if "seconds" not in k}
              for line in (out / "iterations.jsonl").read_text().splitlines()]
    expected = [{k: v for k, v in json.loads(line).items() if "seconds" not in k}
                for line in (trained / "iterations.jsonl").read_text().splitlines()]
    assert losses == expected


BASE = {"game": "hunger_show", "num_players": 4, "backend": "expert_iteration"}


@pytest.mark.parametrize(("changes", "problem"), [
    ({"expert_iteration": {"cutoff": 3}}, "expert_iteration.cutoff applies to hungry only"),
    ({"expert_iteration": {"simulations": 1}}, r"expert_iteration.simulations must be an "
                                               r"integer in \[2"),
    ({"expert_iteration": {"rollouts": 8}}, "unknown key expert_iteration.rollouts"),
    ({"expert_iteration": {"start": "crowd"}}, "expert_iteration.start: 'crowd' is not a "
                                               "trained network"),
    ({"expert_iteration": {"start": "pretrained:hunger_show_4p"}, "network": {"hidden": [16]}},
     "expert_iteration.start: 'pretrained:hunger_show_4p' has network.hidden"),
    ({"game_options": {"decision_mode": "agents"}},
     "backend expert_iteration searches the daily picks only; use it without "
     "game_options.decision_mode: agents"),
])
def test_bad_expert_iteration_configs_name_the_key(changes, problem):
    with pytest.raises(ValueError, match=problem):
        config_from_dict({**BASE, **changes})


def test_the_shipped_config_starts_from_the_shipped_agent():
    config = load_config(REPOSITORY / "hunger_rl" / "configs"
                         / "expert_iteration_hunger_show_4p.yaml")
    assert config.backend == "expert_iteration" and config.game == "hunger_show"
    assert config.expert_iteration.start == "pretrained:hunger_show_4p"
