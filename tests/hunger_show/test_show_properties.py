"""Invariants over 1,000 seeded random games per player count (split in chunks for xdist):
every token is in exactly one place and values are conserved, every held token is known to its
holder (S18), masks match S6, games end within the deck, R1 rewards of a game sum to zero.

The default suite plays the first two chunks (500 games per count, with and without
characters); the other two are ``slow``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.tokens import token_table
from hunger_rl.envs import hunger_show_v0

GAMES_PER_COUNT = 1000
CHUNKS = 4
PRESETS = ("calm", "standard", "hard")


def play_games(num_players, seeds, characters):
    envs = {preset: hunger_show_v0.parallel_env(num_players=num_players, events=preset,
                                                characters=characters)
            for preset in PRESETS}
    _, values, _, _ = token_table(num_players)
    total_tokens, total_value = len(values), sum(values)
    legal = hunger_show_v0.legal_mask(num_players)
    for seed in seeds:
        env = envs[PRESETS[seed % 3]]
        observations, _ = env.reset(seed=seed)
        rng = random.Random(seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            for agent in env.agents:
                assert np.array_equal(observations[agent]["action_mask"], legal)
            actions = {a: rng.randrange(int(legal.sum())) for a in env.agents}
            observations, rewards, terminations, truncations, _ = env.step(actions)
            game = env.game
            places = game.token_places()
            assert len(places) == total_tokens
            assert sum(values[t] for t in places) == total_value
            for seat, holding in enumerate(game.holdings):
                assert all(game.knows(seat, t) for t in holding)
                assert game.alive[seat] or not holding
            for agent, reward in rewards.items():
                returns[agent] += reward
                if terminations[agent]:
                    assert not observations[agent]["action_mask"].any()
            assert not any(truncations.values())
            assert game.day <= 11  # default deck: The End of the Show by day 11
        assert game.done and game.winners
        assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)
        best = max(returns.values())
        assert {a for a, r in returns.items() if r == best} == {
            f"player_{p}" for p in game.winners}


DEFAULT_CHUNKS = 2


@pytest.mark.parametrize("chunk", [pytest.param(chunk, marks=pytest.mark.slow)
                                   if chunk >= DEFAULT_CHUNKS else chunk
                                   for chunk in range(CHUNKS)])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_random_games_keep_the_invariants(num_players, chunk):
    size = GAMES_PER_COUNT // CHUNKS
    seeds = range(chunk * size, (chunk + 1) * size)
    play_games(num_players, seeds, characters=chunk % 2 == 1)
