"""Rules engine of HUNGER: The Show (rulings S1-S20). Plain Python, no RL library imports.

A ``ShowGame`` holds every token of the game in exactly one place: a pile at a location, the
coconut stack, a player's holding, or ``out`` (the box: unused at setup, eaten, removed by events
or by elimination). ``play_day`` resolves one day from every living player's (location, action)
pick; every other choice goes through the players' decision objects (S19).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from hunger_rl.envs.hunger_show.decisions import DefaultDecisions
from hunger_rl.envs.hunger_show.tokens import (
    ACTION_NAMES,
    BEACH,
    CAMPSITE,
    CAN,
    CATEGORY_NAMES,
    CHARACTERS,
    COCONUT,
    DRAW_SPECIALISTS,
    END,
    EVENT_CARD_NAMES,
    EVENT_PRESETS,
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
    parse_card,
    parse_token_spec,
    token_spec,
    token_table,
)

SETUP_KEYS = ("leader", "piles", "coconuts", "event_deck", "characters", "holdings")
DECISION_METHODS = ("take", "campsite_theft", "pick_thief", "pick_guard", "gift", "supper",
                    "reject", "ninja_hide")
PLAYER_LABELS = tuple(f"player_{seat}" for seat in range(6))
PILE_LABELS = tuple(
    tuple(f"{LOCATION_NAMES[loc]}:{CATEGORY_NAMES[kind]}" for kind in range(3))
    for loc in range(4)
)
STACK_LABEL, OUT_LABEL = "coconuts", "out"


class RuleError(ValueError):
    """A choice or an option that the rules do not allow."""


def num_locations(num_players: int) -> int:
    """Locations in play (S1): Campsite and Beach, Jungle with 3+, Mountains with 5+."""
    return 2 + (num_players >= 3) + (num_players >= 5)


@dataclass(frozen=True)
class ShowConfig:
    """Options of a game (S1, S4, S20). ``unpleasant=None`` takes the preset's count."""

    num_players: int
    events: str = "standard"
    deck_size: int = 10
    unpleasant: int | None = None
    end_window: int = 4
    characters: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not 2 <= self.num_players <= 6:
            raise RuleError(f"num_players must be 2 to 6 (S1), got {self.num_players!r}")
        if self.events not in EVENT_PRESETS:
            raise RuleError(f"events must be one of {sorted(EVENT_PRESETS)}, got {self.events!r}")
        if self.unpleasant is None:
            object.__setattr__(self, "unpleasant", EVENT_PRESETS[self.events])
        if not 0 <= self.unpleasant <= len(UNPLEASANT_CARDS):
            raise RuleError(f"unpleasant must be 0 to {len(UNPLEASANT_CARDS)} (S4), "
                            f"got {self.unpleasant}")
        if self.deck_size < self.unpleasant or self.deck_size - self.unpleasant > NUM_CALM_CARDS:
            raise RuleError(
                f"a deck of {self.deck_size} cards with {self.unpleasant} unpleasant ones needs "
                f"{self.deck_size - self.unpleasant} Calm day cards; there are 0 to "
                f"{NUM_CALM_CARDS} (S4)")
        if self.end_window < 1:
            raise RuleError(f"end_window must be at least 1 (S4), got {self.end_window}")

    @property
    def num_locations(self) -> int:
        return num_locations(self.num_players)


def _seat(key: Any, num_players: int, what: str) -> int:
    """A seat from an int or a ``player_i`` name, for setup options and decision maps."""
    if isinstance(key, str) and key.startswith("player_") and key[7:].isdigit():
        key = int(key[7:])
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < num_players:
        return key
    raise RuleError(f"{what}: {key!r} is not a player of this {num_players}-player game")


def resolve_decisions(decisions: Any, num_players: int) -> list:
    """Per-seat decision objects from None, a sequence, or a map of seat / agent name."""
    if decisions is None:
        return [DefaultDecisions()] * num_players
    if isinstance(decisions, Mapping):
        seated = [DefaultDecisions()] * num_players
        for key, obj in decisions.items():
            seated[_seat(key, num_players, "decisions")] = obj
    else:
        seated = list(decisions)
        if len(seated) != num_players:
            raise RuleError(f"decisions: expected {num_players} objects, got {len(seated)}")
    for seat, obj in enumerate(seated):
        missing = [m for m in DECISION_METHODS if not callable(getattr(obj, m, None))]
        if missing:
            raise RuleError(f"decisions for player_{seat} lack {missing}; subclass "
                            "DefaultDecisions to override only some choices")
    return seated


