"""The batched engines' one contract (``engines.batched.BatchedEngine``, docs/architecture.md),
checked on both through the same tests: the protocol's members, the constructor,
``reset(seed=None, seeds=None)`` and its seed spreading, the meaning of every shared
``StepOutputs`` field (``BatchOutputs``), and the error family of refused input."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from hunger_rl.engines.batched import BatchedEngine, BatchOutputs
from hunger_rl.engines.compiled import MAX_SEED, spread_seeds
from hunger_rl.engines.hunger_show.batched import BatchedShow
from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidInputError,
    InvalidValueError,
    NotResetError,
)
from hunger_rl.envs import hunger_show_v0, hungry_v0


def hungry_first_observation(num_players: int, seed: int) -> np.ndarray:
    """What a batch's ``observations[b]`` holds after a reset with slot seed ``seed``: the
    observation of the player to move."""
    env = hungry_v0.env(num_players=num_players)
    env.reset(seed=seed)
    return env.observe(env.agent_selection)["observation"]


def show_first_observation(num_players: int, seed: int) -> np.ndarray:
    """... every seat's observation, by seat."""
    env = hunger_show_v0.parallel_env(num_players=num_players)
    observations, _ = env.reset(seed=seed)
    return np.stack([observations[agent]["observation"] for agent in env.possible_agents])


@dataclass(frozen=True)
class Engine:
    make: Any
    num_players: int
    first_observation: Any


ENGINES = {"hungry": Engine(BatchedHungry, 3, hungry_first_observation),
           "hunger_show": Engine(BatchedShow, 4, show_first_observation)}
BATCH = 5


@pytest.fixture(params=sorted(ENGINES))
def engine(request) -> Engine:
    return ENGINES[request.param]


def random_legal_actions(rng, masks):
    """A uniformly random legal action per row of ``masks`` (one row per game, or per seat of
    each game)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=-1)


def test_both_engines_and_their_outputs_satisfy_the_protocols(engine):
    batch = engine.make(engine.num_players, BATCH)
    assert isinstance(batch, BatchedEngine)
    assert isinstance(batch.outputs, BatchOutputs)
    assert isinstance(batch.reset(seed=0), BatchOutputs)
    assert batch.reset(seed=0) is batch.outputs  # reused, overwritten by each call
    assert not isinstance(object(), BatchedEngine)


def test_constructor_takes_players_then_batch_size_then_keyword_options(engine):
    parameters = list(inspect.signature(engine.make).parameters.values())
    assert [p.name for p in parameters[:2]] == ["num_players", "batch_size"]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty
               for p in parameters[:2])
    assert all(p.kind is p.KEYWORD_ONLY for p in parameters[2:])
    batch = engine.make(engine.num_players, BATCH)
    assert (batch.num_players, batch.batch_size) == (engine.num_players, BATCH)
    out = batch.reset(seed=0)
    assert out.observations.shape[0] == BATCH and out.observations.shape[-1] == (
        batch.observation_size)


def test_one_seed_spreads_into_slot_seeds_dealt_as_the_reference_env(engine):
    batch = engine.make(engine.num_players, BATCH)
    out = batch.reset(seed=7)
    slot_seeds = spread_seeds(7, BATCH)
    np.testing.assert_array_equal(batch.seeds, slot_seeds)
    assert len(set(slot_seeds.tolist())) == BATCH and slot_seeds.max() <= MAX_SEED
    assert not set(slot_seeds.tolist()) & set(spread_seeds(8, BATCH).tolist())
    for b, seed in enumerate(slot_seeds.tolist()):
        np.testing.assert_array_equal(out.observations[b],
                                      engine.first_observation(engine.num_players, seed))
    observations = out.observations.copy()
    np.testing.assert_array_equal(batch.reset(seeds=slot_seeds).observations, observations)
    batch.reset()
    fresh = batch.seeds.copy()
    batch.reset(seed=None)
    assert not set(batch.seeds.tolist()) & set(fresh.tolist())  # fresh entropy each time


def test_shared_outputs_mean_the_same_in_both_engines(engine):
    """Random legal play through several ends: ``done`` is a game's end, ``terminated`` the
    seats that left in the step (every seat still playing when the game ends), ``winners`` set
    where done, rewards (R1) only where a seat left, and the ended game's next deal observed."""
    batch = engine.make(engine.num_players, BATCH)
    out = batch.reset(seed=3)
    assert isinstance(out, BatchOutputs)
    assert out.rewards.shape == out.terminated.shape == out.winners.shape == (
        BATCH, engine.num_players)
    assert out.done.shape == (BATCH,) and out.done.dtype == out.terminated.dtype == np.bool_
    assert not out.done.any() and not out.terminated.any() and not out.rewards.any()
    rng = np.random.default_rng(0)
    playing = np.ones((BATCH, engine.num_players), bool)
    ended = 0
    while ended < 2 * BATCH:
        out = batch.step(random_legal_actions(rng, out.action_masks))
        assert not (out.terminated & ~playing).any()
        assert not out.rewards[~out.terminated].any()
        for b in np.flatnonzero(out.done):
            np.testing.assert_array_equal(out.terminated[b], playing[b])
            won = out.winners[b]
            assert won.any() and not won[~playing[b]].any()
            if not won.all():
                assert (out.rewards[b, won] > 0).all()
                assert (out.rewards[b, playing[b] & ~won] < 0).all()
            ended += 1
        playing &= ~out.terminated
        playing[out.done] = True


def test_refused_input_raises_one_error_family_and_changes_nothing(engine):
    n = engine.num_players
    for bad in ({"batch_size": 0}, {"batch_size": 2.0}, {"num_players": 1},
                {"reward": "points"}):
        arguments = {"num_players": n, "batch_size": BATCH, **bad}
        with pytest.raises(InvalidInputError):
            engine.make(**arguments)
    batch = engine.make(n, BATCH)
    with pytest.raises(NotResetError):
        batch.step(np.zeros((BATCH,), np.int64))
    with pytest.raises(InvalidValueError, match="not both"):
        batch.reset(seed=1, seeds=np.arange(BATCH))
    for seeds in (np.arange(BATCH - 1), np.full(BATCH, -1), np.full(BATCH, 0.5)):
        with pytest.raises(InvalidInputError, match="seeds"):
            batch.reset(seeds=seeds)
    out = batch.reset(seed=0)
    state, observations = batch.games.copy(), out.observations.copy()
    legal = random_legal_actions(np.random.default_rng(1), out.action_masks)
    out_of_range = legal.copy()
    out_of_range.flat[0] = out.action_masks.shape[-1]
    for actions in (out_of_range, legal.astype(float), legal[:-1]):
        with pytest.raises(IllegalActionError, match="action"):
            batch.step(actions)
    np.testing.assert_array_equal(batch.games, state)
    np.testing.assert_array_equal(batch.outputs.observations, observations)
