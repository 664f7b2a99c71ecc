"""The compiled Mersenne Twister of the batched HUNGER engine against Python's random.Random:
seeding (one show, and many side by side), getrandbits(32), _randbelow, shuffle and sample as
the deal and the default decisions use them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.batched.twister import (
    MT_ROW_SIZE,
    SEED_LANES,
    SEED_SCRATCH_SIZE,
    mt_next,
    mt_seed_many,
    randbelow,
    sample_from_pool,
    shuffle,
)
from hunger_rl.engines.hunger_show.engine import shuffle_as_random


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1])
def test_compiled_mersenne_twister_is_pythons_random(seed):
    mt = np.zeros((1, MT_ROW_SIZE), np.uint32)
    mt_seed_many(mt, np.zeros(1, np.int64), 1, np.array([seed]),
                 np.empty(SEED_SCRATCH_SIZE, np.uint32))
    reference = random.Random(seed)
    assert [int(mt_next(mt, 0)) for _ in range(1300)] == [reference.getrandbits(32)
                                                          for _ in range(1300)]
    for n in (1, 2, 3, 5, 6, 7, 24, 30, 1000):
        assert [randbelow(mt, 0, n) for _ in range(50)] == [reference.randrange(n)
                                                            for _ in range(50)]
    items = np.arange(30)
    shuffle(mt, 0, items, 30)
    expected = list(range(30))
    reference.shuffle(expected)
    assert list(items) == expected
    chosen = np.empty(8, np.int64)
    sample_from_pool(mt, 0, np.arange(12), 12, 8, chosen)
    assert list(chosen) == reference.sample(range(12), 8)


def test_seeding_many_shows_at_once_is_seeding_each():
    special = [0, 2 ** 32 - 1, 7, 2 ** 32, 2 ** 63 - 1]
    # two full blocks of lanes and an odd part of one
    seeds = np.array(special + [3 ** k % 2 ** 63 for k in range(1, 2 * SEED_LANES + 3)])
    mt = np.zeros((len(seeds) + 2, MT_ROW_SIZE), np.uint32)
    shows = np.random.default_rng(0).permutation(len(seeds) + 2)[:len(seeds)]
    mt_seed_many(mt, shows, len(shows), seeds, np.empty(SEED_SCRATCH_SIZE, np.uint32))
    for show, seed in zip(shows, seeds, strict=True):
        reference = random.Random(int(seed))
        assert [int(mt_next(mt, show)) for _ in range(700)] == [reference.getrandbits(32)
                                                               for _ in range(700)]
    assert not np.delete(mt, shows, axis=0).any()


def test_draws_of_shows_seeded_at_once_are_pythons():
    """Shuffles and draws through the words twisted ahead at seeding, the words twisted as
    drawn, and the next twist."""
    seeds = np.array([2 ** 40 + 3, 12345])
    mt = np.zeros((2, MT_ROW_SIZE), np.uint32)
    mt_seed_many(mt, np.arange(2), 2, seeds, np.empty(SEED_SCRATCH_SIZE, np.uint32))
    for show, seed in enumerate(seeds):
        reference = random.Random(int(seed))
        for _ in range(40):
            items = np.arange(30)
            shuffle(mt, show, items, 30)
            expected = list(range(30))
            reference.shuffle(expected)
            assert list(items) == expected
            assert randbelow(mt, show, 1000) == reference.randrange(1000)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 9, 17, 30, 33, 64, 65])
def test_the_engines_inlined_shuffle_is_random_shuffle(size):
    """The reference engine's deal shuffles with ``shuffle_as_random``: the permutation of
    ``Random.shuffle`` and the generator left in its state, rejected draws included (sizes
    just above a power of two reject most)."""
    for seed in range(40):
        reference, inlined = random.Random(seed), random.Random(seed)
        expected, items = list(range(size)), list(range(size))
        reference.shuffle(expected)
        shuffle_as_random(inlined, items)
        assert items == expected
        assert inlined.getstate() == reference.getstate()
