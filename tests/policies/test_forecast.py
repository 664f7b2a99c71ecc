"""The forecast policy: the same values from an observation as inside the batched engine."""

import math

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import COUNTS, CURRENT, BatchedHungry
from hunger_rl.engines.hungry.engine import NUM_RESORTS
from hunger_rl.policies.hungry import ExpertHungryPolicy, ForecastHungryPolicy
from hunger_rl.policies.hungry_batched import (
    OWN_DESTINATION_CHANCE,
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


def resort_forecast(counts, unseen_fit, chances, mover, own_fit, shift):
    """One resort's ([first], [second]) chance per seat, every seat's forecast and every pair's
    chances computed whole, as the section docstring of ``policies.hungry_batched`` defines
    them: the mover's count raised by ``shift`` and its fitting cards lowered by ``abs(shift)``
    (its play there, 1, or to the card's other resort, -1)."""
    seats = len(counts)
    means, variances, scores_any = [], [], []
    for s in range(seats):
        count, p, fit = counts[s], chances[s], 0
        mean, variance = count + p * unseen_fit, unseen_fit * p * (1.0 - p)
        if s == mover:
            fit = own_fit - abs(shift)
            count += max(shift, 0)
            mean += max(shift, 0) + OWN_DESTINATION_CHANCE * fit
            variance += OWN_DESTINATION_CHANCE * (1.0 - OWN_DESTINATION_CHANCE) * fit
        means.append(mean)
        variances.append(variance)
        scores_any.append(1.0 if count > 0 else 1.0 - math.exp(
            unseen_fit * math.log1p(-p) + fit * math.log(1.0 - OWN_DESTINATION_CHANCE)))

    def beats(s, t):
        z = (means[s] - means[t] - 0.5) / math.sqrt(variances[s] + variances[t] + 0.01)
        return 1.0 / (1.0 + math.exp(-1.702 * z))

    first, second = [], []
    for s in range(seats):
        others = [t for t in range(seats) if t != s]
        all_beaten, one_above = 1.0, 0.0
        for t in others:
            all_beaten *= beats(s, t)
            others_beaten = 1.0
            for o in others:
                if o != t:
                    others_beaten *= beats(s, o)
            one_above += (1.0 - beats(s, t)) * others_beaten
        first.append(scores_any[s] * all_beaten)
        second.append(scores_any[s] * one_above)
    return first, second


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_valuation_computes_each_resort_as_the_whole_forecast_bit_for_bit(num_players):
    """The compiled valuation computes a resort after the mover's play from the resort as it
    stands, again only what involves the mover: in every position of 16 games (movers at
    random and by the forecast, in turn), each resort's places as they stand and after either
    play are exactly (``==``) those of the whole computation of every seat and pair."""
    games = 16
    batch = BatchedHungry(num_players, games)
    out = batch.reset(seed=40 + num_players)
    movers = [BatchedPolicy("random", games, seed=1), BatchedPolicy("forecast", games, seed=2)]
    scratch = forecast_scratch()
    fits, places, chances = scratch[0], scratch[2], scratch[3][0]
    values = np.empty(50)
    compared = 0
    for step in range(48):
        for b in range(games):
            forecast_values(batch.games, b, num_players, scratch, values, scratch[5])
            mover = int(batch.games[b, CURRENT])
            for resort in range(NUM_RESORTS):
                counts = [int(batch.games[b, COUNTS + s * NUM_RESORTS + resort])
                          for s in range(num_players)]
                unseen_fit, own_fit = int(fits[0, resort]), int(fits[1, resort])
                # Places as the table stands (variant 0), after a play here (1) and after the
                # card went to its other resort (2), the latter two where the mover holds a
                # card that fits.
                for variant, shift in enumerate((0, 1, -1) if own_fit else (0,)):
                    expected = resort_forecast(counts, unseen_fit, chances[:num_players],
                                               mover, own_fit, shift)
                    assert places[variant, resort, :, :num_players].tolist() == list(
                        expected), (step, b, resort, shift)
                    compared += 1
        out = batch.step(movers[step % 2].act(batch))
    assert out.done.all()  # the positions span whole games
    assert compared > games * 48 * NUM_RESORTS
