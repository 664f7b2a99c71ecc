"""Scripted Hungry policies: a one-step greedy player and a card-counting expert.

Both read only the observation (through :class:`~hunger_rl.engines.hungry.view.HungryView`, built
from it when the caller passes no view), so they never see another player's hand or the deck.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    NUM_STARS,
    TWO_HOMES_BONUS,
    card_colour,
    card_stars,
    resort_places,
    totals_from_places,
)
from hunger_rl.engines.hungry.view import HungryView, observation_players
from hunger_rl.policies.base import Observation, Policy, legal_actions
from hunger_rl.policies.hungry_batched import (
    BINOMIAL,
    COUNTS_RANGE,
    FIRST_POINTS,
    OPPONENT_DESTINATION_CHANCE,
    OWN_DESTINATION_CHANCE,
    TIE_BREAK_WEIGHT,
    forecast_values_of_observations,
)

# RESORT_CARDS[r, t] = 1 when a card of type t can be sent to resort r (its home or its hotel).
RESORT_CARDS = np.zeros((NUM_RESORTS, NUM_CARD_TYPES), dtype=np.int64)
for _card in range(NUM_CARD_TYPES):
    RESORT_CARDS[card_stars(_card) - 1, _card] = 1
    RESORT_CARDS[NUM_STARS + card_colour(_card), _card] = 1
# Truncated convolution of two count distributions as one product: out[k] = sum_j a[k-j] b[j].
CONVOLVE_INDEX = np.maximum(COUNTS_RANGE[:, None] - COUNTS_RANGE[None, :], 0)
CONVOLVE_MASK = COUNTS_RANGE[:, None] >= COUNTS_RANGE[None, :]


def view_of(observation: Observation, view: HungryView | None) -> HungryView:
    return view if view is not None else HungryView.from_observation(observation)


def pick_best(actions: np.ndarray, values: np.ndarray, rng: np.random.Generator) -> int:
    """The action of highest value; ties (within float noise) broken uniformly at random."""
    best = np.flatnonzero(values >= values.max() - 1e-9)
    return int(actions[best[rng.integers(best.size)]])


class GreedyHungryPolicy(Policy):
    """One-step greedy: the play that most improves (own total - best other total).

    Totals are those the public table would score if the game ended right after the play (H6-H9
    as implemented by the engine); ties between plays are broken uniformly at random.
    """

    name = "greedy"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        actions, values = self.values(observation, view)
        return pick_best(actions, values, rng)

    @staticmethod
    def values(observation: Observation, view: HungryView | None = None):
        """The legal actions and the margin each leaves."""
        view = view_of(observation, view)
        actions = legal_actions(observation)
        counts = view.resort_counts
        places = view.places()
        values = np.empty(actions.size)
        for i, action in enumerate(actions):
            resort = ACTION_RESORT[action]
            column = counts[:, resort].tolist()
            column[0] += 1
            after = list(places)
            after[resort] = resort_places(column, view.tied_second)
            totals = totals_from_places(view.num_players, after)
            values[i] = totals[0] - max(totals[1:])
        return actions, values


class ExpertHungryPolicy(Policy):
    """Card-counting majority player.

    For every resort it forecasts each player's final tourist count from public information:
    the count on the table, plus the observer's own cards that fit the resort (each sent there
    with probability 1/2), plus the still unseen cards that fit it, each ending in a given
    opponent's hand in proportion to the plays that opponent has left (and sent there with
    probability 1/2; the two removed cards never arrive). From these count distributions it
    takes each player's chance of first and second place, strict majorities only, so ties score
    nothing (tie denial). The position value is the observer's expected points minus the mean
    of the others': first-place points, second-place tokens, the two-home bonus (homes taken in
    order of stars, the first to reach two gets 5), and a small premium for low-star homes, the
    tie-break of H9. It plays the card and destination with the best value after the play, so
    it invests where one more tourist changes the outlook most (majority races), leaves
    resorts that are safe or lost, and keeps flexible cards for later.

    This is the reference; its compiled twin, for the batched engine, is the "expert" of
    :mod:`hunger_rl.policies.hungry_batched` (``expert_values``), kept equal by a differential
    test.
    """

    name = "expert"

    # Own hand cards are counted at both their resorts with this chance of going to each.
    OWN_DESTINATION_CHANCE = OWN_DESTINATION_CHANCE
    # Unseen cards that an opponent will hold go to a given fitting resort with this chance.
    OPPONENT_DESTINATION_CHANCE = OPPONENT_DESTINATION_CHANCE
    # Value of holding a low-star home for the H9 tie-break, per star below 6.
    TIE_BREAK_WEIGHT = TIE_BREAK_WEIGHT

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        view = view_of(observation, view)
        actions = legal_actions(observation)
        outlook = Outlook(view, self.OWN_DESTINATION_CHANCE, self.OPPONENT_DESTINATION_CHANCE)
        values = outlook.values_after(actions, self.TIE_BREAK_WEIGHT)
        return pick_best(actions, values, rng)


class ForecastHungryPolicy(Policy):
    """The expert's valuation with normal approximations instead of exact count distributions,
    compiled (the forecast policy of :mod:`hunger_rl.engines.hungry.batched`): about as strong as
    the expert at a fraction of its cost, and the same player that the batched engine fields as
    a "forecast" opponent."""

    name = "forecast"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        vector = np.asarray(observation["observation"])
        values = forecast_values_of_observations(vector[None], observation_players(vector))[0]
        actions = legal_actions(observation)
        return pick_best(actions, values[actions], rng)


class Outlook:
    """Per-resort forecasts of first and second place for the expert, before and after a play."""

    def __init__(self, view: HungryView, own_chance: float, opponent_chance: float):
        seats = view.num_players
        self.counts = view.resort_counts
        self.own_fit = RESORT_CARDS @ view.hand
        self.unseen_fit = RESORT_CARDS @ view.unseen
        remaining = view.remaining_plays().astype(float)
        unseen_total = max(int(view.unseen.sum()), 1)
        # Chance that one unseen card ends in each seat's plays: opponents play all their
        # remaining cards from unseen ones, the observer only its future draws.
        share = remaining / unseen_total
        share[0] = max(remaining[0] - view.hand.sum(), 0) / unseen_total
        # unseen_pmfs[s, n]: distribution of how many of n fitting unseen cards seat s sends.
        self.unseen_pmfs = _binomial_table(share * opponent_chance)
        self.own_pmfs = _binomial_table(np.array([own_chance]))[0]
        self.others, self.rest = _seat_indices(seats)

    def values_after(self, actions: np.ndarray, tie_break_weight: float) -> np.ndarray:
        """The observer's position value after each of ``actions``."""
        resorts = np.array(ACTION_RESORT)[actions]
        alternatives = np.array(ACTION_RESORT)[actions ^ 1]  # each card's other destination
        count = actions.size
        # One batch: every resort as it stands, then each play's two changed resorts.
        batch_resorts = np.concatenate([np.arange(NUM_RESORTS), resorts, alternatives])
        added = np.concatenate([np.zeros(NUM_RESORTS + count, int), np.zeros(count, int)])
        added[NUM_RESORTS : NUM_RESORTS + count] = 1
        fit_change = np.concatenate([np.zeros(NUM_RESORTS, int), -np.ones(2 * count, int)])
        first, second = self._place_chances(batch_resorts, added, fit_change)
        firsts = np.repeat(first[None, :NUM_RESORTS], count, axis=0)  # (play, resort, seat)
        seconds = np.repeat(second[None, :NUM_RESORTS], count, axis=0)
        plays = np.arange(count)
        for resort_of_play, rows in ((resorts, NUM_RESORTS), (alternatives, NUM_RESORTS + count)):
            firsts[plays, resort_of_play] = first[rows : rows + count]
            seconds[plays, resort_of_play] = second[rows : rows + count]
        homes = firsts[:, :NUM_STARS]
        points = np.einsum("r,prs->ps", FIRST_POINTS, firsts) + seconds.sum(axis=1)
        points += TWO_HOMES_BONUS * _bonus_chances(homes)
        points += tie_break_weight * np.einsum("r,prs->ps", NUM_STARS - np.arange(NUM_STARS), homes)
        return points[:, 0] - points[:, 1:].mean(axis=1)

    def _place_chances(self, resorts: np.ndarray, added: np.ndarray, fit_change: np.ndarray):
        """Chances (first, second), each (batch, seat), at each of ``resorts`` with the
        observer's count there raised by ``added`` and its fitting hand cards changed by
        ``fit_change``."""
        pmfs = self.unseen_pmfs[:, self.unseen_fit[resorts]].transpose(1, 0, 2).copy()
        own = self.own_pmfs[self.own_fit[resorts] + fit_change]
        # The observer's total: its unseen draws plus its own cards (a truncated convolution).
        pmfs[:, 0] = np.einsum("bkj,bj->bk", own[:, CONVOLVE_INDEX] * CONVOLVE_MASK, pmfs[:, 0])
        bases = self.counts[:, resorts].T.copy()
        bases[:, 0] += added
        # Shift each distribution up by the count already on the table.
        shifted = COUNTS_RANGE[None, None, :] - bases[:, :, None]
        pmfs = np.where(
            shifted >= 0, np.take_along_axis(pmfs, np.maximum(shifted, 0), axis=2), 0.0
        )
        cdf = pmfs.cumsum(axis=2)
        below = np.zeros_like(cdf)  # below[b, s, k]: chance that seat s ends with fewer than k
        below[:, :, 1:] = cdf[:, :, :-1]
        above = 1.0 - cdf  # chance of more than k
        all_below = below[:, self.others].prod(axis=2)
        one_above = (above[:, self.others] * below[:, self.rest].prod(axis=3)).sum(axis=2)
        # A count of 0 never places (H6), hence the sums from k = 1.
        first = (pmfs[:, :, 1:] * all_below[:, :, 1:]).sum(axis=2)
        second = (pmfs[:, :, 1:] * one_above[:, :, 1:]).sum(axis=2)
        return first, second


