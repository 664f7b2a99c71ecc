"""SuperSuit 3.11: ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1`` (SuperSuit's own
vector-env recipe, as in PettingZoo's SB3 tutorials). The vector env needs a constant set of
agents: HUNGER's Parallel env keeps its eliminated players with ``eliminated="stay"`` (here with
Box observations and the masks in ``info["action_mask"]``), and its AEC view does so as it is,
converted by PettingZoo's ``aec_to_parallel`` (Dict observations, no options). Hungry goes
through PettingZoo's ``turn_based_aec_to_parallel``, which ignores the actions of the players
not to move.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import PLAYER_COUNTS, assert_zero_sum

from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.envs import hunger_show_v0
from hunger_rl.training.interop import pettingzoo_env

ss = pytest.importorskip("supersuit")
from pettingzoo.utils.conversions import (  # noqa: E402
    aec_to_parallel,
    turn_based_aec_to_parallel,
)

COPIES = 2
GAMES_PER_COPY = 2


def play(parallel, num_players, seed):
    """Masked random play until every copy finished GAMES_PER_COPY games; per game, its
    returns (one per player), its rewards step by step and its terminal observation."""
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(parallel), COPIES,
                                num_cpus=0, base_class="gymnasium")
    observations, infos = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards_so_far = [[] for _ in range(COPIES)]
    games = [[] for _ in range(COPIES)]
    while min(len(g) for g in games) < GAMES_PER_COPY:
        masks = (observations["action_mask"] if isinstance(observations, dict)
                 else np.stack([info["action_mask"] for info in infos]))
        # A waiting Hungry player has an all-zero mask and its action is ignored.
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        observations, rewards, terminations, _, infos = vec.step(actions)
        for row, action in enumerate(actions):  # no masked action of a player that may act
            assert not masks[row].any() or masks[row][action]
        done = terminations.reshape(COPIES, num_players).all(axis=1)
        assert (done | ~terminations.reshape(COPIES, num_players).any(axis=1)).all()
        for copy, copy_rewards in enumerate(rewards.reshape(COPIES, num_players)):
            rewards_so_far[copy].append(copy_rewards)
        for copy in np.flatnonzero(done):
            steps = np.array(rewards_so_far[copy])
            games[copy].append((steps.sum(axis=0), steps,
                                infos[copy * num_players]["terminal_observation"]))
            rewards_so_far[copy] = []
    return [game for copy_games in games for game in copy_games]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show(num_players):
    parallel = pettingzoo_env("hunger_show", "supersuit", num_players=num_players)
    day = hunger_show_v0.observation_layout(num_players)["day"]
    for returns, steps, last_observation in play(parallel, num_players, seed=num_players):
        assert_zero_sum(returns)
        assert len(steps) == last_observation[day][0]  # one step a day, to the end of the show


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show_aec_view_as_it_is(num_players):
    """``aec_to_parallel(hunger_show_v0.env())`` is the native Parallel env, eliminated players
    staying: the vector env plays through eliminations to the end of each show."""
    parallel = aec_to_parallel(hunger_show_v0.env(num_players=num_players))
    day = hunger_show_v0.observation_layout(num_players)["day"]
    eliminated_midway = 0
    for returns, steps, last_observation in play(parallel, num_players, seed=num_players):
        assert_zero_sum(returns)
        assert len(steps) == last_observation["observation"][day][0]
        eliminated_midway += int((steps[:-1] < 0).any())  # R1's -1/(N-1) before the last day
    if num_players > 2:  # with 2 players the first elimination ends the show
        assert eliminated_midway


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hungry"])
def test_hungry(num_players):
    parallel = turn_based_aec_to_parallel(pettingzoo_env("hungry", "supersuit",
                                                         num_players=num_players))
    for returns, steps, _ in play(parallel, num_players, seed=num_players):
        assert_zero_sum(returns)
        assert len(steps) == TOTAL_PLAYS
