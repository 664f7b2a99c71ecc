"""Batched HUNGER: The Show: B shows of the same options held in arrays, stepped with one call.

The rules are those of :mod:`hunger_rl.envs.hunger_show.engine` with the default decisions of
S19/S21 (:class:`~hunger_rl.envs.hunger_show.decisions.DefaultDecisions`), re-implemented as
compiled per-show loops (numba). Observations, action masks, action encoding, rewards,
eliminations, end conditions and rankings are exactly those of ``hunger_show_v0``.

Chance. The reference engine draws from Python's ``random.Random(seed)`` (Mersenne Twister):
leader, characters, pile and stack shuffles, the event deck, and the random tie-breaks of
``take``. Each show here carries its own MT19937 state with CPython's seeding (``init_by_array``
of the seed's 32-bit words) and its ``getrandbits``/``_randbelow``/``shuffle``/``sample``
semantics, so show b dealt with seed s is the reference show ``reset(seed=s)``, draw for draw.
A differential test replays random shows through ``hunger_show_v0`` and compares everything.

Seeds. ``reset(seeds)`` deals show b with ``seeds[b]``; the show that follows in slot b after
its e-th show ended is dealt with :func:`stream_seed` ``(seeds[b], e)``, so a slot's sequence
of shows depends only on its seed and its own actions.

Layout. Every field of one show lives in one int16 row of ``BatchedShow.games`` (offsets below,
sized for 6 players), and its Mersenne Twister state in a row of ``BatchedShow.mt``.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from hunger_rl.envs.hunger_show.decisions import SUPPER_PATTERNS
from hunger_rl.envs.hunger_show.engine import ShowConfig
from hunger_rl.envs.hunger_show.observation import (
    KNOWN_FIELDS,
    NUM_CHOICES,
    OWN_WIDTH,
    PUBLIC_CATEGORIES,
    REWARD_MODES,
    SHAPING_WEIGHT,
    legal_mask,
    observation_layout,
    observation_tables,
)
from hunger_rl.envs.hunger_show.tokens import (
    CHARACTERS,
    EVENT_CARD_NAMES,
    NUM_ACTIONS,
    PILE_EVENTS,
    PILE_SIZES,
    RAT_PLAGUE,
    UNPLEASANT_CARDS,
    parse_card,
    token_table,
)
from hunger_rl.envs.validation import IllegalActionError, InvalidValueError, check_choice

MAX_PLAYERS = 6
_CATEGORY, _VALUE, _RAFT_KIND, _COLOUR = (np.array(t, np.int64) for t in token_table(MAX_PLAYERS))
MAX_TOKENS = len(_CATEGORY)
FRUIT, CHICKEN, RAFT, CAN, COCONUT = range(5)
_FOOD = np.where(_CATEGORY != RAFT, _VALUE, 0)  # by token: its food value, rope and log units
_ROPE = np.where((_CATEGORY == RAFT) & (_RAFT_KIND == 0), _VALUE, 0)
_LOG = np.where((_CATEGORY == RAFT) & (_RAFT_KIND == 1), _VALUE, 0)
THIEF, GUARD = 3, 4
CONNOISSEUR, EAGLE_EYE, RAPTOR, SWEET, ARNOLD, NINJA = range(6)
assert CHARACTERS[NINJA] == "ninja" and CHARACTERS[ARNOLD] == "arnold"
# The pile kind each drawing specialist works on (S20), by character index; -1 for none.
_SPECIALTY = np.array([-1, RAFT, CHICKEN, FRUIT, -1, -1], np.int64)
# S19 orders as ranks by category.
_TAKE_ORDER = np.array([RAFT, CHICKEN, FRUIT, CAN, COCONUT], np.int64)
_GIFT_RANK = np.array([1, 2, 9, 3, 0], np.int64)  # coconut, fruit, chicken, can
_SUPPER_RANK = np.array([2, 3, 9, 0, 1], np.int64)  # can, coconut, fruit, chicken
# Supper (S15, S19, S21d). The food tokens worth v > 0 in supper order (by supper rank, then
# id) are bits of a 64-bit mask: values 1 then 2 in the low mask, 3 then 4 in the high one, so
# that the lowest bits of a value are the tokens a pattern takes. _supper decides between the
# patterns of decisions.SUPPER_PATTERNS in their order, written out.
assert SUPPER_PATTERNS == ((4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1), (3, 2), (3, 3))


def _supper_tables():
    by_value = [sorted((t for t in range(MAX_TOKENS)
                        if _CATEGORY[t] != RAFT and _VALUE[t] == value),
                       key=lambda t: (_SUPPER_RANK[_CATEGORY[t]], t)) for value in range(5)]
    low_order, high_order = by_value[1] + by_value[2], by_value[3] + by_value[4]
    assert len(low_order) <= 64 and len(high_order) <= 64
    tables = []
    for order in (low_order, high_order):
        bits = np.zeros(MAX_TOKENS, np.uint64)
        bits[order] = [np.uint64(1) << np.uint64(i) for i in range(len(order))]
        tables += [bits, np.array(order, np.int64)]
    return (*tables, len(by_value[1]), len(by_value[3]))


(_SUPPER_LOW_BIT, _SUPPER_LOW_TOKEN, _SUPPER_HIGH_BIT, _SUPPER_HIGH_TOKEN,
 _SUPPER_LOW_SPLIT, _SUPPER_HIGH_SPLIT) = _supper_tables()
_SUPPER_LOW_SPLIT_MASK = np.uint64((1 << _SUPPER_LOW_SPLIT) - 1)
_SUPPER_HIGH_SPLIT_MASK = np.uint64((1 << _SUPPER_HIGH_SPLIT) - 1)
_SUPPER_TOKEN_RANK = _SUPPER_RANK[_CATEGORY]

CALM_CARD = EVENT_CARD_NAMES.index("calm")
END_CARD = EVENT_CARD_NAMES.index("end")
NO_EVENT = -1
_UNPLEASANT = np.array([EVENT_CARD_NAMES.index(c) for c in UNPLEASANT_CARDS], np.int64)
_CARD_PILE = np.array([PILE_EVENTS.get(parse_card(c)[0], -1) for c in EVENT_CARD_NAMES], np.int64)
_CARD_SIZE = np.array([parse_card(c)[1] for c in EVENT_CARD_NAMES], np.int64)
_CARD_RAT = np.array([parse_card(c)[0] == RAT_PLAGUE for c in EVENT_CARD_NAMES], np.bool_)
END_CONDITIONS = ("A", "B", "C")
DECK_MAX = len(UNPLEASANT_CARDS) + 10 + 1
PILE_MAX = max(PILE_SIZES)
NUM_COCONUTS = int(np.sum(_CATEGORY == COCONUT))

# Offsets into a show's int16 row.
HOLD = 0  # [seat * MAX_TOKENS + i]: the seat's holding, in order
HOLD_N = HOLD + MAX_PLAYERS * MAX_TOKENS  # [seat]
PILE = HOLD_N + MAX_PLAYERS  # [(loc * 3 + kind) * PILE_MAX + i]: bottom first
PILE_N = PILE + 4 * 3 * PILE_MAX  # [loc * 3 + kind]
STACK = PILE_N + 4 * 3  # coconut stack, bottom first
STACK_N = STACK + NUM_COCONUTS
DECK = STACK_N + 1  # event cards, bottom first (top at DECK + DECK_N - 1)
DECK_N = DECK + DECK_MAX
KNOWN = DECK_N + 1  # [token]: bit p set when player p remembers its value (S18)
ALIVE = KNOWN + MAX_TOKENS  # [seat]
CHARACTER = ALIVE + MAX_PLAYERS  # [seat]: index into CHARACTERS, -1 when off
LAST_LOC = CHARACTER + MAX_PLAYERS  # [seat]: last (location, action), -1 before the first day
LAST_ACT = LAST_LOC + MAX_PLAYERS
RAFT_SETS = LAST_ACT + MAX_PLAYERS  # [seat]: raft sets at the last step (shaped reward)
LEADER = RAFT_SETS + MAX_PLAYERS
DAY = LEADER + 1
LAST_EVENT = DAY + 1
DONE = LAST_EVENT + 1
ROW_SIZE = DONE + 1

# Per-call scratch of the day's code (int64), allocated once per batch call, not per show.
WORK_SIZE = 64 + MAX_TOKENS  # a location's day (see _resolve_location)
SPARE_SIZE = MAX_TOKENS + 4  # a catch's candidates and hidden tokens, a theft's victims
TOKENS_SIZE = MAX_TOKENS + 4  # a copy of one holding
SCRATCH_SIZE = 2 * MAX_PLAYERS  # an observation's packed public counts and playing positions


def _packed_count_tables():
    """What each token adds to its holder's counts in ``_observe``, one byte per column: own
    columns 0-7 (``low``) and 8-15 (``high``); the five public categories, then rope and log
    units (``public``). No byte can reach 128, so the sums never carry into the next column."""
    tables = observation_tables(MAX_PLAYERS)
    low, high, public = (np.zeros(MAX_TOKENS, np.int64) for _ in range(3))
    for token in range(MAX_TOKENS):
        own = tables.own_column[token]
        (low if own < 8 else high)[token] = 1 << (8 * (own % 8))
        public[token] = 1 << (8 * tables.public_column[token])
        if tables.unit_column[token]:
            unit_byte = 5 + tables.unit_column[token] - (OWN_WIDTH - 2)
            public[token] += int(_VALUE[token]) << (8 * unit_byte)
    for table in (low, high, public):
        assert all(sum((int(t) >> (8 * byte)) & 255 for t in table) < 128 for byte in range(8))
    return (low, high, public, np.array(tables.public_column, np.int64),
            np.array(tables.known_value_field, np.int64))


_OWN_LOW, _OWN_HIGH, _PUBLIC_UNITS, _PUBLIC_COLUMN, _KNOWN_FIELD = _packed_count_tables()
assert OWN_WIDTH == 18 and len(PUBLIC_CATEGORIES) == 5
# Row n: where the blocks of observation_layout(n) that _observe writes start, then the size
# (a constant array read at the compile-time player count, so the offsets fold).
_LAYOUT_BLOCKS = ("token_counts", "alive", "leader", "playing_order", "day", "last_choices",
                  "known_values", "character")
_LAYOUT = np.zeros((MAX_PLAYERS + 1, len(_LAYOUT_BLOCKS) + 1), np.int64)
for _count in range(2, MAX_PLAYERS + 1):
    _LAYOUT[_count] = ([observation_layout(_count)[name].start for name in _LAYOUT_BLOCKS]
                       + [observation_tables(_count).observation_size])


# Integers passed to helpers are int64, never int16 reads of a row nor bare constants (numba
# compiles a helper once per argument type, and once more per literal value): hence the
# np.int64(...) around some arguments and counters. Helpers that allocate nothing compile
# without numba's reference counts (``_nrt=False``): every array argument and view otherwise
# costs two runtime calls, and their callers (``_jit_allocating``, which own the scratch) hold the
# arrays for the whole call.
_jit = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
_jit_allocating = numba.njit(cache=True, nogil=True, error_model="numpy")


@intrinsic
def _prefetch_for_write(typingctx, array, byte):
    """Ask the CPU to bring the cache line at ``byte`` bytes into ``array``'s data towards the
    core, with intent to write (``llvm.prefetch``; a hint: it never faults)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.gep(builder.bitcast(data, ir.IntType(8).as_pointer()), [args[1]])
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(function, [pointer, i32(1), i32(3), i32(1)])  # write, keep, data
        return context.get_dummy_value()
    return types.void(array, types.int64), codegen


