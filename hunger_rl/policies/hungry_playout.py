"""Compiled forecast policy for Hungry playouts: the expert's idea at a greedy player's cost.

The search plays its playouts with one policy for every seat, and the seats it plays against are
experts (:class:`~hunger_rl.policies.hungry.ExpertHungryPolicy`). The one-step greedy policy of the
batched engine models them poorly: it grabs whatever scores now, where the expert invests in the
majority races that the still unseen cards leave open. This policy keeps the expert's valuation
and replaces its exact count distributions with a normal approximation, so that it runs inside
the compiled playouts:

* Forecast. Each seat's final count at a resort has mean ``count + p_s n`` and variance
  ``n p_s (1 - p_s)``, where n is the number of unseen cards (from the mover's view) that fit the
  resort and ``p_s`` half the chance that one of them is played by seat s (its remaining plays
  over the unseen cards; the mover counts only its future draws). The mover's own fitting cards
  add 1/2 each to its mean and 1/4 to its variance, as the expert's 1/2 destination chance.
* Places. Seat s beats seat t strictly with the normal chance of ``X_s - X_t >= 1`` (so ties
  score nothing: tie denial, H6). First place: beating every other seat (taken as independent)
  and placing at all (a count of at least 1); second place: beating all but one.
* Value. As the expert: the mover's expected points (first places, second-place tokens, the
  two-home bonus from the homes' first-place chances in star order, H8, and the small premium for
  low-star homes, H9) minus the mean of the others'. It plays the best value after its play.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from hunger_rl.envs.hungry.batched import (
    COUNTS,
    CURRENT,
    HAND_SIZES,
    HANDS,
    NUM_PLAYS,
    PLAYED,
    _below,
)
from hunger_rl.envs.hungry.engine import (
    ACTION_RESORT,
    COPIES_PER_TYPE,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    NUM_STARS,
    TOTAL_PLAYS,
    TWO_HOMES_BONUS,
    card_colour,
    card_stars,
)
from hunger_rl.policies.hungry import FIRST_POINTS, ExpertHungryPolicy

_jit = numba.njit(cache=True, nogil=True)

_ACTION_RESORT = np.array(ACTION_RESORT, dtype=np.int64)
_FIRST_POINTS = FIRST_POINTS.copy()
# The two resorts a card type fits: its holiday home (stars) and its hotel (colour).
_CARD_HOME = np.array([card_stars(t) - 1 for t in range(NUM_CARD_TYPES)], dtype=np.int64)
_CARD_HOTEL = np.array([NUM_STARS + card_colour(t) for t in range(NUM_CARD_TYPES)], np.int64)
_OWN_CHANCE = ExpertHungryPolicy.OWN_DESTINATION_CHANCE
_OPPONENT_CHANCE = ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE
_TIE_BREAK_WEIGHT = ExpertHungryPolicy.TIE_BREAK_WEIGHT
# Keeps the spread of a settled count difference positive, so that it reads as certain.
_MIN_VARIANCE = 0.01
_LOG_OWN_MISS = math.log(1.0 - _OWN_CHANCE)
_LOGISTIC_SCALE = 1.702
# Values this close count as equal, broken at random (as the expert's pick).
_TIE = 1e-9


@_jit
def _beats(mean_a, var_a, mean_b, var_b):
    """Normal chance that a count of (mean_a, var_a) exceeds one of (mean_b, var_b) by >= 1."""
    z = (mean_a - mean_b - 0.5) / math.sqrt(var_a + var_b + _MIN_VARIANCE)
    # Logistic approximation of the normal distribution function (error below 0.01), several
    # times cheaper than erf in this innermost loop.
    return 1.0 / (1.0 + math.exp(-_LOGISTIC_SCALE * z))


@_jit
def _resort_forecast(
    g, b, resort, shift, num_players, mover, unseen_fit, own_fit, chances, work, out
):
    """``out[0]``, ``out[1]``: each seat's chance of first and of second place at one resort
    (H6, ties score nothing), the mover's count raised by ``shift`` (1: its play goes there) and
    its fitting hand cards lowered by ``abs(shift)`` (the card played leaves its hand)."""
    means = work[0]
    variances = work[1]
    scores_any = work[2]
    wins = work[3:]
    n = unseen_fit[resort]
    for s in range(num_players):
        count = g[b, COUNTS + s * NUM_RESORTS + resort]
        p = chances[s]
        means[s] = count + p * n
        variances[s] = n * p * (1.0 - p)
        fit = 0
        if s == mover:
            fit = own_fit[resort] - abs(shift)
            count += max(shift, 0)
            means[s] += max(shift, 0) + _OWN_CHANCE * fit
            variances[s] += _OWN_CHANCE * (1.0 - _OWN_CHANCE) * fit
        if count > 0:
            scores_any[s] = 1.0
        else:
            # Chance that none of its unseen or own fitting cards comes here.
            scores_any[s] = 1.0 - math.exp(n * math.log1p(-p) + fit * _LOG_OWN_MISS)
    for s in range(num_players):
        for t in range(s + 1, num_players):
            wins[s, t] = _beats(means[s], variances[s], means[t], variances[t])
            wins[t, s] = _beats(means[t], variances[t], means[s], variances[s])
    for s in range(num_players):
        all_beaten = 1.0
        one_above = 0.0
        for t in range(num_players):
            if t == s:
                continue
            all_beaten *= wins[s, t]
            others_beaten = 1.0
            for o in range(num_players):
                if o != s and o != t:
                    others_beaten *= wins[s, o]
            one_above += (1.0 - wins[s, t]) * others_beaten
        out[0, s] = scores_any[s] * all_beaten
        out[1, s] = scores_any[s] * one_above


@_jit
def _add_bonus(home_firsts, num_players, points, no_home, one_home):
    """Add each seat's two-home bonus (H8) from its chance of first place at each home: homes in
    star order, the first seat to reach two takes it. ``no_home``, ``one_home``: working rows."""
    no_home[:] = 1.0
    one_home[:] = 0.0
    not_given = 1.0
    for home in range(NUM_STARS):
        given = 0.0
        for s in range(num_players):
            taken = home_firsts[home, s]
            reach = not_given * one_home[s] * taken
            points[s] += TWO_HOMES_BONUS * reach
            given += reach
            one_home[s] = one_home[s] * (1.0 - taken) + no_home[s] * taken
            no_home[s] *= 1.0 - taken
        not_given = max(not_given - given, 0.0)


# Variants of a resort's forecast: as it stands, after the mover plays there, after the mover
# plays the card to its other resort.
_STANDING, _PLAYED_HERE, _PLAYED_ELSEWHERE = 0, 1, 2
_SHIFTS = (0, 1, -1)


@_jit
def forecast_scratch():
    """Working arrays for :func:`forecast_action`, made once per batch of playouts so that the
    compiled loop allocates nothing per move."""
    return (
        np.empty((2, NUM_RESORTS), np.int64),  # unseen and own fitting cards per resort
        np.empty((3 + MAX_PLAYERS, MAX_PLAYERS)),  # one resort's forecast
        np.empty((3, NUM_RESORTS, 2, MAX_PLAYERS)),  # places (below)
        np.empty((5 + NUM_STARS, MAX_PLAYERS)),  # per seat: chances, points, bonus; homes' firsts
    )


@_jit
def forecast_action(g, b, num_players, rng_state, scratch):
    """The mover's play of best forecast value in game b (module docstring); ties at random.

    ``scratch``: from :func:`forecast_scratch`.
    """
    fits, work, places, seats = scratch
    unseen_fit = fits[0]
    own_fit = fits[1]
    chances = seats[0]
    standing = seats[1]
    points = seats[2]
    no_home = seats[3]
    one_home = seats[4]
    home_firsts = seats[5:]
    mover = np.int64(g[b, CURRENT])
    hand = HANDS + mover * NUM_CARD_TYPES
    # Unseen from the mover's view: neither played nor in its hand.
    fits[:] = 0
    unseen_total = 0
    for t in range(NUM_CARD_TYPES):
        unseen = COPIES_PER_TYPE - g[b, PLAYED + t] - g[b, hand + t]
        unseen_total += unseen
        unseen_fit[_CARD_HOME[t]] += unseen
        unseen_fit[_CARD_HOTEL[t]] += unseen
        own_fit[_CARD_HOME[t]] += g[b, hand + t]
        own_fit[_CARD_HOTEL[t]] += g[b, hand + t]
    left = TOTAL_PLAYS - np.int64(g[b, NUM_PLAYS])
    for s in range(num_players):
        offset = (s - mover) % num_players
        remaining = max(0, (left - offset + num_players - 1) // num_players)
        if s == mover:
            remaining = max(remaining - np.int64(g[b, HAND_SIZES + s]), 0)
        chances[s] = _OPPONENT_CHANCE * remaining / max(unseen_total, 1)
    # places[variant, resort, first or second, seat]; the played variants only where needed.
    for r in range(NUM_RESORTS):
        _resort_forecast(
            g,
            b,
            r,
            0,
            num_players,
            mover,
            unseen_fit,
            own_fit,
            chances,
            work,
            places[_STANDING, r],
        )
        if own_fit[r] > 0:
            for variant in (_PLAYED_HERE, _PLAYED_ELSEWHERE):
                _resort_forecast(
                    g,
                    b,
                    r,
                    _SHIFTS[variant],
                    num_players,
                    mover,
                    unseen_fit,
                    own_fit,
                    chances,
                    work,
                    places[variant, r],
                )
    # Points as the table stands, without the bonus; a play changes two resorts' shares.
    standing[:] = 0.0
    for r in range(NUM_RESORTS):
        for s in range(num_players):
            standing[s] += _resort_points(places[_STANDING, r], r, s)
    best_value = -1e9
    best_action = -1
    ties = 0
    for action in range(NUM_ACTIONS):
        if g[b, hand + (action >> 1)] == 0:
            continue
        here = _ACTION_RESORT[action]
        elsewhere = _ACTION_RESORT[action ^ 1]
        for s in range(num_players):
            points[s] = (
                standing[s]
                + _resort_points(places[_PLAYED_HERE, here], here, s)
                - _resort_points(places[_STANDING, here], here, s)
                + _resort_points(places[_PLAYED_ELSEWHERE, elsewhere], elsewhere, s)
                - _resort_points(places[_STANDING, elsewhere], elsewhere, s)
            )
        for home in range(NUM_STARS):
            variant = _STANDING
            if home == here:
                variant = _PLAYED_HERE
            elif home == elsewhere:
                variant = _PLAYED_ELSEWHERE
            for s in range(num_players):
                home_firsts[home, s] = places[variant, home, 0, s]
        _add_bonus(home_firsts, num_players, points, no_home, one_home)
        others = 0.0
        for s in range(num_players):
            if s != mover:
                others += points[s]
        value = points[mover] - others / (num_players - 1)
        if value > best_value + _TIE:
            best_value = value
            best_action = action
            ties = 1
        elif value >= best_value - _TIE:
            ties += 1
            if _below(rng_state, b, ties) == 0:
                best_action = action
    return best_action


@_jit
def _resort_points(chances, resort, seat):
    """A seat's expected points at one resort from its (first, second) chances there, with the
    low-star home premium (H9 tie-break)."""
    points = _FIRST_POINTS[resort] * chances[0, seat] + chances[1, seat]
    if resort < NUM_STARS:
        points += _TIE_BREAK_WEIGHT * (NUM_STARS - resort) * chances[0, seat]
    return points
