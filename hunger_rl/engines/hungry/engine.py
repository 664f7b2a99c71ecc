"""Rules engine of Hungry: a plain, seedable, serialisable state machine.

No PettingZoo or torch here: tests, wrappers, baselines and search all drive this module.

Encodings (shared with the environment and the batched engine):

- colours in the order red, blue, green, yellow, purple (index 0-4); stars 1-5;
- ``card_type = 5 * colour + (stars - 1)`` (0-24); the deck holds two cards of each type (H1);
- ``action = 2 * card_type + destination`` (0-49), destination 0 = holiday home, 1 = hotel;
- resorts 0-4 are the holiday homes of 1-5 stars, resorts 5-9 the hotels in colour order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

import numpy as np

from hunger_rl.engines.hungry import MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidTypeError,
    InvalidValueError,
    check_choice,
    check_int,
    describe,
)

COLOURS = ("red", "blue", "green", "yellow", "purple")
NUM_COLOURS = 5
NUM_STARS = 5
NUM_CARD_TYPES = NUM_COLOURS * NUM_STARS
COPIES_PER_TYPE = 2
DECK_SIZE = NUM_CARD_TYPES * COPIES_PER_TYPE
NUM_ACTIONS = 2 * NUM_CARD_TYPES
NUM_RESORTS = 10
HOME, HOTEL = 0, 1
REMOVED_CARDS = 2
HAND_SIZE = 8
TOTAL_PLAYS = DECK_SIZE - REMOVED_CARDS
HOTEL_POINTS = 5
SECOND_PLACE_POINTS = 1
TWO_HOMES_BONUS = 5
TIED_SECOND_RULES = ("next", "void")
# Every option of a game but its player count, with its default: player_0 leads (H3), and a tie
# right below first place passes second place on (H6). The env, the batched engine and the
# OpenSpiel game take these as theirs, and whoever reads a game's options falls back on them.
OPTION_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {"first_player": "player_0", "tied_second": "next"})
# The first_player value that draws the first player at random instead of naming one.
RANDOM_FIRST_PLAYER = "random"

FULL_DECK = tuple(t for t in range(NUM_CARD_TYPES) for _ in range(COPIES_PER_TYPE))


def card_type(colour: int, stars: int) -> int:
    """Card type index of a card of colour index ``colour`` (0-4) and ``stars`` (1-5)."""
    if not (0 <= colour < NUM_COLOURS and 1 <= stars <= NUM_STARS):
        raise ValueError(f"no card of colour {colour} and {stars} stars")
    return NUM_STARS * colour + stars - 1


def card_colour(card: int) -> int:
    return card // NUM_STARS


def card_stars(card: int) -> int:
    return card % NUM_STARS + 1


def card_name(card: int) -> str:
    return f"{COLOURS[card_colour(card)]}-{card_stars(card)}"


def encode_action(card: int, destination: int) -> int:
    """Action that plays a card of type ``card`` to ``destination`` (HOME or HOTEL)."""
    if not 0 <= card < NUM_CARD_TYPES or destination not in (HOME, HOTEL):
        raise ValueError(f"no action plays card type {card} to destination {destination}")
    return 2 * card + destination


def decode_action(action: int) -> tuple[int, int]:
    """``(card_type, destination)`` of an action."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
    return action // 2, action % 2


def action_resort(action: int) -> int:
    """Resort (0-4 homes by stars, 5-9 hotels by colour) that an action places a tourist at."""
    card, destination = action // 2, action % 2
    if destination == HOME:
        return card % NUM_STARS
    return NUM_STARS + card // NUM_STARS


def resort_name(resort: int) -> str:
    if resort < NUM_STARS:
        return f"home {resort + 1}*"
    return f"{COLOURS[resort - NUM_STARS]} hotel"


def describe_action(action: int) -> str:
    card, _ = decode_action(action)
    return f"{card_name(card)} -> {resort_name(action_resort(action))}"


# ACTION_RESORT[a] without a Python call per use: the hot paths index it.
ACTION_RESORT = tuple(action_resort(a) for a in range(NUM_ACTIONS))


Places = tuple[int | None, int | None]


