"""AgileRL 2.58 (its own environment: `make test-agilerl`; it pins pettingzoo<1.27 and tensordict
0.13, which clash with the `interop` extra's TorchRL 0.14).

HUNGER: `IPPO.get_action(obs, infos)` on the Parallel env, the masks in the infos as AgileRL
requires (`action_mask="info"`), eliminated players staying (IPPO acts for every agent it was
built for); and AgileRL's vector env `AsyncPettingZooVecEnv` over the AEC view converted by
PettingZoo's `aec_to_parallel`, with no option but `action_mask="info"`. Hungry: AgileRL's
Connect Four recipe, a `DQN` whose `get_action` takes the mover's mask, on the AEC env. All
play whole games; the envs raise on a masked action.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from interop_helpers import PLAYER_COUNTS, assert_zero_sum
from pettingzoo.utils.conversions import aec_to_parallel

from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.envs import hunger_show_v0
from hunger_rl.training.interop import agilerl_infos, pettingzoo_env

algorithms = pytest.importorskip("agilerl.algorithms")
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv  # noqa: E402

COPIES = 2


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


def make_show_aec_view(num_players):
    return aec_to_parallel(hunger_show_v0.env(num_players=num_players, action_mask="info"))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS["hunger_show"])
def test_ippo_plays_whole_shows_in_agilerl_vector_env(num_players):
    torch.manual_seed(num_players)
    vec = AsyncPettingZooVecEnv([lambda: make_show_aec_view(num_players)] * COPIES)
    agents = vec.agents
    agent = algorithms.IPPO(observation_spaces=[vec.single_observation_space(a) for a in agents],
                            action_spaces=[vec.single_action_space(a) for a in agents],
                            agent_ids=agents)
    observations, infos = vec.reset(seed=num_players)
    returns = np.zeros((COPIES, num_players))
    games = [[] for _ in range(COPIES)]  # per copy: (returns, eliminated while the show went on)
    left_early = np.zeros(COPIES, dtype=bool)
    try:
        while min(len(g) for g in games) < 2:
            actions, *_ = agent.get_action(obs=observations, infos=agilerl_infos(infos))
            for name, action in actions.items():  # only unmasked actions, no-op when out
                masks = infos[name]["action_mask"]
                assert masks[np.arange(COPIES), action.astype(int)].all()
            observations, rewards, terminations, _, infos = vec.step(
                {name: action.astype(int) for name, action in actions.items()})
            step_rewards = np.stack([rewards[a] for a in agents], axis=1)
            done = np.stack([terminations[a] for a in agents], axis=1)
            assert (done.all(axis=1) | ~done.any(axis=1)).all()  # the show ends for all at once
            returns += step_rewards
            # R1: a player eliminated while the show goes on gets -1/(N-1) then.
            left_early |= ~done.any(axis=1) & (step_rewards < 0).any(axis=1)
            for copy in np.flatnonzero(done.all(axis=1)):
                games[copy].append((returns[copy].copy(), left_early[copy]))
                returns[copy], left_early[copy] = 0, False
    finally:
        vec.close()
    for game_returns, _ in (game for copy_games in games for game in copy_games):
        assert_zero_sum(game_returns)
    if num_players > 2:  # with 2 players the first elimination ends the show
        assert any(early for copy_games in games for _, early in copy_games)


def test_ippo_refuses_masks_in_the_observation_at_once():
    """The one option AgileRL cannot do without: its own check stops the first call, before
    any action, when the masks are in the observation (the view's default)."""
    env = aec_to_parallel(hunger_show_v0.env(num_players=2))
    agent = algorithms.IPPO(
        observation_spaces=[env.observation_space(a) for a in env.possible_agents],
        action_spaces=[env.action_space(a) for a in env.possible_agents],
        agent_ids=list(env.possible_agents))
    observations, infos = env.reset(seed=0)
    with pytest.raises(AssertionError, match="AgileRL requires action masks to be defined in "
                                             "the information dictionary"):
        agent.get_action(obs=observations, infos=infos)
