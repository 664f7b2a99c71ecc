"""Rules engine of HUNGER: The Show (rulings S1-S21). Plain Python, no RL library imports.

A ``ShowGame`` holds every token of the game in exactly one place: a pile at a location, the
coconut stack, a player's holding, or ``out`` (the box: unused at setup, eaten, removed by events
or by elimination). ``play_day`` resolves one day from every living player's (location, action)
pick; every other choice goes through the players' decision objects (S19). In the full-decision
mode ``start_day`` resolves the day up to the first choice and records it as ``pending``;
``choose`` answers it with an action of ``full_decisions`` and goes on to the next one.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from hunger_rl.engines.hunger_show import MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.full_decisions import PendingChoice, decision_steps
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    BEACH,
    CAMPSITE,
    CAN,
    CARD_PARTS,
    CATEGORY_NAMES,
    CHARACTERS,
    CHICKEN,
    COCONUT,
    DRAW_SPECIALISTS,
    END,
    EVENT_CARD_NAMES,
    EVENT_PRESETS,
    FRUIT,
    GUARD,
    LOCATION_NAMES,
    NUM_ACTIONS,
    NUM_CALM_CARDS,
    PILE_EVENTS,
    PILE_SIZES,
    RAFT,
    RAT_PLAGUE,
    THIEF,
    UNPLEASANT_CARDS,
    food_values,
    parse_token_spec,
    token_spec,
    token_table,
)
from hunger_rl.engines.validation import (
    InvalidTypeError,
    InvalidValueError,
    check_bool,
    check_choice,
    check_int,
    check_list,
    check_mapping,
    describe,
    is_integer,
    key_path,
)

SETUP_KEYS = ("leader", "piles", "coconuts", "event_deck", "characters", "holdings")
DECISION_METHODS = ("take", "campsite_theft", "pick_thief", "pick_guard", "gift", "supper",
                    "reject", "ninja_hide")
PLAYER_LABELS = tuple(f"player_{seat}" for seat in range(MAX_PLAYERS))
PILE_LABELS = tuple(
    tuple(f"{LOCATION_NAMES[loc]}:{CATEGORY_NAMES[kind]}" for kind in range(3))
    for loc in range(4)
)
STACK_LABEL, OUT_LABEL = "coconuts", "out"
# A pick (location, action) as the day's log names it.
PICK_NAMES = {(location, action): (LOCATION_NAMES[location], ACTION_NAMES[action])
              for location in range(len(LOCATION_NAMES)) for action in range(NUM_ACTIONS)}


class Ask(NamedTuple):
    """A request for one choice of S19: ``player``'s decision-object method ``method`` called
    with ``args`` after the game and the player (see ``DefaultDecisions``). A tuple, since a
    day makes several and a tuple is the cheapest to build."""

    player: int
    method: str
    args: tuple


# The day's resolution yields an ``Ask`` at every choice and is sent its answer; it returns
# what the resolving method returns (the day's log for ``_resolve_day``).
Resolution = Generator[Ask, Any, Any]


class RuleError(InvalidValueError):
    """A choice or an option that the rules do not allow; nothing has changed."""


class DecisionError(RuleError):
    """A decision object (S19) answered with a choice the rules do not allow. The day it
    happened in is undone (S21j): the game, its RNG included, is as before ``play_day``."""


def num_locations(num_players: int) -> int:
    """Locations in play (S1): Campsite and Beach, Jungle with 3+, Mountains with 5+."""
    return 2 + (num_players >= 3) + (num_players >= 5)


@lru_cache(maxsize=64)
def seats_from(first: int, num_players: int) -> tuple[int, ...]:
    """Every seat from ``first`` round to its left: ``first``, ``first + 1``, ... mod N."""
    return (*range(first, num_players), *range(first))


def shuffle_as_random(rng: random.Random, items: list) -> None:
    """``rng.shuffle(items)`` for a plain ``random.Random``: the same permutation from the same
    draws, leaving ``rng`` in the same state, but with its rejection sampling inlined. A deal
    shuffles about a hundred tokens, a method call per token with ``Random.shuffle``; a test
    checks this against ``Random.shuffle`` itself."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        bound = i + 1
        bits = bound.bit_length()
        j = getrandbits(bits)
        while j >= bound:  # as Random._randbelow: draw again until below the bound
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


@dataclass(frozen=True)
class ShowConfig:
    """Options of a game (S1, S4, S20). ``unpleasant=None`` takes the preset's count.

    Integers must be exact (NumPy integers are accepted and stored as ``int``); ``characters``
    must be a bool. Anything else raises a subclass of ``InvalidInputError``.
    """

    num_players: int
    events: str = "standard"
    deck_size: int = 10
    unpleasant: int | None = None
    end_window: int = 4
    characters: bool = False

    def __post_init__(self) -> None:
        num_players = check_int(self.num_players, "num_players")
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise RuleError(f"num_players must be {MIN_PLAYERS} to {MAX_PLAYERS} (S1), got "
                            f"{num_players}")
        check_choice(self.events, "events", tuple(EVENT_PRESETS))
        unpleasant = (EVENT_PRESETS[self.events] if self.unpleasant is None
                      else check_int(self.unpleasant, "unpleasant (S4)", 0, len(UNPLEASANT_CARDS)))
        deck_size = check_int(self.deck_size, "deck_size (S4)", 0)
        if deck_size < unpleasant or deck_size - unpleasant > NUM_CALM_CARDS:
            raise RuleError(
                f"a deck of {deck_size} cards with {unpleasant} unpleasant ones needs "
                f"{deck_size - unpleasant} Calm day cards; there are 0 to {NUM_CALM_CARDS} (S4)")
        for name, value in (("num_players", num_players), ("unpleasant", unpleasant),
                            ("deck_size", deck_size),
                            ("end_window", check_int(self.end_window, "end_window (S4)", 1)),
                            ("characters", check_bool(self.characters, "characters"))):
            object.__setattr__(self, name, value)

    @property
    def num_locations(self) -> int:
        return num_locations(self.num_players)


# Every option of a show but its player count, with its default: ``ShowConfig``'s, which the
# env, the batched engine and the OpenSpiel game take as theirs.
OPTION_DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {field.name: field.default for field in fields(ShowConfig) if field.name != "num_players"})


