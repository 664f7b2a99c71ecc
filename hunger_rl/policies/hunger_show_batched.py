"""Compiled HUNGER opponents for :class:`~hunger_rl.engines.hunger_show.batched.BatchedShow`.

The scripted players of :mod:`hunger_rl.policies.hunger_show` (random, greedy, crowd, expert)
re-implemented as compiled loops over the observation vectors of a whole batch, every seat of
every show at once, each seat with its own kind (mixed tables). Their action values are those of
the Python players (:func:`crowd_values` here equals ``hunger_show.crowd_values`` up to float
rounding, a test checks it); only the random draws differ: ties and the expert's softened pick
come from a per-show SplitMix64 stream instead of NumPy's generator, so the compiled expert picks
from the same distribution as the Python one but not the same sample.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import jit, jit_allocating, random_uniform
from hunger_rl.engines.hunger_show.observation import NUM_CHOICES, observation_layout
from hunger_rl.policies.hunger_show import (
    CROWD_REPLY_ROUNDS,
    HISTORY_SHARE,
    MEAN_COCONUT,
    MEAN_FRUIT,
    MEAN_RAFT_UNITS,
    PRIOR_PICKS,
    RAFT_SET_WORTH,
    RECENT_WEIGHT,
    REPLY_ROUNDS,
    SUPPER_COST,
    TEMPERATURE,
)

POLICY_KINDS = ("random", "greedy", "crowd", "expert")
LEARNER = -1  # a seat the batch policy leaves alone
FRUIT, CHICKEN, RAFT, THIEF, GUARD = range(5)
NUM_ACTS, NUM_PLACES = 5, 4
_CAN_VALUES = np.array([1.0, 2.0, 3.0, 4.0])
_FRUIT_VALUES = np.array([2.0, 3.0])
_CHICKEN_VALUES = np.array([1.0, 2.0, 4.0])
_COCONUT_VALUES = np.array([0.0, 1.0, 2.0])
_MEAN_FOOD = MEAN_FRUIT  # fruit and chicken have the same mean (46/18)
CROWD_SIZE = 2 * NUM_CHOICES + 2 * NUM_PLACES
# The reply rounds as int64 rather than Python ints, which numba types as literals and compiles
# crowd_values (the bulk of this module's compile time) once per value for.
_CROWD_ROUNDS, _EXPERT_ROUNDS = np.int64(CROWD_REPLY_ROUNDS), np.int64(REPLY_ROUNDS)
# The crowd values, the expert's every decision, run without reference counts (``jit``) and
# without temporaries: their scratch comes from the batch loop (``crowd_scratch``). The rest
# keeps numba's reference counts (``jit_allocating``), as their whole-array expressions may
# allocate.


def layout_offsets(num_players: int) -> np.ndarray:
    """Starts of the observation's slices the players read."""
    layout = observation_layout(num_players)
    names = ("own_cans", "own_fruit", "own_chicken", "own_coconuts", "own_raft_units",
             "token_counts", "alive", "day", "piles", "events_left", "last_choices")
    return np.array([layout[name].start for name in names], np.int64)


# -- ties ------------------------------------------------------------------------------------


@jit_allocating
def _pick_best(values, actions, count, rng, slot):
    """A uniformly random one of the actions whose value is within 1e-9 of the best."""
    best = values[:count].max()
    ties = 0
    for i in range(count):
        ties += values[i] >= best - 1e-9
    chosen = int(random_uniform(rng, slot) * ties)
    for i in range(count):
        if values[i] >= best - 1e-9:
            if chosen == 0:
                return actions[i]
            chosen -= 1
    return actions[count - 1]


# -- the view of one observation ---------------------------------------------------------------


@jit
def _food_weight(food, events_left):
    needed = SUPPER_COST * events_left
    shortfall = needed - food
    if shortfall <= 0:
        return 0.1
    return 1.0 + 2.0 * shortfall / max(needed, 1.0)


@jit
def _raft_token_value(rope, log):
    sets = min(rope, log)
    gains = 0.0
    for kind in range(2):
        for units in (1, 2):
            gains += min(rope + units * (kind == 0), log + units * (kind == 1)) - sets
    return gains / 4 + 0.3 * MEAN_RAFT_UNITS