def resort_places(counts: Sequence[int],
                  tied_second: str = OPTION_DEFAULTS["tied_second"]) -> Places:
    """First and second place at one resort from each player's tourist count there (H6).

    Players with no tourist never place. Distinct counts are walked from high to low; a count
    held by several players is skipped (those players score nothing). With
    ``tied_second="void"`` a tie on the count right below first place voids second place.
    """
    if not isinstance(counts, list):
        counts = list(counts)
    first = second = None
    for count in sorted(set(counts), reverse=True):
        if count == 0:
            break
        if counts.count(count) == 1:
            if first is None:
                first = counts.index(count)
                continue
            second = counts.index(count)
            break
        if first is not None and tied_second == "void":
            break
    return first, second


# A resort holds at most 10 tourists, so few count tuples ever occur: the hot path memoises.
_memoised_resort_places = cache(resort_places)


@dataclass(frozen=True)
class PlayerScore:
    """One player's score: the tiles, tokens and bonus that make up its total (H7, H8)."""

    home_tiles: tuple[int, ...]  # star ratings of the holiday homes won
    hotel_tiles: tuple[int, ...]  # colour indices of the hotels won
    second_places: int
    bonus: int
    total: int

    def as_dict(self) -> dict:
        return {
            "home_tiles": list(self.home_tiles),
            "hotel_tiles": [COLOURS[c] for c in self.hotel_tiles],
            "second_places": self.second_places,
            "bonus": self.bonus,
            "total": self.total,
        }


@dataclass(frozen=True)
class Score:
    """Scores of every player and the winners (a shared draw lists several)."""

    players: tuple[PlayerScore, ...]
    winners: tuple[int, ...]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(p.total for p in self.players)


def score_resorts(resort_counts: Sequence[Sequence[int]],
                  tied_second: str = OPTION_DEFAULTS["tied_second"]) -> Score:
    """Score a game from ``resort_counts[player][resort]`` (H6-H9)."""
    places = [
        resort_places([c[resort] for c in resort_counts], tied_second)
        for resort in range(NUM_RESORTS)
    ]
    return _score_from_places(len(resort_counts), places)


def _score_from_places(num_players: int, places: Sequence[Places]) -> Score:
    """Tiles, tokens, the two-home bonus and the winners from each resort's places (H7-H9)."""
    homes: list[list[int]] = [[] for _ in range(num_players)]
    hotels: list[list[int]] = [[] for _ in range(num_players)]
    seconds = [0] * num_players
    bonus = [0] * num_players
    bonus_given = False
    # Homes in order 1 to 5 stars: the bonus goes to the first player to hold two (H8).
    for resort, (first, second) in enumerate(places):
        if second is not None:
            seconds[second] += 1
        if first is None:
            continue
        if resort < NUM_STARS:
            homes[first].append(resort + 1)
            if not bonus_given and len(homes[first]) == 2:
                bonus[first] = TWO_HOMES_BONUS
                bonus_given = True
        else:
            hotels[first].append(resort - NUM_STARS)
    players = tuple(
        PlayerScore(
            home_tiles=tuple(homes[p]),
            hotel_tiles=tuple(hotels[p]),
            second_places=seconds[p],
            bonus=bonus[p],
            total=sum(homes[p]) + HOTEL_POINTS * len(hotels[p]) + seconds[p] + bonus[p],
        )
        for p in range(num_players)
    )
    return Score(players=players, winners=_winners(players))


def _winners(players: Sequence[PlayerScore]) -> tuple[int, ...]:
    """Highest total; among tied players the lowest-star home tile wins, else a draw (H9)."""
    best = max(p.total for p in players)
    tied = [i for i, p in enumerate(players) if p.total == best]
    if len(tied) == 1:
        return (tied[0],)
    holding = [(min(players[i].home_tiles), i) for i in tied if players[i].home_tiles]
    if not holding:
        return tuple(tied)
    # Each home tile has one owner, so the lowest one among tied holders is unique.
    return (min(holding)[1],)