def seat_of(key: Any, num_players: int, path: str) -> int:
    """A seat from an int or a ``player_i`` name, for setup options and decision maps."""
    if isinstance(key, str) and key.startswith("player_") and key[7:].isdigit():
        seat = int(key[7:])
    elif is_integer(key):
        seat = int(key)
    else:
        raise InvalidTypeError(f"{path}: expected a player name such as 'player_0' or a seat "
                               f"number, got {describe(key)}")
    if not 0 <= seat < num_players:
        raise RuleError(f"{path}: {key!r} is not a player of this {num_players}-player game")
    return seat


def by_seat(value: Any, num_players: int, path: str, what: str) -> dict[int, Any]:
    """A map keyed by players (``player_i`` or seat ints) as {seat: item}; a seat named twice
    (say ``0`` and ``"player_0"``) is refused."""
    seated: dict[int, Any] = {}
    for key, item in check_mapping(value, path, what).items():
        seat = seat_of(key, num_players, f"{path}: key {key!r}")
        if seat in seated:
            raise RuleError(f"{path}: player_{seat} is given twice")
        seated[seat] = item
    return seated


def resolve_decisions(decisions: Any, num_players: int) -> list:
    """Per-seat decision objects from None, a list, or a map of seat / agent name."""
    if decisions is None:
        return [DefaultDecisions()] * num_players
    if isinstance(decisions, Mapping):
        seated = [DefaultDecisions()] * num_players
        for seat, obj in by_seat(decisions, num_players, "decisions", "decision objects").items():
            seated[seat] = obj
    elif isinstance(decisions, list | tuple):
        seated = list(decisions)
        if len(seated) != num_players:
            raise RuleError(f"decisions: expected {num_players} objects, got {len(seated)}")
    else:
        raise InvalidTypeError("decisions: expected None, a list or a dict of decision objects, "
                               f"got {describe(decisions)}")
    for seat, obj in enumerate(seated):
        missing = [m for m in DECISION_METHODS if not callable(getattr(obj, m, None))]
        if missing:
            raise RuleError(f"decisions for player_{seat} lack {missing}; subclass "
                            "DefaultDecisions to override only some choices")
    return seated


def rules_decide(decisions: Sequence[Any]) -> bool:
    """Whether every seat decides by ``DefaultDecisions`` itself, not a subclass or another
    object: then every S19 answer is the rules' own."""
    return all(type(obj) is DefaultDecisions for obj in decisions)


# How a setup option names a token, by the category expected there (None: any).
TOKEN_EXAMPLES = {None: "a token name such as 'can4'", RAFT: "a token name such as 'rope2'"}
TOKEN_EXAMPLES.update({c: f"a value or a token name such as '{CATEGORY_NAMES[c]}2'"
                       for c in (FRUIT, CHICKEN, COCONUT)})


def _token(spec: Any, path: str, category: int | None = None) -> tuple[int, int, int]:
    """(category, raft kind, value) of a token named in the setup; in a pile or the coconut
    stack (``category`` given) a bare value stands for a token of that category."""
    if category not in (None, RAFT) and is_integer(spec):
        spec = f"{CATEGORY_NAMES[category]}{spec}"
    elif not isinstance(spec, str):
        raise InvalidTypeError(f"{path}: expected {TOKEN_EXAMPLES[category]}, got "
                               f"{describe(spec)}")
    try:
        parsed = parse_token_spec(spec)
    except ValueError as error:
        raise RuleError(f"{path}: {error}") from None
    if category is not None and parsed[0] != category:
        raise RuleError(f"{path}: {spec!r} is not a {CATEGORY_NAMES[category]} token")
    return parsed


def check_setup(setup: Any, config: ShowConfig) -> dict[str, Any]:
    """Validate setup options (the env's reset options, documented in the environment card) as
    a whole, before anything is built. Errors name the key path and what was expected.

    Returns them in a checked form: ``leader`` a seat; ``characters`` a name per seat;
    ``holdings`` {seat: [(token type, path), ...]}; ``piles`` {(location, kind): [...]};
    ``coconuts`` [...]; ``event_deck`` card names top first. A key set to None counts as absent.
    """
    n, locs = config.num_players, config.num_locations
    given = {key: value for key, value in check_mapping(setup, "options", "reset options").items()
             if value is not None}
    unknown = [key for key in given if key not in SETUP_KEYS]
    if unknown:
        raise RuleError(f"options: unknown keys {unknown}; the known ones are {list(SETUP_KEYS)}")
    checked: dict[str, Any] = {}
    if "leader" in given:
        checked["leader"] = seat_of(given["leader"], n, key_path("options", "leader"))
    if "characters" in given:
        path = key_path("options", "characters")
        if not config.characters:
            raise RuleError(f"{path} given but the characters variant is off; pass "
                            "characters=True")
        chosen = given["characters"]
        if isinstance(chosen, Mapping):
            chosen = by_seat(chosen, n, path, "character names")
        else:
            chosen = dict(enumerate(check_list(chosen, path, "character names")))
        for seat, name in chosen.items():
            if not isinstance(name, str) or name not in CHARACTERS:
                raise RuleError(f"{path}: unknown character {describe(name)} for player_{seat}; "
                                f"choose from {list(CHARACTERS)}")
        if sorted(chosen) != list(range(n)) or len(set(chosen.values())) != n:
            raise RuleError(f"{path}: give each of the {n} players a different character")
        checked["characters"] = [chosen[seat] for seat in range(n)]
    if "holdings" in given:
        root = key_path("options", "holdings")
        checked["holdings"] = {}
        for seat, specs in by_seat(given["holdings"], n, root, "token lists").items():
            path = key_path(root, PLAYER_LABELS[seat])
            checked["holdings"][seat] = [
                (_token(spec, key_path(path, i)), key_path(path, i))
                for i, spec in enumerate(check_list(specs, path, "token names"))]
    if "piles" in given:
        root = key_path("options", "piles")
        checked["piles"] = {}
        for loc_name, kinds in check_mapping(given["piles"], root, "locations").items():
            if loc_name not in LOCATION_NAMES[1:locs]:
                raise RuleError(f"{root}: {loc_name!r} is not a location with piles in a "
                                f"{n}-player game; use {list(LOCATION_NAMES[1:locs])}")
            at = key_path(root, loc_name)
            for kind_name, specs in check_mapping(kinds, at, "pile kinds").items():
                if kind_name not in CATEGORY_NAMES[:3]:
                    raise RuleError(f"{at}: {kind_name!r} is not a pile kind; use fruit, "
                                    "chicken or raft")
                kind = CATEGORY_NAMES.index(kind_name)
                path = key_path(at, kind_name)
                specs = check_list(specs, path, f"{kind_name} tokens")
                if len(specs) > PILE_SIZES[kind]:
                    raise RuleError(f"{path}: a {kind_name} pile holds at most "
                                    f"{PILE_SIZES[kind]} tokens (S2), got {len(specs)}")
                checked["piles"][(LOCATION_NAMES.index(loc_name), kind)] = [
                    (_token(spec, key_path(path, i), kind), key_path(path, i))
                    for i, spec in enumerate(specs)]
    if "coconuts" in given:
        path = key_path("options", "coconuts")
        checked["coconuts"] = [
            (_token(spec, key_path(path, i), COCONUT), key_path(path, i))
            for i, spec in enumerate(check_list(given["coconuts"], path, "coconut values"))]
    if "event_deck" in given:
        path = key_path("options", "event_deck")
        deck = check_list(given["event_deck"], path, "event card names")
        for i, card in enumerate(deck):
            if not isinstance(card, str) or card not in EVENT_CARD_NAMES:
                raise RuleError(f"{key_path(path, i)}: unknown card {describe(card)}; cards "
                                f"are {list(EVENT_CARD_NAMES)}")
        limits = {c: UNPLEASANT_CARDS.count(c) for c in UNPLEASANT_CARDS}
        limits.update({"calm": NUM_CALM_CARDS, END: 1})
        for card, limit in limits.items():
            if deck.count(card) > limit:
                raise RuleError(f"{path}: at most {limit} {card!r} card(s) exist (S4)")
        checked["event_deck"] = deck
    return checked