@_jit
def _at(index):
    """``index`` as uint64: numba wraps every signed index that might be negative around (a
    compare and a select per access), never an unsigned one. Only for indices that cannot be
    negative (a negative one would read or write far out of bounds, unchecked); the day's
    busiest functions index their rows and scratch through it where the index is computed or
    read from an array."""
    return np.uint64(index)


class StepOutputs(NamedTuple):
    """What a step (or reset) reports; the arrays are reused (overwritten) by the next step.

    ``observations[b, p]`` and ``action_masks[b, p]`` are seat p's current ones: in a show that
    ended in this step, those of its next show (auto-reset); the last ones of the ended show are
    ``final_observations`` / ``final_masks`` (filled where ``done``). ``terminated[b, p]``: seat
    p left show b in this step (eliminated, or the show ended while it played); ``rewards`` are
    ``hunger_show_v0``'s. Where ``done``: ``winners``, ``end_condition`` (index into
    ``END_CONDITIONS``), ``ranking_keys`` (-1 rows for seats without a final key) and ``days``.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    done: np.ndarray
    final_observations: np.ndarray
    final_masks: np.ndarray
    winners: np.ndarray
    end_condition: np.ndarray
    ranking_keys: np.ndarray
    days: np.ndarray


# -- Python's random.Random, compiled --------------------------------------------------------- ---

_MT_N = 624
_MT_M = 397


def _genrand_base_state() -> np.ndarray:
    """CPython's ``init_genrand(19650218)``, where every ``init_by_array`` starts."""
    state = np.empty(_MT_N, np.uint32)
    state[0] = 19650218
    for i in range(1, _MT_N):
        previous = int(state[i - 1])
        state[i] = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
    return state


_MT_BASE = _genrand_base_state()


_MT_AHEAD = _MT_N - _MT_M  # words of a twist that read old words only (227)


@_jit
def _mt_word(mt, b, i, twisted):
    """Word i of the stream of ``mt[b]`` (CPython's ``genrand_uint32`` at position i). The
    twist is done one word at a time as the words are drawn (a show draws far fewer than
    624, so most are never twisted): word i of the twist reads words i + 1 and i + 397,
    still old, and word i - 227, already new, exactly as CPython's in-place loop. Words
    below ``twisted`` were twisted ahead (by :func:`_mt_seed_many`) and are only read."""
    if i < twisted:
        y = mt[b, i]
    else:
        following = i + 1 if i + 1 < _MT_N else 0
        ahead = i + _MT_M if i + _MT_M < _MT_N else i + _MT_M - _MT_N
        y = (mt[b, i] & np.uint32(0x80000000)) | (mt[b, following] & np.uint32(0x7FFFFFFF))
        y = mt[b, ahead] ^ (y >> np.uint32(1)) ^ ((np.uint32(0) - (y & np.uint32(1)))
                                                  & np.uint32(0x9908B0DF))
        mt[b, i] = y
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@_jit
def _mt_position(mt, b):
    """``mt[b, 624]``: the position i in the state (low 16 bits) and how many words from 0
    are twisted already (high 16 bits; words i .. twisted - 1 are twisted, not yet drawn)."""
    return np.int64(mt[b, _MT_N] & np.uint32(0xFFFF)), np.int64(mt[b, _MT_N] >> np.uint32(16))


@_jit
def _mt_advance(i, twisted):
    """The position after drawing word i: the next word, or word 0 of a twist to come."""
    if i + 1 < _MT_N:
        return i + 1, twisted
    return np.int64(0), np.int64(0)


@_jit
def _mt_next(mt, b):
    """CPython's ``genrand_uint32`` (see :func:`_mt_position`)."""
    i, twisted = _mt_position(mt, b)
    y = _mt_word(mt, b, i, twisted)
    i, twisted = _mt_advance(i, twisted)
    mt[b, _MT_N] = np.uint32(i | (twisted << 16))
    return y


@_jit
def _mix_first(previous, word):
    """``init_by_array``'s first loop at a word, before the key's addend (modulo 2**32)."""
    mixed = np.uint32(np.uint32(previous ^ (previous >> np.uint32(30))) * np.uint32(1664525))
    return np.uint32(word ^ mixed)


@_jit
def _mix_second(previous, word):
    """``init_by_array``'s second loop at a word, before subtracting its index."""
    mixed = np.uint32(np.uint32(previous ^ (previous >> np.uint32(30)))
                      * np.uint32(1566083941))
    return np.uint32(word ^ mixed)


SEED_LANES = 32  # shows seeded side by side by _mt_seed_many
SEED_SCRATCH_SIZE = (_MT_N + 2) * SEED_LANES  # uint32 scratch of _mt_seed_many


@_jit
def _lane(i, k):
    """Where word i of lane k lies in _mt_seed_many's scratch: unsigned, so that numba adds
    no negative-index wrap-around and the compiler sees the constant row stride."""
    return np.uint64(i * SEED_LANES + k)


