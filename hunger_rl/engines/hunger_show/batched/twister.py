"""CPython's ``random.Random`` (MT19937), compiled: one generator per show, in a row of a
uint32 array (624 state words, then a position word, see :func:`mt_position`).

Seeding (``init_by_array`` of the seed's 32-bit words; many shows side by side in
:func:`mt_seed_many`), ``getrandbits(32)`` (:func:`mt_next`), ``_randbelow``
(:func:`randbelow`), ``shuffle`` (:func:`shuffle`) and ``sample`` (:func:`sample_from_pool`)
compute what CPython computes, so that a show seeded with s draws what ``random.Random(s)``
draws; ``tests/hunger_show/test_twister.py`` checks each against ``random.Random``.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros

from hunger_rl.engines.compiled import jit

MT_N = 624
MT_ROW_SIZE = MT_N + 1  # a show's state words, then its position word
_MT_M = 397


def _genrand_base_state() -> np.ndarray:
    """CPython's ``init_genrand(19650218)``, where every ``init_by_array`` starts."""
    state = np.empty(MT_N, np.uint32)
    state[0] = 19650218
    for i in range(1, MT_N):
        previous = int(state[i - 1])
        state[i] = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
    return state


_MT_BASE = _genrand_base_state()
_MT_AHEAD = MT_N - _MT_M  # words of a twist that read old words only (227)


@jit
def _mt_word(mt, b, i, twisted):
    """Word i of the stream of ``mt[b]`` (CPython's ``genrand_uint32`` at position i). The
    twist is done one word at a time as the words are drawn (a show draws far fewer than
    624, so most are never twisted): word i of the twist reads words i + 1 and i + 397,
    still old, and word i - 227, already new, exactly as CPython's in-place loop. Words
    below ``twisted`` were twisted ahead (by :func:`mt_seed_many`) and are only read."""
    if i < twisted:
        y = mt[b, i]
    else:
        following = i + 1 if i + 1 < MT_N else 0
        ahead = i + _MT_M if i + _MT_M < MT_N else i + _MT_M - MT_N
        y = (mt[b, i] & np.uint32(0x80000000)) | (mt[b, following] & np.uint32(0x7FFFFFFF))
        y = mt[b, ahead] ^ (y >> np.uint32(1)) ^ ((np.uint32(0) - (y & np.uint32(1)))
                                                  & np.uint32(0x9908B0DF))
        mt[b, i] = y
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@jit
def mt_position(mt, b):
    """``mt[b, 624]``: the position i in the state (low 16 bits) and how many words from 0
    are twisted already (high 16 bits; words i .. twisted - 1 are twisted, not yet drawn)."""
    return np.int64(mt[b, MT_N] & np.uint32(0xFFFF)), np.int64(mt[b, MT_N] >> np.uint32(16))


@jit
def _mt_advance(i, twisted):
    """The position after drawing word i: the next word, or word 0 of a twist to come."""
    if i + 1 < MT_N:
        return i + 1, twisted
    return np.int64(0), np.int64(0)


@jit
def mt_next(mt, b):
    """CPython's ``genrand_uint32`` (see :func:`mt_position`)."""
    i, twisted = mt_position(mt, b)
    y = _mt_word(mt, b, i, twisted)
    i, twisted = _mt_advance(i, twisted)
    mt[b, MT_N] = np.uint32(i | (twisted << 16))
    return y


@jit
def _mix_first(previous, word):
    """``init_by_array``'s first loop at a word, before the key's addend (modulo 2**32)."""
    mixed = np.uint32(np.uint32(previous ^ (previous >> np.uint32(30))) * np.uint32(1664525))
    return np.uint32(word ^ mixed)


@jit
def _mix_second(previous, word):
    """``init_by_array``'s second loop at a word, before subtracting its index."""
    mixed = np.uint32(np.uint32(previous ^ (previous >> np.uint32(30)))
                      * np.uint32(1566083941))
    return np.uint32(word ^ mixed)


SEED_LANES = 32  # shows seeded side by side by mt_seed_many
SEED_SCRATCH_SIZE = (MT_N + 2) * SEED_LANES  # uint32 scratch of mt_seed_many


@jit
def _lane(i, k):
    """Where word i of lane k lies in mt_seed_many's scratch: unsigned, so that numba adds
    no negative-index wrap-around and the compiler sees the constant row stride."""
    return np.uint64(i * SEED_LANES + k)