@jit
def _own_food(obs, offsets):
    food = 0.0
    for i in range(4):
        food += obs[offsets[0] + i] * _CAN_VALUES[i]
    for i in range(2):
        food += obs[offsets[1] + i] * _FRUIT_VALUES[i]
    for i in range(3):
        food += obs[offsets[2] + i] * _CHICKEN_VALUES[i]
        food += obs[offsets[3] + i] * _COCONUT_VALUES[i]
    return food


@jit
def _pile(obs, offsets, location, kind):
    return 0.0 if location == 0 else obs[offsets[8] + (location - 1) * 3 + kind]


@jit_allocating
def _legal(masks, b, seat, actions):
    """The legal actions of ``masks[b, seat]`` into ``actions``; their count. (Indexing the
    batch here, not a view of it: views cost reference counting in the loop that calls.)"""
    count = 0
    for a in range(NUM_CHOICES):
        if masks[b, seat, a]:
            actions[count] = a
            count += 1
    return count


@jit_allocating
def greedy_values(obs, offsets, actions, count, values):
    """``GreedyShowPolicy``'s values of ``actions[:count]``."""
    events_left = obs[offsets[9]]
    food_weight = _food_weight(_own_food(obs, offsets), events_left)
    raft_value = _raft_token_value(int(obs[offsets[4]]), int(obs[offsets[4] + 1]))
    for i in range(count):
        location, act = divmod(actions[i], NUM_ACTS)
        if act >= THIEF:  # thief or guard
            values[i] = 2 * MEAN_COCONUT * food_weight
        elif location == 0:
            values[i] = 0.0
        else:
            drawn = min(2.0, _pile(obs, offsets, location, act))
            values[i] = drawn * (raft_value if act == RAFT else _MEAN_FOOD * food_weight)


# -- the crowd values (hunger_show.crowd_values) -----------------------------------------------


@jit
def _softmax_into(values, count, out, actions):
    top = values[0]  # a loop, not values[:count].max(): numba's max needs reference counts
    for i in range(1, count):
        top = max(top, values[i])
    total = 0.0
    for i in range(count):  # each exponential once, kept in out until the total is known
        weight = np.exp((values[i] - top) / TEMPERATURE)
        out[actions[i]] = weight
        total += weight
    for i in range(count):
        out[actions[i]] /= total


