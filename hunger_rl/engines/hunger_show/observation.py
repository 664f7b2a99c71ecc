"""The HUNGER: The Show observation, action and reward conventions, at engine level (no
framework).

``hunger_show_v0``'s envs and the batched engine both build their observations from these
tables, read actions by this encoding and give rewards by these modes, so that each is written
once; the policies read the layouts from here without importing PettingZoo. The layout itself
is documented in the environment card, the docstring of ``hunger_rl.envs.hunger_show_v0``.
The state vector (``state_layout``, ``state_vector``) is the whole show, hidden tokens
included, for a privileged critic.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from hunger_rl.engines.hunger_show.engine import ShowGame, num_locations
from hunger_rl.engines.hunger_show.full_decisions import NUM_TOKEN_CLASSES, STEP_KINDS
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    CALM,
    CAN,
    CAN_VALUES,
    CHARACTERS,
    CHICKEN,
    COCONUT,
    END,
    EVENT_CARD_NAMES,
    FRUIT,
    LOCATION_NAMES,
    LOG,
    NUM_ACTIONS,
    NUM_CALM_CARDS,
    NUM_LOCATIONS,
    PILE_SIZES,
    RAFT,
    ROPE,
    SUPPLY,
    UNPLEASANT_CARDS,
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


# The observation buffer's element, as an ``array`` of one zero and as a NumPy dtype (given
# as a dtype object, ``np.frombuffer`` skips converting the type at each call).
FLOAT32_ZERO = array("f", [0.0])
FLOAT32 = np.dtype(np.float32)
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
    # Written in a float32 ``array`` that NumPy then wraps without a copy: a Python list would
    # have to be converted element by element, which cost more than writing it (every entry is
    # a small integer, exact in float32).
    flat = FLOAT32_ZERO * tables.buffer_size
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
    flat[o["leader"] + game.leader] = 1
    alive, order, choices = o["alive"], o["order"], o["choices"]
    character, character_width = o["character"], 1 + len(CHARACTERS)
    for seat in range(n):
        flat[alive + seat] = game.alive[seat]
        flat[order + seat] = -1
        choice = game.last_choices[seat]
        if choice is not None:
            flat[choices + 9 * seat + choice[0]] = 1
            flat[choices + 9 * seat + 4 + choice[1]] = 1
        flat[character + character_width * seat + CHARACTER_COLUMN[game.characters[seat]]] = 1
    for position, seat in enumerate(game.playing_order()):
        flat[order + seat] = position
    shared = o["shared"]
    flat[shared] = game.day
    cell = shared + 1
    for location in game.piles[1:]:
        for pile in location:
            flat[cell] = len(pile)
            cell += 1
    flat[shared + 10] = len(game.coconuts)
    flat[shared + 11] = len(game.deck)
    if last_event is not None:
        flat[shared + 12 + tables.event_index[last_event]] = 1
    return np.frombuffer(flat, FLOAT32)


# The state vector: the observation buffer's blocks by absolute seat, under these names ...
STATE_BUFFER_BLOCKS = (
    ("holdings", "own"), ("token_counts", "counts"), ("alive", "alive"), ("leader", "leader"),
    ("playing_order", "order"), ("last_choices", "choices"), ("known_values", "known"),
    ("character", "character"), ("shared", "shared"),
)
# ... then what no player sees. Pile tokens by class: the own-block columns from fruit 2 to
# log 2 (OWN_COLUMNS); coconuts by value: its last three columns.
PILE_FIRST_COLUMN = OWN_COLUMNS.index((FRUIT, -1, 2))
PILE_CLASSES = OWN_COLUMNS.index((COCONUT, -1, 0)) - PILE_FIRST_COLUMN
COCONUT_FIRST_COLUMN = OWN_COLUMNS.index((COCONUT, -1, 0))
PILE_LOCATIONS = NUM_LOCATIONS - 1  # the Campsite has no piles
# Most days a show can last: every event card in the deck, then The End of the Show (S4).
MAX_DAYS = len(UNPLEASANT_CARDS) + NUM_CALM_CARDS + 1
SHARED_NAMES = (("day", 1), ("piles", 9), ("coconuts_left", 1), ("events_left", 1),
                ("last_event", len(EVENT_CARD_NAMES)))
HIDDEN_BLOCKS = (("pile_contents", PILE_LOCATIONS * PILE_CLASSES),
                 ("coconut_stack", len(OWN_COLUMNS) - COCONUT_FIRST_COLUMN),
                 ("event_deck", len(EVENT_CARD_NAMES)), ("end_position", 1),
                 ("out", len(OWN_COLUMNS)))


@lru_cache(maxsize=8)
def state_layout(num_players: int) -> dict[str, slice]:
    """Ordered map from slice name to its slice of the state vector (``env.state()``).

    The whole show by absolute seat (seat s is ``player_s``), hidden parts included. First the
    observation buffer (every seat's blocks of ``observation_layout``, the shared ones once):
    ``holdings`` (per seat, its own-token block), ``token_counts``, ``alive``, ``leader``,
    ``playing_order``, ``last_choices``, ``known_values`` (per observer, per holder: what the
    observer remembers of the holder's tokens; zero where they are the same seat),
    ``character``, ``day``, ``piles``, ``coconuts_left``, ``events_left``, ``last_event``.
    Then what nobody sees: ``pile_contents`` (per location beach, jungle, mountains, its
    tokens by class: fruit 2, 3, chicken 1, 2, 4, rope 1, 2, log 1, 2), ``coconut_stack``
    (coconuts by value 0, 1, 2), ``event_deck`` (cards left by ``EVENT_CARD_NAMES``),
    ``end_position`` (where The End of the Show lies in the deck, 1 = tomorrow's card; 0 when
    it is not in the deck) and ``out`` (the box: unused, eaten and removed tokens by
    ``OWN_COLUMNS`` class). Left out: the order of the piles, the coconut stack and the event
    deck (but for the End), token ids and can colours, the RNG, the decision objects and a
    pending choice of the full-decision mode.
    """
    o = observation_tables(num_players).offsets
    ends = [o[block] for _, block in STATE_BUFFER_BLOCKS[1:]]
    ends.append(observation_tables(num_players).buffer_size)
    layout, start = {}, 0
    for (name, _), end in zip(STATE_BUFFER_BLOCKS, ends, strict=True):
        if name == "shared":
            for shared_name, size in SHARED_NAMES:
                layout[shared_name] = slice(start, start + size)
                start += size
            assert start == end
            continue
        layout[name] = slice(start, end)
        start = end
    for name, size in HIDDEN_BLOCKS:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def _class_supply(num_players: int) -> np.ndarray:
    """Copies of each ``OWN_COLUMNS`` token class in the game (cans of every colour)."""
    copies = {(category, kind, value): count for category, kind, value, count in SUPPLY}
    for value in set(CAN_VALUES):
        copies[(CAN, -1, value)] = CAN_VALUES.count(value) * num_players
    return np.array([copies[column] for column in OWN_COLUMNS], dtype=np.float32)


@lru_cache(maxsize=8)
def state_bounds(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the state vector, entry by entry (its Box's ``low, high``);
    shared arrays, read them, never write."""
    n = num_players
    layout = state_layout(n)
    size = next(reversed(layout.values())).stop
    low, high = np.zeros(size, dtype=np.float32), np.ones(size, dtype=np.float32)
    supply = _class_supply(n)
    rope_units = sum(value * count for category, kind, value, count in SUPPLY
                     if category == RAFT and kind == ROPE)
    log_units = sum(value * count for category, kind, value, count in SUPPLY
                    if category == RAFT and kind == LOG)
    high[layout["holdings"]] = np.tile(np.concatenate((supply, [rope_units, log_units])), n)
    category_of = np.array([category for category, _, _ in OWN_COLUMNS])
    value_of = np.array([value for _, _, value in OWN_COLUMNS])
    count_high = [supply[category_of == c].sum() for c in PUBLIC_CATEGORIES]
    high[layout["token_counts"]] = np.tile(count_high, n)
    high[layout["playing_order"]] = n - 1
    low[layout["playing_order"]] = -1
    value_high = [(supply * value_of)[category_of == c].sum() for c in (FRUIT, CHICKEN)]
    value_high += [rope_units, log_units]
    value_high += [(supply * value_of)[category_of == c].sum() for c in (CAN, COCONUT)]
    high[layout["known_values"]] = np.tile(count_high + value_high, n * n)
    high[layout["day"]] = MAX_DAYS
    high[layout["piles"]] = np.tile(PILE_SIZES, PILE_LOCATIONS)
    high[layout["coconuts_left"]] = supply[COCONUT_FIRST_COLUMN:].sum()
    high[layout["events_left"]] = MAX_DAYS
    pile_kind = category_of[PILE_FIRST_COLUMN:COCONUT_FIRST_COLUMN]
    pile_classes = supply[PILE_FIRST_COLUMN:COCONUT_FIRST_COLUMN]
    high[layout["pile_contents"]] = np.tile(
        np.minimum(pile_classes, np.array(PILE_SIZES)[pile_kind]), PILE_LOCATIONS)
    high[layout["coconut_stack"]] = supply[COCONUT_FIRST_COLUMN:]
    high[layout["event_deck"]] = [
        UNPLEASANT_CARDS.count(card) or (NUM_CALM_CARDS if card == CALM else 1)
        for card in EVENT_CARD_NAMES]
    high[layout["end_position"]] = MAX_DAYS
    high[layout["out"]] = supply
    for bounds in (low, high):
        bounds.flags.writeable = False
    return low, high


def state_vector(game: ShowGame, last_event: str | None) -> np.ndarray:
    """``game``'s state as a float32 vector in ``state_layout(game.num_players)``;
    ``last_event`` is yesterday's event card (None on the first day)."""
    n = game.num_players
    tables = observation_tables(n)
    layout = state_layout(n)
    own_column = tables.own_column
    hidden = [0.0] * (next(reversed(layout.values())).stop - tables.buffer_size)
    base = -tables.buffer_size
    piles = base + layout["pile_contents"].start - PILE_FIRST_COLUMN
    for location in range(1, NUM_LOCATIONS):
        cell = piles + PILE_CLASSES * (location - 1)
        for pile in game.piles[location]:
            for token in pile:
                hidden[cell + own_column[token]] += 1
    stack = base + layout["coconut_stack"].start - COCONUT_FIRST_COLUMN
    for token in game.coconuts:
        hidden[stack + own_column[token]] += 1
    deck = base + layout["event_deck"].start
    for card in game.deck:
        hidden[deck + tables.event_index[card]] += 1
    if END in game.deck:  # the deck's top is the end of the list
        hidden[base + layout["end_position"].start] = len(game.deck) - game.deck.index(END)
    out = base + layout["out"].start
    for token in game.out:
        hidden[out + own_column[token]] += 1
    return np.concatenate((observation_buffer(game, tables, last_event),
                           np.array(hidden, dtype=np.float32)))
