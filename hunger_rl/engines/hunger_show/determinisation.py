"""Determinisation: shows that one player cannot tell from the real one.

A search over hidden information plays from shows drawn to agree with what its player knows:
``show_from_observation`` deals one from a ``hunger_show_v0`` observation alone (what the
searcher's own observation carries), ``resampled_show`` redraws what one player does not know
in a copy of a full show. Both keep every count, category and remembered value and draw the
rest at random; OpenSpiel's ``resample_from_infostate`` (ISMCTS) and the simultaneous-move
search ``smmcts`` use them.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import asdict

import numpy as np

from hunger_rl.engines.hunger_show import MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame
from hunger_rl.engines.hunger_show.observation import (
    KNOWN_FIELDS,
    OWN_COLUMNS,
    PUBLIC_CATEGORIES,
    observation_layout,
    observation_tables,
)
from hunger_rl.engines.hunger_show.tokens import (
    CALM,
    CAN,
    CATEGORY_NAMES,
    CHARACTERS,
    CHICKEN,
    COCONUT,
    END,
    FRUIT,
    LOG,
    RAFT,
    ROPE,
    UNPLEASANT_CARDS,
    token_table,
)
from hunger_rl.engines.validation import InvalidValueError

# Values a token of each category may have, and each raft type (kind, value).
CATEGORY_VALUES = {FRUIT: (2, 3), CHICKEN: (1, 2, 4), CAN: (1, 2, 3, 4), COCONUT: (0, 1, 2)}
RAFT_TYPES = ((ROPE, 1), (ROPE, 2), (LOG, 1), (LOG, 2))
# Fields of one holder's known-values block (``KNOWN_FIELDS``): counts by category in
# ``PUBLIC_CATEGORIES`` order, then the value sums of fruit, chicken, rope, log, can, coconut.
KNOWN_SUM_FIELD = {FRUIT: 5, CHICKEN: 6, CAN: 9, COCONUT: 10}
ROPE_SUM_FIELD, LOG_SUM_FIELD = 7, 8


def resampled_show(show: ShowGame, player: int, rng: np.random.Generator) -> ShowGame:
    """A copy of ``show`` with what ``player`` does not know drawn afresh: the tokens whose
    value it does not remember trade places at random with the others of their category (and,
    for cans, colour) wherever they lie (piles, the coconut stack, holdings, the box), each place
    keeping who remembers the value found there; the event cards still in the deck are
    shuffled, the End card within its window (S4); the RNG of the default choices is reseeded.
    Counts, categories and every value ``player`` remembers stay. (Choices the default rules
    made from hidden values earlier are not conditioned on: a determinisation, not a draw from
    the exact posterior.)"""
    copy = show.clone()
    containers = [*copy.holdings, *(pile for loc in copy.piles for pile in loc), copy.coconuts,
                  copy.out]
    groups: dict[tuple[int, int], list[tuple[list[int], int]]] = {}
    for container in containers:
        for index, token in enumerate(container):
            if not show.known[token] >> player & 1:
                key = (show.category[token], show.colour[token])
                groups.setdefault(key, []).append((container, index))
    for places in groups.values():
        tokens = [container[index] for container, index in places]
        for (container, index), token in zip(places, rng.permutation(tokens).tolist(),
                                             strict=True):
            copy.known[token] = show.known[container[index]]
            container[index] = token
    copy.deck = shuffled_deck(copy, rng)
    copy.rng = random.Random(int(rng.integers(2**63)))
    return copy


def shuffled_deck(show: ShowGame, rng: np.random.Generator) -> list[str]:
    """The event cards left, reordered at random; the End card (if still there) goes to a
    random position among the last ``end_window`` of the full deck that are still to come."""
    config = show.config
    cards = [c for c in show.deck if c != END]  # top at the end of the list
    cards = [cards[i] for i in rng.permutation(len(cards))]
    if END in show.deck:
        # Positions counted from the bottom of the deck: the End card lies among the bottom
        # min(end_window, deck_size + 1) cards of the full deck.
        window = min(config.end_window, config.deck_size + 1, len(show.deck))
        cards.insert(int(rng.integers(window)), END)
    return cards


def players_of(observation: np.ndarray) -> int:
    """The player count of a ``hunger_show_v0`` observation vector, from its length."""
    sizes = {observation_tables(n).observation_size: n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    if observation.size not in sizes:
        raise InvalidValueError(f"a vector of length {observation.size} is not a "
                                "hunger_show_v0 observation")
    return sizes[observation.size]


def show_from_observation(config: ShowConfig, observation: np.ndarray,
                          rng: np.random.Generator) -> ShowGame:
    """A show that the observer (seat 0) cannot tell from the one it observes: its own tokens
    as observed; each other holder's tokens by category as counted, those whose values the
    observer remembers drawn to match the remembered value sums, the others at random; the
    piles and the coconut stack at their sizes from the rest of the supply, the remainder out
    of the game; the event cards left drawn from the preset's deck, the End card within its
    window (S4); the characters the observer does not see dealt at random. Who remembers what
    beyond the observer: each holder its own tokens."""
    n = config.num_players
    layout = observation_layout(n)
    part = {name: observation[piece].astype(np.int64) for name, piece in layout.items()}
    categories, values, kinds, colours = token_table(n)
    pools: dict[tuple[int, int, int], list[int]] = {}
    for token in rng.permutation(len(categories)).tolist():
        # Cans by value, the others by type: a can's colour shows on the table but not in
        # observations, so any can of the value will do.
        key = (CAN, -1, values[token]) if categories[token] == CAN else (
            categories[token], kinds[token], values[token])
        pools.setdefault(key, []).append(token)
    holdings: list[list[int]] = [[] for _ in range(n)]
    known = [0] * len(categories)

    def take(key: tuple[int, int, int], holder: int | None, count: int = 1) -> list[int]:
        pool = pools.get(key, [])
        if len(pool) < count:
            raise ValueError(f"no token {key} left to deal: the observation is not of a show")
        taken, pools[key] = pool[:count], pool[count:]
        if holder is not None:
            holdings[holder] += taken
            for token in taken:
                known[token] |= 1 << holder
        return taken

    own = np.concatenate([part[name] for name in ("own_cans", "own_fruit", "own_chicken",
                                                  "own_rope", "own_log", "own_coconuts")])
    for (category, kind, value), count in zip(OWN_COLUMNS, own.tolist(), strict=True):
        take((category, -1 if category == CAN else kind, value), 0, count)
    counts = part["token_counts"].reshape(n, len(PUBLIC_CATEGORIES))
    remembered = part["known_values"].reshape(n - 1, KNOWN_FIELDS)
    unknown: list[tuple[int, int]] = []
    for holder in range(1, n):
        fields = remembered[holder - 1]
        for column, category in enumerate(PUBLIC_CATEGORIES):
            sure = int(fields[column])
            if category == RAFT:
                types = [(RAFT, kind, value) for kind, value in RAFT_TYPES]
                combos = [c for c in itertools.combinations_with_replacement(types, sure)
                          if sum(v for _, k, v in c if k == ROPE) == fields[ROPE_SUM_FIELD]
                          and sum(v for _, k, v in c if k == LOG) == fields[LOG_SUM_FIELD]]
            else:
                kind = -1
                combos = [tuple((category, kind, v) for v in c)
                          for c in itertools.combinations_with_replacement(
                              CATEGORY_VALUES[category], sure)
                          if sum(c) == fields[KNOWN_SUM_FIELD[category]]]
            combos = [c for c in combos if all(
                len(pools.get(key, [])) >= c.count(key) for key in set(c))]
            if not combos:
                raise ValueError(f"no tokens match what the observer remembers of seat "
                                 f"{holder}: the observation is not of a show")
            for key in combos[int(rng.integers(len(combos)))]:
                known[take(key, holder)[0]] |= 1  # the observer remembers it
            unknown += [(holder, category)] * (int(counts[holder, column]) - sure)
    for holder, category in unknown:
        take(random_key(pools, category, rng), holder)
    sizes = part["piles"].reshape(3, 3)
    piles: list[list[list[int]]] = [[[], [], []] for _ in range(4)]
    for location in range(1, config.num_locations):
        for kind in range(3):
            piles[location][kind] = [take(random_key(pools, kind, rng), None)[0]
                                     for _ in range(int(sizes[location - 1, kind]))]
    coconuts = [take(random_key(pools, COCONUT, rng), None)[0]
                for _ in range(int(part["coconuts_left"][0]))]
    out = sorted(token for pool in pools.values() for token in pool)
    choices = part["last_choices"].reshape(n, 9)
    character = part["character"]
    characters: list[str | None] = [None] * n
    if character[1:].any():
        characters[0] = CHARACTERS[int(character.argmax()) - 1]
        others = [c for c in CHARACTERS if c != characters[0]]
        characters[1:] = [others[i] for i in rng.permutation(len(others))[: n - 1]]
    return ShowGame.from_dict({
        "config": asdict(config),
        "rng": list(random.Random(int(rng.integers(2**63))).getstate()),
        "known": known,
        "alive": [bool(a) for a in part["alive"]],
        "day": int(part["day"][0]),
        "done": False,
        "end_condition": None,
        "winners": [],
        "final_keys": [],
        "last_choices": [(int(c[:4].argmax()), int(c[4:].argmax())) if c.any() else None
                         for c in choices],
        "leader": int(part["leader"].argmax()),
        "characters": characters,
        "holdings": holdings,
        "piles": piles,
        "coconuts": coconuts,
        "out": out,
        "deck": event_cards_left(config, int(part["events_left"][0]), rng),
    })


def random_key(pools: dict[tuple[int, int, int], list[int]], category: int,
               rng: np.random.Generator) -> tuple[int, int, int]:
    """The type of a token of ``category`` drawn at random from what is left (each token left
    equally likely: the draw indexes the tokens of the category, pool by pool)."""
    sizes = [(key, len(pool)) for key, pool in pools.items() if key[0] == category]
    total = sum(size for _, size in sizes)
    if not total:
        raise ValueError(f"no {CATEGORY_NAMES[category]} token left to deal: the observation "
                         "is not of a show")
    index = int(rng.integers(total))
    for key, size in sizes[:-1]:
        if index < size:
            return key
        index -= size
    return sizes[-1][0]


def event_cards_left(config: ShowConfig, left: int, rng: np.random.Generator) -> list[str]:
    """``left`` event cards, top at the end of the list: the End card among the bottom
    ``end_window`` (S4), the others drawn from a deck of ``config``'s preset."""
    if left == 0:
        return []
    unpleasant = [UNPLEASANT_CARDS[i] for i in rng.permutation(len(UNPLEASANT_CARDS))]
    cards = unpleasant[: config.unpleasant] + [CALM] * max(config.deck_size - config.unpleasant,
                                                            left)
    cards = [cards[i] for i in rng.permutation(len(cards))][: left - 1]
    cards.insert(int(rng.integers(min(config.end_window, left))), END)
    return cards