@jit
def _values(obs, offsets, n, seat, food_weight, raft_value, forecast, actions, count, out,
            nobody, exactly_one, thief_risk, guard_risk):
    """``hunger_show._values``: ``seat``'s values of the actions against the other seats'
    forecast picks (the rows of ``forecast`` but ``seat``'s); the ``hunger_show.Crowd`` numbers
    behind them go to the last four. Scalar loops in the order the whole-array expressions
    they replaced summed and multiplied, so the values are those bit for bit, without the
    temporaries that cost the expert most of its time."""
    counts = offsets[5]
    richest_raft = 0.0
    for s in range(n):
        if s != seat:
            richest_raft = max(richest_raft, obs[counts + 5 * s + RAFT])
    for a in range(NUM_CHOICES):
        none = 1.0
        one = 0.0
        for i in range(n):
            if i != seat:
                none *= 1.0 - forecast[i, a]
                term = forecast[i, a]
                for j in range(n):
                    if j != seat and j != i:
                        term *= 1.0 - forecast[j, a]
                one += term
        nobody[a] = none
        exactly_one[a] = one
    everyone = 0.0  # all of the others' pick chances (the campsite guard's gatherers)
    for s in range(n):
        if s != seat:
            for a in range(NUM_CHOICES):
                everyone += forecast[s, a]
    for location in range(NUM_PLACES):
        no_thief = 1.0
        no_guard = 1.0
        for s in range(n):
            if s != seat:
                no_thief *= 1.0 - forecast[s, location * NUM_ACTS + THIEF]
                no_guard *= 1.0 - forecast[s, location * NUM_ACTS + GUARD]
        thief_risk[location] = 1.0 - no_thief
        guard_risk[location] = 1.0 - no_guard
    token_worth = (raft_value + MEAN_FRUIT * food_weight) / 2
    for i in range(count):
        action = actions[i]
        location, act = divmod(action, NUM_ACTS)
        base = location * NUM_ACTS
        alone, shared = nobody[action], exactly_one[action]
        if act == THIEF:
            if location == 0:
                loot = 2 * token_worth if richest_raft > 0 else token_worth
            else:
                loot = 0.0
                for kind in range(3):
                    here = 0.0
                    for s in range(n):
                        if s != seat:
                            here += forecast[s, base + kind]
                    worth = raft_value if kind == RAFT else _MEAN_FOOD * food_weight
                    loot += here * min(1.5, _pile(obs, offsets, location, kind)) * worth
                loot = max(loot, 2 * MEAN_COCONUT * food_weight)
            caught = guard_risk[location] * 2 * token_worth
            out[i] = (alone + shared / 2) * (loot * (1 - guard_risk[location])) - caught
        elif act == GUARD:
            thieves = 0.0
            gatherers = 0.0
            for s in range(n):
                if s != seat:
                    thieves += forecast[s, base + THIEF]
                    if location != 0:
                        for kind in range(3):
                            gatherers += forecast[s, base + kind]
            if location == 0:
                gatherers = everyone - thieves
            catch = thieves * 2 * token_worth + thief_risk[location] * gatherers * token_worth
            coconuts = (1 - thief_risk[location]) * 2 * MEAN_COCONUT * food_weight
            out[i] = (alone + shared / 2) * (catch + coconuts)
        elif location == 0:
            out[i] = 0.0
        else:
            pile = _pile(obs, offsets, location, act)
            drawn = min(2.0, pile) * alone + min(1.0, pile) * shared
            worth = raft_value if act == RAFT else _MEAN_FOOD * food_weight
            stolen = thief_risk[location] * (1 - guard_risk[location])
            gift = guard_risk[location] * (1 - stolen) * token_worth * 0.5
            out[i] = drawn * worth * (1 - stolen) - gift


@jit_allocating
def _habits_from_counts(obs, offsets, n, actions, count, picks, habits):
    alive = offsets[6]
    habits[:] = picks
    for s in range(n):
        for i in range(count):
            habits[s, actions[i]] += PRIOR_PICKS / count
        habits[s] /= habits[s].sum()
        if s == 0 or obs[alive + s] == 0:
            habits[s] = 0.0


@jit_allocating
def _revealed_picks(obs, offsets, n, picks):
    choices = offsets[10]
    picks[:] = 0.0
    for s in range(n):
        row = obs[choices + 9 * s:choices + 9 * s + 9]
        if row.any():
            picks[s, np.argmax(row[:4]) * NUM_ACTS + np.argmax(row[4:])] = 1.0


@jit_allocating
def crowd_scratch(num_players):
    """What :func:`crowd_values` works in: the forecast, the replies, one seat's values, and
    each seat's food weight and raft token value."""
    return (np.empty((num_players, NUM_CHOICES)), np.empty((num_players, NUM_CHOICES)),
            np.empty(NUM_CHOICES), np.empty(num_players), np.empty(num_players))