@_jit
def _mt_seed_many(mt, shows, count, seeds, lanes):
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
    :func:`_mt_position`): a deal's draws then only read and temper them."""
    even, odd = _MT_N, _MT_N + 1
    for first in range(0, count, SEED_LANES):
        used = min(SEED_LANES, count - first)
        active = (used + 7) // 8 * 8
        for k in range(SEED_LANES):
            seed = np.uint64(seeds[first + k]) if k < used else np.uint64(0)
            low = np.uint32(seed & np.uint64(0xFFFFFFFF))
            high = np.uint32(seed >> np.uint64(32))
            lanes[_lane(even, k)] = low
            lanes[_lane(odd, k)] = high + np.uint32(1) if high else low
        for i in range(_MT_N):
            for k in range(active):
                lanes[_lane(i, k)] = _MT_BASE[i]
        # init_by_array's first loop: i = 1 .. 623 (steps 0 .. 622), then i = 1 (step 623)
        # after word 0 took word 623; word i takes the even addend at odd i
        for i in range(1, _MT_N - 8, 8):  # words 1 .. 616
            for k in range(active):
                value = lanes[_lane(i - 1, k)]
                for u in range(8):
                    value = np.uint32(_mix_first(value, lanes[_lane(i + u, k)])
                                      + lanes[_lane(even if u % 2 == 0 else odd, k)])
                    lanes[_lane(i + u, k)] = value
        for i in (617, 618, 619, 620, 621, 622, 623, 1):
            if i == 1:
                for k in range(active):
                    lanes[_lane(0, k)] = lanes[_lane(_MT_N - 1, k)]
            addend = even if i % 2 and i != 1 else odd
            for k in range(active):
                lanes[_lane(i, k)] = np.uint32(_mix_first(lanes[_lane(i - 1, k)],
                                                          lanes[_lane(i, k)])
                                               + lanes[_lane(addend, k)])
        # the second loop: i = 2 .. 623, then i = 1 after word 0 took word 623
        for i in range(2, _MT_N - 7, 8):  # words 2 .. 617
            for k in range(active):
                value = lanes[_lane(i - 1, k)]
                for u in range(8):
                    value = np.uint32(_mix_second(value, lanes[_lane(i + u, k)])
                                      - np.uint32(i + u))
                    lanes[_lane(i + u, k)] = value
        for i in (618, 619, 620, 621, 622, 623, 1):
            if i == 1:
                for k in range(active):
                    lanes[_lane(0, k)] = lanes[_lane(_MT_N - 1, k)]
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
            for i in range(_MT_N):
                both = pairs[_lane(i, k) // np.uint64(2)]
                mt[other, i] = np.uint32(both >> np.uint64(32))
                mt[b, i] = np.uint32(both & np.uint64(0xFFFFFFFF))
            mt[b, _MT_N] = np.uint32(_MT_AHEAD << 16)
            mt[other, _MT_N] = np.uint32(_MT_AHEAD << 16)


@_jit
def _below_at(mt, b, n, i, twisted):
    """``random.Random._randbelow(n)``: ``getrandbits(n.bit_length())`` until below n, drawn
    from position i (see :func:`_mt_position`); the draw and the next position (kept in
    registers across a shuffle's draws, instead of a store and a load of ``mt[b, 624]`` per
    draw)."""
    bits = 64 - leading_zeros(np.uint64(n))
    while True:
        r = np.int64(_mt_word(mt, b, i, twisted) >> np.uint32(32 - bits))
        i, twisted = _mt_advance(i, twisted)
        if r < n:
            return r, i, twisted


@_jit
def _below(mt, b, n):
    """``random.Random._randbelow(n)`` from the show's position."""
    i, twisted = _mt_position(mt, b)
    r, i, twisted = _below_at(mt, b, n, i, twisted)
    mt[b, _MT_N] = np.uint32(i | (twisted << 16))
    return r


@_jit
def _shuffle(mt, b, items, count):
    """``random.shuffle`` of ``items[:count]``."""
    position, twisted = _mt_position(mt, b)
    for i in range(count - 1, 0, -1):
        j, position, twisted = _below_at(mt, b, i + 1, position, twisted)
        items[i], items[j] = items[j], items[i]
    mt[b, _MT_N] = np.uint32(position | (twisted << 16))


@_jit
def _sample_from_pool(mt, b, pool, n, k, out):
    """``random.sample(pool[:n], k)`` for the small populations here (the pool method); it
    reorders ``pool`` (scratch: no allocation)."""
    position, twisted = _mt_position(mt, b)
    for i in range(k):
        j, position, twisted = _below_at(mt, b, n - i, position, twisted)
        out[i] = pool[j]
        pool[j] = pool[n - i - 1]
    mt[b, _MT_N] = np.uint32(position | (twisted << 16))


_SEED_MASK = np.uint64((1 << 63) - 1)
_SEED_STEP = np.uint64(0x9E3779B97F4A7C15)


@_jit
def _stream_seed(seed, show_number):
    return np.int64((np.uint64(seed) + np.uint64(show_number) * _SEED_STEP) & _SEED_MASK)


def stream_seed(seed: int, show_number: int) -> int:
    """The seed of the show that follows the ``show_number``-th show ended in a slot reset
    with ``seed`` (show 0 is dealt with ``seed`` itself)."""
    return int(_stream_seed(seed, show_number))


# -- setup ----------------------------------------------------------------------------------------


# the 90 game tokens by category, in id order; category c's are from _CATEGORY_START[c]
_TOKENS_BY_CATEGORY = np.argsort(_CATEGORY[:90], kind="stable")
_CATEGORY_START = np.searchsorted(_CATEGORY[_TOKENS_BY_CATEGORY], np.arange(COCONUT + 2))


@_jit
def _tokens_of_category(category, pool):
    """The 90 game tokens of ``category`` into ``pool`` in id order (as the reference deals
    them before shuffling); their count."""
    start = _CATEGORY_START[category]
    count = _CATEGORY_START[category + 1] - start
    for i in range(count):
        pool[i] = _TOKENS_BY_CATEGORY[start + i]
    return count


@_jit
def _deal_seeded(g, mt, b, n, locs, options, pool, cards):
    """``ShowGame(config, seed)`` once ``mt[b]`` is seeded with seed (:func:`_mt_seed_many`):
    the same draws in the same order. ``options``: characters, deck size, unpleasant cards,
    end window; ``pool``, ``cards``: int64 scratch of MAX_TOKENS."""
    characters, deck_size, unpleasant, end_window = options[0], options[1], options[2], options[3]
    for i in range(ROW_SIZE):
        g[b, i] = 0
    g[b, LEADER] = _below(mt, b, n)
    for seat in range(MAX_PLAYERS):
        g[b, CHARACTER + seat] = -1
        g[b, LAST_LOC + seat] = -1
        g[b, LAST_ACT + seat] = -1
        g[b, ALIVE + seat] = seat < n
    if characters:
        for i in range(len(_SPECIALTY)):
            pool[i] = i
        _sample_from_pool(mt, b, pool, len(_SPECIALTY), n, cards)
        for seat in range(n):
            g[b, CHARACTER + seat] = cards[seat]
    for seat in range(n):  # each seat holds its eight cans, in id order
        for i in range(8):
            token = 90 + 8 * seat + i
            g[b, HOLD + seat * MAX_TOKENS + i] = token
            g[b, KNOWN + token] = 1 << seat
        g[b, HOLD_N + seat] = 8
    for kind in range(3):
        count = _tokens_of_category(kind, pool)
        _shuffle(mt, b, pool, count)
        size = PILE_MAX if kind == RAFT else 6
        start = 0
        for loc in range(1, locs):
            base = PILE + (loc * 3 + kind) * PILE_MAX
            for i in range(size):
                g[b, base + i] = pool[start + i]
            g[b, PILE_N + loc * 3 + kind] = size
            start += size
    count = _tokens_of_category(np.int64(COCONUT), pool)
    _shuffle(mt, b, pool, count)
    for i in range(count):
        g[b, STACK + i] = pool[i]
    g[b, STACK_N] = count
    for i in range(len(_UNPLEASANT)):
        pool[i] = _UNPLEASANT[i]
    _sample_from_pool(mt, b, pool, len(_UNPLEASANT), unpleasant, cards)
    for i in range(unpleasant, deck_size):
        cards[i] = CALM_CARD
    _shuffle(mt, b, cards, deck_size)
    window = min(end_window, deck_size + 1)
    where = deck_size + 1 - window + _below(mt, b, window)
    for i in range(deck_size, where, -1):
        cards[i] = cards[i - 1]
    cards[where] = END_CARD
    for i in range(deck_size + 1):  # the list's end is the top: store it reversed, bottom first
        g[b, DECK + i] = cards[deck_size - i]
    g[b, DECK_N] = deck_size + 1
    g[b, LAST_EVENT] = NO_EVENT


# -- holdings and queries -------------------------------------------------------------------------


@_jit
def _remove(row, seat, token):
    # Unsigned indices (see _at) in one of the busiest loops: 1.5% of the step. The base and
    # the counter are uint64 themselves; casting each index with _at instead ran 0.99x.
    base = np.uint64(HOLD + seat * MAX_TOKENS)
    count = np.int64(row[HOLD_N + seat])
    i = np.uint64(0)
    while row[base + i] != token:
        i += np.uint64(1)
    for j in range(i, count - 1):
        row[base + np.uint64(j)] = row[base + np.uint64(j + 1)]
    row[HOLD_N + seat] = count - 1


@_jit
def _append(row, seat, token):
    row[HOLD + seat * MAX_TOKENS + row[HOLD_N + seat]] = token
    row[HOLD_N + seat] += 1


@_jit
def _transfer(row, token, giver, receiver):
    _remove(row, giver, token)
    _append(row, receiver, token)
    row[KNOWN + token] |= 1 << receiver


@_jit
def _holding(row, seat, out):
    """Copy the seat's holding into ``out`` (scratch, no allocation); returns its size."""
    base = HOLD + seat * MAX_TOKENS
    count = np.int64(row[HOLD_N + seat])
    for i in range(count):
        out[i] = row[base + i]
    return count


@_jit
def _food_value(tokens, start, count):
    total = 0
    for i in range(start, start + count):
        total += _FOOD[tokens[i]]
    return total


@_jit
def _sets_units(rope, log):
    sets = min(rope, log)
    return sets, rope + log - 2 * sets


@_jit
def _rope_log(tokens, start, count, skip):
    """(rope units, log units) of ``tokens[start:start + count]`` without the token ``skip``."""
    rope = 0
    log = 0
    for i in range(start, start + count):
        token = tokens[i]
        if token != skip:
            rope += _ROPE[token]
            log += _LOG[token]
    return rope, log


@_jit
def _raft_sets_units(tokens, start, count, skip):
    """(raft sets, leftover units) of ``tokens[start:start + count]`` without the token
    ``skip``."""
    rope, log = _rope_log(tokens, start, count, skip)
    return _sets_units(rope, log)


@_jit
def _ranking_key(row, seat):
    base = HOLD + seat * MAX_TOKENS
    count = np.int64(row[HOLD_N + seat])
    sets, leftover = _raft_sets_units(row, base, count, np.int64(-1))
    return sets, leftover, _food_value(row, base, count)


@_jit
def _playing_order(row, n, order):
    count = 0
    for i in range(n):
        seat = (row[LEADER] + i) % n
        if row[_at(ALIVE + seat)]:
            order[count] = seat
            count += 1
    return count


# -- default decisions (S19, S21) -----------------------------------------------------------------


@_jit
def _take(row, mt, b, taker, candidates, count):
    """``DefaultDecisions.take``: by category raft, chicken, fruit, can, coconut; the highest
    remembered value, else a seeded random one (in candidate order)."""
    bit = 1 << taker
    for category in _TAKE_ORDER:
        found = np.int64(0)
        best = -1
        for i in range(count):
            token = candidates[i]
            if _CATEGORY[token] == category:
                found += 1
                if row[KNOWN + token] & bit and (best < 0 or _VALUE[token] > _VALUE[best]):
                    best = token
        if found:
            if best >= 0:
                return best
            chosen = _below(mt, b, found)
            for i in range(count):
                if _CATEGORY[candidates[i]] == category:
                    if chosen == 0:
                        return candidates[i]
                    chosen -= 1
    return -1


@_jit
def _gift(row, giver):
    """``DefaultDecisions.gift``: the cheapest food, else the raft token whose loss leaves the
    best (sets, leftover units)."""
    base = HOLD + giver * MAX_TOKENS
    count = np.int64(row[HOLD_N + giver])
    best = -1
    for i in range(base, base + count):
        token = np.int64(row[i])
        if _CATEGORY[token] != RAFT and (
                best < 0 or _VALUE[token] < _VALUE[best]
                or (_VALUE[token] == _VALUE[best]
                    and _GIFT_RANK[_CATEGORY[token]] < _GIFT_RANK[_CATEGORY[best]])):
            best = token
    if best >= 0:
        return best
    best_sets, best_left = -1, -1
    for i in range(base, base + count):
        token = np.int64(row[i])
        sets, left = _raft_sets_units(row, base, count, token)
        if sets > best_sets or (sets == best_sets and left > best_left):
            best, best_sets, best_left = token, sets, left
    return best


@_jit
def _ninja_hide(row, ninja, hidden, start, tokens):
    """``DefaultDecisions.ninja_hide``: the pair (or fewer) of own tokens maximising (sets,
    units, food value) of the hidden tokens alone, written to ``hidden[start:]``; ties to the
    lowest ids. Returns the count. ``tokens``: scratch of MAX_TOKENS."""
    count = _holding(row, ninja, tokens)
    for i in range(1, count):  # insertion sort by id
        token = tokens[i]
        j = i
        while j > 0 and tokens[j - 1] > token:
            tokens[j] = tokens[j - 1]
            j -= 1
        tokens[j] = token
    if count <= 1:
        for i in range(count):
            hidden[start + i] = tokens[i]
        return count
    best = (-1, -1, -1)
    for i in range(count):
        for j in range(i + 1, count):
            first, second = tokens[i], tokens[j]
            sets, left = _sets_units(_ROPE[first] + _ROPE[second], _LOG[first] + _LOG[second])
            key = (sets, 2 * sets + left, _FOOD[first] + _FOOD[second])
            if key > best:
                best = key
                hidden[start] = tokens[i]
                hidden[start + 1] = tokens[j]
    return 2


@_jit
def _supper(row, player, meal):
    """``DefaultDecisions.supper`` into ``meal``; returns the number of tokens, 0 when the
    player's food is worth less than 4 (it starves, as no pattern can be paid). The player's
    food is gathered as bits of ``_SUPPER_LOW_BIT``/``_SUPPER_HIGH_BIT`` in one pass without
    branches, and a pattern's tokens are the lowest bits of its values."""
    low = np.uint64(0)
    high = np.uint64(0)
    base = HOLD + player * MAX_TOKENS
    for i in range(row[HOLD_N + player]):
        token = row[base + i]
        low |= _SUPPER_LOW_BIT[token]
        high |= _SUPPER_HIGH_BIT[token]
    ones = low & _SUPPER_LOW_SPLIT_MASK
    twos = low >> np.uint64(_SUPPER_LOW_SPLIT)
    threes = high & _SUPPER_HIGH_SPLIT_MASK
    fours = high >> np.uint64(_SUPPER_HIGH_SPLIT)
    if fours:
        meal[0] = _SUPPER_HIGH_TOKEN[_SUPPER_HIGH_SPLIT + trailing_zeros(fours)]
        return 1
    one = _SUPPER_LOW_TOKEN[trailing_zeros(ones)] if ones else -1
    two = _SUPPER_LOW_TOKEN[_SUPPER_LOW_SPLIT + trailing_zeros(twos)] if twos else -1
    three = _SUPPER_HIGH_TOKEN[trailing_zeros(threes)] if threes else -1
    ones_b = ones & (ones - np.uint64(1))  # without the lowest bit
    twos_b = twos & (twos - np.uint64(1))
    if twos_b:
        two_b = _SUPPER_LOW_TOKEN[_SUPPER_LOW_SPLIT + trailing_zeros(twos_b)]
        # 2 + 2 against 3 + 1: the smaller sorted pair of supper ranks, 3 + 1 on a tie.
        better = three < 0 or one < 0
        if not better:
            rank_three, rank_one = _SUPPER_TOKEN_RANK[three], _SUPPER_TOKEN_RANK[one]
            better = (_SUPPER_TOKEN_RANK[two] * 4 + _SUPPER_TOKEN_RANK[two_b]
                      < min(rank_three, rank_one) * 4 + max(rank_three, rank_one))
        if better:
            meal[0], meal[1] = two, two_b
            return 2
    if three >= 0 and one >= 0:
        meal[0], meal[1] = three, one
        return 2
    if two >= 0 and ones_b:
        meal[0], meal[1] = two, one
        meal[2] = _SUPPER_LOW_TOKEN[trailing_zeros(ones_b)]
        return 3
    ones_c = ones_b & (ones_b - np.uint64(1))
    ones_d = ones_c & (ones_c - np.uint64(1))
    if ones_d:
        meal[0], meal[1] = one, _SUPPER_LOW_TOKEN[trailing_zeros(ones_b)]
        meal[2], meal[3] = (_SUPPER_LOW_TOKEN[trailing_zeros(ones_c)],
                            _SUPPER_LOW_TOKEN[trailing_zeros(ones_d)])
        return 4
    if three < 0:
        return 0
    if two >= 0:
        meal[0], meal[1] = three, two
        return 2
    threes_b = threes & (threes - np.uint64(1))
    if threes_b:
        meal[0], meal[1] = three, _SUPPER_HIGH_TOKEN[trailing_zeros(threes_b)]
        return 2
    return 0


# -- a day ----------------------------------------------------------------------------------------


@_jit
def _location_act(choice):
    """(location, act) of a choice 5 * location + act, divided unsigned (a choice is never
    negative): no floor correction for negative dividends, and both known non-negative."""
    unsigned = np.uint64(choice)
    return (np.int64(unsigned // np.uint64(NUM_ACTIONS)),
            np.int64(unsigned % np.uint64(NUM_ACTIONS)))


@_jit
def _draw_coconuts(row, players, count_players, each):
    for i in range(count_players):
        p = players[i]
        count = each + (row[CHARACTER + p] == CONNOISSEUR)
        for _ in range(min(count, row[STACK_N])):
            row[STACK_N] -= 1
            token = np.int64(row[STACK + row[STACK_N]])
            _append(row, p, token)
            row[KNOWN + token] |= 1 << p


@_jit
def _gather(row, loc, kind, player, quota, drawn):
    """Draw up to ``quota`` tokens (a specialist one more, then returns one to the bottom:
    S20, S21f) into ``drawn``; returns how many were kept."""
    base = PILE + (loc * 3 + kind) * PILE_MAX
    size_at = PILE_N + loc * 3 + kind
    extra = _SPECIALTY[row[CHARACTER + player]] == kind if row[CHARACTER + player] >= 0 else False
    count = min(quota + extra, row[size_at])
    for i in range(count):
        row[size_at] -= 1
        drawn[i] = row[base + row[size_at]]
        row[KNOWN + drawn[i]] |= 1 << player
    if count > quota:
        rejected = drawn[0]
        if _CATEGORY[drawn[0]] == RAFT:  # the units of holding and draw without drawn[i]
            rope, log = _rope_log(row, HOLD + player * MAX_TOKENS,
                                  np.int64(row[HOLD_N + player]), np.int64(-1))
            for i in range(count):
                rope += _ROPE[drawn[i]]
                log += _LOG[drawn[i]]
            best_sets, best_units = -1, -1
            for i in range(count):
                if _RAFT_KIND[drawn[i]] == 0:
                    sets, left = _sets_units(rope - _VALUE[drawn[i]], log)
                else:
                    sets, left = _sets_units(rope, log - _VALUE[drawn[i]])
                if sets > best_sets or (sets == best_sets and 2 * sets + left > best_units):
                    rejected, best_sets, best_units = drawn[i], sets, 2 * sets + left
        else:
            for i in range(1, count):
                if _VALUE[drawn[i]] < _VALUE[rejected]:
                    rejected = drawn[i]
        kept = 0
        for i in range(count):
            if drawn[i] != rejected:
                drawn[kept] = drawn[i]
                kept += 1
        for i in range(row[size_at], 0, -1):
            row[base + i] = row[base + i - 1]
        row[base] = rejected
        row[size_at] += 1
        count = kept
    for i in range(count):
        _append(row, player, drawn[i])
    return count


@_jit
def _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens):
    """Guards take from caught thieves (S11); a Ninja hides 2 tokens first (S20, S21i).
    Scratch: ``spare`` holds the candidates, then the hidden tokens (from MAX_TOKENS)."""
    hidden = MAX_TOKENS
    num_hidden = np.int64(0)
    for t in range(num_thieves):
        if row[CHARACTER + thieves[t]] == NINJA:
            num_hidden += _ninja_hide(row, thieves[t], spare, hidden + num_hidden, tokens)
    candidates = spare
    if num_guards == 1:
        for t in range(num_thieves):
            for _ in range(2 if num_thieves == 1 else 1):
                count = _takeable(row, thieves[t], hidden, num_hidden, candidates)
                if count:
                    token = _take(row, mt, b, guards[0], candidates, count)
                    _transfer(row, token, thieves[t], guards[0])
        return
    for position in range(num_guards):
        guard = guards[position]
        thief = thieves[0]
        if num_thieves == 2:  # pick_thief: the thief in the guard's position, else one with loot
            thief = thieves[min(position, 1)]
            if not _takeable(row, thief, hidden, num_hidden, candidates):
                for t in range(2):
                    if _takeable(row, thieves[t], hidden, num_hidden, candidates):
                        thief = thieves[t]
                        break
        count = _takeable(row, thief, hidden, num_hidden, candidates)
        if count:
            token = _take(row, mt, b, guard, candidates, count)
            _transfer(row, token, thief, guard)


@_jit
def _takeable(row, thief, hidden, num_hidden, out):
    """The thief's tokens not hidden (``out[hidden:hidden + num_hidden]``) into ``out``."""
    count = 0
    base = HOLD + thief * MAX_TOKENS
    for i in range(row[HOLD_N + thief]):
        token = row[base + i]
        shown = True
        for h in range(hidden, hidden + num_hidden):
            if out[h] == token:
                shown = False
        if shown:
            out[count] = token
            count += 1
    return count


@_jit
def _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens):
    """Each giver hands one token to a guard (S11, S12); Arnold picks it (S20)."""
    for i in range(num_givers):
        giver = givers[i]
        if row[HOLD_N + giver] == 0:
            continue
        guard = guards[0]
        if num_guards == 2 and row[HOLD_N + guards[1]] < row[HOLD_N + guards[0]]:
            guard = guards[1]  # pick_guard: fewer tokens, then playing order
        if row[CHARACTER + guard] == ARNOLD:
            count = _holding(row, giver, tokens)
            token = _take(row, mt, b, guard, tokens, count)
        else:
            token = _gift(row, giver)
        _transfer(row, token, giver, guard)