@lru_cache(maxsize=8)
def supply_pools(num_players: int) -> tuple[dict[tuple[int, int, int], tuple[int, ...]],
                                            dict[tuple[int, int], tuple[int, ...]]]:
    """Token ids by type: shared tokens by (category, raft kind, value), cans by (seat, value)."""
    categories, values, kinds, colours = token_table(num_players)
    shared: dict[tuple[int, int, int], list[int]] = {}
    cans: dict[tuple[int, int], list[int]] = {
        (seat, v): [] for seat in range(num_players) for v in range(1, 5)}
    for token, category in enumerate(categories):
        if category == CAN:
            cans[(colours[token], values[token])].append(token)
        else:
            shared.setdefault((category, kinds[token], values[token]), []).append(token)
    return ({k: tuple(v) for k, v in shared.items()}, {k: tuple(v) for k, v in cans.items()})


def _is_pick(choice: Any, num_locs: int) -> bool:
    """Whether ``choice`` is a pair of whole numbers naming a location in play and an action."""
    try:
        location, action = choice
        return (location == int(location) and action == int(action)
                and 0 <= location < num_locs and 0 <= action < NUM_ACTIONS)
    except (TypeError, ValueError):
        return False


class ShowGame:
    """State and rules of one game. Seats 0..N-1; "left" of seat s is seat s+1 (mod N)."""

    def __init__(self, config: ShowConfig, seed: int | None = None,
                 setup: Mapping[str, Any] | None = None, decisions: Any = None) -> None:
        self.config = config
        self.num_players = n = config.num_players
        self.category, self.value, self.raft_kind, self.colour = token_table(n)
        self.decisions = resolve_decisions(decisions, n)
        self.rng = random.Random(seed)
        setup = dict(setup or {})
        self.known = [0] * len(self.category)
        self.alive = [True] * n
        self.day = 0
        self.done = False
        self.end_condition: str | None = None
        self.winners: list[int] = []
        self.final_keys: dict[int, tuple[int, int, int]] = {}
        self.last_choices: list[tuple[int, int] | None] = [None] * n
        self.leader = (_seat(setup["leader"], n, "leader") if "leader" in setup
                       else self.rng.randrange(n))
        self.characters = self._deal_characters(setup.get("characters"))
        self._deal_tokens(setup)
        self.deck = self._build_deck(setup.get("event_deck"))
        self._moves: list[tuple[str, str, str, str]] = []

    # ----------------------------------------------------------------- setup
    def _deal_characters(self, chosen: Any) -> list[str | None]:
        n = self.num_players
        if not self.config.characters:
            if chosen is not None:
                raise RuleError("characters given in reset options but the characters variant "
                                "is off; pass characters=True")
            return [None] * n
        if chosen is None:
            return list(self.rng.sample(CHARACTERS, n))
        pairs = chosen.items() if isinstance(chosen, Mapping) else enumerate(chosen)
        dealt: list[str | None] = [None] * n
        for key, name in pairs:
            if name not in CHARACTERS:
                raise RuleError(f"characters: unknown character {name!r}; choose from "
                                f"{list(CHARACTERS)}")
            dealt[_seat(key, n, "characters")] = name
        if None in dealt or len(set(dealt)) != n:
            raise RuleError(f"characters: give each of the {n} players a different character")
        return dealt

    def _deal_tokens(self, setup: Mapping[str, Any]) -> None:
        n, locs = self.num_players, self.config.num_locations
        shared_supply, can_supply = supply_pools(n)
        available = {key: list(ids) for key, ids in shared_supply.items()}
        cans = {key: list(ids) for key, ids in can_supply.items()}

        def take(spec: Any, where: str, seat: int | None = None,
                 category: int | None = None) -> int:
            if isinstance(spec, int) and not isinstance(spec, bool) and category is not None:
                spec = f"{CATEGORY_NAMES[category]}{spec}"
            parsed = parse_token_spec(spec)
            if category is not None and parsed[0] != category:
                raise RuleError(f"{where}: {spec!r} does not belong there")
            if parsed[0] == CAN:
                if seat is None:
                    raise RuleError(f"{where}: cans start only in their owner's holding")
                pool = cans[(seat, parsed[2])]
            else:
                pool = available[parsed]
            if not pool:
                raise RuleError(f"{where}: no {spec} token left in the supply (S2, S3)")
            return pool.pop(0)

        holdings_given = setup.get("holdings") or {}
        self.holdings: list[list[int]] = [[] for _ in range(n)]
        given_seats = {_seat(k, n, "holdings"): v for k, v in holdings_given.items()}
        for seat in range(n):
            if seat in given_seats:
                self.holdings[seat] = [take(s, f"holdings of player_{seat}", seat)
                                       for s in given_seats[seat]]
            else:
                self.holdings[seat] = [t for v in range(1, 5) for t in cans[(seat, v)]]
                for v in range(1, 5):
                    cans[(seat, v)] = []
        for seat, holding in enumerate(self.holdings):
            for token in holding:
                self.known[token] |= 1 << seat

        given_piles: dict[tuple[int, int], list[int]] = {}
        for loc_name, kinds in (setup.get("piles") or {}).items():
            if loc_name not in LOCATION_NAMES[1:locs]:
                raise RuleError(f"piles: {loc_name!r} is not a location with piles in a "
                                f"{n}-player game; use {list(LOCATION_NAMES[1:locs])}")
            loc = LOCATION_NAMES.index(loc_name)
            for kind_name, specs in kinds.items():
                if kind_name not in CATEGORY_NAMES[:3]:
                    raise RuleError(f"piles: {kind_name!r} is not a pile kind; use fruit, "
                                    "chicken or raft")
                kind = CATEGORY_NAMES.index(kind_name)
                if len(specs) > PILE_SIZES[kind]:
                    raise RuleError(f"piles: {loc_name} {kind_name} holds at most "
                                    f"{PILE_SIZES[kind]} tokens (S2)")
                given_piles[(loc, kind)] = [
                    take(s, f"piles {loc_name} {kind_name}", category=kind) for s in specs]
        given_coconuts = [take(s, "coconuts", category=COCONUT)
                          for s in (setup.get("coconuts") or [])]

        # Piles and stacks keep their top at the end of the list.
        self.piles: list[list[list[int]]] = [[[], [], []] for _ in range(4)]
        for kind in range(3):
            pool = [t for key, ts in available.items() if key[0] == kind for t in ts]
            pool.sort()
            self.rng.shuffle(pool)
            for loc in range(1, locs):
                top = given_piles.get((loc, kind), [])
                need = PILE_SIZES[kind] - len(top)
                if need > len(pool):
                    raise RuleError(f"not enough {CATEGORY_NAMES[kind]} tokens left to fill "
                                    "the piles after the reset options")
                self.piles[loc][kind] = pool[:need] + top[::-1]
                pool = pool[need:]
        rest = sorted(t for key, ts in available.items() if key[0] == COCONUT for t in ts)
        self.rng.shuffle(rest)
        self.coconuts = rest + given_coconuts[::-1]
        placed = {t for h in self.holdings for t in h} | set(self.coconuts)
        placed |= {t for loc in self.piles for pile in loc for t in pile}
        self.out = [t for t in range(len(self.category)) if t not in placed]

    def _build_deck(self, given: Sequence[str] | None) -> list[str]:
        """The event deck, top at the end of the list (S4)."""
        if given is not None:
            for card in given:
                if card not in EVENT_CARD_NAMES:
                    raise RuleError(f"event_deck: unknown card {card!r}; cards are "
                                    f"{list(EVENT_CARD_NAMES)}")
            limits = {c: UNPLEASANT_CARDS.count(c) for c in UNPLEASANT_CARDS}
            limits.update({"calm": NUM_CALM_CARDS, END: 1})
            for card, limit in limits.items():
                if list(given).count(card) > limit:
                    raise RuleError(f"event_deck: at most {limit} {card!r} card(s) exist (S4)")
            return list(given)[::-1]
        config = self.config
        cards = self.rng.sample(UNPLEASANT_CARDS, config.unpleasant)
        cards += ["calm"] * (config.deck_size - config.unpleasant)
        self.rng.shuffle(cards)
        window = min(config.end_window, config.deck_size + 1)
        cards.insert(config.deck_size + 1 - window + self.rng.randrange(window), END)
        return cards[::-1]

    # ----------------------------------------------------------------- queries
    def knows(self, player: int, token: int) -> bool:
        """Whether ``player`` remembers the value of ``token`` (S18)."""
        return bool(self.known[token] >> player & 1)

    def living(self) -> list[int]:
        return [p for p in range(self.num_players) if self.alive[p]]

    def playing_order(self) -> list[int]:
        """The Leader, then to the left, living players only (S5)."""
        n = self.num_players
        return [s for s in ((self.leader + i) % n for i in range(n)) if self.alive[s]]

    def order_position(self) -> dict[int, int]:
        return {p: i for i, p in enumerate(self.playing_order())}

    def count_category(self, player: int, category: int) -> int:
        return sum(1 for t in self.holdings[player] if self.category[t] == category)

    def food_value(self, tokens: Sequence[int]) -> int:
        category, value = self.category, self.value
        return sum([value[t] for t in tokens if category[t] != RAFT])

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

    def _discard(self, token: int, player: int, reason: str) -> None:
        self.holdings[player].remove(token)
        self.out.append(token)
        self._log(token, PLAYER_LABELS[player], OUT_LABEL, reason)

    def _draw_coconuts(self, players: Sequence[int], each: int) -> None:
        """Coconut draws in playing order; a short stack gives what is left (S13, S20)."""
        for p in players:
            count = each + (self.characters[p] == "coconut_connoisseur")
            for _ in range(min(count, len(self.coconuts))):
                token = self.coconuts.pop()
                self.holdings[p].append(token)
                self.known[token] |= 1 << p
                self._log(token, STACK_LABEL, PLAYER_LABELS[p], "coconut")

    def _gather(self, loc: int, kind: int, player: int, quota: int) -> list[int]:
        """Draw up to ``quota`` tokens from a pile (S9); specialists draw one more (S20)."""
        pile = self.piles[loc][kind]
        label = PILE_LABELS[loc][kind]
        extra = DRAW_SPECIALISTS.get(self.characters[player]) == kind
        drawn = [pile.pop() for _ in range(min(quota + extra, len(pile)))]
        bit = 1 << player
        for token in drawn:
            self.known[token] |= bit
            self._log(token, label, PLAYER_LABELS[player], "gather")
        if len(drawn) > quota:
            rejected, to_bottom = self.decisions[player].reject(self, player, drawn)
            if rejected not in drawn:
                raise RuleError(f"player_{player} rejected a token it did not draw")
            drawn.remove(rejected)
            if to_bottom:
                pile.insert(0, rejected)
            else:
                pile.append(rejected)
            self._log(rejected, PLAYER_LABELS[player], label, "reject")
        self.holdings[player].extend(drawn)
        return drawn

    def _take_one(self, taker: int, candidates: list[int], chooser: Any) -> int:
        token = chooser.take(self, taker, candidates)
        if token not in candidates:
            raise RuleError(f"player_{taker} chose a token that was not on offer")
        return token

    # ----------------------------------------------------------------- resolution
    def _catch(self, guards: list[int], thieves: list[int]) -> None:
        """Guards take from caught thieves (S11); a Ninja hides 2 tokens first (S20)."""
        hidden: set[int] = set()
        for thief in thieves:
            if self.characters[thief] == "ninja":
                chosen = self.decisions[thief].ninja_hide(self, thief)
                if len(chosen) > 2 or not set(chosen) <= set(self.holdings[thief]):
                    raise RuleError(f"player_{thief} (Ninja) may hide at most 2 of its tokens")
                hidden.update(chosen)

        def takeable(thief: int) -> list[int]:
            return [t for t in self.holdings[thief] if t not in hidden]

        if len(guards) == 1:
            guard = guards[0]
            for thief in thieves:
                for _ in range(2 if len(thieves) == 1 else 1):
                    candidates = takeable(thief)
                    if candidates:
                        token = self._take_one(guard, candidates, self.decisions[guard])
                        self._transfer(token, thief, guard, "guard_take")
            return
        for guard in guards:
            thief = thieves[0]
            if len(thieves) == 2:
                offer = {t: takeable(t) for t in thieves}
                thief = self.decisions[guard].pick_thief(self, guard, guards, thieves, offer)
                if thief not in thieves:
                    raise RuleError(f"player_{guard} picked a thief that was not caught")
            candidates = takeable(thief)
            if candidates:
                token = self._take_one(guard, candidates, self.decisions[guard])
                self._transfer(token, thief, guard, "guard_take")

    def _gifts(self, givers: Sequence[int], guards: list[int]) -> None:
        """Each giver hands one of its tokens to a guard (S11, S12); Arnold picks it (S20)."""
        for giver in givers:
            holding = self.holdings[giver]
            if not holding:
                continue  # S13: nothing to give
            guard = guards[0]
            if len(guards) == 2:
                guard = self.decisions[giver].pick_guard(self, giver, guards)
                if guard not in guards:
                    raise RuleError(f"player_{giver} picked a guard that is not there")
            if self.characters[guard] == "arnold":
                token = self._take_one(guard, list(holding), self.decisions[guard])
            else:
                token = self.decisions[giver].gift(self, giver, guard)
                if token not in holding:
                    raise RuleError(f"player_{giver} gave a token it does not hold")
            self._transfer(token, giver, guard, "gift")

    def _resolve_campsite(self, order: list[int], choices: Sequence) -> None:
        thieves = [p for p in order if choices[p] == (CAMPSITE, THIEF)]
        guards = [p for p in order if choices[p] == (CAMPSITE, GUARD)]
        thieves = thieves if len(thieves) <= 2 else []  # S8: 3+ cancel each other
        guards = guards if len(guards) <= 2 else []
        if thieves and guards:
            self._catch(guards, thieves)
            # S12: every living player other than the Campsite thieves and guards gives.
            self._gifts([p for p in order if p not in thieves and p not in guards], guards)
        elif thieves:
            amount = 2 if len(thieves) == 1 else 1
            for thief in thieves:
                self._campsite_theft(thief, amount)
        elif guards:
            # The rulebook's guard without a thief roams for coconuts at any location (S11).
            self._draw_coconuts(guards, 2 if len(guards) == 1 else 1)

    def _campsite_theft(self, thief: int, amount: int) -> None:
        """A free Campsite thief steals from other living players; no coconuts (S12)."""
        owner = {t: p for p in self.living() if p != thief for t in self.holdings[p]}
        stolen = self.decisions[thief].campsite_theft(self, thief, amount)
        if (len(set(stolen)) != len(stolen) or not set(stolen) <= owner.keys()
                or len(stolen) != min(amount, len(owner))):
            raise RuleError(f"player_{thief} must steal {min(amount, len(owner))} token(s) "
                            "held by other living players at the Campsite")
        for token in stolen:
            self._transfer(token, owner[token], thief, "steal")

    def _resolve_location(self, loc: int, order: list[int], choices: Sequence) -> None:
        here = [p for p in order if choices[p][0] == loc]
        if not here:
            return
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
            for token in self._gather(loc, kind, p, quota):
                loot[token] = p
                present.add(p)  # S8: a player who drew nothing counts as absent
        thieves = groups[THIEF] if len(groups[THIEF]) <= 2 else []
        guards = groups[GUARD] if len(groups[GUARD]) <= 2 else []
        if thieves and guards:
            self._catch(guards, thieves)  # S11: the gatherers keep their loot
            self._gifts([p for p in order if p in present], guards)
        elif thieves:
            if not loot:
                self._draw_coconuts(thieves, 2 if len(thieves) == 1 else 1)  # S10
                return
            remaining = [t for p in order for t in self.holdings[p] if t in loot]
            turn = 0
            while remaining:  # S10: one thief takes all, two pick alternately
                thief = thieves[turn % len(thieves)]
                token = (remaining[0] if len(thieves) == 1
                         else self._take_one(thief, remaining, self.decisions[thief]))
                remaining.remove(token)
                self._transfer(token, loot[token], thief, "loot")
                turn += 1
        elif guards:
            self._draw_coconuts(guards, 2 if len(guards) == 1 else 1)  # S11

    def _event(self, order: list[int]) -> str:
        card = self.deck.pop() if self.deck else END  # S14: an empty deck ends the show
        kind, size = parse_card(card)
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
                    token = self._take_one(remover, list(self.holdings[victim]),
                                           self.decisions[remover])
                    self.known[token] |= 1 << remover  # the remover handles the token
                    self._discard(token, victim, "rat_plague")
        return card

    def _supper(self, order: list[int]) -> tuple[dict[str, list[tuple[str, int]]], list[int]]:
        """Every living player eats at least 4, no change (S15); who cannot is eliminated."""
        payments: dict[str, list[tuple[str, int]]] = {}
        starving = []
        everyone = (1 << self.num_players) - 1
        for p in order:
            if self.food_value(self.holdings[p]) < 4:
                starving.append(p)
                continue
            meal = self.decisions[p].supper(self, p)
            holding = self.holdings[p]
            values = [self.value[t] for t in meal]
            total = sum(values)
            if (total < 4 or total - min(values) >= 4 or len(set(meal)) != len(meal)
                    or not all(t in holding and self.category[t] != RAFT for t in meal)):
                raise RuleError(f"player_{p}'s supper must be food tokens it holds worth at "
                                "least 4 with no superfluous token (S15)")
            payments[PLAYER_LABELS[p]] = [(CATEGORY_NAMES[self.category[t]], self.value[t])
                                          for t in meal]
            for token in meal:
                self.known[token] = everyone  # payments are public (S18)
                self._discard(token, p, "supper")
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
        eliminated ones. A bad argument raises RuleError before anything changes.
        """
        if self.done:
            raise RuleError("the show is over; start a new game")
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
        choices = [None if c is None else (int(c[0]), int(c[1])) for c in choices]
        self.day += 1
        self._moves = moves = []
        order = self.playing_order()
        log: dict[str, Any] = {
            "day": self.day,
            "leader": PLAYER_LABELS[self.leader],
            "order": [PLAYER_LABELS[p] for p in order],
            "choices": {PLAYER_LABELS[p]: (LOCATION_NAMES[choices[p][0]],
                                           ACTION_NAMES[choices[p][1]]) for p in order},
            "moves": moves,
            "event": None,
            "supper": {},
            "eliminated": [],
            "end": None,
        }
        self.last_choices = choices
        self._resolve_campsite(order, choices)  # S7: Campsite, then Beach, Jungle, Mountains
        for loc in range(BEACH, locs):
            self._resolve_location(loc, order, choices)
        card = log["event"] = self._event(order)
        if card == END:
            self._finish("A", {p: self.ranking_key(p) for p in order})
        else:
            log["supper"], starving = self._supper(order)
            # Starving players paid nothing: their holdings are still those before supper.
            before = {p: self.ranking_key(p) for p in starving}
            for p in starving:
                self.alive[p] = False
                for token in list(self.holdings[p]):
                    self._discard(token, p, "eliminated")
            log["eliminated"] = [PLAYER_LABELS[p] for p in starving]
            survivors = self.living()
            if not survivors:
                self._finish("B", {p: before[p] for p in starving})
            elif len(survivors) == 1:
                self._finish("C", {survivors[0]: self.ranking_key(survivors[0])})
                self.winners = survivors
            else:
                self.leader = next(s for s in ((self.leader + i) % n for i in range(1, n + 1))
                                   if self.alive[s])
        if self.done:
            log["end"] = {
                "condition": self.end_condition,
                "winners": [PLAYER_LABELS[p] for p in self.winners],
                "ranking": {PLAYER_LABELS[p]: key for p, key in self.final_keys.items()},
            }
        return log

    # ----------------------------------------------------------------- copies
    def clone(self) -> ShowGame:
        """An independent copy sharing only the immutable tables and the decision objects."""
        other = object.__new__(ShowGame)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.known = list(self.known)
        other.alive = list(self.alive)
        other.winners = list(self.winners)
        other.final_keys = dict(self.final_keys)
        other.last_choices = list(self.last_choices)
        other.characters = list(self.characters)
        other.holdings = [list(h) for h in self.holdings]
        other.piles = [[list(p) for p in loc] for loc in self.piles]
        other.coconuts = list(self.coconuts)
        other.out = list(self.out)
        other.deck = list(self.deck)
        other._moves = []
        return other

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot, RNG included, so a restored game continues identically.

        Decision objects are not part of it; pass them again to ``from_dict``.
        """
        version, internal, gauss = self.rng.getstate()
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
        game.decisions = resolve_decisions(decisions, config.num_players)
        version, internal, gauss = data["rng"]
        game.rng = random.Random()
        game.rng.setstate((version, tuple(internal), gauss))
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