@jit
def crowd_values(obs, offsets, n, actions, count, habits, rounds, out, crowd, scratch):
    """``hunger_show.crowd_values`` of one observation into ``out[:count]``; the observer's
    ``Crowd`` numbers into ``crowd`` (nobody, exactly one: 20 each; thief, guard risk: 4).
    ``scratch``: :func:`crowd_scratch`."""
    forecast, replies, values, food_weights, raft_values = scratch
    nobody, exactly_one = crowd[:NUM_CHOICES], crowd[NUM_CHOICES:2 * NUM_CHOICES]
    thief_risk = crowd[2 * NUM_CHOICES:2 * NUM_CHOICES + NUM_PLACES]
    guard_risk = crowd[2 * NUM_CHOICES + NUM_PLACES:]
    counts, alive = offsets[5], offsets[6]
    events_left = obs[offsets[9]]
    food_weights[0] = _food_weight(_own_food(obs, offsets), events_left)
    raft_values[0] = RAFT_SET_WORTH * _raft_token_value(int(obs[offsets[4]]),
                                                        int(obs[offsets[4] + 1]))
    for s in range(1, n):
        c = counts + 5 * s
        food = ((obs[c + 0] + obs[c + 1]) * MEAN_FRUIT + obs[c + 3] * 2.5
                + obs[c + 4] * MEAN_COCONUT)
        units = int(np.rint(obs[c + 2] * MEAN_RAFT_UNITS / 2))  # Python's round: half to even
        food_weights[s] = _food_weight(food, events_left)
        raft_values[s] = RAFT_SET_WORTH * _raft_token_value(units, units)
    for s in range(n):
        for a in range(NUM_CHOICES):
            forecast[s, a] = habits[s, a]
    for i in range(count):
        forecast[0, actions[i]] = 1.0 / count
    for _ in range(rounds):
        for s in range(n):
            for a in range(NUM_CHOICES):
                replies[s, a] = 0.0
            if obs[alive + s]:
                _values(obs, offsets, n, s, food_weights[s], raft_values[s], forecast,
                        actions, count, values, nobody, exactly_one, thief_risk, guard_risk)
                _softmax_into(values, count, replies[s], actions)
        for s in range(n):  # the forecast moves halfway to the situational picks: the replies
            for a in range(NUM_CHOICES):  # mixed with the habits (the observer: its replies)
                situational = replies[s, a] if s == 0 else (
                    (1 - HISTORY_SHARE) * replies[s, a] + HISTORY_SHARE * habits[s, a])
                forecast[s, a] = 0.5 * forecast[s, a] + 0.5 * situational
    for s in range(n):
        if obs[alive + s] == 0:
            for a in range(NUM_CHOICES):
                forecast[s, a] = 0.0
    # np.int64: a literal 0 would have numba compile a second copy of _values for it.
    _values(obs, offsets, n, np.int64(0), food_weights[0], raft_values[0], forecast, actions,
            count, out, nobody, exactly_one, thief_risk, guard_risk)


# -- the batch ---------------------------------------------------------------------------------


@jit_allocating
def _act_all(observations, masks, kinds, offsets, rng, pick_counts, last_day, out):
    """An action for every (show, seat) whose kind is not LEARNER and whose mask allows one;
    the expert's memory (``pick_counts``, ``last_day``) is kept per (show, seat)."""
    shows, n = kinds.shape
    actions = np.empty(NUM_CHOICES, np.int64)
    values = np.empty(NUM_CHOICES)
    habits = np.empty((n, NUM_CHOICES))
    picks = np.empty((n, NUM_CHOICES))
    crowd = np.empty(CROWD_SIZE)
    scratch = crowd_scratch(n)
    probabilities = np.zeros(NUM_CHOICES)
    for b in range(shows):
        for seat in range(n):
            kind = kinds[b, seat]
            count = _legal(masks, b, seat, actions)
            if kind == LEARNER or count == 0:
                continue
            if kind == 0:
                out[b, seat] = actions[int(random_uniform(rng, b) * count)]
                continue
            obs = observations[b, seat]
            if kind == 1:
                greedy_values(obs, offsets, actions, count, values)
                out[b, seat] = _pick_best(values, actions, count, rng, b)
            elif kind == 2:
                _revealed_picks(obs, offsets, n, picks)
                _habits_from_counts(obs, offsets, n, actions, count, picks, habits)
                crowd_values(obs, offsets, n, actions, count, habits, _CROWD_ROUNDS, values,
                             crowd, scratch)
                out[b, seat] = _pick_best(values, actions, count, rng, b)
            else:
                day = obs[offsets[7]]
                memory = pick_counts[b, seat]
                if day < last_day[b, seat]:
                    memory[:] = 0.0
                if day > last_day[b, seat] and day > 0:
                    _revealed_picks(obs, offsets, n, picks)
                    memory *= 1.0 / RECENT_WEIGHT
                    memory += picks
                last_day[b, seat] = day
                _habits_from_counts(obs, offsets, n, actions, count, memory, habits)
                crowd_values(obs, offsets, n, actions, count, habits, _EXPERT_ROUNDS, values,
                             crowd, scratch)
                probabilities[:] = 0.0
                _softmax_into(values, count, probabilities, actions)
                draw = random_uniform(rng, b)
                chosen = actions[count - 1]
                for i in range(count):
                    draw -= probabilities[actions[i]]
                    if draw < 0:
                        chosen = actions[i]
                        break
                out[b, seat] = chosen