@_jit
def _campsite_theft(row, mt, b, thief, amount, order, count_order, spare, tokens):
    """``DefaultDecisions.campsite_theft``: rob the living player with the most raft tokens
    (then most tokens, then playing order), then the next; no coconuts (S12, S21b)."""
    victims, keys = 0, MAX_PLAYERS  # offsets into the scratch ``spare``
    stolen, owners = 2 * MAX_PLAYERS, 3 * MAX_PLAYERS
    count = 0
    for position in range(count_order):
        p = order[position]
        if p == thief:
            continue
        rafts = 0
        base = HOLD + p * MAX_TOKENS
        held = np.int64(row[_at(HOLD_N + p)])
        for i in range(held):
            rafts += _CATEGORY[_at(row[_at(base + i)])] == RAFT
        key = -rafts * 1000000 - held * 100 + position  # distinct keys
        j = count
        while j > 0 and spare[_at(keys + j - 1)] > key:  # insertion sort by key
            spare[_at(keys + j)] = spare[_at(keys + j - 1)]
            spare[_at(victims + j)] = spare[_at(victims + j - 1)]
            j -= 1
        spare[_at(keys + j)] = key
        spare[_at(victims + j)] = p
        count += 1
    num_stolen = 0
    candidates = tokens
    for v in range(count):
        victim = spare[_at(victims + v)]
        left = _holding(row, victim, candidates)
        while left and num_stolen < amount:
            token = _take(row, mt, b, thief, candidates, left)
            spare[_at(stolen + num_stolen)] = token
            spare[_at(owners + num_stolen)] = victim
            num_stolen += 1
            i = 0
            while candidates[_at(i)] != token:
                i += 1
            for j in range(i, left - 1):
                candidates[_at(j)] = candidates[_at(j + 1)]
            left -= 1
        if num_stolen == amount:
            break
    for i in range(num_stolen):
        _transfer(row, spare[_at(stolen + i)], spare[_at(owners + i)], thief)


