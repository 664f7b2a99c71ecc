"""Scripted policies for HUNGER: The Show, reading only the player's own observation.

The observation holds the public table (piles, token counts per category, yesterday's choices,
the event deck size) and the player's own tokens; :class:`ShowView` names its parts. Memory of
earlier days comes only from observations seen before, so a policy object serves one seat of one
game at a time and forgets everything on :meth:`Policy.reset`.

In the full-decision mode (``decision_mode="agents"``) the greedy, expert and crowd players make
their daily pick as in the default mode and every other choice by the S19 rules: they play the
observation's ``rule_action`` (the engine's ``DefaultDecisions`` through the action encoding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hunger_rl.engines.hunger_show import MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.hunger_show.full_decisions import NUM_PICKS
from hunger_rl.engines.hunger_show.observation import full_observation_layout, observation_layout
from hunger_rl.engines.hunger_show.tokens import (
    CAMPSITE,
    CHICKEN,
    FRUIT,
    GUARD,
    NUM_ACTIONS,
    NUM_LOCATIONS,
    RAFT,
    THIEF,
)
from hunger_rl.policies.base import Observation, Policy, legal_actions

SUPPER_COST = 4  # food value eaten by every living player each evening (S15)
# Mean value of a token drawn from a full supply (S2): fruit 8x2 + 10x3, chicken 6x1 + 4x2 +
# 8x4, raft units 12x1 + 12x2, coconuts 8x0 + 18x1 + 4x2.
MEAN_FRUIT, MEAN_CHICKEN, MEAN_RAFT_UNITS, MEAN_COCONUT = 46 / 18, 46 / 18, 1.5, 26 / 30
MEAN_FOOD = {FRUIT: MEAN_FRUIT, CHICKEN: MEAN_CHICKEN}
# Columns of the per-player public token counts.
COUNT_FRUIT, COUNT_CHICKEN, COUNT_RAFT, COUNT_CAN, COUNT_COCONUT = range(5)


@dataclass(frozen=True)
class ShowView:
    """The parts of one player's observation, seats relative to the observer (seat 0)."""

    num_players: int
    food: float  # own food value: cans, fruit, chicken, coconuts
    rope_units: int
    log_units: int
    token_counts: np.ndarray  # (seat, category): fruit, chicken, raft, can, coconut
    alive: np.ndarray
    day: int
    piles: np.ndarray  # (location 1-3, kind): tokens left in the fruit, chicken, raft piles
    events_left: int
    last_choices: np.ndarray  # (seat, 9): one-hot location (4), one-hot act (5); zeros if none

    @classmethod
    def from_observation(cls, observation: Observation) -> ShowView:
        vector = np.asarray(observation["observation"])
        num_players = _num_players(vector.size, full_decisions="rule_action" in observation)
        layout = observation_layout(num_players)
        food = (
            vector[layout["own_cans"]] @ np.array([1, 2, 3, 4])
            + vector[layout["own_fruit"]] @ np.array([2, 3])
            + vector[layout["own_chicken"]] @ np.array([1, 2, 4])
            + vector[layout["own_coconuts"]] @ np.array([0, 1, 2])
        )
        rope, log = vector[layout["own_raft_units"]].astype(int)
        return cls(
            num_players=num_players,
            food=float(food),
            rope_units=int(rope),
            log_units=int(log),
            token_counts=vector[layout["token_counts"]].reshape(num_players, 5),
            alive=vector[layout["alive"]].astype(bool),
            day=int(vector[layout["day"]][0]),
            piles=vector[layout["piles"]].reshape(3, 3),
            events_left=int(vector[layout["events_left"]][0]),
            last_choices=vector[layout["last_choices"]].reshape(num_players, 9),
        )

    def pile(self, location: int, kind: int) -> int:
        return 0 if location == CAMPSITE else int(self.piles[location - 1, kind])

    def food_needed(self) -> float:
        """Food for every supper the show may still hold (one per event card left)."""
        return SUPPER_COST * self.events_left

    def raft_token_value(self) -> float:
        """Expected gain in raft sets from one random raft token (rope or log, 1 or 2 units),
        plus a small share for the leftover units that break ties and build later sets."""
        sets = min(self.rope_units, self.log_units)
        gains = [
            min(self.rope_units + units * (kind == 0), self.log_units + units * (kind == 1)) - sets
            for kind in (0, 1)
            for units in (1, 2)
        ]
        return float(np.mean(gains)) + 0.3 * MEAN_RAFT_UNITS


