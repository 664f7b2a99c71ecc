"""Tianshou 2: ``tianshou.env.PettingZooEnv`` over the AEC env, one
``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` per seat in a ``MultiAgentOffPolicyAlgorithm``,
a ``DummyVectorEnv`` and a ``Collector`` with a ``VectorReplayBuffer`` (Tianshou's own
tic-tac-toe recipe). The buffer stores every info, so this also checks that they batch.

Tianshou ends an episode when the agent to move terminates: HUNGER's AEC view, as it is, keeps
an eliminated player's turns (its mask allows the no-op) until the show ends.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import PLAYER_COUNTS, assert_zero_sum

from hunger_rl.envs import hunger_show_v0
from hunger_rl.training.interop import pettingzoo_env

tianshou = pytest.importorskip("tianshou")
from tianshou.algorithm import (  # noqa: E402
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

CASES = [(game, n) for game, counts in PLAYER_COUNTS.items() for n in counts]


@pytest.mark.parametrize(("game", "num_players"), CASES)
def test_random_masked_players_collect_whole_games(game, num_players):
    np.random.seed(num_players)  # Tianshou's random players draw from NumPy's global generator
    envs = [PettingZooEnv(pettingzoo_env(game, "tianshou", parallel=False,
                                         num_players=num_players)) for _ in range(2)]
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(envs[0].action_space)
                    for _ in envs[0].agents],
        env=envs[0])
    vector_env = DummyVectorEnv([lambda env=env: env for env in envs])
    vector_env.seed(num_players)
    buffer = VectorReplayBuffer(5000, len(envs))
    collector = Collector(algorithm, vector_env, buffer)
    stats = collector.collect(n_episode=4, reset_before_collect=True)
    assert stats.n_collected_episodes == 4
    data = buffer.sample(0)[0]  # everything, in storage order
    # No masked action reached the env (it raises), and the buffer agrees.
    assert data.obs.mask[np.arange(len(data)), data.act].all()
    assert int(data.terminated.sum()) == 4
    assert {"win_share", "score" if game == "hungry" else "day"} <= set(data.info.keys())
    for env_buffer in buffer.buffers:
        rewards = env_buffer.rew[:len(env_buffer)]  # one column per player
        ends = np.flatnonzero(env_buffer.terminated[:len(env_buffer)])
        for start, end in zip(np.r_[0, ends[:-1] + 1], ends, strict=True):
            assert_zero_sum(rewards[start:end + 1].sum(axis=0))
    # Whole games: 48 plays of Hungry; every player every day of HUNGER.
    if game == "hungry":
        assert (stats.lens == 48).all()
    else:
        assert (stats.lens % num_players == 0).all()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show_aec_view_as_it_is(num_players):
    """``PettingZooEnv(hunger_show_v0.env())``, no options: episodes end with the show, through
    eliminations, and their returns sum to zero."""
    np.random.seed(num_players)
    envs = [PettingZooEnv(hunger_show_v0.env(num_players=num_players)) for _ in range(2)]
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(envs[0].action_space)
                    for _ in envs[0].agents],
        env=envs[0])
    vector_env = DummyVectorEnv([lambda env=env: env for env in envs])
    vector_env.seed(num_players)
    buffer = VectorReplayBuffer(5000, len(envs))
    stats = Collector(algorithm, vector_env, buffer).collect(n_episode=6,
                                                             reset_before_collect=True)
    assert stats.n_collected_episodes == 6
    eliminated_midway = 0
    for env_buffer in buffer.buffers:
        data = env_buffer[np.arange(len(env_buffer))]
        assert data.obs.mask[np.arange(len(data)), data.act].all()
        ends = np.flatnonzero(data.terminated)
        for start, end in zip(np.r_[0, ends[:-1] + 1], ends, strict=True):
            rewards = data.rew[start:end + 1]  # one column per player
            assert_zero_sum(rewards.sum(axis=0))
            # Every player every day, to the show's end (the info after it: the days played).
            assert end + 1 - start == data.info.day[end] * num_players
            eliminated_midway += int((rewards[:-num_players] < 0).any())
    if num_players > 2:  # with 2 players the first elimination ends the show
        assert eliminated_midway