@_jit
def _resolve_campsite(row, mt, b, order, count_order, choices, work, spare, tokens):
    thieves = work[0:MAX_PLAYERS]
    guards = work[MAX_PLAYERS:2 * MAX_PLAYERS]
    num_thieves = np.int64(0)
    num_guards = np.int64(0)
    for i in range(count_order):
        p = order[i]
        choice = choices[_at(p)]
        if choice == THIEF:  # Campsite is location 0: action = act
            thieves[_at(num_thieves)] = p
            num_thieves += 1
        elif choice == GUARD:
            guards[_at(num_guards)] = p
            num_guards += 1
    if num_thieves > 2:  # S8: 3+ cancel each other
        num_thieves = np.int64(0)
    if num_guards > 2:
        num_guards = np.int64(0)
    if num_thieves and num_guards:
        _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens)
        givers = work[2 * MAX_PLAYERS:3 * MAX_PLAYERS]
        num_givers = np.int64(0)
        for i in range(count_order):
            p = order[i]
            involved = False
            for t in range(num_thieves):
                involved |= thieves[t] == p
            for t in range(num_guards):
                involved |= guards[t] == p
            if not involved:
                givers[_at(num_givers)] = p
                num_givers += 1
        _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens)
    elif num_thieves:
        for t in range(num_thieves):
            _campsite_theft(row, mt, b, thieves[t], 2 if num_thieves == 1 else 1, order,
                            count_order, spare, tokens)
    elif num_guards:
        _draw_coconuts(row, guards, num_guards, 2 if num_guards == 1 else 1)


