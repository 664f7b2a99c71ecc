"""The HUNGER: The Show observation, action and reward conventions, at engine level (no
framework).

``hunger_show_v0``'s envs and the batched engine both build their observations from these
tables, read actions by this encoding and give rewards by these modes, so that each is written
once; the policies read the layouts from here without importing PettingZoo. The layout itself
is documented in the environment card, the docstring of ``hunger_rl.envs.hunger_show_v0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from hunger_rl.envs.hunger_show.engine import ShowGame, num_locations
from hunger_rl.envs.hunger_show.full_decisions import NUM_TOKEN_CLASSES, STEP_KINDS
from hunger_rl.envs.hunger_show.tokens import (
    ACTION_NAMES,
    CAN,
    CHARACTERS,
    CHICKEN,
    COCONUT,
    EVENT_CARD_NAMES,
    FRUIT,
    LOCATION_NAMES,
    LOG,
    NUM_ACTIONS,
    NUM_LOCATIONS,
    RAFT,
    ROPE,
    token_table,
)

NUM_CHOICES = NUM_ACTIONS * NUM_LOCATIONS  # Discrete(20)
REWARD_MODES = ("r1", "shaped")
SHAPING_WEIGHT = 0.1
OBSERVATION_HIGH = 1000.0

# Own-token count columns: (category, raft kind, value) in layout order.
OWN_COLUMNS = (
    [(CAN, -1, v) for v in (1, 2, 3, 4)] + [(FRUIT, -1, v) for v in (2, 3)]
    + [(CHICKEN, -1, v) for v in (1, 2, 4)] + [(RAFT, ROPE, v) for v in (1, 2)]
    + [(RAFT, LOG, v) for v in (1, 2)] + [(COCONUT, -1, v) for v in (0, 1, 2)]
)
# Each seat's own block: the counts by value, then its rope and log units.
OWN_WIDTH = len(OWN_COLUMNS) + 2
PUBLIC_CATEGORIES = (FRUIT, CHICKEN, RAFT, CAN, COCONUT)
KNOWN_FIELDS = 11  # known count x5 categories, known value sums: fruit chicken rope log can coco
# Day, 9 pile sizes, coconuts left, events left, last event (one-hot).
SHARED_WIDTH = 1 + 9 + 1 + 1 + len(EVENT_CARD_NAMES)


@lru_cache(maxsize=8)
def observation_layout(num_players: int) -> dict[str, slice]:
    """Ordered map from slice name to its slice of the observation vector.

    Per-player blocks list players from the observer's seat: the observer, then its left
    neighbour, and so on (``known_values`` starts with the left neighbour).
    """
    p = num_players
    sizes = [
        ("own_cans", 4), ("own_fruit", 2), ("own_chicken", 3), ("own_rope", 2), ("own_log", 2),
        ("own_coconuts", 3), ("own_raft_units", 2), ("token_counts", 5 * p), ("alive", p),
        ("leader", p), ("playing_order", p), ("day", 1), ("piles", 9), ("coconuts_left", 1),
        ("events_left", 1), ("last_event", len(EVENT_CARD_NAMES)), ("last_choices", 9 * p),
        ("known_values", KNOWN_FIELDS * (p - 1)), ("character", 1 + len(CHARACTERS)),
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


@lru_cache(maxsize=8)
def full_observation_layout(num_players: int) -> dict[str, slice]:
    """The full-decision mode's: ``observation_layout(N)`` followed by the pending-decision
    block."""
    layout = dict(observation_layout(num_players))
    start = next(reversed(layout.values())).stop
    for name, size in (("decision_kind", len(STEP_KINDS)), ("offered", NUM_TOKEN_CLASSES),
                       ("chosen", NUM_TOKEN_CLASSES), ("remaining", 1),
                       ("counterpart", num_players)):
        layout[name] = slice(start, start + size)
        start += size
    return layout


def encode_action(location: int, act: int) -> int:
    """``5 * location + act`` (locations campsite, beach, jungle, mountains; acts fruit,
    chicken, raft, thief, guard)."""
    if not (0 <= location < NUM_LOCATIONS and 0 <= act < NUM_ACTIONS):
        raise ValueError(f"no action for location {location} and act {act}")
    return NUM_ACTIONS * location + act


def decode_action(action: int) -> tuple[int, int]:
    """Inverse of ``encode_action``: (location, act)."""
    if not 0 <= action < NUM_CHOICES:
        raise ValueError(f"action {action} is outside 0..{NUM_CHOICES - 1}")
    return divmod(int(action), NUM_ACTIONS)


def action_name(action: int) -> str:
    location, act = decode_action(action)
    return f"{ACTION_NAMES[act]}@{LOCATION_NAMES[location]}"


def legal_mask(num_players: int) -> np.ndarray:
    """S6: every (location, action) pair of a location in play."""
    mask = np.zeros(NUM_CHOICES, dtype=np.int8)
    mask[: NUM_ACTIONS * num_locations(num_players)] = 1
    return mask


# Column of each character (None: no character) in a seat's character block.
CHARACTER_COLUMN = {None: 0} | {name: 1 + i for i, name in enumerate(CHARACTERS)}


@dataclass(frozen=True)
class ObservationTables:
    """How observations are built: every seat's blocks are written into one flat buffer in
    absolute seat order (at ``offsets``), then ``gather[seat]`` picks and rotates them into
    that observer's layout (``observation_layout``). The per-token columns are indexed by
    token id (``token_table`` order)."""

    # Column of each token in its holder's own block (``OWN_COLUMNS``).
    own_column: tuple[int, ...]
    # Column of a raft token's units in the own block (rope or log), 0 for other tokens.
    unit_column: tuple[int, ...]
    # Index of each token's category in ``PUBLIC_CATEGORIES`` (token counts, known counts).
    public_column: tuple[int, ...]
    # Field of the known-values block that sums each token's value.
    known_value_field: tuple[int, ...]
    event_index: dict[str, int]
    # Start of each block in the flat buffer: own, counts, alive, leader, order, choices,
    # known, character, shared.
    offsets: dict[str, int]
    buffer_size: int
    gather: tuple[np.ndarray, ...]
    observation_size: int


@lru_cache(maxsize=8)
def observation_tables(num_players: int) -> ObservationTables:
    """The observation tables of a ``num_players`` show (shared: read them, never write)."""
    n = num_players
    categories, values, kinds, _ = token_table(n)
    own_column = {key: i for i, key in enumerate(OWN_COLUMNS)}
    value_field = {FRUIT: 5, CHICKEN: 6, CAN: 9, COCONUT: 10}
    blocks = [("own", OWN_WIDTH * n), ("counts", 5 * n), ("alive", n), ("leader", n),
              ("order", n), ("choices", 9 * n), ("known", KNOWN_FIELDS * n * n),
              ("character", (1 + len(CHARACTERS)) * n), ("shared", SHARED_WIDTH)]
    offset, o = 0, {}
    for name, size in blocks:
        o[name] = offset
        offset += size
    gather = []
    for seat in range(n):
        rotation = [(seat + i) % n for i in range(n)]
        index = list(range(o["own"] + OWN_WIDTH * seat, o["own"] + OWN_WIDTH * (seat + 1)))
        for name, width in (("counts", 5), ("alive", 1), ("leader", 1), ("order", 1)):
            index += [o[name] + width * r + j for r in rotation for j in range(width)]
        index += list(range(o["shared"], o["shared"] + SHARED_WIDTH))
        index += [o["choices"] + 9 * r + j for r in rotation for j in range(9)]
        index += [o["known"] + KNOWN_FIELDS * (seat * n + r) + j
                  for r in rotation[1:] for j in range(KNOWN_FIELDS)]
        width = 1 + len(CHARACTERS)
        index += range(o["character"] + width * seat, o["character"] + width * (seat + 1))
        seat_gather = np.array(index, dtype=np.intp)
        seat_gather.flags.writeable = False
        gather.append(seat_gather)
    size = next(reversed(observation_layout(n).values())).stop
    assert len(index) == size
    return ObservationTables(
        own_column=tuple(own_column[(c, k, v)] for c, v, k in zip(categories, values, kinds,
                                                                 strict=True)),
        unit_column=tuple(len(OWN_COLUMNS) + k if c == RAFT else 0
                          for c, k in zip(categories, kinds, strict=True)),
        public_column=tuple(PUBLIC_CATEGORIES.index(c) for c in categories),
        known_value_field=tuple((7 + k) if c == RAFT else value_field[c]
                                for c, k in zip(categories, kinds, strict=True)),
        event_index={card: i for i, card in enumerate(EVENT_CARD_NAMES)},
        offsets=o,
        buffer_size=offset,
        gather=tuple(gather),
        observation_size=size,
    )


def observation_buffer(game: ShowGame, tables: ObservationTables,
                       last_event: str | None) -> np.ndarray:
    """Every seat's observation blocks of ``game`` in absolute seat order (``tables.offsets``);
    ``buffer[tables.gather[seat]]`` is that seat's observation. ``last_event`` is the event card
    of the last day played (None before the first). The Parallel env and the OpenSpiel binding
    both observe through this."""
    n = game.num_players
    o = tables.offsets
    values, known = game.value, game.known
    own_column, unit_column = tables.own_column, tables.unit_column
    public_column, known_field = tables.public_column, tables.known_value_field
    flat = [0.0] * tables.buffer_size
    own_base, counts_base, known_base = o["own"], o["counts"], o["known"]
    for holder, holding in enumerate(game.holdings):
        own = own_base + OWN_WIDTH * holder
        counts = counts_base + 5 * holder
        holder_bit = 1 << holder
        for token in holding:
            flat[own + own_column[token]] += 1
            unit = unit_column[token]
            if unit:
                flat[own + unit] += values[token]
            flat[counts + public_column[token]] += 1
            others = known[token] & ~holder_bit
            while others:  # observers other than the holder that remember this value
                observer = (others & -others).bit_length() - 1
                others &= others - 1
                cell = known_base + KNOWN_FIELDS * (observer * n + holder)
                flat[cell + public_column[token]] += 1
                flat[cell + known_field[token]] += values[token]
    flat[o["leader"] + game.leader] = 1.0
    alive, order, choices = o["alive"], o["order"], o["choices"]
    character, character_width = o["character"], 1 + len(CHARACTERS)
    for seat in range(n):
        flat[alive + seat] = float(game.alive[seat])
        flat[order + seat] = -1.0
        choice = game.last_choices[seat]
        if choice is not None:
            flat[choices + 9 * seat + choice[0]] = 1.0
            flat[choices + 9 * seat + 4 + choice[1]] = 1.0
        flat[character + character_width * seat
             + CHARACTER_COLUMN[game.characters[seat]]] = 1.0
    for position, seat in enumerate(game.playing_order()):
        flat[order + seat] = float(position)
    shared = o["shared"]
    flat[shared] = game.day
    flat[shared + 1:shared + 10] = [len(pile) for location in game.piles[1:]
                                    for pile in location]
    flat[shared + 10] = len(game.coconuts)
    flat[shared + 11] = len(game.deck)
    if last_event is not None:
        flat[shared + 12 + tables.event_index[last_event]] = 1.0
    return np.array(flat, dtype=np.float32)