def _binomial_table(chances: np.ndarray) -> np.ndarray:
    """``table[i, n, k]``: chance of k successes in n trials of chance ``chances[i]``."""
    p = chances[:, None, None]
    n = COUNTS_RANGE[:, None]
    k = COUNTS_RANGE[None, :]
    valid = k <= n
    table = BINOMIAL * p ** np.where(valid, k, 0) * (1.0 - p) ** np.where(valid, n - k, 0)
    return np.where(valid, table, 0.0)


@cache
def _seat_indices(seats: int) -> tuple[np.ndarray, np.ndarray]:
    """For each seat s, the other seats; and for each other seat t (a possible sole player
    above s), the seats that are neither s nor t."""
    others = np.array([[o for o in range(seats) if o != s] for s in range(seats)])
    rest = np.array(
        [[[o for o in others[s] if o != t] for t in others[s]] for s in range(seats)],
        dtype=np.int64,
    ).reshape(seats, seats - 1, seats - 2)
    return others, rest


def _bonus_chances(home_firsts: np.ndarray) -> np.ndarray:
    """Each seat's chance of the two-home bonus (H8), homes scored from 1 to 5 stars, from
    each seat's chance of taking each home (``home_firsts[..., home, seat]``) treated as
    independent."""
    shape = home_firsts[..., 0, :].shape
    no_home = np.ones(shape)
    one_home = np.zeros(shape)
    not_given = np.ones(shape[:-1] + (1,))
    bonus = np.zeros(shape)
    for home in range(home_firsts.shape[-2]):
        taken = home_firsts[..., home, :]
        reach = not_given * one_home * taken
        bonus += reach
        not_given = np.maximum(not_given - reach.sum(axis=-1, keepdims=True), 0.0)
        one_home = one_home * (1.0 - taken) + no_home * taken
        no_home = no_home * (1.0 - taken)
    return bonus