@_jit
def _resolve_location(row, mt, b, loc, order, count_order, choices, work, spare, tokens):
    """One location's day (S7-S11); ``work``: scratch of at least 64 + MAX_TOKENS ints."""
    here = 0
    for i in range(count_order):
        here += _location_act(choices[_at(order[i])])[0] == loc
    if not here:
        return
    # work[groups + act]: players here by act; then the tokens gathered here today and their
    # holders (at most 2 kept per gatherer), and who gathered (offsets, no array views).
    groups, loot, owners, present = 0, 8, 24, 40
    for act in range(NUM_ACTIONS):
        work[groups + act] = 0
    for seat in range(MAX_PLAYERS):
        work[present + seat] = 0
    for i in range(count_order):
        location, act = _location_act(choices[_at(order[i])])
        if location == loc:
            work[_at(groups + act)] += 1
    num_loot = 0
    drawn = work[46:50]
    for i in range(count_order):  # S7: gatherers draw in playing order
        p = order[i]
        location, kind = _location_act(choices[_at(p)])
        if location != loc:
            continue
        gatherers = work[_at(groups + kind)]
        if kind >= THIEF or not 1 <= gatherers <= 2:
            continue
        kept = _gather(row, loc, kind, p, 2 if gatherers == 1 else 1, drawn)
        for j in range(kept):
            work[_at(loot + num_loot)] = drawn[j]
            work[_at(owners + num_loot)] = p
            num_loot += 1
            work[_at(present + p)] = 1
    num_thieves = work[groups + THIEF] if work[groups + THIEF] <= 2 else np.int64(0)
    num_guards = work[groups + GUARD] if work[groups + GUARD] <= 2 else np.int64(0)
    if not num_thieves and not num_guards:
        return
    thieves = work[50:52]
    guards = work[52:54]
    t = 0
    d = 0
    for i in range(count_order):
        p = order[i]
        choice = choices[_at(p)]
        if choice == loc * NUM_ACTIONS + THIEF and t < num_thieves:
            thieves[_at(t)] = p
            t += 1
        if choice == loc * NUM_ACTIONS + GUARD and d < num_guards:
            guards[_at(d)] = p
            d += 1
    if num_thieves and num_guards:
        _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens)
        givers = work[54:60]
        num_givers = np.int64(0)
        for i in range(count_order):
            if work[_at(present + order[i])]:
                givers[_at(num_givers)] = order[i]
                num_givers += 1
        _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens)
    elif num_thieves:
        if not num_loot:
            _draw_coconuts(row, thieves, num_thieves, 2 if num_thieves == 1 else 1)  # S10
            return
        remaining = work[64:64 + MAX_TOKENS]
        left = np.int64(0)
        for i in range(count_order):
            p = order[i]
            base = HOLD + p * MAX_TOKENS
            for j in range(row[_at(HOLD_N + p)]):
                token = row[_at(base + j)]
                for k in range(num_loot):
                    if work[_at(loot + k)] == token:
                        remaining[_at(left)] = token
                        left += 1
        turn = 0
        while left:  # S10: one thief takes all, two pick alternately
            thief = thieves[turn % num_thieves]
            token = remaining[0] if num_thieves == 1 else _take(row, mt, b, thief, remaining,
                                                                 left)
            i = 0
            while remaining[_at(i)] != token:
                i += 1
            for j in range(i, left - 1):
                remaining[_at(j)] = remaining[_at(j + 1)]
            left -= 1
            k = 0
            while work[_at(loot + k)] != token:
                k += 1
            _transfer(row, token, work[_at(owners + k)], thief)
            turn += 1
    elif num_guards:
        _draw_coconuts(row, guards, num_guards, 2 if num_guards == 1 else 1)  # S11


@_jit
def _event(row, mt, b, order, count_order, locs, tokens):
    if row[DECK_N] == 0:
        return END_CARD  # S14, S21c: an empty deck ends the show
    row[DECK_N] -= 1
    card = row[_at(DECK + row[DECK_N])]
    size = _CARD_SIZE[_at(card)]
    kind = _CARD_PILE[_at(card)]
    if kind >= 0:
        for loc in range(1, locs):
            at = _at(PILE_N + loc * 3 + kind)
            row[at] -= min(size, row[at])
    elif _CARD_RAT[_at(card)]:
        for i in range(count_order):
            remover = order[i]
            victim = order[_at((i + 1) % count_order)]
            for _ in range(size):
                if row[_at(HOLD_N + victim)] == 0:
                    break
                count = _holding(row, victim, tokens)
                token = _take(row, mt, b, remover, tokens, count)
                row[_at(KNOWN + token)] |= 1 << remover  # S21g
                _remove(row, victim, token)
    return card


@_jit
def _finish_keys(row, seat, keys_out):
    sets, left, food = _ranking_key(row, seat)
    keys_out[seat, 0] = sets
    keys_out[seat, 1] = left
    keys_out[seat, 2] = food


@_jit
def _play_day(row, mt, b, choices, n, locs, keys_out, winners_out, order, work, spare, tokens):
    """One day (S6-S16) from each living seat's action (5 * location + act). Returns the end
    condition (0, 1, 2 for A, B, C) or -1 while the show goes on; ``keys_out`` and
    ``winners_out`` get the final ranking keys (-1 rows for seats without one) and winners.
    Scratch (int64): ``order`` MAX_PLAYERS, ``work`` WORK_SIZE, ``spare`` SPARE_SIZE,
    ``tokens`` MAX_TOKENS + 4."""
    row[DAY] += 1
    count_order = _playing_order(row, n, order)
    for seat in range(n):
        if row[ALIVE + seat]:
            row[LAST_LOC + seat], row[LAST_ACT + seat] = _location_act(choices[seat])
        else:
            row[LAST_LOC + seat] = -1
            row[LAST_ACT + seat] = -1
    _resolve_campsite(row, mt, b, order, count_order, choices, work, spare, tokens)  # S7
    for loc in range(1, locs):
        _resolve_location(row, mt, b, loc, order, count_order, choices, work, spare, tokens)
    card = _event(row, mt, b, order, count_order, locs, tokens)
    row[LAST_EVENT] = card
    keys_out[:] = -1
    winners_out[:] = False
    condition = -1
    if card == END_CARD:
        for i in range(count_order):
            _finish_keys(row, order[i], keys_out)
        condition = 0
    else:
        starving = spare  # flags by seat
        starving[:MAX_PLAYERS] = 0
        meal = tokens
        everyone = (1 << n) - 1
        for i in range(count_order):
            p = order[i]
            eaten = _supper(row, p, meal)
            if not eaten:
                starving[_at(p)] = 1
                continue
            for j in range(eaten):
                row[_at(KNOWN + meal[j])] = everyone  # S18, S21h
                _remove(row, p, meal[j])
        survivors = 0
        for i in range(count_order):
            p = order[i]
            if starving[_at(p)]:
                _finish_keys(row, p, keys_out)  # before their holdings go (end B)
                row[_at(ALIVE + p)] = 0
                row[_at(HOLD_N + p)] = 0
            else:
                survivors += 1
        if survivors == 0:
            condition = 1
        else:
            keys_out[:] = -1
            if survivors == 1:
                condition = 2
                for i in range(count_order):
                    if not starving[_at(order[i])]:
                        _finish_keys(row, order[i], keys_out)
            else:
                for i in range(1, n + 1):
                    seat = (row[LEADER] + i) % n
                    if row[_at(ALIVE + seat)]:
                        row[LEADER] = seat
                        break
    if condition >= 0:
        row[DONE] = 1
        best = (-1, -1, -1)
        for seat in range(n):
            key = (keys_out[seat, 0], keys_out[seat, 1], keys_out[seat, 2])
            if keys_out[seat, 0] >= 0 and key > best:
                best = key
        for seat in range(n):
            winners_out[seat] = (keys_out[seat, 0] >= 0 and keys_out[seat, 0] == best[0]
                                 and keys_out[seat, 1] == best[1]
                                 and keys_out[seat, 2] == best[2])
    return condition


# -- observations ---------------------------------------------------------------------------------


