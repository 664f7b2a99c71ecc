"""TorchRL: ``PettingZooWrapper(env, use_mask=True)``, TorchRL's own PettingZoo recipe, with
random actions drawn from its masked action spec (``env.rollout`` without a policy).

The envs raise on any masked action of a live agent, so a finished rollout shows that none
reached them; the rollout's own masks are checked against its actions too.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import PLAYER_COUNTS, assert_zero_sum

from hunger_rl.envs import hunger_show_v0, hungry_v0

PettingZooWrapper = pytest.importorskip("torchrl.envs.libs.pettingzoo").PettingZooWrapper

MAX_STEPS = 2000


def assert_legal(rollout, group: str) -> None:
    """Every action of an acting agent was allowed by the mask it was sampled from."""
    actions = rollout[group, "action"].numpy()
    masks = rollout[group, "action_mask"].numpy()
    acting = rollout[group, "mask"].numpy()
    chosen = np.take_along_axis(masks, actions[..., None], axis=-1)[..., 0]
    assert chosen[acting].all()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show_parallel(num_players):
    game_env = hunger_show_v0.parallel_env(num_players=num_players)
    env = PettingZooWrapper(game_env, use_mask=True, done_on_any=False, seed=num_players)
    for _ in range(2):
        rollout = env.rollout(MAX_STEPS)
        assert rollout["next", "done"][-1].item() and not rollout["next", "done"][:-1].any()
        assert len(rollout) == game_env.game.day  # one step a day, to the end of the show
        assert_legal(rollout, "player")
        assert_zero_sum(rollout["next", "player", "reward"].sum(0).squeeze(-1).numpy())


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_hunger_show_aec_view_as_it_is(num_players):
    """The AEC view with no options: eliminated players keep their turns (their mask allows
    the no-op) until the show ends, so the rollout goes through eliminations to the end."""
    game_env = hunger_show_v0.env(num_players=num_players)
    env = PettingZooWrapper(game_env, use_mask=True, seed=num_players)
    eliminated_midway = 0
    for _ in range(3):
        rollout = env.rollout(MAX_STEPS)
        game = game_env.unwrapped.game
        assert game.done and rollout["next", "done"][-1].item()
        assert not rollout["next", "done"][:-1].any()  # the episode ends with the show
        assert len(rollout) == game.day * num_players  # every player, every day
        rewards = np.stack([rollout["next", agent, "reward"].squeeze(-1).numpy()
                            for agent in game_env.possible_agents], axis=1)
        for agent in game_env.possible_agents:
            assert_legal(rollout, agent)
        assert_zero_sum(rewards.sum(axis=0))
        # R1 pays -1/(N-1) on the day a player starves; before the last day, the show went on.
        eliminated_midway += int((rewards[:-num_players] < 0).any())
    if num_players > 2:  # with 2 players the first elimination ends the show
        assert eliminated_midway
@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hungry"])
def test_hungry(num_players):
    game_env = hungry_v0.env(num_players=num_players)
    env = PettingZooWrapper(game_env, use_mask=True, seed=num_players)
    rollout = env.rollout(MAX_STEPS)
    assert game_env.unwrapped.game.is_over and rollout["next", "done"][-1].item()
    assert len(rollout) == 48
    returns = []
    for agent in game_env.possible_agents:
        assert_legal(rollout, agent)
        returns.append(rollout["next", agent, "reward"].sum().item())
    assert_zero_sum(returns)
