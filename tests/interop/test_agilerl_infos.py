"""``hunger_rl.training.interop.agilerl_infos`` on infos shaped as AgileRL 2.58 gives them (its
own test runs in AgileRL's environment: tests/interop/test_agilerl.py)."""

from __future__ import annotations

import numpy as np
import pytest

from hunger_rl.envs import hunger_show_v0
from hunger_rl.training.interop import agilerl_infos

LIVE = np.r_[np.ones(10), np.zeros(10)].astype(np.int8)  # 2 players: 10 legal actions
NOOP = np.eye(20, dtype=np.int8)[hunger_show_v0.NOOP_ACTION]


def vector_env_infos():
    """What ``AsyncPettingZooVecEnv._add_info`` makes of two envs' infos: per agent, each key's
    values stacked over the envs beside a ``_key`` flag array, and a ``_agent`` flag array per
    agent (here player_1 is out in the second env)."""
    flags = np.array([True, True])
    return {
        "player_0": {"day": np.array([3, 5]), "_day": flags.copy(),
                     "win_share": np.array([0.0, 0.0]), "_win_share": flags.copy(),
                     "action_mask": np.stack([LIVE, LIVE]), "_action_mask": flags.copy()},
        "_player_0": flags.copy(),
        "player_1": {"day": np.array([3, 5]), "_day": flags.copy(),
                     "win_share": np.array([0.0, 0.0]), "_win_share": flags.copy(),
                     "action_mask": np.stack([LIVE, NOOP]), "_action_mask": flags.copy()},
        "_player_1": flags.copy(),
    }


def test_vector_env_masks_become_flat_lists_row_after_row():
    infos = vector_env_infos()
    converted = agilerl_infos(infos)
    assert converted["player_0"]["action_mask"] == [1] * 10 + [0] * 10 + [1] * 10 + [0] * 10
    assert converted["player_1"]["action_mask"] == [1] * 10 + [0] * 10 + [1] + [0] * 19
    assert all(type(value) is int for value in converted["player_1"]["action_mask"])
    assert converted["_player_0"] is infos["_player_0"]  # the flags pass unchanged
    np.testing.assert_array_equal(converted["player_1"]["day"], [3, 5])
    assert isinstance(infos["player_0"]["action_mask"], np.ndarray)  # the input is left alone


def test_single_env_masks_become_flat_lists():
    env = hunger_show_v0.parallel_env(num_players=2, action_mask="info")
    _, infos = env.reset(seed=0)
    converted = agilerl_infos(infos)
    assert converted["player_1"] == {"day": 0, "win_share": 0.0, "action_mask": LIVE.tolist()}


def test_infos_without_masks_are_refused():
    _, infos = hunger_show_v0.parallel_env(num_players=2).reset(seed=0)
    with pytest.raises(ValueError, match=r"infos\['player_0'\] has no 'action_mask'.*"
                                         r"action_mask='info'"):
        agilerl_infos(infos)