@_jit
def _observe(g, b, seats, legal, scratch, out, masks):
    """Every seat's observation and mask of show b (``ShowParallelEnv._observe_all``), written
    straight into ``out[b, seat]`` and ``masks[b, seat]``. ``seats``: a tuple of one item per
    player, so that the player count, and with it every offset of the layout, is a constant of
    the compiled code (one compilation per player count: the loops over players unroll and the
    index arithmetic folds). ``scratch``: int64 of SCRATCH_SIZE.
    A holder's counts are summed in registers, one byte per column (``_OWN_LOW`` etc.), not
    added into the output token by token: those dependent stores and loads cost more than the
    rest of the token loop."""
    n = len(seats)
    layout = _LAYOUT[n]
    counts_at, alive_at, leader_at, order_at = layout[0], layout[1], layout[2], layout[3]
    shared, choices_at, known_at, character_at = layout[4], layout[5], layout[6], layout[7]
    row = g[b]
    view = out[b]
    for seat in range(n):
        for i in range(layout[8]):
            view[seat, i] = 0.0
    position = MAX_PLAYERS  # scratch: per holder its packed public counts, then its position
    for holder in range(n):
        base = HOLD + holder * MAX_TOKENS
        low = np.int64(0)
        high = np.int64(0)
        public = np.int64(0)
        for i in range(row[HOLD_N + holder]):
            token = np.int64(row[base + i])
            low += _OWN_LOW[token]
            high += _OWN_HIGH[token]
            public += _PUBLIC_UNITS[token]
            others = row[KNOWN + token] & ~(1 << holder)
            observer = 0
            while others:  # the other players who remember this token: in their view, the
                if others & 1:  # holder sits (holder - observer) mod n seats to the left
                    left = holder - observer if holder > observer else holder - observer + n
                    cell = known_at + KNOWN_FIELDS * (left - 1)
                    view[observer, cell + _PUBLIC_COLUMN[token]] += 1.0
                    view[observer, cell + _KNOWN_FIELD[token]] += _VALUE[token]
                others >>= 1
                observer += 1
        for c in range(8):
            view[holder, c] = (low >> (8 * c)) & 255
            view[holder, 8 + c] = (high >> (8 * c)) & 255
        view[holder, OWN_WIDTH - 2] = (public >> 40) & 255  # rope units
        view[holder, OWN_WIDTH - 1] = (public >> 48) & 255  # log units
        scratch[holder] = public
        scratch[position + holder] = -1
    leader = np.int64(row[LEADER])
    placed = 0
    for i in range(n):  # the playing order, from the leader
        seat = leader + i if leader + i < n else leader + i - n
        if row[ALIVE + seat]:
            scratch[position + seat] = placed
            placed += 1
    live = row[DONE] == 0
    for seat in range(n):
        for i in range(n):  # the other seats from this one's left
            other = seat + i if seat + i < n else seat + i - n
            public = scratch[other]
            for c in range(5):
                view[seat, counts_at + 5 * i + c] = (public >> (8 * c)) & 255
            view[seat, alive_at + i] = row[ALIVE + other]
            view[seat, order_at + i] = scratch[position + other]
            if row[LAST_LOC + other] >= 0:
                view[seat, choices_at + 9 * i + row[LAST_LOC + other]] = 1.0
                view[seat, choices_at + 9 * i + 4 + row[LAST_ACT + other]] = 1.0
        view[seat, leader_at + (leader - seat if leader >= seat else leader - seat + n)] = 1.0
        view[seat, shared] = row[DAY]
        for loc in range(1, 4):
            for kind in range(3):
                view[seat, shared + 1 + (loc - 1) * 3 + kind] = row[PILE_N + loc * 3 + kind]
        view[seat, shared + 10] = row[STACK_N]
        view[seat, shared + 11] = row[DECK_N]
        if row[LAST_EVENT] >= 0:
            view[seat, shared + 12 + row[LAST_EVENT]] = 1.0
        view[seat, character_at + 1 + row[CHARACTER + seat]] = 1.0
        seat_live = live and row[ALIVE + seat] == 1
        for a in range(NUM_CHOICES):
            masks[b, seat, a] = legal[a] if seat_live else 0


# -- the batch ------------------------------------------------------------------------------------


@_jit_allocating
def _reset_all(g, mt, seeds, seats, locs, options, legal, observations, masks):
    n = len(seats)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    pool = np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(MAX_TOKENS, np.int64)
    _mt_seed_many(mt, np.arange(len(g)), len(g), seeds, np.empty(SEED_SCRATCH_SIZE, np.uint32))
    for b in range(len(g)):
        _deal_seeded(g, mt, b, n, locs, options, pool, cards)
        _observe(g, b, seats, legal, scratch, observations, masks)


@_jit
def _r1(n, share):
    return n / (n - 1) * (share - 1.0 / n)


@_jit_allocating
def _step_all(g, mt, actions, seats, locs, options, legal, seeds, shows_played,
              shaped, observations, masks, rewards, terminated, done, final_observations,
              final_masks, winners, end_condition, ranking_keys, days, prefetch_ahead):
    """Allocates the scratch of :func:`_step_shows`, which runs without reference counts (in
    a function that keeps them, each view of a row costs two runtime calls)."""
    _step_shows(g, mt, actions, seats, locs, options, legal, seeds, shows_played, shaped,
                observations, masks, rewards, terminated, done, final_observations, final_masks,
                winners, end_condition, ranking_keys, days, np.empty(SCRATCH_SIZE, np.int64),
                np.zeros(MAX_PLAYERS, np.bool_), np.zeros(MAX_PLAYERS),
                np.empty(MAX_PLAYERS, np.int64), np.empty(WORK_SIZE, np.int64),
                np.empty(SPARE_SIZE, np.int64), np.empty(TOKENS_SIZE, np.int64),
                np.empty(len(g), np.int64), np.empty(len(g), np.int64),
                np.empty(SEED_SCRATCH_SIZE, np.uint32), prefetch_ahead)


# Large batches wait for memory: from PREFETCH_FROM shows (about 7 KB each with their
# observations, so past the L3 cache), the step asks for the state of the show PREFETCH_AHEAD
# places on while it plays the current one. Below that, even the unused branch cost 1% of the
# step, so the step receives ``prefetch_ahead``, a tuple: ``(PREFETCH_AHEAD,)`` or empty, and
# its length, a compile-time constant, leaves the smaller batches' code without it.
PREFETCH_FROM = 2048
PREFETCH_AHEAD = 4
_ROW_BYTES = ROW_SIZE * 2
_MT_ROW_BYTES = (_MT_N + 1) * 4


@_jit
def _prefetch_show(g, mt, b, n):
    """The cache lines show b's day will use: the start of each seat's holding, everything
    from the holdings' sizes to the row's end, and the Twister's next words."""
    start = b * _ROW_BYTES
    for seat in range(n):
        _prefetch_for_write(g, start + (HOLD + seat * MAX_TOKENS) * 2)
        _prefetch_for_write(g, start + (HOLD + seat * MAX_TOKENS) * 2 + 64)
    for offset in range(HOLD_N * 2, _ROW_BYTES + 64, 64):
        _prefetch_for_write(g, start + offset)
    _prefetch_for_write(mt, b * _MT_ROW_BYTES + _mt_position(mt, b)[0] * 4)


@_jit
def _step_shows(g, mt, actions, seats, locs, options, legal, seeds, shows_played, shaped,
                observations, masks, rewards, terminated, done, final_observations, final_masks,
                winners, end_condition, ranking_keys, days, scratch, was_alive, changes, order,
                work, spare, tokens, ended_shows, ended_seeds, seed_lanes, prefetch_ahead):
    n = len(seats)
    num_ended = np.int64(0)
    for b in range(len(g)):
        if len(prefetch_ahead) and b + prefetch_ahead[0] < len(g):
            _prefetch_show(g, mt, b + prefetch_ahead[0], n)
        row = g[b]
        for seat in range(n):
            was_alive[seat] = row[ALIVE + seat] == 1
        condition = _play_day(row, mt, b, actions[b], n, locs, ranking_keys[b], winners[b],
                              order, work, spare, tokens)
        ended = condition >= 0
        done[b] = ended
        rewards[b] = 0.0
        for seat in range(n):
            terminated[b, seat] = was_alive[seat] and (ended or not row[ALIVE + seat])
            if ended and was_alive[seat]:
                share = 0.0
                if winners[b, seat]:
                    share = 1.0 / np.sum(winners[b, :n])
                rewards[b, seat] = _r1(n, share)
            elif terminated[b, seat]:
                rewards[b, seat] = _r1(n, 0.0)
        if shaped:
            total = 0.0
            acting = 0
            changes[:] = 0.0
            for seat in range(n):
                if was_alive[seat]:
                    sets = _ranking_key(row, seat)[0] if row[ALIVE + seat] else 0
                    changes[seat] = sets - row[RAFT_SETS + seat]
                    row[RAFT_SETS + seat] = sets
                    total += changes[seat]
                    acting += 1
            for seat in range(n):
                if was_alive[seat]:
                    rewards[b, seat] += SHAPING_WEIGHT * (changes[seat] - total / acting)
        if ended:
            end_condition[b] = condition
            days[b] = row[DAY]
            _observe(g, b, seats, legal, scratch, final_observations, final_masks)
            shows_played[b] += 1
            ended_shows[num_ended] = b
            ended_seeds[num_ended] = _stream_seed(seeds[b], shows_played[b])
            num_ended += 1
        else:
            _observe(g, b, seats, legal, scratch, observations, masks)
    # The next shows of the ended ones, seeded together (interleaved chains), then dealt.
    _mt_seed_many(mt, ended_shows, num_ended, ended_seeds, seed_lanes)
    for k in range(num_ended):
        b = ended_shows[k]
        _deal_seeded(g, mt, b, n, locs, options, spare, tokens)
        _observe(g, b, seats, legal, scratch, observations, masks)


