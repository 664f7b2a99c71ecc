"""AgileRL 2.58 (its own environment: `make test-agilerl`; it pins pettingzoo<1.27 and tensordict
0.13, which clash with the `interop` extra's TorchRL 0.14).

HUNGER: `IPPO.get_action(obs, infos)` on the Parallel env, the masks in the infos as AgileRL
requires (`action_mask="info"`), eliminated players staying (IPPO acts for every agent it was
built for). Hungry: AgileRL's Connect Four recipe, a `DQN` whose `get_action` takes the
mover's mask, on the AEC env. Both play whole games; the envs raise on a masked action.
"""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import PLAYER_COUNTS, assert_zero_sum

from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.interop import agilerl_infos, pettingzoo_env

algorithms = pytest.importorskip("agilerl.algorithms")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_ippo_plays_whole_shows(num_players):
    env = pettingzoo_env("hunger_show", "agilerl", num_players=num_players)
    agent = algorithms.IPPO(
        observation_spaces=[env.observation_space(a) for a in env.possible_agents],
        action_spaces=[env.action_space(a) for a in env.possible_agents],
        agent_ids=list(env.possible_agents))
    for seed in range(2):
        observations, infos = env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        days = 0
        while env.agents:
            actions, *_ = agent.get_action(obs=observations, infos=agilerl_infos(infos))
            for name, action in actions.items():
                assert infos[name]["action_mask"][int(np.asarray(action).item())]
            observations, rewards, _, _, infos = env.step(
                {name: int(np.asarray(action).item()) for name, action in actions.items()})
            days += 1
            for name, reward in rewards.items():
                returns[name] += reward
        assert days == env.game.day
        assert_zero_sum(list(returns.values()))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hungry"])
def test_dqn_plays_whole_games_from_every_seat(num_players):
    env = pettingzoo_env("hungry", "agilerl", num_players=num_players)
    agent = algorithms.DQN(observation_space=env.observation_space("player_0"),
                           action_space=env.action_space("player_0"))
    env.reset(seed=num_players)
    plays, returns = 0, {}
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            returns[name] = reward
            env.step(None)
            continue
        action = int(np.asarray(agent.get_action(observation, epsilon=0.5,
                                                 action_mask=info["action_mask"])).item())
        assert info["action_mask"][action]
        env.step(action)
        plays += 1
    assert plays == TOTAL_PLAYS
    assert_zero_sum(list(returns.values()))