@lru_cache(maxsize=8)
def supply_pools(num_players: int) -> tuple[dict[tuple[int, int, int], tuple[int, ...]],
                                            dict[tuple[int, int], tuple[int, ...]],
                                            tuple[tuple[int, ...], ...]]:
    """Token ids of a game by type: shared tokens by (category, raft kind, value), cans by
    (seat, value), and the shared tokens by category; each in id order."""
    categories, values, kinds, colours = token_table(num_players)
    shared: dict[tuple[int, int, int], list[int]] = {}
    cans: dict[tuple[int, int], list[int]] = {
        (seat, v): [] for seat in range(num_players) for v in range(1, 5)}
    by_category: list[list[int]] = [[] for _ in CATEGORY_NAMES]
    for token, category in enumerate(categories):
        if category == CAN:
            cans[(colours[token], values[token])].append(token)
        else:
            shared.setdefault((category, kinds[token], values[token]), []).append(token)
            by_category[category].append(token)
    return ({k: tuple(v) for k, v in shared.items()}, {k: tuple(v) for k, v in cans.items()},
            tuple(tuple(ids) for ids in by_category))


def _is_pick(choice: Any, num_locs: int) -> bool:
    """Whether ``choice`` is a pair of exact integers naming a location in play and an action."""
    if not isinstance(choice, tuple | list) or len(choice) != 2:
        return False
    location, action = choice
    return ((type(location) is int or is_integer(location))
            and (type(action) is int or is_integer(action))
            and 0 <= location < num_locs and 0 <= action < NUM_ACTIONS)