def _num_players(size: int, full_decisions: bool = False) -> int:
    """The player count of an observation vector of ``size`` entries. The two modes' lengths
    overlap (the full-decision vector of 3 players is as long as the default one of 5), so the
    mode comes from the observation's keys."""
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if size == (full_observation_layout(players)["counterpart"].stop if full_decisions
                    else observation_layout(players)["character"].stop):
            return players
    mode = "full-decision" if full_decisions else "default-mode"
    raise ValueError(f"a vector of length {size} is not a {mode} hunger_show_v0 observation")


def rule_step(observation: Observation) -> int | None:
    """In the full-decision mode, the S19 rule's action for a step other than the daily pick;
    None for the daily pick (and in the default mode)."""
    if "rule_action" not in observation or np.asarray(observation["action_mask"])[:NUM_PICKS].any():
        return None
    return int(np.flatnonzero(observation["rule_action"])[0])


def _food_weight(view: ShowView) -> float:
    """Worth of one food point: high while the player cannot pay for the suppers ahead, low
    once it can (spare food only breaks ties, S17)."""
    shortfall = view.food_needed() - view.food
    if shortfall <= 0:
        return 0.1
    return 1.0 + 2.0 * shortfall / max(view.food_needed(), 1.0)


class GreedyShowPolicy(Policy):
    """One-step greedy: the pick whose yield would be best if the player were alone there.

    Alone, a gatherer draws 2 tokens (fewer if the pile is short), a thief or guard draws 2
    coconuts (the Campsite thief steals 2 tokens of unknown kind, valued like coconuts). Food
    is weighed by how far the player is from paying for the suppers still possible, raft tokens
    by their expected gain in raft sets; ties are broken at random.
    """

    name = "greedy"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        if (step := rule_step(observation)) is not None:
            return step
        view = ShowView.from_observation(observation)
        actions = legal_actions(observation)
        food_weight = _food_weight(view)
        raft_value = view.raft_token_value()
        values = np.empty(actions.size)
        for i, action in enumerate(actions):
            location, act = divmod(int(action), NUM_ACTIONS)
            if act in (THIEF, GUARD):
                values[i] = 2 * MEAN_COCONUT * food_weight
            elif location == CAMPSITE:
                values[i] = 0.0
            else:
                drawn = min(2, view.pile(location, act))
                worth = raft_value if act == RAFT else MEAN_FOOD[act] * food_weight
                values[i] = drawn * worth
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(actions[best[rng.integers(best.size)]])


class ExpertShowPolicy(Policy):
    """Crowd-aware expected-value player that stays robust when many copies share a table.

    - Food safety first: food counts for little once the player holds enough for every supper
      still possible (one per event card left), and for much more while it does not.
    - Raft completion: a raft token is worth its expected gain in raft sets given the player's
      rope and log units, scaled by what a set is worth against food (sets decide the winner,
      S17), which favours the pile that balances its raft.
    - End-of-show pressure: as the event deck runs down, food needs fall, so raft gathering and
      raft theft take over.
    - Thief and guard timing: a thief's expected loot is what the others are forecast to gather
      at that location, and at the Campsite the tokens of the richest raft holder; it is weighed
      against the chance of meeting a guard (losing up to 2 tokens). A guard gains from the
      thieves it expects and from every gatherer who must give it a token; gatherers count the
      loss to a thief or the gift to a guard at their location.
    - Crowd anticipation: every living player, the observer included, is modelled as playing a
      softened best reply (a softmax over its action values) to the others' forecast picks. A
      rival's values use its public holdings (token counts by category), so the model covers
      players in the same situation, copies of this policy included, that would all rush to the
      same best pick (3+ performers cancel, S8). A few damped rounds of this reply settle on
      a spread-out forecast, mixed with each rival's revealed past picks (a frequency count with
      a uniform prior) so that players who keep their habits are read as such.
    - Mixed play: the pick is drawn with the seeded rng from the same softened best reply, so
      copies of this policy spread over near-equal options instead of cancelling each other,
      while clearly worse actions are almost never chosen.
    """

    name = "expert"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._pick_counts: np.ndarray | None = None
        self._last_day = -1

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        if (step := rule_step(observation)) is not None:
            return step
        view = ShowView.from_observation(observation)
        actions = legal_actions(observation)
        values, _ = crowd_values(view, actions, self._habits(view, actions), REPLY_ROUNDS)
        return int(actions[rng.choice(actions.size, p=_softmax(values / TEMPERATURE))])

    def _habits(self, view: ShowView, actions: np.ndarray) -> np.ndarray:
        """(seat, action) frequencies of each living rival's revealed picks, recent ones
        weighing more, uniform prior."""
        if self._pick_counts is None or view.day < self._last_day:
            self._pick_counts = np.zeros((view.num_players, NUM_ACTIONS * NUM_LOCATIONS))
        if view.day > self._last_day and view.day > 0:
            self._pick_counts *= 1.0 / RECENT_WEIGHT
            self._pick_counts += _revealed_picks(view)
        self._last_day = view.day
        return _habits_from_counts(view, actions, self._pick_counts)


