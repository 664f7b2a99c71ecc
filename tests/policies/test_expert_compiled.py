"""The compiled expert (the batched engine's "expert") against the Python reference
``ExpertHungryPolicy``: the same values and the same choices in positions of seeded games."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.policies.hungry import ExpertHungryPolicy, Outlook
from hunger_rl.policies.hungry_batched import (
    BatchedPolicy,
    expert_values,
    forecast_scratch,
    forecast_values_of_observations,
)

GAMES = 48
TIE = 1e-9  # values this close are a tie, broken at random by both (pick_best, _keep_best)


def python_expert_values(observation_vector, actions):
    expert = ExpertHungryPolicy()
    outlook = Outlook(HungryView.from_observation(observation_vector),
                      expert.OWN_DESTINATION_CHANCE, expert.OPPONENT_DESTINATION_CHANCE)
    return outlook.values_after(actions, expert.TIE_BREAK_WEIGHT)


def best_actions(actions, values):
    return set(actions[values >= values.max() - TIE].tolist())


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_expert_equals_the_python_expert(num_players):
    """Every position of 48 seeded games per player count (2,304 at 2 players), the movers
    playing the compiled expert and, every third game, uniformly at random (so that the
    positions are not only those the expert steers into): the compiled values equal the
    Python expert's within 1e-9 on every legal play, read from the engine row and from the
    observation alike; its choice is one of the Python expert's best plays, and both see the
    same set of tied best plays."""
    batch = BatchedHungry(num_players, GAMES)
    out = batch.reset(seed=100 + num_players)
    expert = BatchedPolicy("expert", GAMES, seed=1)
    random_moves = BatchedPolicy("random", GAMES, seed=2)
    random_slots = np.arange(GAMES) % 3 == 0
    scratch = forecast_scratch()
    values = np.empty(50)
    positions = ties = 0
    for _ in range(48):  # one whole game per slot
        from_observations = forecast_values_of_observations(out.observations, num_players,
                                                            exact=True)
        observations = out.observations.copy()
        masks = out.action_masks.copy()
        chosen = expert.act(batch).copy()
        for b in range(GAMES):
            actions = np.flatnonzero(masks[b])
            reference = python_expert_values(observations[b], actions)
            expert_values(batch.games, b, num_players, scratch, values, scratch[5])
            np.testing.assert_allclose(values[actions], reference, rtol=0, atol=TIE)
            np.testing.assert_allclose(from_observations[b, actions], reference, rtol=0, atol=TIE)
            assert np.isneginf(np.delete(values, actions)).all()
            best = best_actions(actions, reference)
            assert best_actions(actions, values[actions]) == best
            assert chosen[b] in best
            positions += 1
            ties += len(best) > 1
        moves = np.where(random_slots, random_moves.act(batch), chosen)
        out = batch.step(moves)
    assert positions == GAMES * 48
    assert ties < positions // 2  # the choices compared are mostly single best plays


def test_compiled_expert_plays_like_the_python_expert():
    """``ExpertHungryPolicy.act`` itself (its legal plays read from the mask) and the compiled
    expert choose the same play wherever the expert's values have a single best play, over 64
    whole 2-player games played by the compiled expert."""
    num_players, games = 2, 64
    batch = BatchedHungry(num_players, games)
    out = batch.reset(seed=7)
    compiled = BatchedPolicy("expert", games, seed=3)
    python = ExpertHungryPolicy()
    rng = np.random.default_rng(0)
    agree = untied = 0
    for _ in range(48):
        chosen = compiled.act(batch).copy()
        for b in range(games):
            observation = {"observation": out.observations[b],
                           "action_mask": out.action_masks[b]}
            actions = np.flatnonzero(out.action_masks[b])
            if len(best_actions(actions, python_expert_values(out.observations[b], actions))) == 1:
                untied += 1
                agree += python.act(observation, rng) == chosen[b]
        out = batch.step(chosen)
    assert untied > 0.5 * 48 * games
    assert agree == untied
