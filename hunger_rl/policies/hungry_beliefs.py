"""Beliefs about the other hands of Hungry, from the plays made since the deck emptied.

Once the deck is empty nobody draws, so the hand a player held at any of its decisions since
then is its hand now plus the cards it has played since. A sampled deal (the other seats' hands
now) therefore fixes each opponent's hand at each of those decisions, and with it how likely
the play it made there was under a model of its choices: here a softmax over the expert's play
values (``policies.hungry_batched.expert_values``, what the expert itself maximises) at a
``temperature`` in the values' units (points). A deal's likelihood is the product of these
over the opponents' deck-empty decisions (:func:`deal_log_likelihoods` computes its logarithm
for a batch of deals), and :func:`posterior_deals` samples deals from the uniform deal weighted
by it, by Metropolis chains that swap cards between the hidden groups (each opponent's hand and
the removed cards). Weighting uniform deals instead (importance sampling) measured no better
than uniform deals: with 26 cards hidden at 4 players, few uniform deals explain the plays, and
the weight falls on one or two of them
(docs/experiments/search_4p.md, "What better beliefs would buy the 4-player search").

The order of the plays is not in the observation (it counts the cards each seat placed), but the
searcher sees the table at each of its moves, and between two of its moves every other seat
plays exactly once, in seat order: :class:`PlayRecord` reads each opponent's play and the table
it was made on from two successive views (its own play in between).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import types
from numba.typed import Dict

from hunger_rl.engines.compiled import jit, jit_allocating
from hunger_rl.engines.hungry.batched import (
    COUNTS,
    CURRENT,
    HAND_SIZES,
    HANDS,
    NUM_PLAYS,
    PLAYED,
    RESORT_OF_ACTION,
    ROW_SIZE,
)
from hunger_rl.engines.hungry.engine import HAND_SIZE, NUM_CARD_TYPES, NUM_RESORTS, decode_action
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.policies.hungry_batched import expert_values, forecast_scratch

# A seat's hand as a dictionary key (``_known_seat_log_likelihood``): each card's type + 1 in
# this many bits, after the seat's own two (the searcher's opponents: seats 1-3).
HAND_KEY_BITS = 5
assert NUM_CARD_TYPES < 2**HAND_KEY_BITS and 2 + HAND_SIZE * HAND_KEY_BITS < 63


@dataclass(frozen=True)
class Decision:
    """One opponent's play made with the deck empty: its ``seat`` (relative to the searcher), the
    ``action``, and the table it was made on (``placed`` before the play, relative seats)."""

    seat: int
    action: int
    placed: np.ndarray

    @property
    def num_plays(self) -> int:
        return int(self.placed.sum())


class PlayRecord:
    """The other seats' plays made with the deck empty, in order, read from the searcher's
    successive views of one game (:meth:`observe` at each of its moves, :meth:`own_play` with
    what it played). A view that does not follow from the last one (a new game, or a move the
    record did not see) starts the record again from that view."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        """Forget the game: no decisions, no last move, no chains."""
        self.decisions: list[Decision] = []
        self._placed_after_own: np.ndarray | None = None
        self._deck_after_own = 0
        self.keep_chains(None)

    def keep_chains(self, groups: np.ndarray | None) -> None:
        """Keep ``groups``, the hidden groups of :func:`posterior_deals`' last deals, and from
        now on the (seat, card type) of each play, which :meth:`continued_chains` goes on
        from (None: no chains)."""
        self.chains = groups
        self.plays_since_chains: list[tuple[int, int]] = []

    def observe(self, view: HungryView) -> None:
        """Add the plays made since the searcher's last move (one by every other seat, in seat
        order), those made with the deck empty as decisions."""
        previous = self._placed_after_own
        self._placed_after_own = None
        if previous is None or not self._follows(previous, view):
            self.decisions = []
            self.keep_chains(None)
            return
        placed = previous.copy()
        for seat in range(1, view.num_players):
            action = int(np.flatnonzero(view.placed[seat] - previous[seat])[0])
            if self.chains is not None:
                self.plays_since_chains.append((seat, decode_action(action)[0]))
            # Seat s plays the s-th play after the searcher's, which drew the deck's top card.
            if self._deck_after_own - (seat - 1) <= 0:
                self.decisions.append(Decision(seat, action, placed.copy()))
            placed[seat, action] += 1

    def own_play(self, view: HungryView, action: int) -> None:
        """The searcher plays ``action`` from ``view`` (and draws while the deck lasts)."""
        self._placed_after_own = view.placed.copy()
        self._placed_after_own[0, action] += 1
        self._deck_after_own = max(view.deck_size - 1, 0)

    @staticmethod
    def _follows(previous: np.ndarray, view: HungryView) -> bool:
        """Whether ``view`` is ``previous`` (the table after the searcher's last play) plus one
        play by every other seat."""
        if previous.shape != view.placed.shape:
            return False
        new = view.placed - previous
        return bool((new >= 0).all() and new[0].sum() == 0 and (new[1:].sum(axis=1) == 1).all())

    def cards_since(self, view: HungryView) -> np.ndarray:
        """``since[k, t]``: cards of type t that decision k's seat has played from decision k
        (its own play included) up to ``view``: its hand then less its hand now."""
        since = np.zeros((len(self.decisions), NUM_CARD_TYPES), np.int8)
        for k, decision in enumerate(self.decisions):
            played = view.placed[decision.seat] - decision.placed[decision.seat]
            since[k] = played.reshape(NUM_CARD_TYPES, 2).sum(axis=1)
        return since

    def continued_chains(self, view: HungryView, chains: int,
                         rng: np.random.Generator) -> np.ndarray | None:
        """The hidden groups of :func:`posterior_deals`' last ``chains`` deals less the cards
        the other seats have played since, to go on from (None if the record kept no such
        chains): where a hand in a deal lacked its seat's card, that card is traded for one of
        the hand's at random, a start near the posterior that the chains' steps then correct."""
        if self.chains is None or self.chains.shape[0] != chains:
            return None
        plays = np.array(self.plays_since_chains, np.int64).reshape(-1, 2)
        hidden = self.chains[0].sum(axis=0) - np.bincount(plays[:, 1], minlength=NUM_CARD_TYPES)
        if (hidden != view.unseen).any():
            raise ValueError("the record's chains and the plays since them do not leave the "
                             "cards this view has not seen: observe every view of the game")
        groups = self.chains.copy()
        _take_plays(groups, plays[:, 0] - 1, plays[:, 1], rng.random((plays.shape[0], chains)))
        return groups

    def arrays(self, view: HungryView) -> tuple[np.ndarray, ...]:
        """The decisions as :func:`deal_log_likelihoods` takes them: seats, actions, resort
        counts (decision, seat, resort), cards played by anyone (decision, card type), play
        counts, and :meth:`cards_since`."""
        seats = np.array([d.seat for d in self.decisions], np.int64)
        actions = np.array([d.action for d in self.decisions], np.int64)
        counts = np.zeros((len(self.decisions), view.num_players, NUM_RESORTS), np.int64)
        played = np.zeros((len(self.decisions), NUM_CARD_TYPES), np.int64)
        for k, decision in enumerate(self.decisions):
            np.add.at(counts[k], (slice(None), RESORT_OF_ACTION), decision.placed)
            played[k] = decision.placed.sum(axis=0).reshape(NUM_CARD_TYPES, 2).sum(axis=1)
        plays = np.array([d.num_plays for d in self.decisions], np.int64)
        return seats, actions, counts, played, plays, self.cards_since(view)


@jit
def choice_log_likelihood(values, action, temperature):
    """log of softmax(values / temperature)[action] over the legal plays (finite values)."""
    best = -np.inf
    for a in range(values.size):
        best = max(best, values[a])
    total = 0.0
    for a in range(values.size):
        if values[a] != -np.inf:
            total += math.exp((values[a] - best) / temperature)
    return (values[action] - best) / temperature - math.log(total)


def deal_log_likelihoods(rows: np.ndarray, record: PlayRecord, view: HungryView,
                         temperature: float) -> np.ndarray:
    """``out[d]``: the log-likelihood of the recorded opponents' plays in deal ``rows[d]`` (a
    batched-engine row from ``hungry_search.load_deals``, the searcher in seat 0), each play
    chosen by softmax(expert values / ``temperature``) from the hand the deal gives that seat
    then: the sum over the opponents of :func:`_seat_log_likelihood`."""
    _check_temperature(temperature)
    out = np.zeros(rows.shape[0])
    if record.decisions:
        _deal_log_likelihoods(rows, view.num_players, *record.arrays(view), float(temperature),
                              out)
    return out


def _check_temperature(temperature: float) -> None:
    if temperature <= 0:
        raise ValueError(f"the belief temperature must be positive, got {temperature}")


@jit
def _seat_log_likelihood(hand, seat, num_players, seats, actions, counts, played, plays, since,
                         temperature, row, scratch):
    """The log-likelihood of ``seat``'s recorded plays if its hand now is ``hand`` (counts by
    card type): a deal's log-likelihood is the sum of its opponents' (each play depends on its
    mover's hand alone). ``row``: a (1, ROW_SIZE) int8 table to work in; ``scratch``: from
    ``forecast_scratch``."""
    values = scratch[4]
    total = 0.0
    for k in range(seats.size):
        if seats[k] != seat:
            continue
        # The table of decision k, and the mover's hand then: its hand now plus the cards it
        # has played since (the deck was empty: it drew none).
        row[0, :] = 0
        for s in range(num_players):
            for r in range(NUM_RESORTS):
                row[0, COUNTS + s * NUM_RESORTS + r] = counts[k, s, r]
        size = 0
        for t in range(NUM_CARD_TYPES):
            row[0, PLAYED + t] = played[k, t]
            held = hand[t] + since[k, t]
            row[0, HANDS + seat * NUM_CARD_TYPES + t] = held
            size += held
        row[0, HAND_SIZES + seat] = size
        row[0, NUM_PLAYS] = plays[k]
        row[0, CURRENT] = seat
        expert_values(row, np.int64(0), num_players, scratch, values, scratch[5])
        total += choice_log_likelihood(values, actions[k], temperature)
    return total


@jit_allocating
def _deal_log_likelihoods(rows, num_players, seats, actions, counts, played, plays, since,
                          temperature, out):
    scratch = forecast_scratch()
    row = np.zeros((1, ROW_SIZE), np.int8)
    for d in range(rows.shape[0]):
        total = 0.0
        for seat in range(1, num_players):
            hand = rows[d, HANDS + seat * NUM_CARD_TYPES: HANDS + (seat + 1) * NUM_CARD_TYPES]
            total += _seat_log_likelihood(hand, seat, num_players, seats, actions, counts,
                                          played, plays, since, temperature, row, scratch)
        out[d] = total


def posterior_deals(rows: np.ndarray, view: HungryView, record: PlayRecord,
                    rng: np.random.Generator, temperature: float, steps: int,
                    start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Deals from the uniform deal weighted by the likelihood of ``record``'s plays, and
    their log-likelihoods (:func:`deal_log_likelihoods`): one Metropolis chain for each of
    ``rows`` (``hungry_search.load_deals``'s layout; its hands changed in place and returned),
    each of ``steps`` steps proposing to swap a random card of one opponent's hand with a random
    card of another hidden group (another opponent's hand or the removed cards). Picking each
    card uniformly among its group's makes the proposal symmetric, so a step is accepted with
    chance min(1, likelihood ratio). Plays are recorded only with the deck empty, so the hidden
    groups are the hands and the removed cards.

    The chains start from ``rows``' uniform deals, or from ``start`` (the hidden groups by
    chain: the opponents' hands, then the removed cards; :meth:`PlayRecord.continued_chains`).
    The record keeps the chains' last deals for the next call."""
    _check_temperature(temperature)
    if steps < 0:
        raise ValueError(f"a chain cannot make {steps} steps")
    if view.deck_size:
        raise ValueError(f"beliefs are about deck-empty plays, but {view.deck_size} cards are "
                         f"in the deck")
    opponents = view.num_players - 1
    chains = rows.shape[0]
    hand_columns = slice(HANDS + NUM_CARD_TYPES, HANDS + view.num_players * NUM_CARD_TYPES)
    if start is None:
        hands = rows[:, hand_columns].reshape(chains, opponents, NUM_CARD_TYPES)
        removed = view.unseen.astype(np.int64) - hands.sum(axis=1, dtype=np.int64)
        groups = np.concatenate([hands.astype(np.int64), removed[:, None, :]], axis=1)
    else:
        groups = start.copy()
    # Each step's draws: the two groups, where in each the card is picked, and the uniform the
    # acceptance compares with.
    draws = np.empty((steps, 5, chains))
    for step in range(steps):
        draws[step, 0] = first = rng.integers(0, opponents, size=chains)
        draws[step, 1] = (first + rng.integers(1, opponents + 1, size=chains)) % (opponents + 1)
        draws[step, 2:] = rng.random((3, chains))
    log_likelihoods = np.zeros(chains)
    if record.decisions:
        _metropolis_chains(groups, draws, view.num_players, *record.arrays(view),
                           float(temperature), log_likelihoods)
    rows[:, hand_columns] = groups[:, :opponents].reshape(chains, -1)
    record.keep_chains(groups)
    return rows, log_likelihoods


@jit
def _take_plays(groups, hands, cards, uniforms):
    """Each chain's hidden ``groups`` less the played ``cards`` (play p by hand ``hands[p]``):
    where the hand lacks the card, the group that holds it takes a card of the hand in its
    place, the hand's ``uniforms[p, chain]``-th in type order."""
    for c in range(groups.shape[0]):
        for p in range(cards.size):
            hand, card = hands[p], cards[p]
            if groups[c, hand, card] == 0:
                holder = 0
                while groups[c, holder, card] == 0:
                    holder += 1
                traded = _card_at(groups[c, hand], int(uniforms[p, c] * groups[c, hand].sum()))
                _swap(groups[c], hand, traded, holder, card)
            groups[c, hand, card] -= 1


@jit_allocating
def _metropolis_chains(groups, draws, num_players, seats, actions, counts, played, plays, since,
                       temperature, log_likelihoods):
    """:func:`posterior_deals`' chains on ``groups`` (chain, hidden group, card type: the
    opponents' hands, then the removed cards), in place, ``log_likelihoods`` their deals' at
    the end. A swap changes two groups, so only those seats' likelihoods are computed again,
    and each seat's is kept for every hand of it met (chains meet the likely hands often)."""
    chains = groups.shape[0]
    opponents = num_players - 1
    sizes = np.zeros(groups.shape[1], np.int64)
    for group in range(groups.shape[1]):
        sizes[group] = groups[0, group].sum()
    scratch = forecast_scratch()
    row = np.zeros((1, ROW_SIZE), np.int8)
    known = Dict.empty(key_type=types.int64, value_type=types.float64)
    seat_log_likelihoods = np.empty((chains, opponents))
    for c in range(chains):
        for o in range(opponents):
            seat_log_likelihoods[c, o] = _known_seat_log_likelihood(
                known, groups[c, o], o + 1, num_players, seats, actions, counts, played, plays,
                since, temperature, row, scratch)
    for step in range(draws.shape[0]):
        for c in range(chains):
            first, second = int(draws[step, 0, c]), int(draws[step, 1, c])
            if sizes[first] == 0 or sizes[second] == 0:
                continue  # a hand played out: nothing to swap
            first_card = _card_at(groups[c, first], int(draws[step, 2, c] * sizes[first]))
            second_card = _card_at(groups[c, second], int(draws[step, 3, c] * sizes[second]))
            if first_card == second_card:
                continue
            _swap(groups[c], first, first_card, second, second_card)
            first_log_likelihood = _known_seat_log_likelihood(
                known, groups[c, first], first + 1, num_players, seats, actions, counts, played,
                plays, since, temperature, row, scratch)
            change = first_log_likelihood - seat_log_likelihoods[c, first]
            second_log_likelihood = 0.0
            if second < opponents:
                second_log_likelihood = _known_seat_log_likelihood(
                    known, groups[c, second], second + 1, num_players, seats, actions, counts,
                    played, plays, since, temperature, row, scratch)
                change += second_log_likelihood - seat_log_likelihoods[c, second]
            if math.log(draws[step, 4, c]) < change:
                seat_log_likelihoods[c, first] = first_log_likelihood
                if second < opponents:
                    seat_log_likelihoods[c, second] = second_log_likelihood
            else:
                _swap(groups[c], first, second_card, second, first_card)
    for c in range(chains):
        log_likelihoods[c] = seat_log_likelihoods[c].sum()


@jit_allocating
def _known_seat_log_likelihood(known, hand, seat, num_players, seats, actions, counts, played,
                               plays, since, temperature, row, scratch):
    """:func:`_seat_log_likelihood`, computed once per seat and hand in ``known``: the key is
    the seat then the hand's cards in order, 5 bits each (HAND_KEY_BITS)."""
    key = np.int64(seat)
    for t in range(NUM_CARD_TYPES):
        for _ in range(hand[t]):
            key = (key << HAND_KEY_BITS) | (t + 1)
    log_likelihood = known.get(key, np.nan)
    if np.isnan(log_likelihood):
        log_likelihood = _seat_log_likelihood(hand, seat, num_players, seats, actions, counts,
                                              played, plays, since, temperature, row, scratch)
        known[key] = log_likelihood
    return log_likelihood


@jit
def _swap(groups, first, first_card, second, second_card):
    """Move ``first_card`` from group ``first`` to ``second`` and ``second_card`` back."""
    groups[first, first_card] -= 1
    groups[first, second_card] += 1
    groups[second, second_card] -= 1
    groups[second, first_card] += 1


@jit
def _card_at(cards, position):
    """The card type at ``position`` (0 .. size - 1) of ``cards`` (counts by type) laid out by
    type."""
    for t in range(cards.size):
        position -= cards[t]
        if position < 0:
            return t
    return cards.size