class CrowdShowPolicy(Policy):
    """The argmax of the crowd values (:func:`crowd_player_values`): the expert's valuation with
    one round of replies instead of four, against the rivals' picks of yesterday only. The
    expert keeps out of the pick it expects everyone to rush to; this player, expecting less
    crowding, takes it. Memoryless; ties are broken at random."""

    name = "crowd"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        if (step := rule_step(observation)) is not None:
            return step
        view = ShowView.from_observation(observation)
        actions = legal_actions(observation)
        values, _ = crowd_player_values(view, actions)
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return int(actions[best[rng.integers(best.size)]])


# The expert's settings (see its docstring).
PRIOR_PICKS = 1.0  # pseudo-count of the uniform prior over a rival's revealed picks
RECENT_WEIGHT = 2.0  # yesterday's pick counts this much more than older ones
HISTORY_SHARE = 0.3  # weight of revealed habits against the situational forecast
RAFT_SET_WORTH = 3.0  # food points one raft set is worth while food is still needed
TEMPERATURE = 0.6  # value gap (in food points) that makes a pick e times less likely
REPLY_ROUNDS = 4  # damped rounds of softened best replies behind the forecast
CROWD_REPLY_ROUNDS = 1  # the crowd values' rounds (CrowdShowPolicy, the HUNGER action scorer)


def crowd_player_values(view: ShowView, actions: np.ndarray) -> tuple[np.ndarray, Crowd]:
    """The crowd values of ``actions`` (and the pick chances behind them), from one
    observation: :func:`crowd_values` with :func:`recent_habits` and ``CROWD_REPLY_ROUNDS``."""
    return crowd_values(view, actions, recent_habits(view, actions), CROWD_REPLY_ROUNDS)


def recent_habits(view: ShowView, actions: np.ndarray) -> np.ndarray:
    """Habits as :class:`ExpertShowPolicy` keeps them, from yesterday's picks alone: what a
    player without memory reads from one observation."""
    return _habits_from_counts(view, actions, _revealed_picks(view))


def _revealed_picks(view: ShowView) -> np.ndarray:
    """(seat, action) one-hot of yesterday's revealed picks (zero rows for players without)."""
    picks = np.zeros((view.num_players, NUM_ACTIONS * NUM_LOCATIONS))
    for seat, choice in enumerate(view.last_choices):
        if choice.any():
            location, act = int(choice[:4].argmax()), int(choice[4:].argmax())
            picks[seat, location * NUM_ACTIONS + act] = 1.0
    return picks


def _habits_from_counts(view: ShowView, actions: np.ndarray, counts: np.ndarray) -> np.ndarray:
    counts = counts.copy()
    counts[:, actions] += PRIOR_PICKS / actions.size
    habits = counts / counts.sum(axis=1, keepdims=True)
    habits[0] = 0.0
    habits[~view.alive] = 0.0
    return habits


def crowd_values(
    view: ShowView, actions: np.ndarray, habits: np.ndarray, reply_rounds: int
) -> tuple[np.ndarray, Crowd]:
    """The observer's values of ``actions`` and the others' forecast pick chances behind them.

    Every living player, the observer included, plays a softened best reply to the others'
    forecast picks; ``reply_rounds`` damped rounds of it, mixed with ``habits``, make the
    forecast.
    """
    outlooks = [_own_outlook(view, RAFT_SET_WORTH)] + [
        _rival_outlook(view, seat, RAFT_SET_WORTH) for seat in range(1, view.num_players)
    ]
    living = np.flatnonzero(view.alive)
    forecast = habits.copy()
    forecast[0, actions] = 1.0 / actions.size
    for _ in range(reply_rounds):
        replies = np.zeros_like(forecast)
        for seat in living:
            values, _ = _values(view, seat, outlooks[seat], forecast, actions)
            replies[seat, actions] = _softmax(values / TEMPERATURE)
        situational = (1 - HISTORY_SHARE) * replies + HISTORY_SHARE * habits
        situational[0] = replies[0]  # the observer has no need to guess its own habits
        forecast = 0.5 * forecast + 0.5 * situational
    forecast[~view.alive] = 0.0
    return _values(view, 0, outlooks[0], forecast, actions)


def _values(
    view: ShowView, seat: int, outlook: _Outlook, forecast: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, Crowd]:
    """Values of ``actions`` for ``seat`` against the other seats' forecast picks."""
    others = np.delete(forecast, seat, axis=0)
    richest_raft = np.delete(view.token_counts[:, COUNT_RAFT], seat).max(initial=0)
    crowd = Crowd(others)
    values = np.array(
        [_action_value(view, int(a), outlook, crowd, richest_raft > 0) for a in actions]
    )
    return values, crowd