@_jit_allocating
def _restart(g, mt, shows, seats, locs, options, legal, seeds, shows_played,
             observations, masks):
    n = len(seats)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    pool = np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(MAX_TOKENS, np.int64)
    lanes = np.empty(SEED_SCRATCH_SIZE, np.uint32)
    seed = np.empty(1, np.int64)
    for k in range(len(shows)):  # one at a time: a show listed twice is dealt twice in turn
        b = shows[k]
        shows_played[b] += 1
        seed[0] = _stream_seed(seeds[b], shows_played[b])
        _mt_seed_many(mt, shows[k:k + 1], 1, seed, lanes)
        _deal_seeded(g, mt, b, n, locs, options, pool, cards)
        _observe(g, b, seats, legal, scratch, observations, masks)


@_jit
def _first_illegal(g, actions, num_legal):
    """(show, seat) of the first living seat whose action is outside 0 .. num_legal - 1, or
    (-1, -1)."""
    for b in range(actions.shape[0]):
        for seat in range(actions.shape[1]):
            if g[b, ALIVE + seat] and not 0 <= actions[b, seat] < num_legal:
                return b, seat
    return -1, -1


def observation_size(num_players: int) -> int:
    return observation_tables(num_players).observation_size


class BatchedShow:
    """``batch_size`` shows of HUNGER: The Show with the options of ``hunger_show_v0``.

    Every show runs with the default decisions (S19/S21); ``decisions`` other than None raise,
    as the batch cannot call decision objects. Call :meth:`reset` first; :meth:`step` takes one
    action per seat and show (``actions[b, p]``: ``5 * location + act``; the value for a seat
    that has left is ignored). The compiled code is specialised to the player count: the first
    batch of each count compiles (or loads from numba's cache) its own entry points.
    """

    def __init__(self, num_players: int = 4, batch_size: int = 1, events: str = "standard",
                 deck_size: int = 10, unpleasant: int | None = None, end_window: int = 4,
                 characters: bool = False, decisions=None, reward: str = "r1",
                 decision_mode: str = "objects"):
        if decisions is not None:
            raise InvalidValueError("BatchedShow plays the default decisions (S19) only; "
                                    "custom decision objects need hunger_show_v0")
        if decision_mode != "objects":
            raise InvalidValueError(f"BatchedShow supports decision_mode='objects' only, got "
                                    f"{decision_mode!r}; the full-decision mode runs on "
                                    "hunger_show_v0")
        check_choice(reward, "reward", REWARD_MODES)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self.config = config = ShowConfig(num_players, events, deck_size, unpleasant,
                                          end_window, characters)
        self.num_players = n = config.num_players
        self.batch_size = batch = batch_size
        self.reward_mode = reward
        self.num_locations = config.num_locations
        self.num_legal = NUM_ACTIONS * config.num_locations
        self.options = np.array([config.characters, config.deck_size, config.unpleasant,
                                 config.end_window], np.int64)
        self.seats = tuple(range(n))  # its length is the player count of the compiled code
        self.prefetch_ahead = (PREFETCH_AHEAD,) if batch >= PREFETCH_FROM else ()
        self.legal = legal_mask(n)
        size = observation_tables(n).observation_size
        self.observation_size = size
        self.games = np.zeros((batch, ROW_SIZE), np.int16)
        self.mt = np.zeros((batch, _MT_N + 1), np.uint32)
        self.seeds = np.zeros(batch, np.int64)
        self.shows_played = np.zeros(batch, np.int64)
        self.outputs = StepOutputs(
            observations=np.zeros((batch, n, size), np.float32),
            action_masks=np.zeros((batch, n, NUM_CHOICES), np.int8),
            rewards=np.zeros((batch, n), np.float64),
            terminated=np.zeros((batch, n), np.bool_),
            done=np.zeros(batch, np.bool_),
            final_observations=np.zeros((batch, n, size), np.float32),
            final_masks=np.zeros((batch, n, NUM_CHOICES), np.int8),
            winners=np.zeros((batch, n), np.bool_),
            end_condition=np.full(batch, -1, np.int64),
            ranking_keys=np.full((batch, n, 3), -1, np.int64),
            days=np.zeros(batch, np.int64),
        )
        self._reset_called = False

    def reset(self, seed: int | None = None, seeds=None) -> StepOutputs:
        """Deal every show: show b with ``seeds[b]``, or with ``seed + b`` (``seed`` None: a
        random one). Seeds are ints in 0 .. 2**63 - 1."""
        if seeds is None:
            if seed is None:
                seed = int(np.random.default_rng().integers(0, 2 ** 62))
            seeds = np.arange(self.batch_size, dtype=np.int64) + int(seed)
        seeds = np.asarray(seeds)
        if seeds.shape != (self.batch_size,) or seeds.dtype.kind not in "iu" or (
                seeds.size and (seeds.min() < 0)):
            raise InvalidValueError(f"seeds must be {self.batch_size} non-negative ints, got "
                                    f"shape {seeds.shape} dtype {seeds.dtype}")
        self.seeds[:] = seeds
        self.shows_played[:] = 0
        out = self.outputs
        _reset_all(self.games, self.mt, self.seeds, self.seats, self.num_locations,
                   self.options, self.legal, out.observations,
                   out.action_masks)
        out.done[:] = False
        out.terminated[:] = False
        out.rewards[:] = 0.0
        self._reset_called = True
        return out

    @property
    def alive(self) -> np.ndarray:
        return self.games[:, ALIVE:ALIVE + self.num_players].astype(bool)

    def check_actions(self, actions) -> np.ndarray:
        """``actions`` as an int64 (B, N) array, or IllegalActionError naming the first show
        and seat whose living player has an action outside 0 .. 5 * locations - 1."""
        actions = np.asarray(actions)
        if actions.shape != (self.batch_size, self.num_players) or actions.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be ints of shape ({self.batch_size}, {self.num_players}), got "
                f"shape {actions.shape} dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        show, seat = _first_illegal(self.games, actions, self.num_legal)
        if show >= 0:
            raise IllegalActionError(
                f"show {show}, player_{seat}: action {int(actions[show, seat])} is not legal; "
                f"legal actions are 0..{self.num_legal - 1}")
        return actions

    def restart(self, shows) -> StepOutputs:
        """Abandon the running shows ``shows`` (say, once a learner was eliminated) and deal
        each slot's next show from its seed stream, as if it had ended; only their
        ``observations`` and ``action_masks`` change."""
        if not self._reset_called:
            raise InvalidValueError("call reset() before restart()")
        shows = np.asarray(shows, dtype=np.int64).reshape(-1)
        if shows.size and (shows.min() < 0 or shows.max() >= self.batch_size):
            raise InvalidValueError(f"shows must be in 0..{self.batch_size - 1}")
        out = self.outputs
        _restart(self.games, self.mt, shows, self.seats, self.num_locations,
                 self.options, self.legal, self.seeds,
                 self.shows_played, out.observations, out.action_masks)
        return out

    def step(self, actions) -> StepOutputs:
        """Play one day in every show. Nothing changes if an action is refused."""
        if not self._reset_called:
            raise InvalidValueError("call reset() before step()")
        actions = self.check_actions(actions)
        out = self.outputs
        _step_all(self.games, self.mt, actions, self.seats, self.num_locations,
                  self.options, self.legal, self.seeds,
                  self.shows_played, self.reward_mode == "shaped", out.observations,
                  out.action_masks, out.rewards, out.terminated, out.done,
                  out.final_observations, out.final_masks, out.winners, out.end_condition,
                  out.ranking_keys, out.days, self.prefetch_ahead)
        return out
