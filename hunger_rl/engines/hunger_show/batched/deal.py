"""A show's deal, draw for draw that of ``ShowGame(config, seed)``, and the seeds of the
shows that follow in a slot.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import GOLDEN_GAMMA, MAX_SEED, jit
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    CALM_CARD,
    CATEGORY,
    CHARACTER,
    COCONUT,
    DECK,
    DECK_N,
    END_CARD,
    HOLD,
    HOLD_N,
    KNOWN,
    LAST_ACT,
    LAST_EVENT,
    LAST_LOC,
    LEADER,
    MAX_PLAYERS,
    MAX_TOKENS,
    NO_EVENT,
    PILE,
    PILE_MAX,
    PILE_N,
    RAFT,
    ROW_SIZE,
    SPECIALTY,
    STACK,
    STACK_N,
    UNPLEASANT,
)
from hunger_rl.engines.hunger_show.batched.twister import randbelow, sample_from_pool, shuffle

_SEED_MASK = np.uint64(MAX_SEED)


@jit
def slot_seed(seed, show_number):
    """:func:`stream_seed`, compiled."""
    return np.int64((np.uint64(seed) + np.uint64(show_number) * GOLDEN_GAMMA) & _SEED_MASK)


def stream_seed(seed: int, show_number: int) -> int:
    """The seed of the show that follows the ``show_number``-th show ended in a slot reset
    with ``seed`` (show 0 is dealt with ``seed`` itself)."""
    return int(slot_seed(seed, show_number))


# the 90 game tokens by category, in id order; category c's are from _CATEGORY_START[c]
_TOKENS_BY_CATEGORY = np.argsort(CATEGORY[:90], kind="stable")
_CATEGORY_START = np.searchsorted(CATEGORY[_TOKENS_BY_CATEGORY], np.arange(COCONUT + 2))


@jit
def _tokens_of_category(category, pool):
    """The 90 game tokens of ``category`` into ``pool`` in id order (as the reference deals
    them before shuffling); their count."""
    start = _CATEGORY_START[category]
    count = _CATEGORY_START[category + 1] - start
    for i in range(count):
        pool[i] = _TOKENS_BY_CATEGORY[start + i]
    return count


@jit
def deal_seeded(g, mt, b, n, locs, options, pool, cards):
    """``ShowGame(config, seed)`` once ``mt[b]`` is seeded with seed (:func:`mt_seed_many`):
    the same draws in the same order. ``options``: characters, deck size, unpleasant cards,
    end window; ``pool``, ``cards``: int64 scratch of MAX_TOKENS."""
    characters, deck_size, unpleasant, end_window = options[0], options[1], options[2], options[3]
    for i in range(ROW_SIZE):
        g[b, i] = 0
    g[b, LEADER] = randbelow(mt, b, n)
    for seat in range(MAX_PLAYERS):
        g[b, CHARACTER + seat] = -1
        g[b, LAST_LOC + seat] = -1
        g[b, LAST_ACT + seat] = -1
        g[b, ALIVE + seat] = seat < n
    if characters:
        for i in range(len(SPECIALTY)):
            pool[i] = i
        sample_from_pool(mt, b, pool, len(SPECIALTY), n, cards)
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
        shuffle(mt, b, pool, count)
        size = PILE_MAX if kind == RAFT else 6
        start = 0
        for loc in range(1, locs):
            base = PILE + (loc * 3 + kind) * PILE_MAX
            for i in range(size):
                g[b, base + i] = pool[start + i]
            g[b, PILE_N + loc * 3 + kind] = size
            start += size
    count = _tokens_of_category(np.int64(COCONUT), pool)
    shuffle(mt, b, pool, count)
    for i in range(count):
        g[b, STACK + i] = pool[i]
    g[b, STACK_N] = count
    for i in range(len(UNPLEASANT)):
        pool[i] = UNPLEASANT[i]
    sample_from_pool(mt, b, pool, len(UNPLEASANT), unpleasant, cards)
    for i in range(unpleasant, deck_size):
        cards[i] = CALM_CARD
    shuffle(mt, b, cards, deck_size)
    window = min(end_window, deck_size + 1)
    where = deck_size + 1 - window + randbelow(mt, b, window)
    for i in range(deck_size, where, -1):
        cards[i] = cards[i - 1]
    cards[where] = END_CARD
    for i in range(deck_size + 1):  # the list's end is the top: store it reversed, bottom first
        g[b, DECK + i] = cards[deck_size - i]
    g[b, DECK_N] = deck_size + 1
    g[b, LAST_EVENT] = NO_EVENT
