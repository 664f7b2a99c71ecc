"""SuperSuit 3.11: ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1`` (SuperSuit's own
vector-env recipe, as in PettingZoo's SB3 tutorials), with Box observations and the masks in
``info["action_mask"]``. HUNGER keeps its eliminated players (``eliminated="stay"``), since
the vector env needs a constant set of agents; Hungry goes through PettingZoo's
``turn_based_aec_to_parallel``, which ignores the actions of the players not to move.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import PLAYER_COUNTS, assert_zero_sum

from hunger_rl.envs import hunger_show_v0
from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.interop import pettingzoo_env

ss = pytest.importorskip("supersuit")
from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # noqa: E402

COPIES = 2
GAMES_PER_COPY = 2


def play(parallel, num_players, seed):
    """Masked random play until every copy finished GAMES_PER_COPY games; per game, its
    returns (one per player), its number of steps and its terminal observation."""
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(parallel), COPIES,
                                num_cpus=0, base_class="gymnasium")
    _, infos = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = np.zeros((COPIES, num_players))
    steps = np.zeros(COPIES, dtype=int)
    games = [[] for _ in range(COPIES)]
    while min(len(g) for g in games) < GAMES_PER_COPY:
        masks = np.stack([info["action_mask"] for info in infos])
        # A waiting Hungry player has an all-zero mask and its action is ignored.
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, terminations, _, new_infos = vec.step(actions)
        for row, action in enumerate(actions):  # no masked action of a player that may act
            assert not masks[row].any() or masks[row][action]
        returns += rewards.reshape(COPIES, num_players)
        steps += 1
        done = terminations.reshape(COPIES, num_players).all(axis=1)
        for copy in np.flatnonzero(done):
            final_info = new_infos[copy * num_players]
            games[copy].append((returns[copy].copy(), steps[copy],
                                final_info["terminal_observation"]))
            returns[copy], steps[copy] = 0, 0
        infos = new_infos
    return [game for copy_games in games for game in copy_games]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show(num_players):
    parallel = pettingzoo_env("hunger_show", "supersuit", num_players=num_players)
    day = hunger_show_v0.observation_layout(num_players)["day"]
    for returns, steps, last_observation in play(parallel, num_players, seed=num_players):
        assert_zero_sum(returns)
        assert steps == last_observation[day][0]  # one step a day, to the end of the show


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hungry"])
def test_hungry(num_players):
    parallel = turn_based_aec_to_parallel(pettingzoo_env("hungry", "supersuit",
                                                         num_players=num_players))
    for returns, steps, _ in play(parallel, num_players, seed=num_players):
        assert_zero_sum(returns)
        assert steps == TOTAL_PLAYS
