"""Every seat's observation and action mask of a show
(``ShowParallelEnv._observe_all``), written straight into the batch's outputs.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import jit
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    CHARACTER,
    DAY,
    DECK_N,
    DONE,
    HOLD,
    HOLD_N,
    KNOWN,
    LAST_ACT,
    LAST_EVENT,
    LAST_LOC,
    LEADER,
    MAX_PLAYERS,
    MAX_TOKENS,
    PILE_N,
    STACK_N,
    VALUE,
)
from hunger_rl.engines.hunger_show.observation import (
    KNOWN_FIELDS,
    NUM_CHOICES,
    OWN_WIDTH,
    PUBLIC_CATEGORIES,
    observation_layout,
    observation_tables,
)


def _packed_count_tables():
    """What each token adds to its holder's counts in ``observe``, one byte per column: own
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
            public[token] += int(VALUE[token]) << (8 * unit_byte)
    for table in (low, high, public):
        assert all(sum((int(t) >> (8 * byte)) & 255 for t in table) < 128 for byte in range(8))
    return (low, high, public, np.array(tables.public_column, np.int64),
            np.array(tables.known_value_field, np.int64))


_OWN_LOW, _OWN_HIGH, _PUBLIC_UNITS, _PUBLIC_COLUMN, _KNOWN_FIELD = _packed_count_tables()
assert OWN_WIDTH == 18 and len(PUBLIC_CATEGORIES) == 5
# Row n: where the blocks of observation_layout(n) that observe writes start, then the size
# (a constant array read at the compile-time player count, so the offsets fold).
_LAYOUT_BLOCKS = ("token_counts", "alive", "leader", "playing_order", "day", "last_choices",
                  "known_values", "character")
_LAYOUT = np.zeros((MAX_PLAYERS + 1, len(_LAYOUT_BLOCKS) + 1), np.int64)
for _count in range(2, MAX_PLAYERS + 1):
    _LAYOUT[_count] = ([observation_layout(_count)[name].start for name in _LAYOUT_BLOCKS]
                       + [observation_tables(_count).observation_size])


@jit
def observe(g, b, seats, legal, scratch, out, masks):
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
                    view[observer, cell + _KNOWN_FIELD[token]] += VALUE[token]
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
