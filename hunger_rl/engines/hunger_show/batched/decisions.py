"""The default decisions of S19 and S21 (:class:`~hunger_rl.engines.hunger_show.decisions.
DefaultDecisions`), compiled: which token to take, which to give, what a Ninja hides, what a
player eats at supper.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from hunger_rl.engines.compiled import jit
from hunger_rl.engines.hunger_show.batched.holdings import holding, raft_sets_units, sets_units
from hunger_rl.engines.hunger_show.batched.layout import (
    CAN,
    CATEGORY,
    CHICKEN,
    COCONUT,
    FOOD,
    FRUIT,
    HOLD,
    HOLD_N,
    KNOWN,
    LOG,
    MAX_TOKENS,
    RAFT,
    ROPE,
    VALUE,
)
from hunger_rl.engines.hunger_show.batched.twister import randbelow
from hunger_rl.engines.hunger_show.decisions import SUPPER_PATTERNS

# S19 orders as ranks by category.
_TAKE_ORDER = np.array([RAFT, CHICKEN, FRUIT, CAN, COCONUT], np.int64)
_GIFT_RANK = np.array([1, 2, 9, 3, 0], np.int64)  # coconut, fruit, chicken, can
_SUPPER_RANK = np.array([2, 3, 9, 0, 1], np.int64)  # can, coconut, fruit, chicken
# Supper (S15, S19, S21d). The food tokens worth v > 0 in supper order (by supper rank, then
# id) are bits of a 64-bit mask: values 1 then 2 in the low mask, 3 then 4 in the high one, so
# that the lowest bits of a value are the tokens a pattern takes. supper decides between the
# patterns of decisions.SUPPER_PATTERNS in their order, written out.
assert SUPPER_PATTERNS == ((4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1), (3, 2), (3, 3))


def _supper_tables():
    by_value = [sorted((t for t in range(MAX_TOKENS)
                        if CATEGORY[t] != RAFT and VALUE[t] == value),
                       key=lambda t: (_SUPPER_RANK[CATEGORY[t]], t)) for value in range(5)]
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
_SUPPER_TOKEN_RANK = _SUPPER_RANK[CATEGORY]


@jit
def take(row, mt, b, taker, candidates, count):
    """``DefaultDecisions.take``: by category raft, chicken, fruit, can, coconut; the highest
    remembered value, else a seeded random one (in candidate order)."""
    bit = 1 << taker
    for category in _TAKE_ORDER:
        found = np.int64(0)
        best = -1
        for i in range(count):
            token = candidates[i]
            if CATEGORY[token] == category:
                found += 1
                if row[KNOWN + token] & bit and (best < 0 or VALUE[token] > VALUE[best]):
                    best = token
        if found:
            if best >= 0:
                return best
            chosen = randbelow(mt, b, found)
            for i in range(count):
                if CATEGORY[candidates[i]] == category:
                    if chosen == 0:
                        return candidates[i]
                    chosen -= 1
    return -1


@jit
def gift(row, giver):
    """``DefaultDecisions.gift``: the cheapest food, else the raft token whose loss leaves the
    best (sets, leftover units)."""
    base = HOLD + giver * MAX_TOKENS
    count = np.int64(row[HOLD_N + giver])
    best = -1
    for i in range(base, base + count):
        token = np.int64(row[i])
        if CATEGORY[token] != RAFT and (
                best < 0 or VALUE[token] < VALUE[best]
                or (VALUE[token] == VALUE[best]
                    and _GIFT_RANK[CATEGORY[token]] < _GIFT_RANK[CATEGORY[best]])):
            best = token
    if best >= 0:
        return best
    best_sets, best_left = -1, -1
    for i in range(base, base + count):
        token = np.int64(row[i])
        sets, left = raft_sets_units(row, base, count, token)
        if sets > best_sets or (sets == best_sets and left > best_left):
            best, best_sets, best_left = token, sets, left
    return best


@jit
def ninja_hide(row, ninja, hidden, start, tokens):
    """``DefaultDecisions.ninja_hide``: the pair (or fewer) of own tokens maximising (sets,
    units, food value) of the hidden tokens alone, written to ``hidden[start:]``; ties to the
    lowest ids. Returns the count. ``tokens``: scratch of MAX_TOKENS."""
    count = holding(row, ninja, tokens)
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
            sets, left = sets_units(ROPE[first] + ROPE[second], LOG[first] + LOG[second])
            key = (sets, 2 * sets + left, FOOD[first] + FOOD[second])
            if key > best:
                best = key
                hidden[start] = tokens[i]
                hidden[start + 1] = tokens[j]
    return 2


@jit
def supper(row, player, meal):
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
