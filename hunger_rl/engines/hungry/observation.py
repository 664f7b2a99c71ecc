"""The Hungry observation, state and reward conventions, at engine level (no framework).

``hungry_v0`` and the batched engine both build their observations and rewards from these, so
that the layout and the reward modes are written once. The state vector (``state_layout``,
``state_vector``) is the whole game, hidden cards included, for a privileged critic.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from hunger_rl.engines.hungry.engine import (
    COPIES_PER_TYPE,
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    TOTAL_PLAYS,
    HungryState,
    check_num_players,
    table_layout,
)

REWARD_MODES = ("win", "score")
# "score" rewards: (own total - mean of the others' totals) / SCORE_SCALE, zero-sum.
SCORE_SCALE = 10.0
# Highest total a player can reach: 15 home points + 25 hotel points + 10 seconds + 5 bonus
# bounds it loosely; seconds and firsts at one resort exclude each other, so 55 is safe.
MAX_SCORE = 55


def consecutive_slices(sizes: list[tuple[str, int]]) -> OrderedDict[str, slice]:
    """Named slices laid end to end, in order, of the given sizes."""
    layout: OrderedDict[str, slice] = OrderedDict()
    start = 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_layout(num_players: int) -> OrderedDict[str, slice]:
    """Named slices of the flat observation vector, for ``num_players`` players.

    Seats are relative: seat 0 is the observer, seat k the player k places after it in turn order.
    """
    check_num_players(num_players)
    sizes = [
        ("hand", NUM_CARD_TYPES),
        ("placed", num_players * NUM_ACTIONS),
        ("hand_sizes", num_players),
        ("deck_size", 1),
        ("unseen", NUM_CARD_TYPES),
        ("scores", num_players),
        ("to_move", num_players),
    ]
    return consecutive_slices(sizes)


def observation_index(num_players: int, observer: int) -> np.ndarray:
    """Where each entry of ``observer``'s observation lies in ``HungryState.table``.

    In ``observation_layout`` order, so that indexing the table with it gathers a whole
    observation at once.
    """
    at = table_layout(num_players)
    # Seat order seen by the observer: itself first, then the players after it.
    seats = (observer + np.arange(num_players)) % num_players
    return np.concatenate(
        (
            at.hands + NUM_CARD_TYPES * observer + np.arange(NUM_CARD_TYPES),
            (at.placed + NUM_ACTIONS * seats[:, None] + np.arange(NUM_ACTIONS)).ravel(),
            at.hand_sizes + seats,
            (at.deck_size,),
            at.unseen + NUM_CARD_TYPES * observer + np.arange(NUM_CARD_TYPES),
            at.scores + seats,
            at.to_move + seats,
        )
    )


def observation_high(num_players: int) -> np.ndarray:
    """Upper bounds of the observation vector, entry by entry (its Box's ``high``)."""
    layout = observation_layout(num_players)
    high = np.empty(layout["to_move"].stop, dtype=np.float32)
    high[layout["hand"]] = COPIES_PER_TYPE
    high[layout["placed"]] = COPIES_PER_TYPE
    high[layout["hand_sizes"]] = HAND_SIZE
    high[layout["deck_size"]] = TOTAL_PLAYS
    high[layout["unseen"]] = COPIES_PER_TYPE
    high[layout["scores"]] = MAX_SCORE
    high[layout["to_move"]] = 1
    return high


def state_layout(num_players: int) -> OrderedDict[str, slice]:
    """Named slices of the flat state vector (``raw_env.state()``), for ``num_players`` players.

    The whole game by absolute seat (seat p is ``player_p``), hidden parts included: every
    hand, the draw deck and the two removed cards as counts per card type. Left out: the order
    of the deck (which card is drawn when), the order of past plays (``placed`` counts them)
    and the rules option ``tied_second``.
    """
    check_num_players(num_players)
    sizes = [
        ("hands", num_players * NUM_CARD_TYPES),
        ("placed", num_players * NUM_ACTIONS),
        ("hand_sizes", num_players),
        ("deck_size", 1),
        ("deck", NUM_CARD_TYPES),
        ("removed", NUM_CARD_TYPES),
        ("scores", num_players),
        ("to_move", num_players),
    ]
    return consecutive_slices(sizes)


def state_high(num_players: int) -> np.ndarray:
    """Upper bounds of the state vector, entry by entry (its Box's ``high``)."""
    layout = state_layout(num_players)
    high = np.empty(layout["to_move"].stop, dtype=np.float32)
    for name in ("hands", "placed", "deck", "removed"):
        high[layout[name]] = COPIES_PER_TYPE
    high[layout["hand_sizes"]] = HAND_SIZE
    high[layout["deck_size"]] = TOTAL_PLAYS
    high[layout["scores"]] = MAX_SCORE
    high[layout["to_move"]] = 1
    return high


def state_vector(game: HungryState) -> np.ndarray:
    """``game``'s state as a float32 vector in ``state_layout(game.num_players)``."""
    at, n = game.layout, game.num_players
    layout = state_layout(n)
    state = np.empty(layout["to_move"].stop, dtype=np.float32)
    # Hands, placed tourists, hand sizes and the deck size lie in that order in the table.
    state[: layout["deck"].start] = game.table[at.hands : at.unseen]
    state[layout["deck"]] = np.bincount(game.deck, minlength=NUM_CARD_TYPES)
    state[layout["removed"]] = np.bincount(game.removed, minlength=NUM_CARD_TYPES)
    state[layout["scores"]] = game.table[at.scores : at.scores + n]
    state[layout["to_move"]] = game.table[at.to_move : at.to_move + n]
    return state