@jit
def mt_seed_many(mt, shows, count, seeds, lanes):
    """``random.Random(seeds[k])`` (0 <= seed < 2**63: ``init_by_array`` of its 32-bit words,
    least significant first, from ``_MT_BASE``) into ``mt[shows[k]]`` for k < count, SEED_LANES
    shows at a time: their serial seeding chains run side by side, one uint32 lane each, so that the
    compiler vectorises them (every step is arithmetic modulo 2**32, so 32-bit lanes give
    CPython's words exactly).

    ``lanes`` (uint32 scratch of SEED_SCRATCH_SIZE) holds the lanes' word i in row i, then two
    rows of what the first loop adds at even and odd steps: the key's word j plus j of
    ``init_by_array``, which is the seed's low word at even steps and at odd steps its high
    word + 1 for a two-word key (seeds of 2**32 and above), its low word again for a one-word
    key (no lane branches). The lane loops run over whole vectors of the lanes in use, and do
    eight words per pass, the chain kept in a register. Last, the first _MT_AHEAD words of the
    twist that CPython does before the first draw are done here too (they read old words
    only, so the lanes run them side by side) and marked in the position word (see
    :func:`mt_position`): a deal's draws then only read and temper them."""
    even, odd = MT_N, MT_N + 1
    for first in range(0, count, SEED_LANES):
        used = min(SEED_LANES, count - first)
        active = (used + 7) // 8 * 8
        for k in range(SEED_LANES):
            seed = np.uint64(seeds[first + k]) if k < used else np.uint64(0)
            low = np.uint32(seed & np.uint64(0xFFFFFFFF))
            high = np.uint32(seed >> np.uint64(32))
            lanes[_lane(even, k)] = low
            lanes[_lane(odd, k)] = high + np.uint32(1) if high else low
        for i in range(MT_N):
            for k in range(active):
                lanes[_lane(i, k)] = _MT_BASE[i]
        # init_by_array's first loop: i = 1 .. 623 (steps 0 .. 622), then i = 1 (step 623)
        # after word 0 took word 623; word i takes the even addend at odd i
        for i in range(1, MT_N - 8, 8):  # words 1 .. 616
            for k in range(active):
                value = lanes[_lane(i - 1, k)]
                for u in range(8):
                    value = np.uint32(_mix_first(value, lanes[_lane(i + u, k)])
                                      + lanes[_lane(even if u % 2 == 0 else odd, k)])
                    lanes[_lane(i + u, k)] = value
        for i in (617, 618, 619, 620, 621, 622, 623, 1):
            if i == 1:
                for k in range(active):
                    lanes[_lane(0, k)] = lanes[_lane(MT_N - 1, k)]
            addend = even if i % 2 and i != 1 else odd
            for k in range(active):
                lanes[_lane(i, k)] = np.uint32(_mix_first(lanes[_lane(i - 1, k)],
                                                          lanes[_lane(i, k)])
                                               + lanes[_lane(addend, k)])
        # the second loop: i = 2 .. 623, then i = 1 after word 0 took word 623
        for i in range(2, MT_N - 7, 8):  # words 2 .. 617
            for k in range(active):
                value = lanes[_lane(i - 1, k)]
                for u in range(8):
                    value = np.uint32(_mix_second(value, lanes[_lane(i + u, k)])
                                      - np.uint32(i + u))
                    lanes[_lane(i + u, k)] = value
        for i in (618, 619, 620, 621, 622, 623, 1):
            if i == 1:
                for k in range(active):
                    lanes[_lane(0, k)] = lanes[_lane(MT_N - 1, k)]
            for k in range(active):
                lanes[_lane(i, k)] = np.uint32(_mix_second(lanes[_lane(i - 1, k)],
                                                           lanes[_lane(i, k)])
                                               - np.uint32(i))
        # CPython's first twist, its first 227 words (they read old words only) ahead
        for k in range(active):
            lanes[_lane(0, k)] = np.uint32(0x80000000)
        for i in range(_MT_AHEAD):
            for k in range(active):
                y = np.uint32((lanes[_lane(i, k)] & np.uint32(0x80000000))
                              | (lanes[_lane(i + 1, k)] & np.uint32(0x7FFFFFFF)))
                lanes[_lane(i, k)] = np.uint32(
                    lanes[_lane(i + _MT_M, k)] ^ (y >> np.uint32(1))
                    ^ (np.uint32(np.uint32(0) - (y & np.uint32(1))) & np.uint32(0x9908B0DF)))
        # out to the shows' rows, two lanes per (little-endian) 64-bit load, as the strided
        # loads of this transpose cost more than its stores; an odd last lane pairs with
        # itself, its own word stored last
        pairs = lanes.view(np.uint64)
        for k in range(0, used, 2):
            b, other = shows[first + k], shows[first + min(k + 1, used - 1)]
            for i in range(MT_N):
                both = pairs[_lane(i, k) // np.uint64(2)]
                mt[other, i] = np.uint32(both >> np.uint64(32))
                mt[b, i] = np.uint32(both & np.uint64(0xFFFFFFFF))
            mt[b, MT_N] = np.uint32(_MT_AHEAD << 16)
            mt[other, MT_N] = np.uint32(_MT_AHEAD << 16)


@jit
def _below_at(mt, b, n, i, twisted):
    """``random.Random._randbelow(n)``: ``getrandbits(n.bit_length())`` until below n, drawn
    from position i (see :func:`mt_position`); the draw and the next position (kept in
    registers across a shuffle's draws, instead of a store and a load of ``mt[b, 624]`` per
    draw)."""
    bits = 64 - leading_zeros(np.uint64(n))
    while True:
        r = np.int64(_mt_word(mt, b, i, twisted) >> np.uint32(32 - bits))
        i, twisted = _mt_advance(i, twisted)
        if r < n:
            return r, i, twisted


@jit
def randbelow(mt, b, n):
    """``random.Random._randbelow(n)`` from the show's position."""
    i, twisted = mt_position(mt, b)
    r, i, twisted = _below_at(mt, b, n, i, twisted)
    mt[b, MT_N] = np.uint32(i | (twisted << 16))
    return r


@jit
def shuffle(mt, b, items, count):
    """``random.shuffle`` of ``items[:count]``."""
    position, twisted = mt_position(mt, b)
    for i in range(count - 1, 0, -1):
        j, position, twisted = _below_at(mt, b, i + 1, position, twisted)
        items[i], items[j] = items[j], items[i]
    mt[b, MT_N] = np.uint32(position | (twisted << 16))


@jit
def sample_from_pool(mt, b, pool, n, k, out):
    """``random.sample(pool[:n], k)`` for the small populations here (the pool method); it
    reorders ``pool`` (scratch: no allocation)."""
    position, twisted = mt_position(mt, b)
    for i in range(k):
        j, position, twisted = _below_at(mt, b, n - i, position, twisted)
        out[i] = pool[j]
        pool[j] = pool[n - i - 1]
    mt[b, MT_N] = np.uint32(position | (twisted << 16))