class ShowGame:
    """State and rules of one game. Seats 0..N-1; "left" of seat s is seat s+1 (mod N).

    The constructor checks ``setup`` (see ``check_setup``) and ``decisions`` before it builds
    anything; ``play_day`` resolves a day atomically (S21j).
    """

    def __init__(self, config: ShowConfig, seed: int | None = None,
                 setup: Mapping[str, Any] | None = None, decisions: Any = None) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.decisions = resolve_decisions(decisions, n)
        self._rules_decide = rules_decide(self.decisions)
        setup = check_setup(setup if setup is not None else {}, config)
        self.category, self.value, self.raft_kind, self.colour = token_table(n)
        self.food = food_values(n)
        self._rng = random.Random(seed)
        self._day_open = False
        self._rng_before_day: tuple | None = None
        self.known = [0] * len(self.category)
        self.alive = [True] * n
        self.day = 0
        self.done = False
        self.end_condition: str | None = None
        self.winners: list[int] = []
        self.final_keys: dict[int, tuple[int, int, int]] = {}
        self.last_choices: list[tuple[int, int] | None] = [None] * n
        self.leader = setup["leader"] if "leader" in setup else self._rng.randrange(n)
        self.characters = self._deal_characters(setup.get("characters"))
        self._deal_tokens(setup)
        self.deck = self._build_deck(setup.get("event_deck"))
        self._moves: list[tuple[str, str, str, str]] = []
        self._clear_pending()

    @property
    def rng(self) -> random.Random:
        """The game's seeded RNG (decision objects break ties with it). During a day its state
        is saved at its first use, so that an undone day (S21j) restores it; a day that never
        uses it saves nothing (getstate copies 625 words)."""
        if self._day_open and self._rng_before_day is None:
            self._rng_before_day = self._rng.getstate()
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        """Give the game another RNG between days (a resampled copy of a show takes a fresh
        one); during a day it would break the day's undo."""
        if self._day_open:
            raise RuntimeError("the RNG of a show cannot be replaced during a day")
        self._rng = rng

    def _open_day(self) -> dict[str, Any]:
        """Start an atomic day (S21j): the state to restore if it is undone (``_undo_day``)."""
        self._day_open = True
        return self._day_state()

    def _close_day(self) -> None:
        self._day_open = False
        self._rng_before_day = None

    def _undo_day(self, saved: dict[str, Any]) -> None:
        """Back to the state ``_open_day`` saved, the RNG's included if the day used it."""
        rng_state = self._rng_before_day
        self.__dict__.update(saved)
        if rng_state is not None:
            self._rng.setstate(rng_state)
        self._close_day()

    def _clear_pending(self) -> None:
        self.pending: PendingChoice | None = None
        self._day: Resolution | None = None
        self._steps: Generator[PendingChoice, int, Any] | None = None
        self._day_start: dict[str, Any] | None = None

    # ----------------------------------------------------------------- setup
    def _deal_characters(self, chosen: list[str] | None) -> list[str | None]:
        if not self.config.characters:
            return [None] * self.num_players
        return chosen if chosen is not None else list(self._rng.sample(CHARACTERS,
                                                                        self.num_players))

    def _deal_tokens(self, setup: Mapping[str, Any]) -> None:
        """Place every token; ``setup`` is checked by ``check_setup``. Tokens the setup names
        are the lowest ids of their type left in the supply; the piles and the coconut stack
        are filled from the rest, shuffled in id order."""
        n, locs = self.num_players, self.config.num_locations
        shared_supply, can_supply, by_category = supply_pools(n)
        taken: set[int] = set()

        def take(parsed: tuple[int, int, int], path: str, seat: int | None = None) -> int:
            pool = (can_supply[(seat, parsed[2])] if parsed[0] == CAN
                    else shared_supply.get(parsed, ()))
            token = next((t for t in pool if t not in taken), None)
            if token is None:
                raise RuleError(f"{path}: no {token_spec(*parsed)} token left in the supply "
                                "(S2, S3)")
            taken.add(token)
            return token

        given_seats = setup.get("holdings", {})
        self.holdings: list[list[int]] = [
            [take(parsed, path, seat) for parsed, path in given_seats[seat]]
            if seat in given_seats
            else [t for v in range(1, 5) for t in can_supply[(seat, v)]]
            for seat in range(n)]
        for seat, holding in enumerate(self.holdings):
            for token in holding:
                self.known[token] |= 1 << seat

        given_piles = {where: [take(parsed, path) for parsed, path in specs]
                       for where, specs in setup.get("piles", {}).items()}
        given_coconuts = [take(parsed, path) for parsed, path in setup.get("coconuts", [])]

        # Piles and stacks keep their top at the end of the list.
        self.piles: list[list[list[int]]] = [[[], [], []] for _ in range(4)]
        placed = [False] * len(self.category)
        for kind in range(3):
            pool = [t for t in by_category[kind] if t not in taken] if taken else list(
                by_category[kind])
            shuffle_as_random(self._rng, pool)
            for loc in range(1, locs):
                top = given_piles.get((loc, kind), [])
                need = PILE_SIZES[kind] - len(top)
                if need > len(pool):
                    raise RuleError(f"options[\"piles\"]: not enough {CATEGORY_NAMES[kind]} "
                                    "tokens left to fill the piles (S2)")
                self.piles[loc][kind] = pile = pool[:need] + top[::-1]
                pool = pool[need:]
                for token in pile:
                    placed[token] = True
        rest = ([t for t in by_category[COCONUT] if t not in taken] if taken
                else list(by_category[COCONUT]))
        shuffle_as_random(self._rng, rest)
        self.coconuts = rest + given_coconuts[::-1]
        for token in self.coconuts:
            placed[token] = True
        for holding in self.holdings:
            for token in holding:
                placed[token] = True
        self.out = [t for t, is_placed in enumerate(placed) if not is_placed]

    def _build_deck(self, given: list[str] | None) -> list[str]:
        """The event deck, top at the end of the list (S4); ``given`` is checked already."""
        if given is not None:
            return given[::-1]
        config = self.config
        cards = self._rng.sample(UNPLEASANT_CARDS, config.unpleasant)
        cards += ["calm"] * (config.deck_size - config.unpleasant)
        shuffle_as_random(self._rng, cards)
        window = min(config.end_window, config.deck_size + 1)
        cards.insert(config.deck_size + 1 - window + self._rng.randrange(window), END)
        return cards[::-1]

    # ----------------------------------------------------------------- queries
    def knows(self, player: int, token: int) -> bool:
        """Whether ``player`` remembers the value of ``token`` (S18)."""
        return bool(self.known[token] >> player & 1)

    def living(self) -> list[int]:
        return [p for p in range(self.num_players) if self.alive[p]]

    def playing_order(self) -> list[int]:
        """The Leader, then to the left, living players only (S5)."""
        alive = self.alive
        return [s for s in seats_from(self.leader, self.num_players) if alive[s]]

    def order_position(self) -> dict[int, int]:
        return {p: i for i, p in enumerate(self.playing_order())}

    def count_category(self, player: int, category: int) -> int:
        return sum(1 for t in self.holdings[player] if self.category[t] == category)

    def food_value(self, tokens: Sequence[int]) -> int:
        food = self.food
        return sum([food[t] for t in tokens])

    def ranking_key(self, player: int) -> tuple[int, int, int]:
        """(raft sets, leftover raft units, food value) of a player's holding (S17)."""
        units = [0, 0]
        food = 0
        for t in self.holdings[player]:
            if self.category[t] == RAFT:
                units[self.raft_kind[t]] += self.value[t]
            else:
                food += self.value[t]
        sets = min(units)
        return sets, units[0] + units[1] - 2 * sets, food

    def token_places(self) -> dict[int, str]:
        """Where every token is, for checks: each token id appears exactly once."""
        places: dict[int, str] = {}

        def put(token: int, place: str) -> None:
            if token in places:
                raise AssertionError(f"token {token} is both in {places[token]} and {place}")
            places[token] = place

        for loc in range(4):
            for kind in range(3):
                for t in self.piles[loc][kind]:
                    put(t, PILE_LABELS[loc][kind])
        for t in self.coconuts:
            put(t, STACK_LABEL)
        for seat, holding in enumerate(self.holdings):
            for t in holding:
                put(t, PLAYER_LABELS[seat])
        for t in self.out:
            put(t, OUT_LABEL)
        return places

    # ----------------------------------------------------------------- moves
    def _log(self, token: int, source: str, target: str, reason: str) -> None:
        self._moves.append((CATEGORY_NAMES[self.category[token]], source, target, reason))

    def _transfer(self, token: int, giver: int, receiver: int, reason: str) -> None:
        self.holdings[giver].remove(token)
        self.holdings[receiver].append(token)
        self.known[token] |= 1 << receiver  # S18: the receiver handles the token
        self._log(token, PLAYER_LABELS[giver], PLAYER_LABELS[receiver], reason)

    def _discard(self, tokens: Sequence[int], player: int, reason: str) -> None:
        """Move ``tokens`` from ``player``'s holding to the box, in turn (a meal, a holding)."""
        holding, out, source = self.holdings[player], self.out, PLAYER_LABELS[player]
        for token in tokens:
            holding.remove(token)
            out.append(token)
            self._log(token, source, OUT_LABEL, reason)

    def _draw_coconuts(self, players: Sequence[int], each: int) -> None:
        """Coconut draws in playing order; a short stack gives what is left (S13, S20)."""
        for p in players:
            count = each + (self.characters[p] == "coconut_connoisseur")
            for _ in range(min(count, len(self.coconuts))):
                token = self.coconuts.pop()
                self.holdings[p].append(token)
                self.known[token] |= 1 << p
                self._log(token, STACK_LABEL, PLAYER_LABELS[p], "coconut")

    def _draw(self, loc: int, kind: int, player: int, quota: int) -> list[int]:
        """Draw up to ``quota`` tokens from a pile (S9); specialists draw one more if there is
        one (S20), and then return one with ``_reject`` (S21f)."""
        pile = self.piles[loc][kind]
        label = PILE_LABELS[loc][kind]
        extra = DRAW_SPECIALISTS.get(self.characters[player]) == kind
        drawn = [pile.pop() for _ in range(min(quota + extra, len(pile)))]
        bit = 1 << player
        for token in drawn:
            self.known[token] |= bit
            self._log(token, label, PLAYER_LABELS[player], "gather")
        return drawn

    def _reject(self, loc: int, kind: int, player: int, drawn: list[int]) -> Resolution:
        """A specialist who drew one token more than its quota puts one of ``drawn`` back on
        the pile, on top or at the bottom (S20, S21f); it leaves ``drawn``."""
        pile = self.piles[loc][kind]
        label = PILE_LABELS[loc][kind]
        answer = yield Ask(player, "reject", (drawn,))
        if not (isinstance(answer, tuple | list) and len(answer) == 2
                and isinstance(answer[1], bool)):
            raise DecisionError(f"player_{player}'s reject() must return (token, to_bottom) "
                                f"with to_bottom True or False, got {describe(answer)}")
        rejected = self._chosen(answer[0], drawn, player, "reject()", "a token it drew")
        to_bottom = answer[1]
        drawn.remove(rejected)
        if to_bottom:
            pile.insert(0, rejected)
        else:
            pile.append(rejected)
        self._log(rejected, PLAYER_LABELS[player], label, "reject")

    def _answer(self, ask: Ask) -> Any:
        """A choice of the asked player's decision object (S19). An exception inside it becomes
        a DecisionError naming it; the day is then undone (S21j)."""
        player, method, args = ask
        try:
            return getattr(self.decisions[player], method)(self, player, *args)
        except Exception as error:
            raise DecisionError(f"player_{player}'s {method}() raised "
                                f"{type(error).__name__}: {error}") from error

    def _take_one(self, taker: int, candidates: list[int]) -> Resolution:
        answer = yield Ask(taker, "take", (candidates,))
        return self._chosen(answer, candidates, taker, "take()", "a token on offer")

    @staticmethod
    def _chosen(answer: Any, offered: Sequence[int], player: int, method: str,
                what: str) -> int:
        """A decision object's pick of one token or seat, checked before it is used (S21j)."""
        if is_integer(answer) and answer in offered:
            return int(answer)
        raise DecisionError(f"player_{player}'s {method} must return {what}, got "
                            f"{describe(answer)}")

    def _chosen_tokens(self, answer: Any, offered: Any, player: int, method: str,
                       what: str) -> list[int]:
        """A decision object's list of distinct tokens, each one of ``offered`` (S21j)."""
        if isinstance(answer, list | tuple):
            tokens = [t if type(t) is int else int(t) for t in answer
                      if (type(t) is int or is_integer(t)) and t in offered]
            if len(tokens) == len(answer) and len(set(tokens)) == len(tokens):
                return tokens
        raise DecisionError(f"player_{player}'s {method} must return a list of distinct "
                            f"tokens, {what}; got {describe(answer)}")

    # ----------------------------------------------------------------- resolution
    def _checked_meal(self, answer: Any, holding: list[int], player: int) -> list[int]:
        """A decision object's supper: distinct food tokens it holds worth at least 4, with no
        superfluous token (S15), else a DecisionError (S21j)."""
        meal = self._chosen_tokens(answer, holding, player, "supper()", "food it holds")
        eaten = [self.food[t] for t in meal]  # a raft token counts 0: then it is superfluous
        if not meal or sum(eaten) < 4 or sum(eaten) - min(eaten) >= 4:
            raise DecisionError(f"player_{player}'s supper() must pay food worth at least 4 "
                                f"with no superfluous token (S15), got values "
                                f"{[self.value[t] for t in meal]}")
        return meal

    def _catch(self, guards: list[int], thieves: list[int]) -> Resolution:
        """Guards take from caught thieves (S11); a Ninja hides 2 tokens first (S20)."""
        hidden: set[int] = set()
        for thief in thieves:
            if self.characters[thief] == "ninja":
                answer = yield Ask(thief, "ninja_hide", ())
                chosen = self._chosen_tokens(answer, self.holdings[thief], thief,
                                             "ninja_hide()", "at most 2 of its own")
                if len(chosen) > 2:
                    raise DecisionError(f"player_{thief}'s ninja_hide() may hide at most 2 "
                                        f"tokens, got {len(chosen)}")
                hidden.update(chosen)

        def takeable(thief: int) -> list[int]:
            return [t for t in self.holdings[thief] if t not in hidden]

        if len(guards) == 1:
            guard = guards[0]
            for thief in thieves:
                for _ in range(2 if len(thieves) == 1 else 1):
                    candidates = takeable(thief)
                    if candidates:
                        token = yield from self._take_one(guard, candidates)
                        self._transfer(token, thief, guard, "guard_take")
            return
        for guard in guards:
            thief = thieves[0]
            if len(thieves) == 2:
                offer = {t: takeable(t) for t in thieves}
                answer = yield Ask(guard, "pick_thief", (guards, thieves, offer))
                thief = self._chosen(answer, thieves, guard, "pick_thief()",
                                     "the seat of a caught thief")
            candidates = takeable(thief)
            if candidates:
                token = yield from self._take_one(guard, candidates)
                self._transfer(token, thief, guard, "guard_take")

    def _gifts(self, givers: Sequence[int], guards: list[int]) -> Resolution:
        """Each giver hands one of its tokens to a guard (S11, S12); Arnold picks it (S20)."""
        for giver in givers:
            holding = self.holdings[giver]
            if not holding:
                continue  # S13: nothing to give
            guard = guards[0]
            if len(guards) == 2:
                answer = yield Ask(giver, "pick_guard", (guards,))
                guard = self._chosen(answer, guards, giver, "pick_guard()",
                                     "the seat of a guard there")
            if self.characters[guard] == "arnold":
                token = yield from self._take_one(guard, list(holding))
            else:
                answer = yield Ask(giver, "gift", (guard,))
                token = self._chosen(answer, holding, giver, "gift()", "a token it holds")
            self._transfer(token, giver, guard, "gift")

    def _resolve_campsite(self, here: list[int], order: list[int],
                          choices: Sequence) -> Resolution:
        """The day at the Campsite (S11, S12); ``here``: its players in playing order."""
        thieves = [p for p in here if choices[p][1] == THIEF]
        guards = [p for p in here if choices[p][1] == GUARD]
        thieves = thieves if len(thieves) <= 2 else []  # S8: 3+ cancel each other
        guards = guards if len(guards) <= 2 else []
        if thieves and guards:
            yield from self._catch(guards, thieves)
            # S12: every living player other than the Campsite thieves and guards gives.
            yield from self._gifts([p for p in order if p not in thieves and p not in guards],
                                   guards)
        elif thieves:
            amount = 2 if len(thieves) == 1 else 1
            for thief in thieves:
                yield from self._campsite_theft(thief, amount)
        elif guards:
            # A guard without a thief draws coconuts at any location, the Campsite too (S11, S21a).
            self._draw_coconuts(guards, 2 if len(guards) == 1 else 1)

    def _campsite_theft(self, thief: int, amount: int) -> Resolution:
        """A free Campsite thief steals from other living players, a fellow thief included;
        no coconuts (S12, S21b)."""
        owner = {t: p for p in self.living() if p != thief for t in self.holdings[p]}
        due = min(amount, len(owner))
        answer = yield Ask(thief, "campsite_theft", (amount,))
        stolen = self._chosen_tokens(answer, owner, thief, "campsite_theft()",
                                     f"{due} held by other living players (S12)")
        if len(stolen) != due:
            raise DecisionError(f"player_{thief}'s campsite_theft() must steal {due} token(s), "
                                f"got {len(stolen)}")
        for token in stolen:
            self._transfer(token, owner[token], thief, "steal")

    def _resolve_location(self, loc: int, here: list[int], order: list[int],
                          choices: Sequence) -> Resolution:
        """The day at a location with piles (S8-S11); ``here``: its players in playing order."""
        groups: list[list[int]] = [[], [], [], [], []]
        for p in here:
            groups[choices[p][1]].append(p)
        loot: dict[int, int] = {}  # token gathered here today -> its holder
        present: set[int] = set()
        for p in here:  # S7: gatherers draw in playing order, whatever they gather
            kind = choices[p][1]
            if kind >= THIEF or not 1 <= len(groups[kind]) <= 2:
                continue  # S8: 3+ cancel each other
            quota = 2 if len(groups[kind]) == 1 else 1  # S9
            drawn = self._draw(loc, kind, p, quota)
            if len(drawn) > quota:  # no generator for the draws that ask nothing
                yield from self._reject(loc, kind, p, drawn)
            self.holdings[p].extend(drawn)
            for token in drawn:
                loot[token] = p
                present.add(p)  # S8: a player who drew nothing counts as absent
        thieves = groups[THIEF] if len(groups[THIEF]) <= 2 else []
        guards = groups[GUARD] if len(groups[GUARD]) <= 2 else []
        if thieves and guards:
            yield from self._catch(guards, thieves)  # S11: the gatherers keep their loot
            yield from self._gifts([p for p in order if p in present], guards)
        elif thieves:
            if not loot:
                self._draw_coconuts(thieves, 2 if len(thieves) == 1 else 1)  # S10
                return
            remaining = [t for p in order for t in self.holdings[p] if t in loot]
            turn = 0
            while remaining:  # S10: one thief takes all, two pick alternately
                thief = thieves[turn % len(thieves)]
                token = (remaining[0] if len(thieves) == 1
                         else (yield from self._take_one(thief, remaining)))
                remaining.remove(token)
                self._transfer(token, loot[token], thief, "loot")
                turn += 1
        elif guards:
            self._draw_coconuts(guards, 2 if len(guards) == 1 else 1)  # S11

    def _event(self, order: list[int]) -> Resolution:
        card = self.deck.pop() if self.deck else END  # S14, S21c: an empty deck ends the show
        kind, size = CARD_PARTS[card]
        if kind in PILE_EVENTS:
            pile_kind = PILE_EVENTS[kind]
            for loc in range(1, self.config.num_locations):
                pile = self.piles[loc][pile_kind]
                for _ in range(min(size, len(pile))):
                    token = pile.pop()
                    self.out.append(token)
                    self._log(token, PILE_LABELS[loc][pile_kind], OUT_LABEL, "event")
        elif kind == RAT_PLAGUE:
            for i, remover in enumerate(order):
                victim = order[(i + 1) % len(order)]
                for _ in range(size):
                    if not self.holdings[victim]:
                        break
                    token = yield from self._take_one(remover, list(self.holdings[victim]))
                    self.known[token] |= 1 << remover  # the remover handles the token (S21g)
                    self._discard((token,), victim, "rat_plague")
        return card

    def _supper(self, order: list[int]) -> Resolution:
        """Every living player eats at least 4, no change (S15); who cannot is eliminated."""
        payments: dict[str, list[tuple[str, int]]] = {}
        starving = []
        everyone = (1 << self.num_players) - 1
        category, value, food, known = self.category, self.value, self.food, self.known
        for p in order:
            holding = self.holdings[p]
            if sum([food[t] for t in holding]) < 4:
                starving.append(p)
                continue
            answer = yield Ask(p, "supper", ())
            # DefaultDecisions' meal is S15's own (tests check it on random holdings): only
            # another decision object's is checked, the hot path of a default day.
            meal = answer if self._rules_decide else self._checked_meal(answer, holding, p)
            payments[PLAYER_LABELS[p]] = [(CATEGORY_NAMES[category[t]], value[t]) for t in meal]
            for token in meal:
                known[token] = everyone  # payments are public, values too (S18, S21h)
            self._discard(meal, p, "supper")
        return payments, starving

    def _finish(self, condition: str, ranked: dict[int, tuple[int, int, int]]) -> None:
        self.done = True
        self.end_condition = condition
        self.final_keys = ranked
        best = max(ranked.values())
        self.winners = sorted(p for p, key in ranked.items() if key == best)  # S17

    def play_day(self, choices: Sequence[tuple[int, int] | None]) -> dict[str, Any]:
        """Resolve one day (S6-S16) and return its public log.

        ``choices[seat]`` is the (location, action) pair of each living seat and None for the
        eliminated ones. A bad argument raises RuleError before anything changes. The day is
        atomic (S21j): if a decision object answers with a choice the rules do not allow (a
        ``DecisionError``) or raises, the game, its RNG included, is restored as it was. When
        every seat decides by ``DefaultDecisions`` itself (the S19 rules, whose answers are
        legal by construction), nothing can be refused and the day takes no snapshot.
        """
        return self.play_checked_day(self._checked_picks(choices))

    def play_checked_day(self, picks: list[tuple[int, int] | None]) -> dict[str, Any]:
        """``play_day`` for picks the caller has checked as ``play_day`` does, on a game that is
        not over and has no pending choice: a fresh list of an ``(int, int)`` pair per living
        seat (a location in play, an action) and None per eliminated seat. The env checks
        every action against its mask before it steps; checking again cost 2% of a day."""
        saved = None if self._rules_decide else self._open_day()
        try:
            day, answer = self._resolve_day(picks), None
            while True:
                answer = self._answer(day.send(answer))
        except StopIteration as finished:
            self._close_day()
            return finished.value
        except BaseException:
            if saved is not None:
                self._undo_day(saved)
            raise

    def start_day(self, choices: Sequence[tuple[int, int] | None]) -> dict[str, Any] | None:
        """Full-decision mode: resolve the day up to its first S19 choice and record it in
        ``pending``; return None then, or the day's log if no choice came up. Arguments as
        ``play_day``; decision objects are not asked."""
        if self.pending is not None:
            raise RuleError(f"player_{self.pending.player} has a pending {self.pending.kind} "
                            "choice; answer it with choose() first")
        choices = self._checked_picks(choices)
        self._day_start = self._open_day()
        self._day = self._resolve_day(choices)
        return self._advance(None)

    def choose(self, action: Any) -> dict[str, Any] | None:
        """Answer the pending choice with one of its legal actions (``full_decisions``); return
        None while the day waits for another choice, else the day's log. An illegal action
        raises RuleError and changes nothing."""
        pending = self.pending
        if pending is None:
            raise RuleError("no choice is pending; start a day with start_day()")
        if not (is_integer(action) and int(action) in pending.legal):
            raise RuleError(f"player_{pending.player}'s {pending.kind} choice must be one of "
                            f"{list(pending.legal)}, got {describe(action)}")
        return self._advance(int(action))

    def _advance(self, action: int | None) -> dict[str, Any] | None:
        """Send ``action`` to the pending step, then run the day to its next step or its end."""
        try:
            answer = None
            if self._steps is not None:
                try:
                    self.pending = self._steps.send(action)
                    return None
                except StopIteration as answered:
                    answer = answered.value
            while True:
                self._steps = decision_steps(self, self._day.send(answer))
                try:
                    self.pending = next(self._steps)
                    return None
                except StopIteration as answered:
                    answer = answered.value
        except StopIteration as finished:
            self._close_day()
            self._clear_pending()
            return finished.value
        except BaseException:
            self._undo_day(self._day_start)
            self._clear_pending()
            raise

    def _checked_picks(self, choices: Sequence[tuple[int, int] | None]
                       ) -> list[tuple[int, int] | None]:
        """The day's picks as (location, action) pairs, or a RuleError."""
        if self.done:
            raise RuleError("the show is over; start a new game")
        if self.pending is not None:
            raise RuleError("a day is under way in the full-decision mode; answer its "
                            "pending choice with choose()")
        n, locs = self.num_players, self.config.num_locations
        if len(choices) != n:
            raise RuleError(f"expected {n} choices, got {len(choices)}")
        for seat, choice in enumerate(choices):
            if not self.alive[seat]:
                if choice is not None:
                    raise RuleError(f"player_{seat} is eliminated and cannot choose")
            elif not _is_pick(choice, locs):
                raise RuleError(f"player_{seat} needs a (location, action) pair with a "
                                f"location below {locs}, got {choice!r}")
        return [None if c is None else (int(c[0]), int(c[1])) for c in choices]

    def _resolve_day(self, choices: list[tuple[int, int] | None]) -> Resolution:
        n, locs = self.num_players, self.config.num_locations
        self.day += 1
        self._moves = moves = []
        order = self.playing_order()
        log: dict[str, Any] = {
            "day": self.day,
            "leader": PLAYER_LABELS[self.leader],
            "order": [PLAYER_LABELS[p] for p in order],
            "choices": {PLAYER_LABELS[p]: PICK_NAMES[choices[p]] for p in order},
            "moves": moves,
            "event": None,
            "supper": {},
            "eliminated": [],
            "end": None,
        }
        self.last_choices = choices
        at: list[list[int]] = [[] for _ in range(locs)]  # each location's players, in order
        for p in order:
            at[choices[p][0]].append(p)
        if at[CAMPSITE]:  # S7: Campsite, then Beach, Jungle, Mountains
            yield from self._resolve_campsite(at[CAMPSITE], order, choices)
        for loc in range(BEACH, locs):
            if at[loc]:
                yield from self._resolve_location(loc, at[loc], order, choices)
        card = log["event"] = yield from self._event(order)
        if card == END:
            self._finish("A", {p: self.ranking_key(p) for p in order})
        else:
            log["supper"], starving = yield from self._supper(order)
            # Starving players paid nothing: their holdings are still those before supper.
            before = {p: self.ranking_key(p) for p in starving}
            for p in starving:
                self.alive[p] = False
                self._discard(list(self.holdings[p]), p, "eliminated")
            log["eliminated"] = [PLAYER_LABELS[p] for p in starving]
            survivors = self.living()
            if not survivors:
                self._finish("B", {p: before[p] for p in starving})
            elif len(survivors) == 1:
                self._finish("C", {survivors[0]: self.ranking_key(survivors[0])})
                self.winners = survivors
            else:
                self.leader = next(s for s in seats_from((self.leader + 1) % n, n)
                                   if self.alive[s])
        if self.done:
            log["end"] = {
                "condition": self.end_condition,
                "winners": [PLAYER_LABELS[p] for p in self.winners],
                "ranking": {PLAYER_LABELS[p]: key for p, key in self.final_keys.items()},
            }
        return log

    # ----------------------------------------------------------------- copies
    def _day_state(self) -> dict[str, Any]:
        """The attributes, with a copy of every container that a day changes in place (the
        RNG's state aside: see ``rng``); a day only replaces the others."""
        state = dict(self.__dict__)
        state.update(
            known=list(self.known), alive=list(self.alive),
            holdings=[list(h) for h in self.holdings],
            piles=[[list(p) for p in loc] for loc in self.piles], coconuts=list(self.coconuts),
            out=list(self.out), deck=list(self.deck), _moves=[])
        return state

    def _copied_state(self) -> dict[str, Any]:
        """The attributes, every container among them copied (the RNG excepted)."""
        state = self._day_state()
        state.update(winners=list(self.winners), final_keys=dict(self.final_keys),
                     last_choices=list(self.last_choices), characters=list(self.characters))
        return state

    def _check_between_days(self, what: str) -> None:
        if self.pending is not None:
            raise RuleError(f"cannot {what} in the middle of a day (a choice is pending)")

    def clone(self) -> ShowGame:
        """An independent copy sharing only the immutable tables and the decision objects."""
        self._check_between_days("clone the game")
        other = object.__new__(ShowGame)
        other.__dict__.update(self._copied_state())
        other._rng = random.Random()
        other._rng.setstate(self._rng.getstate())
        return other

    def __deepcopy__(self, memo: dict) -> ShowGame:
        """``copy.deepcopy`` as :meth:`clone`: the tables and decision objects stay shared."""
        return self.clone()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot, RNG included, so a restored game continues identically.

        Decision objects are not part of it; pass them again to ``from_dict``.
        """
        self._check_between_days("save the game")
        version, internal, gauss = self._rng.getstate()
        return {
            "config": asdict(self.config),
            "rng": [version, list(internal), gauss],
            "known": list(self.known),
            "alive": list(self.alive),
            "day": self.day,
            "done": self.done,
            "end_condition": self.end_condition,
            "winners": list(self.winners),
            "final_keys": [[p, list(k)] for p, k in sorted(self.final_keys.items())],
            "last_choices": [None if c is None else list(c) for c in self.last_choices],
            "leader": self.leader,
            "characters": list(self.characters),
            "holdings": [list(h) for h in self.holdings],
            "piles": [[list(p) for p in loc] for loc in self.piles],
            "coconuts": list(self.coconuts),
            "out": list(self.out),
            "deck": list(self.deck),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], decisions: Any = None) -> ShowGame:
        config = ShowConfig(**data["config"])
        game = object.__new__(cls)
        game.config = config
        game.num_players = config.num_players
        game.category, game.value, game.raft_kind, game.colour = token_table(config.num_players)
        game.food = food_values(config.num_players)
        game.decisions = resolve_decisions(decisions, config.num_players)
        game._rules_decide = rules_decide(game.decisions)
        version, internal, gauss = data["rng"]
        game._rng = random.Random()
        game._rng.setstate((version, tuple(internal), gauss))
        game._day_open, game._rng_before_day = False, None
        game.known = list(data["known"])
        game.alive = list(data["alive"])
        game.day = data["day"]
        game.done = data["done"]
        game.end_condition = data["end_condition"]
        game.winners = list(data["winners"])
        game.final_keys = {p: tuple(k) for p, k in data["final_keys"]}
        game.last_choices = [None if c is None else tuple(c) for c in data["last_choices"]]
        game.leader = data["leader"]
        game.characters = list(data["characters"])
        game.holdings = [list(h) for h in data["holdings"]]
        game.piles = [[list(p) for p in loc] for loc in data["piles"]]
        game.coconuts = list(data["coconuts"])
        game.out = list(data["out"])
        game.deck = list(data["deck"])
        game._moves = []
        game._clear_pending()
        return game

    def describe_token(self, token: int) -> str:
        """A token's option-string name, e.g. ``"rope2"`` (for tests and scripted choices)."""
        return token_spec(self.category[token], self.raft_kind[token], self.value[token])


def day_log_text(log: Mapping[str, Any]) -> str:
    """A readable form of one day's public log."""
    lines = [f"Day {log['day']} - Leader {log['leader']}, order {' '.join(log['order'])}"]
    for player, (location, action) in log["choices"].items():
        lines.append(f"  {player}: {action} at the {location}")
    for category, source, target, reason in log["moves"]:
        if reason in ("supper", "eliminated"):
            continue  # summarised below
        lines.append(f"    {reason}: {category} {source} -> {target}")
    lines.append(f"  Event: {log['event']}")
    for player, paid in log["supper"].items():
        lines.append(f"  Supper {player}: " + " + ".join(f"{c} {v}" for c, v in paid))
    if log["eliminated"]:
        lines.append(f"  Eliminated: {', '.join(log['eliminated'])}")
    end = log["end"]
    if end:
        ranking = ", ".join(f"{p} {tuple(k)}" for p, k in end["ranking"].items())
        lines.append(f"  The show ends ({end['condition']}). Ranking (sets, units, food): "
                     f"{ranking}. Winner(s): {', '.join(end['winners'])}")
    return "\n".join(lines)
