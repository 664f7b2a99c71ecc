"""The forecast policy: the same values from an observation as inside the batched engine."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.policies.hungry import ExpertHungryPolicy, ForecastHungryPolicy
from hunger_rl.policies.hungry_batched import (
    BatchedPolicy,
    forecast_scratch,
    forecast_values,
    forecast_values_of_observations,
)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_values_from_observations_match_the_engine_rows(num_players):
    """Rebuilding a game row from what the mover sees gives the values of the real row, which
    also holds the hidden hands and deck: so the forecast reads public information only."""
    batch = BatchedHungry(num_players, 32)
    out = batch.reset(seed=num_players)
    opponents = BatchedPolicy("random", 32, seed=0)
    scratch = forecast_scratch()
    values = np.empty(50)
    for _ in range(60):  # past the end of the first games: auto-reset deals are covered too
        from_observations = forecast_values_of_observations(out.observations, num_players)
        for b in range(32):
            forecast_values(batch.games, b, num_players, scratch, values, scratch[5])
            np.testing.assert_allclose(from_observations[b], values)
            legal = out.action_masks[b].astype(bool)
            assert np.isfinite(values[legal]).all() and np.isneginf(values[~legal]).all()
        out = batch.step(opponents.act(batch))


def test_forecast_plays_the_expert_choice_mostly():
    """Its values approximate the expert's: in random positions it usually picks a play the
    expert ranks best or close to it."""
    batch = BatchedHungry(2, 64)
    out = batch.reset(seed=5)
    random_moves = BatchedPolicy("random", 64, seed=1)
    expert, forecast = ExpertHungryPolicy(), ForecastHungryPolicy()
    rng = np.random.default_rng(0)
    agree = total = 0
    for step in range(24):
        if step % 6 == 5:
            for b in range(64):
                observation = {"observation": out.observations[b],
                               "action_mask": out.action_masks[b]}
                agree += expert.act(observation, rng) == forecast.act(observation, rng)
                total += 1
        out = batch.step(random_moves.act(batch))
    assert agree / total > 0.6