@dataclass(frozen=True)
class _Outlook:
    """How one player weighs tokens: a food point and one raft token of unknown kind."""

    food_weight: float
    raft_value: float


def _own_outlook(view: ShowView, raft_set_worth: float) -> _Outlook:
    return _Outlook(_food_weight(view), raft_set_worth * view.raft_token_value())


def _rival_outlook(view: ShowView, seat: int, raft_set_worth: float) -> _Outlook:
    """A rival's outlook estimated from its public token counts: values taken at their means and
    raft units split evenly between rope and log."""
    fruit, chicken, raft, cans, coconuts = view.token_counts[seat]
    food = (fruit + chicken) * MEAN_FRUIT + cans * 2.5 + coconuts * MEAN_COCONUT
    units = raft * MEAN_RAFT_UNITS / 2
    rival = ShowView(
        num_players=view.num_players,
        food=float(food),
        rope_units=round(units),
        log_units=round(units),
        token_counts=view.token_counts,
        alive=view.alive,
        day=view.day,
        piles=view.piles,
        events_left=view.events_left,
        last_choices=view.last_choices,
    )
    return _own_outlook(rival, raft_set_worth)


class Crowd:
    """What one player's action values need of the others' (seat, action) pick chances, for
    every action at once: the chance that nobody else, or exactly one other, makes the same
    pick, and per location the risk of meeting a thief or a guard."""

    def __init__(self, others: np.ndarray):
        self.others = others
        absent = 1.0 - others
        self.nobody = np.prod(absent, axis=0)
        self.exactly_one = sum(
            others[i] * np.prod(np.delete(absent, i, axis=0), axis=0)
            for i in range(others.shape[0])
        )
        by_location = absent.reshape(-1, NUM_LOCATIONS, NUM_ACTIONS)
        self.thief_risk = 1.0 - np.prod(by_location[:, :, THIEF], axis=0)
        self.guard_risk = 1.0 - np.prod(by_location[:, :, GUARD], axis=0)

    def here(self, location: int) -> np.ndarray:
        """(other seat, act) pick chances at ``location``."""
        return self.others[:, location * NUM_ACTIONS : (location + 1) * NUM_ACTIONS]


def _action_value(
    view: ShowView, action: int, outlook: _Outlook, crowd: Crowd, raft_to_steal: bool
) -> float:
    """Expected worth of ``action`` given the other players' pick chances."""
    location, act = divmod(action, NUM_ACTIONS)
    food_weight, raft_value = outlook.food_weight, outlook.raft_value
    token_worth = (raft_value + MEAN_FRUIT * food_weight) / 2  # a token of any kind
    here = crowd.here(location)
    alone, shared = float(crowd.nobody[action]), float(crowd.exactly_one[action])
    thief_risk, guard_risk = crowd.thief_risk[location], crowd.guard_risk[location]
    if act == THIEF:
        if location == CAMPSITE:
            loot = 2 * token_worth if raft_to_steal else token_worth
        else:
            loot = sum(
                here[:, kind].sum()
                * min(1.5, view.pile(location, kind))
                * (raft_value if kind == RAFT else MEAN_FOOD[kind] * food_weight)
                for kind in (FRUIT, CHICKEN, RAFT)
            )
            loot = max(loot, 2 * MEAN_COCONUT * food_weight)
        caught = guard_risk * 2 * token_worth
        return (alone + shared / 2) * (loot * (1 - guard_risk)) - caught
    if act == GUARD:
        thieves = here[:, THIEF].sum()
        gatherers = (here[:, :THIEF].sum() if location != CAMPSITE
                     else crowd.others.sum() - thieves)
        catch = thieves * 2 * token_worth + thief_risk * gatherers * token_worth
        coconuts = (1 - thief_risk) * 2 * MEAN_COCONUT * food_weight
        return (alone + shared / 2) * (catch + coconuts)
    if location == CAMPSITE:
        # Resting: safe from local thieves; gives a token only to a caught Campsite thief's
        # guard, as everyone else does.
        return 0.0
    pile = view.pile(location, act)
    drawn = min(2.0, pile) * alone + min(1.0, pile) * shared
    worth = raft_value if act == RAFT else MEAN_FOOD[act] * food_weight
    stolen = thief_risk * (1 - guard_risk)
    gift = guard_risk * (1 - stolen) * token_worth * 0.5
    return drawn * worth * (1 - stolen) - gift


def _softmax(scores: np.ndarray) -> np.ndarray:
    weights = np.exp(scores - scores.max())
    return weights / weights.sum()