def totals_from_places(num_players: int, places: Sequence[Places]) -> list[int]:
    """Each player's total from the resorts' places: the fast path of :func:`_score_from_places`."""
    totals = [0] * num_players
    homes_held = [0] * num_players
    bonus_given = False
    for resort, (first, second) in enumerate(places):
        if second is not None:
            totals[second] += SECOND_PLACE_POINTS
        if first is None:
            continue
        if resort < NUM_STARS:
            totals[first] += resort + 1
            homes_held[first] += 1
            if not bonus_given and homes_held[first] == 2:
                totals[first] += TWO_HOMES_BONUS
                bonus_given = True
        else:
            totals[first] += HOTEL_POINTS
    return totals


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Where each part of :attr:`HungryState.table` starts, for one player count.

    Rows are by absolute seat: ``hands`` (N rows of 25 card types), ``placed`` (N rows of 50
    actions), ``hand_sizes`` (N), ``deck_size`` (1), ``unseen`` (N rows of 25: the copies of each
    card type that seat has not seen), ``scores`` (N: each total if the game ended now) and
    ``to_move`` (N: 1 at the seat to move, all 0 once the game is over); ``size`` is the total.
    ``others_unseen[p][t]`` lists the positions of every other seat's unseen count of type ``t``,
    which drop when ``p`` plays a card of that type.
    """

    hands: int
    placed: int
    hand_sizes: int
    deck_size: int
    unseen: int
    scores: int
    to_move: int
    size: int
    others_unseen: tuple[tuple[tuple[int, ...], ...], ...]


@cache
def table_layout(num_players: int) -> TableLayout:
    """The :class:`TableLayout` for ``num_players`` players."""
    sizes = (
        num_players * NUM_CARD_TYPES,
        num_players * NUM_ACTIONS,
        num_players,
        1,
        num_players * NUM_CARD_TYPES,
        num_players,
        num_players,
    )
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    hands, placed, hand_sizes, deck_size, unseen, scores, to_move, total = starts
    others_unseen = tuple(
        tuple(
            tuple(
                unseen + NUM_CARD_TYPES * seat + card
                for seat in range(num_players)
                if seat != player
            )
            for card in range(NUM_CARD_TYPES)
        )
        for player in range(num_players)
    )
    return TableLayout(
        hands, placed, hand_sizes, deck_size, unseen, scores, to_move, total, others_unseen
    )


FULL_DECK_ARRAY = np.array(FULL_DECK)
# Card i of the deal goes to seat i // HAND_SIZE: its row in a flat (seat, card type) count.
DEAL_ROWS = np.arange(MAX_PLAYERS * HAND_SIZE) // HAND_SIZE * NUM_CARD_TYPES


class HungryState:
    """The full state of one game of Hungry.

    ``hands[p, t]`` counts player ``p``'s cards of type ``t``; ``placed[p, a]`` counts the
    tourists ``p`` placed by action ``a`` (so card type and destination); ``deck`` is the draw
    pile, top first; ``history`` the actions played so far. The rest is derived and kept up to
    date for speed: ``hand_sizes``, ``unseen[p, t]`` (copies of type ``t`` that ``p`` has not
    seen), ``scores`` (each total if the game ended now), ``to_move`` (1 at the seat to move),
    ``held_masks`` (per player, 1 for both actions of every card type in hand),
    ``resort_tourists[r][p]`` (tourists of ``p`` at resort ``r``) and ``places`` (each resort's
    first and second place).

    Every count an observation reads lives in one flat int64 array, ``table`` (arranged as
    ``layout`` says; ``hands``, ``placed``, ``hand_sizes``, ``unseen``, ``scores`` and ``to_move``
    are views of it), so that an observation is a single gather.
    """

    __slots__ = (
        "num_players",
        "tied_second",
        "removed",
        "deck",
        "current_player",
        "history",
        "layout",
        "table",
        "hands",
        "placed",
        "hand_sizes",
        "unseen",
        "scores",
        "to_move",
        "held_masks",
        "resort_tourists",
        "places",
    )

    def __init__(
        self,
        num_players: int,
        removed: list[int],
        deck: list[int],
        hands: np.ndarray,
        placed: np.ndarray,
        current_player: int,
        history: list[int],
        tied_second: str = OPTION_DEFAULTS["tied_second"],
    ):
        self.num_players = num_players
        self.tied_second = tied_second
        self.removed = removed
        self.deck = deck
        self.current_player = current_player
        self.history = history
        self.layout = table_layout(num_players)
        self.table = np.zeros(self.layout.size, dtype=np.int64)
        self._bind_table_views()
        self.hands[:] = hands
        self.placed[:] = placed
        self.hand_sizes[:] = self.hands.sum(axis=1)
        self.table[self.layout.deck_size] = len(deck)
        np.subtract(COPIES_PER_TYPE - self.played, self.hands, out=self.unseen)
        if not self.is_over:
            self.to_move[current_player] = 1
        self.held_masks = (self.hands > 0).astype(np.int8).repeat(2, axis=1)
        self.resort_tourists = [[0] * num_players for _ in range(NUM_RESORTS)]
        placed_counts = self.placed.ravel()
        for position in placed_counts.nonzero()[0].tolist():
            player, action = divmod(position, NUM_ACTIONS)
            self.resort_tourists[ACTION_RESORT[action]][player] += placed_counts.item(position)
        self.places = [self._resort_places(r) for r in range(NUM_RESORTS)]
        self._update_scores()

    def _bind_table_views(self) -> None:
        at, table, n = self.layout, self.table, self.num_players
        self.hands = table[at.hands : at.placed].reshape(n, NUM_CARD_TYPES)
        self.placed = table[at.placed : at.hand_sizes].reshape(n, NUM_ACTIONS)
        self.hand_sizes = table[at.hand_sizes : at.deck_size]
        self.unseen = table[at.unseen : at.scores].reshape(n, NUM_CARD_TYPES)
        self.scores = table[at.scores : at.to_move]
        self.to_move = table[at.to_move : at.size]

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def new_game(
        cls,
        num_players: int,
        rng: np.random.Generator | None = None,
        deck: Sequence[int] | None = None,
        first_player: int = 0,
        tied_second: str = OPTION_DEFAULTS["tied_second"],
    ) -> HungryState:
        """Shuffle (or take ``deck``, 50 card types top first), remove 2, deal 8 each (H2)."""
        num_players = check_num_players(num_players)
        check_choice(tied_second, "tied_second", TIED_SECOND_RULES)
        first_player = check_int(first_player, "first_player", 0, num_players - 1)
        if deck is None:
            rng = rng if rng is not None else np.random.default_rng()
            shuffled = rng.permutation(FULL_DECK_ARRAY)
        else:
            shuffled = np.array(validate_deck(deck))
        order = shuffled.tolist()
        dealt_end = REMOVED_CARDS + num_players * HAND_SIZE
        hands = np.bincount(
            DEAL_ROWS[: dealt_end - REMOVED_CARDS] + shuffled[REMOVED_CARDS:dealt_end],
            minlength=num_players * NUM_CARD_TYPES,
        )
        return cls(
            num_players=num_players,
            removed=order[:REMOVED_CARDS],
            deck=order[dealt_end:],
            hands=hands.reshape(num_players, NUM_CARD_TYPES),
            placed=np.zeros((num_players, NUM_ACTIONS), dtype=np.int64),
            current_player=first_player,
            history=[],
            tied_second=tied_second,
        )

    def clone(self) -> HungryState:
        other = HungryState.__new__(HungryState)
        other.num_players = self.num_players
        other.tied_second = self.tied_second
        other.removed = list(self.removed)
        other.deck = list(self.deck)
        other.current_player = self.current_player
        other.history = list(self.history)
        other.layout = self.layout
        other.table = self.table.copy()
        other._bind_table_views()
        other.held_masks = self.held_masks.copy()
        other.resort_tourists = [list(r) for r in self.resort_tourists]
        other.places = list(self.places)
        return other

    # ``copy.deepcopy`` and pickle would copy ``table`` and its views apart; both go through
    # :meth:`clone` and :meth:`to_dict` instead (OpenSpiel clones and serialises states so).
    def __deepcopy__(self, memo: dict) -> HungryState:
        return self.clone()

    def __reduce__(self):
        return HungryState.from_dict, (self.to_dict(),)

    def to_dict(self) -> dict:
        """A JSON-serialisable snapshot; :meth:`from_dict` restores it exactly."""
        return {
            "num_players": self.num_players,
            "tied_second": self.tied_second,
            "removed": list(self.removed),
            "deck": list(self.deck),
            "hands": self.hands.tolist(),
            "placed": self.placed.tolist(),
            "current_player": self.current_player,
            "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, data: dict) -> HungryState:
        """Rebuild a state from :meth:`to_dict` output, checking that it is a consistent game."""
        try:
            num_players = int(data["num_players"])
            check_num_players(num_players)
            hands = np.array(data["hands"], dtype=np.int64)
            placed = np.array(data["placed"], dtype=np.int64)
            removed = [int(c) for c in data["removed"]]
            deck = [int(c) for c in data["deck"]]
            history = [int(a) for a in data["history"]]
            current_player = int(data["current_player"])
            tied_second = str(data.get("tied_second", OPTION_DEFAULTS["tied_second"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a Hungry state: {error!r}") from error
        if hands.shape != (num_players, NUM_CARD_TYPES) or placed.shape != (
            num_players,
            NUM_ACTIONS,
        ):
            raise ValueError(
                f"hands must be {num_players}x{NUM_CARD_TYPES} and placed "
                f"{num_players}x{NUM_ACTIONS}, got {hands.shape} and {placed.shape}"
            )
        if any(not 0 <= c < NUM_CARD_TYPES for c in removed + deck):
            raise ValueError(f"card types must lie in 0..{NUM_CARD_TYPES - 1}")
        counts = np.bincount(removed + deck, minlength=NUM_CARD_TYPES) + hands.sum(axis=0)
        counts += placed.reshape(num_players, NUM_CARD_TYPES, 2).sum(axis=(0, 2))
        if (counts != COPIES_PER_TYPE).any() or (hands < 0).any() or (placed < 0).any():
            raise ValueError("the state does not hold each card type exactly twice")
        if len(removed) != REMOVED_CARDS or not 0 <= current_player < num_players:
            raise ValueError("bad removed cards or current player")
        if len(history) != placed.sum():
            raise ValueError("history length does not match the placed cards")
        if tied_second not in TIED_SECOND_RULES:
            raise ValueError(f"tied_second must be one of {TIED_SECOND_RULES}")
        return cls(num_players, removed, deck, hands, placed, current_player, history, tied_second)

    # -- queries ------------------------------------------------------------------------------

    @property
    def num_plays(self) -> int:
        return len(self.history)

    @property
    def is_over(self) -> bool:
        return len(self.history) == TOTAL_PLAYS

    @property
    def played(self) -> np.ndarray:
        """Cards placed so far per card type, all players."""
        by_action = self.placed.sum(axis=0)
        # Actions alternate destinations: a card type's two actions are adjacent.
        return by_action[HOME::2] + by_action[HOTEL::2]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Actions ``player`` (default: the player to move) may take; none when not its turn."""
        return np.flatnonzero(self.legal_mask(player)).tolist()

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        """Legal actions of ``player`` as a 0/1 int8 vector of length 50."""
        player = self.current_player if player is None else player
        if player == self.current_player and not self.is_over:
            return self.held_masks[player].copy()
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def score(self) -> Score:
        """The score as if the game ended now (the final score once it is over)."""
        return _score_from_places(self.num_players, self.places)

    def totals(self) -> list[int]:
        """Each player's total as if the game ended now."""
        return self.scores.tolist()

    def _resort_places(self, resort: int) -> Places:
        return _memoised_resort_places(tuple(self.resort_tourists[resort]), self.tied_second)

    def _update_scores(self) -> None:
        totals = totals_from_places(self.num_players, self.places)
        table = self.table
        # Element by element: cheaper than a slice assignment for a handful of Python ints.
        for position, total in enumerate(totals, self.layout.scores):
            table[position] = total

    def unseen_counts(self, player: int) -> np.ndarray:
        """Per card type, the copies ``player`` has not seen (other hands, deck, removed)."""
        return self.unseen[player].copy()

    # -- transitions --------------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """The current player plays ``action``, then draws if the deck is not empty (H4)."""
        history = self.history
        if len(history) == TOTAL_PLAYS:
            raise IllegalActionError("the game is over; no more actions can be played")
        player = self.current_player
        # Hot path: flat table positions and Python ints, not numpy scalar arithmetic.
        table, at, held = self.table, self.layout, self.held_masks
        hand_at = at.hands + NUM_CARD_TYPES * player
        card = action // 2
        copies = table.item(hand_at + card) if 0 <= action < NUM_ACTIONS else 0
        if not copies:
            what = f"({describe_action(action)}) " if 0 <= action < NUM_ACTIONS else ""
            raise IllegalActionError(
                f"player {player} cannot play action {action} {what}without such a card in "
                f"hand; legal actions: {self.legal_actions()}"
            )
        table[hand_at + card] = copies - 1
        if copies == 1:
            held[player, 2 * card] = held[player, 2 * card + 1] = 0
        placed_at = at.placed + NUM_ACTIONS * player + action
        table[placed_at] = table.item(placed_at) + 1
        # The card is now seen by everybody; its player had already seen it.
        for unseen_at in at.others_unseen[player][card]:
            table[unseen_at] = table.item(unseen_at) - 1
        resort = ACTION_RESORT[action]
        self.resort_tourists[resort][player] += 1
        places = self._resort_places(resort)
        if places != self.places[resort]:
            self.places[resort] = places
            self._update_scores()
        if self.deck:
            drawn = self.deck.pop(0)
            table[hand_at + drawn] = table.item(hand_at + drawn) + 1
            unseen_at = at.unseen + NUM_CARD_TYPES * player + drawn
            table[unseen_at] = table.item(unseen_at) - 1
            held[player, 2 * drawn] = held[player, 2 * drawn + 1] = 1
            table[at.deck_size] = len(self.deck)
        else:
            table[at.hand_sizes + player] = table.item(at.hand_sizes + player) - 1
        history.append(action)
        table[at.to_move + player] = 0
        self.current_player = player = (player + 1) % self.num_players
        if len(history) < TOTAL_PLAYS:
            table[at.to_move + player] = 1


