"""The OpenSpiel games and the PettingZoo envs play the same games: for the same deals (the
env's seed) and the same actions, the same observations, masks, rewards and final scores, over
hundreds of games per player count and a spread of the options."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

import hunger_rl.openspiel  # noqa: E402,F401 - registers the games
from hunger_rl.engines.hunger_show.tokens import NUM_ACTIONS  # noqa: E402
from hunger_rl.envs import hunger_show_v0, hungry_v0  # noqa: E402

GAMES_PER_COUNT = 200


def hungry_options(seed: int) -> dict:
    """A spread of the env's options over the games."""
    return {"first_player": ("player_0", "random", "player_1")[seed % 3],
            "tied_second": ("next", "void")[seed % 2]}


def deal_into(state, game) -> None:
    """Chance outcomes that make ``state`` the env's deal ``game`` (a ``HungryState``): the
    first player if it is chance's, the removed cards, each seat's hand."""
    if state.is_chance_node() and state.first is None:
        state.apply_action(game.current_player)
    for card in game.removed:
        state.apply_action(card)
    for hand in game.hands:
        for card in np.repeat(np.arange(hand.size), hand):
            state.apply_action(int(card))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hungry_openspiel_game_equals_the_env(players):
    rng = np.random.default_rng(players)
    for seed in range(GAMES_PER_COUNT):
        options = hungry_options(seed)
        env = hungry_v0.raw_env(num_players=players, **options)
        env.reset(seed=seed)
        game = pyspiel.load_game("python_hungry", {"players": players, **options})
        state = game.new_initial_state()
        deal_into(state, env.game)
        for agent in env.agent_iter():
            _, reward, termination, _, _ = env.last()
            if termination:
                assert reward == state.returns()[env.possible_agents.index(agent)]
                env.step(None)
                continue
            if state.is_chance_node():  # the card this turn's mover will draw
                state.apply_action(env.game.deck[0])
            player = env.possible_agents.index(agent)
            assert state.current_player() == player
            for seat, name in enumerate(env.possible_agents):
                observed = env.observe(name)
                assert state.observation_tensor(seat) == observed["observation"].tolist()
                assert state.information_state_tensor(seat) == observed["observation"].tolist()
                assert state.legal_actions(seat) == np.flatnonzero(observed["action_mask"]
                                                                   ).tolist()
            action = int(rng.choice(state.legal_actions()))
            env.step(action)
            state.apply_action(action)
        assert state.is_terminal()
        assert state.engine.totals() == list(env.totals.values())
        assert [f"player_{p}" for p in state.engine.score().winners] == env.winners


def show_options(seed: int) -> dict:
    """A spread of the env's options over the games (a short deck once in five)."""
    events = ("standard", "hard", "calm")[seed % 3]
    short = seed % 5 == 4 and events != "hard"  # a hard deck holds 8 unpleasant cards
    return {"events": events, "characters": seed % 2 == 1, "deck_size": 6 if short else 10}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_hunger_show_openspiel_game_equals_the_env(players):
    rng = np.random.default_rng(players)
    for seed in range(GAMES_PER_COUNT):
        options = show_options(seed)
        env = hunger_show_v0.parallel_env(num_players=players, **options)
        observations, _ = env.reset(seed=seed)
        game = pyspiel.load_game("python_hunger_show", {"players": players, "seed": seed,
                                                        **options})
        state = game.new_initial_state()
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            for seat, agent in enumerate(env.possible_agents):
                if agent in env.agents:
                    observed = observations[agent]
                    assert state.observation_tensor(seat) == observed["observation"].tolist()
                    assert state.legal_actions(seat) == np.flatnonzero(
                        observed["action_mask"]).tolist()
                else:
                    assert state.legal_actions(seat) == []
            actions = {agent: int(rng.integers(NUM_ACTIONS * env.config.num_locations))
                       for agent in env.agents}
            observations, rewards, _, _, _ = env.step(actions)
            state.apply_actions([actions.get(agent, pyspiel.INVALID_ACTION)
                                 for agent in env.possible_agents])
            for agent, reward in rewards.items():
                returns[agent] += reward
                assert state.rewards()[env.agent_seats[agent]] == reward
        assert state.is_terminal()
        assert state.returns() == list(returns.values())
        assert sum(state.returns()) == pytest.approx(0)
        assert [f"player_{p}" for p in state.show.winners] == env.winners
        assert state.show.final_keys == env.game.final_keys
