"""Compiled Hungry policies for the batched engine: uniformly random, greedy, the forecast and
the expert.

They run on the rows of :class:`~hunger_rl.engines.hungry.batched.BatchedHungry` without a Python
call per game, so that opponents inside a batched training environment cost little next to the
learner's network; the forecast is also the search's playout policy
(``policies.hungry_search``), the scripted ``forecast`` baseline
(``policies.hungry.ForecastHungryPolicy``) and the prior of the learned policies' encoders.
"""

from __future__ import annotations

import math

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from hunger_rl.engines.compiled import jit, jit_allocating, jit_inline, random_below
from hunger_rl.engines.hungry.batched import (
    BONUS_HOLDER,
    COUNTS,
    CURRENT,
    FIRST,
    HAND_SIZES,
    HANDS,
    NUM_PLAYS,
    PLAYED,
    RESORT_OF_ACTION,
    ROW_SIZE,
    SECOND,
    TOTALS,
    BatchedHungry,
    mover_hand_start,
    update_resort,
)
from hunger_rl.engines.hungry.engine import (
    COPIES_PER_TYPE,
    HOTEL_POINTS,
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
from hunger_rl.engines.hungry.observation import observation_layout

POLICY_KINDS = ("random", "greedy", "forecast", "expert")
POLICY_CODES = {"random": 0, "greedy": 1, "forecast": 2, "expert": 3}


@jit_inline
def _random_action(g, b, rng_state):
    """A uniformly random legal action of the mover in game b.

    Picks one of the 2 x (held card types) legal actions: the held types as bits (no branch,
    which would mispredict on random hands), the pick's type found by clearing the lowest set
    bits before it.
    """
    start = mover_hand_start(g, b)
    hand = g[b, start : start + NUM_CARD_TYPES]
    held = np.uint32(0)
    kinds = 0
    for t in range(NUM_CARD_TYPES):
        held |= np.uint32(hand[t] > 0) << np.uint32(t)
        kinds += hand[t] > 0
    pick = random_below(rng_state, b, 2 * kinds)
    for _ in range(pick >> 1):
        held &= held - np.uint32(1)
    return 2 * trailing_zeros(held) + (pick & 1)


@jit
def _keep_best(value, action, best_value, best_action, ties, tolerance, rng_state, b):
    """One step of a single pass for the best action, ties (within ``tolerance``) broken
    uniformly at random: returns the new (best value, best action, number tied)."""
    if value > best_value + tolerance:
        return value, action, 1
    if value >= best_value - tolerance:
        ties += 1
        if random_below(rng_state, b, ties) == 0:
            best_action = action
    return best_value, best_action, ties


@jit
def _greedy_action(g, b, num_players, void_tied_second, rng_state, saved_totals):
    """The mover's legal action with the best margin after it, ties broken uniformly at random.

    Margin: the mover's total minus the best other total, both as if the game ended right after
    the play (one-step lookahead on the current places; the card drawn is ignored). Each
    candidate is tried on the game's own row and undone (``saved_totals``: scratch for its
    totals, one per seat).
    """
    player = np.int64(g[b, CURRENT])
    hand = HANDS + player * NUM_CARD_TYPES
    # int64 from the start: a literal first value would compile _keep_best for it too.
    best_margin, best_action, ties = np.int64(-1000), np.int64(-1), np.int64(0)
    for action in range(NUM_ACTIONS):
        if g[b, hand + (action >> 1)] == 0:
            continue
        resort = RESORT_OF_ACTION[action]
        first = g[b, FIRST + resort]
        second = g[b, SECOND + resort]
        bonus_holder = g[b, BONUS_HOLDER]
        for p in range(num_players):
            saved_totals[p] = g[b, TOTALS + p]
        count = COUNTS + player * NUM_RESORTS + resort
        g[b, count] += 1
        update_resort(g, b, resort, num_players, void_tied_second)
        best_other = np.int64(-1000)
        for p in range(num_players):
            if p != player:
                best_other = max(best_other, np.int64(g[b, TOTALS + p]))
        margin = np.int64(g[b, TOTALS + player]) - best_other
        g[b, count] -= 1
        g[b, FIRST + resort] = first
        g[b, SECOND + resort] = second
        g[b, BONUS_HOLDER] = bonus_holder
        for p in range(num_players):
            g[b, TOTALS + p] = saved_totals[p]
        best_margin, best_action, ties = _keep_best(
            margin, action, best_margin, best_action, ties, np.int64(0), rng_state, b
        )
    return best_action


# -- the forecast policy --------------------------------------------------------------------------
#
# The expert's valuation (``policies.hungry.ExpertHungryPolicy``) at a greedy player's cost: its
# exact count distributions replaced by a normal approximation, so that it runs compiled, as the
# search's playout policy, as a training opponent inside the batch, and as input features.
#
# * Forecast. Each seat's final count at a resort has mean ``count + p_s n`` and variance
#   ``n p_s (1 - p_s)``, where n is the number of unseen cards (from the mover's view) that fit
#   the resort and ``p_s`` half the chance that one of them is played by seat s (its remaining
#   plays over the unseen cards; the mover counts only its future draws). The mover's own fitting
#   cards add 1/2 each to its mean and 1/4 to its variance, as the expert's 1/2 destination chance.
# * Places. Seat s beats seat t strictly with the normal chance of ``X_s - X_t >= 1`` (so ties
#   score nothing: tie denial, H6). First place: beating every other seat (taken as independent)
#   and placing at all (a count of at least 1); second place: beating all but one.
# * Value. As the expert: the mover's expected points (first places, second-place tokens, the
#   two-home bonus from the homes' first-place chances in star order, H8, and the small premium
#   for low-star homes, H9) minus the mean of the others'. It plays the best value after its play.

# First-place points of each resort: the home's stars, or a hotel's 5 (H7).
FIRST_POINTS = np.array([s + 1 for s in range(NUM_STARS)] + [HOTEL_POINTS] * NUM_STARS, float)
# The two resorts a card type fits: its holiday home (stars) and its hotel (colour).
CARD_HOME = np.array([card_stars(t) - 1 for t in range(NUM_CARD_TYPES)], dtype=np.int64)
CARD_HOTEL = np.array([NUM_STARS + card_colour(t) for t in range(NUM_CARD_TYPES)], np.int64)
# The expert's exact count distributions: the largest count one seat can reach at a resort (all
# the cards that fit it), the counts 0..MAX_COUNT and their binomial coefficients.
MAX_COUNT = COPIES_PER_TYPE * int(max(np.bincount(CARD_HOME).max(),
                                      np.bincount(CARD_HOTEL).max()))
COUNTS_RANGE = np.arange(MAX_COUNT + 1)
BINOMIAL = np.array([[math.comb(n, k) for k in COUNTS_RANGE] for n in COUNTS_RANGE], float)
# The expert's parameters (``policies.hungry.ExpertHungryPolicy`` reads them from here): own
# hand cards go to each of their resorts with chance 1/2, so do unseen cards an opponent will
# hold; a low-star home is worth this much per star below 6 for the H9 tie-break.
OWN_DESTINATION_CHANCE = 0.5
OPPONENT_DESTINATION_CHANCE = 0.5
TIE_BREAK_WEIGHT = 0.05
# Keeps the spread of a settled count difference positive, so that it reads as certain.
_MIN_VARIANCE = 0.01
_LOG_OWN_MISS = math.log(1.0 - OWN_DESTINATION_CHANCE)
_LOGISTIC_SCALE = 1.702
# Values this close count as equal, broken at random (as the expert's pick).
_TIE = 1e-9


@jit
def _beat_each_other(s, t, means, variances, wins):
    """``wins[s, t]`` and ``wins[t, s]``: the normal chance that seat s's count (mean, variance)
    exceeds seat t's by at least 1, and the other way round (one spread serves both)."""
    spread = math.sqrt(variances[s] + variances[t] + _MIN_VARIANCE)
    wins[s, t] = _logistic_beats(means[s], means[t], spread)
    wins[t, s] = _logistic_beats(means[t], means[s], spread)


@jit
def _logistic_beats(mean_a, mean_b, spread):
    """Chance that a count of mean ``mean_a`` exceeds one of mean ``mean_b`` by at least 1, the
    standard deviation of their difference ``spread``."""
    z = (mean_a - mean_b - 0.5) / spread
    # Logistic approximation of the normal distribution function (error below 0.01), several
    # times cheaper than erf in this innermost loop.
    return 1.0 / (1.0 + math.exp(-_LOGISTIC_SCALE * z))


@jit
def _resort_forecast(g, b, resort, num_players, mover, unseen_fit, own_fit, chances,
                     log_misses, work, out):
    """``out[0]``, ``out[1]``: each seat's chance of first and of second place at one resort as
    the table stands (H6, ties score nothing). ``log_misses[s]``: ``log1p(-chances[s])``.
    ``work`` is left holding each seat's count forecast and their chances of beating each
    other, from which :func:`_mover_forecast` derives the resort after the mover's play."""
    means = work[0]
    variances = work[1]
    scores_any = work[2]
    n = unseen_fit[resort]
    for s in range(num_players):
        if s == mover:
            _mover_outlook(g, b, resort, np.int64(0), mover, unseen_fit, own_fit, chances,
                           log_misses, work)
            continue
        count = g[b, COUNTS + s * NUM_RESORTS + resort]
        p = chances[s]
        means[s] = count + p * n
        variances[s] = n * p * (1.0 - p)
        if count > 0:
            scores_any[s] = 1.0
        else:
            # Chance that none of its unseen fitting cards comes here.
            scores_any[s] = 1.0 - math.exp(n * log_misses[s])
    for s in range(num_players):
        for t in range(s + 1, num_players):
            _beat_each_other(s, t, means, variances, work[3:])
    _places(num_players, work, out)


@jit
def _mover_forecast(g, b, resort, shift, num_players, mover, unseen_fit, own_fit, chances,
                    log_misses, work, out):
    """:func:`_resort_forecast`'s ``out`` with the mover's count raised by ``shift`` (1: its play
    goes there) and its fitting hand cards lowered by ``abs(shift)`` (the card played leaves its
    hand), from the ``work`` that :func:`_resort_forecast` left for this resort: the other seats'
    forecasts and chances against each other do not change, so only the mover's are computed
    again (their values are those of the whole computation, bit for bit)."""
    _mover_outlook(g, b, resort, shift, mover, unseen_fit, own_fit, chances, log_misses, work)
    for t in range(num_players):
        if t != mover:
            _beat_each_other(mover, t, work[0], work[1], work[3:])
    _places(num_players, work, out)


@jit
def _mover_outlook(g, b, resort, shift, mover, unseen_fit, own_fit, chances, log_misses, work):
    """``work[0..2][mover]``: the mover's mean final count at one resort, its variance and its
    chance of placing at all, after a play shifted as in :func:`_mover_forecast`: another seat's
    forecast plus its fitting hand cards, each of which comes here with chance 1/2."""
    n = unseen_fit[resort]
    count = g[b, COUNTS + mover * NUM_RESORTS + resort]
    p = chances[mover]
    fit = own_fit[resort] - abs(shift)
    work[0, mover] = count + p * n + (max(shift, 0) + OWN_DESTINATION_CHANCE * fit)
    work[1, mover] = (n * p * (1.0 - p)
                      + OWN_DESTINATION_CHANCE * (1.0 - OWN_DESTINATION_CHANCE) * fit)
    if count + max(shift, 0) > 0:
        work[2, mover] = 1.0
    else:
        # Chance that none of its unseen or own fitting cards comes here.
        work[2, mover] = 1.0 - math.exp(n * log_misses[mover] + fit * _LOG_OWN_MISS)


@jit
def _places(num_players, work, out):
    """``out[0]``, ``out[1]``: each seat's chance of first and of second place from its chance
    of placing at all (``work[2]``) and of beating each other seat (``work[3:]``), taken as
    independent: first beats every other seat, second all but one."""
    scores_any = work[2]
    wins = work[3:]
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


@jit
def _binomial_pmf(n, p, out):
    """``out[k]``: the chance of k successes in n trials of chance p (0 above n)."""
    for k in range(MAX_COUNT + 1):
        out[k] = BINOMIAL[n, k] * p**k * (1.0 - p) ** (n - k) if k <= n else 0.0


@jit
def _resort_exact(g, b, resort, shift, num_players, mover, unseen_fit, own_fit, chances, work,
                  out):
    """:func:`_resort_forecast` with the expert's exact count distributions
    (``policies.hungry.ExpertHungryPolicy``): each seat's count is the table's plus a binomial
    number of the n unseen fitting cards (chance ``chances[s]`` each), the mover's plus another
    of its own fitting cards (chance 1/2 each); first place: above every other seat, second:
    below exactly one, strictly (ties score nothing, H6), from a count of at least 1.
    ``work``: from :func:`forecast_scratch`, (4, MAX_PLAYERS, MAX_COUNT + 1)."""
    pmfs = work[0]  # pmfs[s, k]: chance that seat s ends with k
    below = work[1]  # chance of fewer than k
    above = work[2]  # chance of more than k
    unseen = work[3, 0]
    own = work[3, 1]
    n = unseen_fit[resort]
    for s in range(num_players):
        count = g[b, COUNTS + s * NUM_RESORTS + resort]
        _binomial_pmf(n, chances[s], unseen)
        if s == mover:
            count += max(shift, 0)
            _binomial_pmf(own_fit[resort] - abs(shift), OWN_DESTINATION_CHANCE, own)
            # Its total: the unseen draws plus its own cards (a truncated convolution).
            for k in range(MAX_COUNT, -1, -1):
                total = 0.0
                for j in range(k + 1):
                    total += own[k - j] * unseen[j]
                unseen[k] = total
        cumulative = 0.0
        for k in range(MAX_COUNT + 1):
            chance = unseen[k - count] if k >= count else 0.0
            pmfs[s, k] = chance
            below[s, k] = cumulative
            cumulative += chance
            above[s, k] = 1.0 - cumulative
    for s in range(num_players):
        first = 0.0
        second = 0.0
        for k in range(1, MAX_COUNT + 1):  # a count of 0 never places (H6)
            all_below = 1.0
            one_above = 0.0
            for t in range(num_players):
                if t == s:
                    continue
                all_below *= below[t, k]
                rest_below = 1.0
                for o in range(num_players):
                    if o != s and o != t:
                        rest_below *= below[o, k]
                one_above += above[t, k] * rest_below
            first += pmfs[s, k] * all_below
            second += pmfs[s, k] * one_above
        out[0, s] = first
        out[1, s] = second


@jit
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
# What :func:`forecast_values` reports per play besides its value, when asked: the parts the
# value is made of, from the mover's side ("here": the play's resort; "elsewhere": the card's
# other resort, which loses it as an option).
FORECAST_DETAILS = (
    "own points after",  # the mover's expected points (with the bonus) after the play
    "best other points after",  # the best other seat's
    "own first here after",  # the mover's chance of first place here after the play
    "own first here before",
    "best other first here after",
    "own second here after",
    "own first elsewhere change",  # its chance of first place elsewhere, after minus before
    "first-place points here",  # the resort's worth: stars of a home, 5 for a hotel
    "home here",  # 1 for a holiday home (the bonus and the tie-break count homes), 0 for a hotel
)


@jit_allocating
def forecast_scratch():
    """Working arrays for :func:`forecast_values`, made once per batch of playouts so that the
    compiled loop allocates nothing per move."""
    return (
        np.empty((2, NUM_RESORTS), np.int64),  # unseen and own fitting cards per resort
        np.empty((3 + MAX_PLAYERS, MAX_PLAYERS)),  # one resort's forecast
        np.empty((3, NUM_RESORTS, 2, MAX_PLAYERS)),  # places (below)
        # per seat: chances, points, bonus, log1p(-chance); homes' firsts
        np.empty((6 + NUM_STARS, MAX_PLAYERS)),
        np.empty(NUM_ACTIONS),  # each play's value
        np.empty((0, len(FORECAST_DETAILS))),  # no details
        np.empty((4, MAX_PLAYERS, MAX_COUNT + 1)),  # the expert's count distributions
        np.empty(MAX_PLAYERS, np.int8),  # the greedy player's totals before a tried play
    )


@jit
def forecast_values(g, b, num_players, scratch, values, details):
    """``values[a]``: the forecast value (section docstring) of each legal play a of the mover
    in game b; ``-inf`` where a is not legal. ``details[a]``: the ``FORECAST_DETAILS`` of each
    legal play (zero where not legal), or nothing when ``details`` has no rows.
    ``scratch``: from :func:`forecast_scratch`."""
    _play_values(g, b, num_players, scratch, values, details, False)


@jit
def expert_values(g, b, num_players, scratch, values, details):
    """:func:`forecast_values` with the expert's exact count distributions: the values of
    ``policies.hungry.ExpertHungryPolicy`` (a differential test keeps them equal)."""
    _play_values(g, b, num_players, scratch, values, details, True)


@jit
def _play_values(g, b, num_players, scratch, values, details, exact):
    """The forecast's values (``exact`` false) or the expert's (true), as documented there."""
    # The player count as a constant of each branch: numba compiles the valuation once per
    # literal count, its loops over seats unrolled (playouts about 1.8 times as fast at 4
    # players, the same values; docs/experiments/search_4p.md, "Cheaper playouts").
    if num_players == 2:
        _seat_count_values(g, b, 2, scratch, values, details, exact)
    elif num_players == 3:
        _seat_count_values(g, b, 3, scratch, values, details, exact)
    else:
        _seat_count_values(g, b, 4, scratch, values, details, exact)


@jit
def _seat_count_values(g, b, num_players, scratch, values, details, exact):
    """:func:`_play_values` for one player count."""
    fits, work, places, seats = scratch[:4]
    exact_work = scratch[6]
    unseen_fit = fits[0]
    own_fit = fits[1]
    chances = seats[0]
    standing = seats[1]
    points = seats[2]
    no_home = seats[3]
    one_home = seats[4]
    log_misses = seats[5]
    home_firsts = seats[6:]
    mover = np.int64(g[b, CURRENT])
    hand = HANDS + mover * NUM_CARD_TYPES
    # Unseen from the mover's view: neither played nor in its hand.
    fits[:] = 0
    unseen_total = 0
    for t in range(NUM_CARD_TYPES):
        unseen = COPIES_PER_TYPE - g[b, PLAYED + t] - g[b, hand + t]
        unseen_total += unseen
        unseen_fit[CARD_HOME[t]] += unseen
        unseen_fit[CARD_HOTEL[t]] += unseen
        own_fit[CARD_HOME[t]] += g[b, hand + t]
        own_fit[CARD_HOTEL[t]] += g[b, hand + t]
    left = TOTAL_PLAYS - np.int64(g[b, NUM_PLAYS])
    for s in range(num_players):
        offset = (s - mover) % num_players
        remaining = max(0, (left - offset + num_players - 1) // num_players)
        if s == mover:
            remaining = max(remaining - np.int64(g[b, HAND_SIZES + s]), 0)
        chances[s] = OPPONENT_DESTINATION_CHANCE * remaining / max(unseen_total, 1)
        log_misses[s] = math.log1p(-chances[s])
    # places[variant, resort, first or second, seat]; the played variants only where needed.
    for r in range(NUM_RESORTS):
        if exact:
            _resort_exact(g, b, r, np.int64(0), num_players, mover, unseen_fit, own_fit,
                          chances, exact_work, places[_STANDING, r])
        else:
            _resort_forecast(g, b, r, num_players, mover, unseen_fit, own_fit, chances,
                             log_misses, work, places[_STANDING, r])
        if own_fit[r] > 0:
            for variant in (_PLAYED_HERE, _PLAYED_ELSEWHERE):
                if exact:
                    _resort_exact(g, b, r, _SHIFTS[variant], num_players, mover, unseen_fit,
                                  own_fit, chances, exact_work, places[variant, r])
                else:
                    _mover_forecast(g, b, r, _SHIFTS[variant], num_players, mover,
                                    unseen_fit, own_fit, chances, log_misses, work,
                                    places[variant, r])
    # Points as the table stands, without the bonus; a play changes two resorts' shares.
    standing[:] = 0.0
    for r in range(NUM_RESORTS):
        for s in range(num_players):
            standing[s] += _forecast_resort_points(places[_STANDING, r], r, s)
    with_details = details.shape[0] > 0
    if with_details:
        details[:] = 0.0
    for action in range(NUM_ACTIONS):
        if g[b, hand + (action >> 1)] == 0:
            values[action] = -np.inf
            continue
        here = RESORT_OF_ACTION[action]
        elsewhere = RESORT_OF_ACTION[action ^ 1]
        for s in range(num_players):
            points[s] = (
                standing[s]
                + _forecast_resort_points(places[_PLAYED_HERE, here], here, s)
                - _forecast_resort_points(places[_STANDING, here], here, s)
                + _forecast_resort_points(places[_PLAYED_ELSEWHERE, elsewhere], elsewhere, s)
                - _forecast_resort_points(places[_STANDING, elsewhere], elsewhere, s)
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
        best_other = -np.inf
        for s in range(num_players):
            if s != mover:
                others += points[s]
                best_other = max(best_other, points[s])
        values[action] = points[mover] - others / (num_players - 1)
        if with_details:
            played = places[_PLAYED_HERE, here]
            best_other_first = 0.0
            for s in range(num_players):
                if s != mover:
                    best_other_first = max(best_other_first, played[0, s])
            row = details[action]
            row[0] = points[mover]
            row[1] = best_other
            row[2] = played[0, mover]
            row[3] = places[_STANDING, here, 0, mover]
            row[4] = best_other_first
            row[5] = played[1, mover]
            row[6] = (places[_PLAYED_ELSEWHERE, elsewhere, 0, mover]
                      - places[_STANDING, elsewhere, 0, mover])
            row[7] = FIRST_POINTS[here]
            row[8] = here < NUM_STARS


@jit
def forecast_action(g, b, num_players, rng_state, scratch):
    """The mover's play of best forecast value in game b; ties at random."""
    return _best_play(g, b, num_players, rng_state, scratch, False)


@jit
def expert_action(g, b, num_players, rng_state, scratch):
    """The mover's play of best expert value (:func:`expert_values`) in game b; ties (within
    1e-9, as the Python expert's) at random."""
    return _best_play(g, b, num_players, rng_state, scratch, True)


@jit
def _best_play(g, b, num_players, rng_state, scratch, exact):
    values = scratch[4]
    _play_values(g, b, num_players, scratch, values, scratch[5], exact)
    best_value, best_action, ties = -np.inf, np.int64(-1), np.int64(0)  # as _greedy_action
    for action in range(NUM_ACTIONS):
        if values[action] != -np.inf:
            best_value, best_action, ties = _keep_best(
                values[action], action, best_value, best_action, ties, _TIE, rng_state, b
            )
    return best_action


@jit
def _forecast_resort_points(chances, resort, seat):
    """A seat's expected points at one resort from its (first, second) chances there, with the
    low-star home premium (H9 tie-break)."""
    points = FIRST_POINTS[resort] * chances[0, seat] + chances[1, seat]
    if resort < NUM_STARS:
        points += TIE_BREAK_WEIGHT * (NUM_STARS - resort) * chances[0, seat]
    return points


@jit_allocating
def _forecast_values_of_observations(
    observations, num_players, placed_start, sizes_start, out, details, exact
):
    """Row i of ``out`` (and of ``details``, if it has rows): :func:`forecast_values` (or, if
    ``exact``, :func:`expert_values`) for the observer of ``observations[i]``, from a game row
    rebuilt out of what the observation shows (seat 0 is the observer)."""
    row = np.zeros((1, ROW_SIZE), np.int8)
    game = np.int64(0)  # the row's one game
    scratch = forecast_scratch()
    for i in range(observations.shape[0]):
        obs = observations[i]
        row[0, :] = 0
        plays = 0
        for s in range(num_players):
            for a in range(NUM_ACTIONS):
                placed = np.int64(obs[placed_start + s * NUM_ACTIONS + a])
                row[0, COUNTS + s * NUM_RESORTS + RESORT_OF_ACTION[a]] += placed
                row[0, PLAYED + (a >> 1)] += placed
                plays += placed
        for t in range(NUM_CARD_TYPES):
            row[0, HANDS + t] = np.int64(obs[t])
        row[0, HAND_SIZES] = np.int64(obs[sizes_start])
        row[0, NUM_PLAYS] = plays
        _play_values(row, game, num_players, scratch, out[i],
                     details[i] if details.shape[0] else scratch[5], exact)


def forecast_values_of_observations(observations: np.ndarray, num_players: int,
                                    details: bool = False, exact: bool = False):
    """(B, 50) forecast values of each observer's legal plays (``-inf`` where not legal), from
    a batch of ``hungry_v0`` observation vectors: public information and the observer's hand.
    With ``details``, also their (B, 50, len(FORECAST_DETAILS)) parts, as a second result.
    With ``exact``, the expert's values (:func:`expert_values`) instead."""
    observations = np.ascontiguousarray(observations, dtype=np.float32)
    layout = observation_layout(num_players)
    b = observations.shape[0]
    out = np.empty((b, NUM_ACTIONS))
    parts = np.empty((b if details else 0, NUM_ACTIONS, len(FORECAST_DETAILS)))
    _forecast_values_of_observations(observations, num_players, layout["placed"].start,
                                     layout["hand_sizes"].start, out, parts, exact)
    return (out, parts) if details else out


@jit
def policy_action(g, b, policy_code, num_players, void_tied_second, rng_state, scratch):
    """The action of the batch policy ``policy_code`` (``BatchedPolicy.code``) in game b.

    Compiled without reference counts, as everything it calls: called once a move by the
    batch's loops, it would otherwise count a reference to each of its arrays, and to each of
    ``scratch``'s, in and out of every call (four times the random player's own work)."""
    if policy_code == 0:
        return _random_action(g, b, rng_state)
    if policy_code == 1:
        return _greedy_action(g, b, num_players, void_tied_second, rng_state, scratch[7])
    return _best_play(g, b, num_players, rng_state, scratch, policy_code == 3)


@jit
def _random_actions(g, games, rng_state, out):
    for i in range(games.shape[0]):
        out[i] = _random_action(g, games[i], rng_state)


@jit_allocating
def _policy_actions(g, games, policy_code, num_players, void_tied_second, rng_state, out):
    scratch = forecast_scratch()
    for i in range(games.shape[0]):
        out[i] = policy_action(
            g, games[i], policy_code, num_players, void_tied_second, rng_state, scratch
        )


class BatchedPolicy:
    """A compiled policy for the movers of a :class:`BatchedHungry`: "random", "greedy",
    "forecast" or "expert".

    "random" is uniform over the legal actions. "greedy" plays the legal action that leaves the
    mover the best margin (its total minus the best other total, both as if the game ended after
    the play), ties broken uniformly at random. "forecast" plays the best forecast value (the
    forecast policy section), ties broken uniformly at random; "expert" the best expert value
    (:func:`expert_values`), ties within 1e-9 broken uniformly at random. Each game slot has its own
    random stream, seeded from ``seed``, so a slot's choices do not depend on the other slots.
    """

    def __init__(self, kind: str, batch_size: int, seed: int | None = None):
        if kind not in POLICY_KINDS:
            raise ValueError(f"batched policy must be one of {POLICY_KINDS}, got {kind!r}")
        self.kind = kind
        self.code = POLICY_CODES[kind]
        self.rng_state = np.random.SeedSequence(seed).generate_state(batch_size, np.uint64)
        self._actions = np.zeros(batch_size, np.int64)

    def act(self, batch: BatchedHungry, games=None) -> np.ndarray:
        """Actions of the movers of ``games`` (default: all), in a reused int64 array."""
        games = batch.all_games if games is None else np.asarray(games, dtype=np.int64)
        out = self._actions[: games.shape[0]]
        if self.code == POLICY_CODES["random"]:  # no scratch to allocate: half the call's cost
            _random_actions(batch.games, games, self.rng_state, out)
            return out
        _policy_actions(
            batch.games,
            games,
            self.code,
            batch.num_players,
            batch.void_tied_second,
            self.rng_state,
            out,
        )
        return out


def greedy_actions(batch: BatchedHungry, seed: int | None = 0) -> np.ndarray:
    """The greedy policy's action in every game of ``batch`` (see :class:`BatchedPolicy`)."""
    return BatchedPolicy("greedy", batch.batch_size, seed).act(batch).copy()