def check_num_players(num_players: int) -> int:
    """``num_players`` as an ``int`` (NumPy integers accepted) if it is 2 to 4 (H2)."""
    num_players = check_int(num_players, "num_players")
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise InvalidValueError(
            f"Hungry is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got num_players={num_players}"
        )
    return num_players


def validate_deck(deck: Sequence[int], path: str = "deck") -> list[int]:
    """Check that ``deck`` is an order of exactly the 50 cards (two of each type); errors name
    it by ``path``."""
    if isinstance(deck, np.ndarray) and deck.ndim == 1:
        deck = deck.tolist()
    if not isinstance(deck, list | tuple):
        raise InvalidTypeError(f"{path}: expected a list of card types, got {describe(deck)}")
    not_ints = [c for c in deck if isinstance(c, bool) or not isinstance(c, int | np.integer)]
    if not_ints:
        raise InvalidTypeError(
            f"{path}: entries must be integer card types 0..24, got {describe(not_ints[:5])}"
        )
    order = [int(c) for c in deck]
    if len(order) != DECK_SIZE:
        raise InvalidValueError(f"{path} must hold exactly {DECK_SIZE} cards, got {len(order)}")
    bad = sorted({c for c in order if not 0 <= c < NUM_CARD_TYPES})
    if bad:
        raise InvalidValueError(
            f"{path} holds card types outside 0..{NUM_CARD_TYPES - 1}: {bad[:5]}"
        )
    counts = np.bincount(order, minlength=NUM_CARD_TYPES)
    wrong = {card_name(c): int(n) for c, n in enumerate(counts) if n != COPIES_PER_TYPE}
    if wrong:
        raise InvalidValueError(
            f"{path} must hold each card type exactly {COPIES_PER_TYPE} times; "
            f"wrong counts: {wrong}"
        )
    return order
