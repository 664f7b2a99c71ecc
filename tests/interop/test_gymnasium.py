"""Gymnasium ids of the single-agent views: ``gymnasium.make`` / ``make_vec``, env checkers."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.envs.registration import load_env_creator
from gymnasium.utils.env_checker import check_env

import hunger_rl  # noqa: F401 - registers the ids
from hunger_rl.envs import GAMES
from hunger_rl.training.interop import GYMNASIUM_ENVS


@pytest.mark.parametrize(("game", "num_players", "opponents"), [
    ("hungry", 2, "expert"), ("hungry", 4, ["greedy", "random", "expert"]),
    ("hunger_show", 2, "crowd"), ("hunger_show", 6, "random")])
def test_make_passes_the_env_checker(game, num_players, opponents):
    env = gymnasium.make(GYMNASIUM_ENVS[game].id, num_players=num_players, opponents=opponents)
    assert env.spec.id == GYMNASIUM_ENVS[game].id
    assert env.spec.kwargs == {"num_players": num_players, "opponents": opponents}
    check_env(env.unwrapped)
    _, info = env.reset(seed=1)
    assert env.unwrapped.opponent_labels == (
        [opponents] * (num_players - 1) if isinstance(opponents, str) else opponents)
    terminated, steps = False, 0
    while not terminated:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, info = env.step(int(legal[0]))
        steps += 1
        assert not truncated
    assert 0.0 <= info["win_share"] <= 1.0


def test_opponents_need_one_spec_or_one_per_seat():
    with pytest.raises(ValueError, match="one spec or 2 specs for 3 players"):
        gymnasium.make("hunger_rl/Hungry-v0", num_players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown policy spec"):
        gymnasium.make("hunger_rl/HungerShow-v0", opponents="nobody")


@pytest.mark.parametrize("game", GYMNASIUM_ENVS)
def test_make_vec_never_shows_an_all_zero_mask(game):
    envs = gymnasium.make_vec(GYMNASIUM_ENVS[game].id, num_envs=3, num_players=2)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert envs.spec.id == GYMNASIUM_ENVS[game].id
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 6:
        masks = np.stack(envs.call("action_masks"))
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        _, rewards, terminated, _, infos = envs.step(actions)
        finished += int(terminated.sum())
        assert set(rewards[terminated]) <= {-1.0, 0.0, 1.0}


def test_next_step_autoreset_shows_the_finished_game_for_one_step():
    """The documented reason for SAME_STEP: with Gymnasium's default the mask of a finished
    game is all zero on the step whose action the vector env ignores."""
    envs = gymnasium.make_vec("hunger_rl/Hungry-v0", num_envs=1, vectorization_mode="sync")
    envs.reset(seed=0)
    terminated = [False]
    while not terminated[0]:
        mask = envs.call("action_masks")[0]
        _, _, terminated, _, _ = envs.step(np.array([np.flatnonzero(mask)[0]]))
    assert not envs.call("action_masks")[0].any()
    envs.step(np.array([0]))  # ignored: the vector env resets
    assert envs.call("action_masks")[0].any()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_is_registered_and_its_entry_points_build_it(game):
    """A game missing from ``GYMNASIUM_ENVS``, or an entry point building another game, fails."""
    env = GYMNASIUM_ENVS[game]
    spec = gymnasium.spec(env.id)
    single = load_env_creator(spec.entry_point)(num_players=2)
    assert single.unwrapped.game_name == game
    vector = load_env_creator(spec.vector_entry_point)(num_envs=2, num_players=2)
    assert vector.get_attr("game_name") == (game, game)
    single.close()
    vector.close()
    assert isinstance(spec.to_json(), str)  # entry points by name: the spec serialises