@jit_allocating
def _crowd_features(observations, offsets, n, scale, out):
    """``policies.models.encoders.ShowEncoder``'s crowd block of every observation (one row each):
    per action its value minus the best, nobody, exactly one, thief risk, guard risk (zeros
    where not legal), then the best value; values divided by ``scale``."""
    actions = np.empty(NUM_CHOICES, np.int64)
    count = n_legal = 5 * (2 + (n >= 3) + (n >= 5))
    for a in range(n_legal):
        actions[a] = a
    values = np.empty(NUM_CHOICES)
    habits = np.empty((n, NUM_CHOICES))
    picks = np.empty((n, NUM_CHOICES))
    crowd = np.empty(CROWD_SIZE)
    scratch = crowd_scratch(n)
    out[:] = 0.0
    for k in range(len(observations)):
        obs = observations[k]
        _revealed_picks(obs, offsets, n, picks)
        _habits_from_counts(obs, offsets, n, actions, count, picks, habits)
        crowd_values(obs, offsets, n, actions, count, habits, _CROWD_ROUNDS, values, crowd,
                     scratch)
        best = values[:count].max()
        for a in range(count):
            location = a // NUM_ACTS
            out[k, 5 * a] = (values[a] - best) / scale
            out[k, 5 * a + 1] = crowd[a]
            out[k, 5 * a + 2] = crowd[NUM_CHOICES + a]
            out[k, 5 * a + 3] = crowd[2 * NUM_CHOICES + location]
            out[k, 5 * a + 4] = crowd[2 * NUM_CHOICES + NUM_PLACES + location]
        out[k, 5 * NUM_CHOICES] = best / scale


def crowd_features(observations: np.ndarray, num_players: int, scale: float) -> np.ndarray:
    """The crowd block of ``ShowEncoder`` for a (K, D) batch of observations, compiled."""
    observations = np.asarray(observations, np.float32)
    out = np.empty((len(observations), 5 * NUM_CHOICES + 1), np.float32)
    _crowd_features(observations, layout_offsets(num_players), num_players, float(scale), out)
    return out


class BatchedShowPolicies:
    """Compiled players for every seat of a batch: ``kinds[b, p]`` names seat p's player in
    show b (one of ``POLICY_KINDS``, or None for a seat played from outside, the learner's).

    ``act(observations, masks)`` takes a :class:`BatchedShow`'s (B, N, ...) outputs and returns
    (B, N) actions; seats left alone or without a legal action get 0.
    """

    def __init__(self, kinds, num_players: int, seed: int | None = None):
        codes = np.array([[LEARNER if k is None else _kind_code(k) for k in row] for row in kinds],
                         np.int64)
        if codes.ndim != 2 or codes.shape[1] != num_players:
            raise ValueError(f"kinds must be one row of {num_players} per show")
        self.kinds = codes
        self.num_players = num_players
        self.offsets = layout_offsets(num_players)
        shows = len(codes)
        start = np.random.SeedSequence(seed).generate_state(shows, np.uint64)
        self.rng = start.astype(np.uint64)
        self.pick_counts = np.zeros((shows, num_players, num_players, NUM_CHOICES))
        self.last_day = np.full((shows, num_players), -1.0)
        self.actions = np.zeros((shows, num_players), np.int64)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.actions[:] = 0
        _act_all(observations, masks, self.kinds, self.offsets, self.rng, self.pick_counts,
                 self.last_day, self.actions)
        return self.actions


def _kind_code(kind: str) -> int:
    if kind not in POLICY_KINDS:
        raise ValueError(f"the batched HUNGER players are {list(POLICY_KINDS)}, not {kind!r}")
    return POLICY_KINDS.index(kind)
