"""Holdings and what is read from them: moving tokens between seats, raft sets and
units, food value, ranking keys, the playing order.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import at, jit
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    FOOD,
    HOLD,
    HOLD_N,
    KNOWN,
    LEADER,
    LOG,
    MAX_TOKENS,
    ROPE,
)


@jit
def remove(row, seat, token):
    # Unsigned indices (see at) in one of the busiest loops: 1.5% of the step. The base and
    # the counter are uint64 themselves; casting each index with at instead ran 0.99x.
    base = np.uint64(HOLD + seat * MAX_TOKENS)
    count = np.int64(row[HOLD_N + seat])
    i = np.uint64(0)
    while row[base + i] != token:
        i += np.uint64(1)
    for j in range(i, count - 1):
        row[base + np.uint64(j)] = row[base + np.uint64(j + 1)]
    row[HOLD_N + seat] = count - 1


@jit
def append(row, seat, token):
    row[HOLD + seat * MAX_TOKENS + row[HOLD_N + seat]] = token
    row[HOLD_N + seat] += 1


@jit
def transfer(row, token, giver, receiver):
    remove(row, giver, token)
    append(row, receiver, token)
    row[KNOWN + token] |= 1 << receiver


@jit
def holding(row, seat, out):
    """Copy the seat's holding into ``out`` (scratch, no allocation); returns its size."""
    base = HOLD + seat * MAX_TOKENS
    count = np.int64(row[HOLD_N + seat])
    for i in range(count):
        out[i] = row[base + i]
    return count


@jit
def _food_value(tokens, start, count):
    total = 0
    for i in range(start, start + count):
        total += FOOD[tokens[i]]
    return total


@jit
def sets_units(rope, log):
    sets = min(rope, log)
    return sets, rope + log - 2 * sets


@jit
def rope_log(tokens, start, count, skip):
    """(rope units, log units) of ``tokens[start:start + count]`` without the token ``skip``."""
    rope = 0
    log = 0
    for i in range(start, start + count):
        token = tokens[i]
        if token != skip:
            rope += ROPE[token]
            log += LOG[token]
    return rope, log


@jit
def raft_sets_units(tokens, start, count, skip):
    """(raft sets, leftover units) of ``tokens[start:start + count]`` without the token
    ``skip``."""
    rope, log = rope_log(tokens, start, count, skip)
    return sets_units(rope, log)


@jit
def ranking_key(row, seat):
    base = HOLD + seat * MAX_TOKENS
    count = np.int64(row[HOLD_N + seat])
    sets, leftover = raft_sets_units(row, base, count, np.int64(-1))
    return sets, leftover, _food_value(row, base, count)


@jit
def playing_order(row, n, order):
    count = 0
    for i in range(n):
        seat = (row[LEADER] + i) % n
        if row[at(ALIVE + seat)]:
            order[count] = seat
            count += 1
    return count
