"""Token supply, categories, locations, actions, event cards and characters of HUNGER: The Show.

Every physical token is a record identified by an integer id; its category, value, raft kind
and can colour never change, so they live in module-level tables (``token_table``). Ids are an
engine detail: they follow the supply order and are never shown to agents or written to the
public log, since they would reveal values.
"""

from __future__ import annotations

from functools import lru_cache

# Categories. The first three are also the gathering actions and the pile kinds at a location.
FRUIT, CHICKEN, RAFT, CAN, COCONUT = range(5)
CATEGORY_NAMES = ("fruit", "chicken", "raft", "can", "coconut")
FOOD_CATEGORIES = (FRUIT, CHICKEN, CAN, COCONUT)

# Actions, in the order of the action space (S6).
THIEF, GUARD = 3, 4
ACTION_NAMES = ("fruit", "chicken", "raft", "thief", "guard")
NUM_ACTIONS = 5

# Locations, in the order of the action space; the Campsite has no piles (S1, S2).
CAMPSITE, BEACH, JUNGLE, MOUNTAINS = range(4)
LOCATION_NAMES = ("campsite", "beach", "jungle", "mountains")
NUM_LOCATIONS = 4
PILE_SIZES = (6, 6, 8)  # fruit, chicken, raft tokens per pile (S2)

# Raft kinds.
ROPE, LOG = 0, 1
RAFT_KIND_NAMES = ("rope", "log")

# Supplies (S2, S3): (category, raft kind or -1, value, copies).
SUPPLY = (
    (FRUIT, -1, 2, 8),
    (FRUIT, -1, 3, 10),
    (CHICKEN, -1, 1, 6),
    (CHICKEN, -1, 2, 4),
    (CHICKEN, -1, 4, 8),
    (RAFT, ROPE, 1, 6),
    (RAFT, ROPE, 2, 6),
    (RAFT, LOG, 1, 6),
    (RAFT, LOG, 2, 6),
    (COCONUT, -1, 0, 8),
    (COCONUT, -1, 1, 18),
    (COCONUT, -1, 2, 4),
)
CAN_VALUES = (1, 1, 2, 2, 3, 3, 4, 4)
NUM_SHARED_TOKENS = sum(copies for *_, copies in SUPPLY)  # 90

# Event cards (S4): the twelve unpleasant ones, then Calm day and The End of the Show.
TYPHOON, BIRD_FLU, PARROTS, RAT_PLAGUE = "typhoon", "bird_flu", "flock_of_parrots", "rat_plague"
CALM, END = "calm", "end"
UNPLEASANT_CARDS = tuple(
    f"{kind}-{size}" for kind in (TYPHOON, BIRD_FLU, PARROTS, RAT_PLAGUE) for size in (1, 1, 2)
)
NUM_CALM_CARDS = 10
EVENT_CARD_NAMES = tuple(sorted(set(UNPLEASANT_CARDS))) + (CALM, END)
EVENT_PRESETS = {"calm": 0, "standard": 4, "hard": 8}  # unpleasant cards per deck
# Which pile kind each pile event strips (S14).
PILE_EVENTS = {TYPHOON: RAFT, BIRD_FLU: CHICKEN, PARROTS: FRUIT}

# Characters (S20), with the pile kind each drawing specialist works on.
CHARACTERS = ("coconut_connoisseur", "eagle_eye", "raptor", "sweet", "arnold", "ninja")
DRAW_SPECIALISTS = {"eagle_eye": RAFT, "raptor": CHICKEN, "sweet": FRUIT}


def parse_card(card: str) -> tuple[str, int]:
    """Split an event card name into its kind and its size (0 for Calm day and the End)."""
    kind, _, size = card.partition("-")
    return kind, int(size) if size else 0


# Every event card's kind and size, read once a day.
CARD_PARTS = {card: parse_card(card) for card in EVENT_CARD_NAMES}


@lru_cache(maxsize=8)
def token_table(num_players: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...],
                                           tuple[int, ...]]:
    """(category, value, raft kind or -1, can colour or -1) of every token id of a game.

    The shared supply comes first in ``SUPPLY`` order, then each seat's eight cans.
    """
    categories, values, kinds, colours = [], [], [], []
    for category, kind, value, copies in SUPPLY:
        categories += [category] * copies
        values += [value] * copies
        kinds += [kind] * copies
        colours += [-1] * copies
    for seat in range(num_players):
        categories += [CAN] * len(CAN_VALUES)
        values += list(CAN_VALUES)
        kinds += [-1] * len(CAN_VALUES)
        colours += [seat] * len(CAN_VALUES)
    return tuple(categories), tuple(values), tuple(kinds), tuple(colours)



@lru_cache(maxsize=8)
def food_values(num_players: int) -> tuple[int, ...]:
    """Per token id, what it is worth at supper (S15): its value, 0 for a raft token."""
    categories, values, _, _ = token_table(num_players)
    return tuple(0 if c == RAFT else v for c, v in zip(categories, values, strict=True))

def token_spec(category: int, kind: int, value: int) -> str:
    """The option-string name of a token type, e.g. ``"fruit3"``, ``"rope2"``, ``"can4"``."""
    if category == RAFT:
        return f"{RAFT_KIND_NAMES[kind]}{value}"
    return f"{CATEGORY_NAMES[category]}{value}"


def parse_token_spec(spec: str) -> tuple[int, int, int]:
    """Inverse of ``token_spec``: ``"log1"`` -> (RAFT, LOG, 1). Raises ValueError when unknown."""
    if not isinstance(spec, str) or not spec[-1:].isdigit():
        raise ValueError(f"bad token {spec!r}: expected a name and a value such as 'fruit3', "
                         "'chicken4', 'rope2', 'log1', 'coconut0' or 'can4'")
    name, value = spec[:-1], int(spec[-1])
    if name in RAFT_KIND_NAMES:
        category, kind = RAFT, RAFT_KIND_NAMES.index(name)
    elif name in CATEGORY_NAMES and name != "raft":
        category, kind = CATEGORY_NAMES.index(name), -1
    else:
        raise ValueError(f"bad token {spec!r}: unknown kind {name!r}")
    legal = {(c, k, v) for c, k, v, _ in SUPPLY} | {(CAN, -1, v) for v in CAN_VALUES}
    if (category, kind, value) not in legal:
        raise ValueError(f"bad token {spec!r}: no such token in the game")
    return category, kind, value
