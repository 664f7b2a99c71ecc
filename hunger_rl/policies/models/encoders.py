"""What the network sees: the raw observation vector, scaled, plus derived public features.

Training and inference both go through :func:`make_encoder`, so a policy file always meets
the inputs it was trained on.

- Hungry: the observation divided by its bounds (counts become 0-1), then features that an MLP
  would otherwise have to learn to add up from the per-action counts: every seat's tourists
  per resort, the own hand's and the unseen cards fitting each resort, for each action the
  change of the public score margin (own total minus the best other) that playing it would
  make right now, and the forecast (the expert's valuation, compiled, see
  ``envs.hungry.batched``): for each action, its value minus the best legal play's, then its
  ``FORECAST_DETAILS`` (zeros where the action is not legal; ``HungryEncoder.action_features``
  is this block, action by action, ``action_feature_size`` numbers each), and the best value
  itself, the expected final margin. All of it is computed from the observation alone, i.e.
  from public information and the own hand (H5).
- HUNGER: The Show: the observation divided by 10 (its counts, days and piles stay well under
  30; its Box bound of 1000 is no guide), then the crowd values: the expert's valuation with
  one round of replies against the rivals' picks of yesterday
  (``policies.hunger_show.crowd_player_values``, computed by its compiled twin
  ``policies.hunger_show_batched.crowd_features``; the expert itself remembers every day and
  replies four times). For each action: its value minus the best legal action's, in units of
  ``SHOW_VALUE_SCALE``, then ``SHOW_ACTION_DETAILS`` (zeros where the action is not legal;
  ``ShowEncoder.action_features`` is this block), and the best value itself. Their argmax is
  the ``crowd`` baseline. In the full-decision mode (``decision_mode="agents"``) the crowd values
  are those of the default-mode part of the observation (its first entries, which are the
  default-mode observation), and the observation's ``rule_action`` (the S19 rule's choice of
  the pending step, one-hot) follows as it is: the encoder's raw row is the observation vector
  followed by ``rule_action`` (``ShowEncoder.raw_input``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hunger_rl.engines.hunger_show.full_decisions import NUM_FULL_ACTIONS
from hunger_rl.engines.hunger_show.observation import NUM_CHOICES as SHOW_CHOICES
from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_ACTIONS,
    NUM_RESORTS,
    NUM_STARS,
    OPTION_DEFAULTS,
    SECOND_PLACE_POINTS,
    TWO_HOMES_BONUS,
)
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.envs import load_game
from hunger_rl.policies.hunger_show_batched import crowd_features
from hunger_rl.policies.hungry import RESORT_CARDS
from hunger_rl.policies.hungry_batched import (
    FIRST_POINTS,
    FORECAST_DETAILS,
    forecast_values_of_observations,
)

SHOW_SCALE = 10.0
# Crowd values are food points divided by this: 40 (the action scorer's logits per unit of
# prior) times the expert's temperature 0.6, so an untrained scorer samples as the expert does.
SHOW_VALUE_SCALE = 24.0
# Per action, after its relative value: the chance that no other player makes the same pick,
# that exactly one does, and that a thief or a guard is at its location.
SHOW_ACTION_DETAILS = ("alone", "shared", "thief_risk", "guard_risk")
# Counts per resort and score changes are given in tens.
HUNGRY_FEATURE_SCALE = 10.0


@functools.cache
def observation_scale(game: str, num_players: int, decision_mode: str = "objects") -> np.ndarray:
    """Per-feature divisors of the raw observation vector (the scaling part of the encoders);
    HUNGER's full-decision mode (``decision_mode="agents"``) has a longer vector."""
    options = {"decision_mode": decision_mode} if decision_mode != "objects" else {}
    game_env = load_game(game).raw_env(num_players=num_players, **options)
    box = game_env.observation_space(game_env.possible_agents[0])["observation"]
    raw_scale = _encoding(game).raw_scale
    if raw_scale is not None:
        scale = np.full(box.shape, raw_scale, dtype=np.float32)
    else:
        scale = np.maximum(box.high, 1.0).astype(np.float32)
    scale.flags.writeable = False  # cached and shared
    return scale


@functools.cache
def state_scale(game: str, num_players: int) -> np.ndarray:
    """Per-entry divisors of the game's ``state()`` vector (its bounds, at least 1), which a
    privileged critic reads after the encoded observation; its length is the state's size."""
    game_env = load_game(game).raw_env(num_players=num_players)
    scale = np.maximum(np.maximum(game_env.state_space.high, -game_env.state_space.low),
                       1.0).astype(np.float32)
    scale.flags.writeable = False  # cached and shared
    return scale


class ScaledEncoder:
    """The observation divided by :func:`observation_scale`, nothing derived; the encoders with
    derived features extend it.

    ``encoder(vector)`` encodes one observation through the same batch code as
    ``encoder.batch(vectors)``, so the training envs (one game or a batched engine) and the
    inference of a policy file cannot disagree.
    """

    def __init__(self, game: str, num_players: int, decision_mode: str = "objects"):
        self._scale = observation_scale(game, num_players, decision_mode)
        self.size = self._scale.size

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return self.batch(np.asarray(observation)[None])[0]

    def raw_input(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The raw row this encoder reads from an env's observation dict."""
        return observation["observation"]

    def batch(self, observations: np.ndarray) -> np.ndarray:
        return (np.asarray(observations) / self._scale).astype(np.float32)


class HungryEncoder(ScaledEncoder):
    """The Hungry encoding, computed for a whole batch of observations at once."""

    def __init__(self, num_players: int, tied_second: str = OPTION_DEFAULTS["tied_second"]):
        super().__init__("hungry", num_players)
        self.num_players = num_players
        self.void_tied_second = tied_second == "void"
        # The raw observation is the first block of the encoding, divided by this.
        self.observation_scale = self._scale
        layout = observation_layout(num_players)
        self._placed = layout["placed"]
        self._hand = layout["hand"]
        self._unseen = layout["unseen"]
        self._own_tourist = np.zeros((num_players, NUM_RESORTS), dtype=np.int64)
        self._own_tourist[0] = 1  # one more tourist of the observer (seat 0) at every resort
        forecast_start = self._scale.size + NUM_RESORTS * (num_players + 2) + NUM_ACTIONS
        self.action_feature_size = 1 + len(FORECAST_DETAILS)
        self.action_features = slice(
            forecast_start, forecast_start + NUM_ACTIONS * self.action_feature_size)
        self.size = self.action_features.stop + 1

    def batch(self, observations: np.ndarray) -> np.ndarray:
        """(B, observation size) raw vectors -> (B, ``size``) float32 inputs."""
        observations = np.asarray(observations)
        b, n = observations.shape[0], self.num_players
        placed = observations[:, self._placed].astype(np.int64).reshape(b, n, NUM_ACTIONS)
        counts = placed @ ACTION_TO_RESORT  # (B, N, resorts)
        first, second = _places(counts, self.void_tied_second)
        margin_now = _margins(first, second, n)
        # Resort r with one more own tourist: only r's places change.
        plus_first, plus_second = _places(counts + self._own_tourist, self.void_tied_second)
        replaced = np.eye(NUM_RESORTS, dtype=bool)  # [variant r, resort]
        after_first = np.where(replaced, plus_first[:, None, :], first[:, None, :])
        after_second = np.where(replaced, plus_second[:, None, :], second[:, None, :])
        gains = _margins(after_first, after_second, n) - margin_now[:, None]  # (B, resorts)
        values, details = forecast_values_of_observations(observations, n, details=True)
        legal = np.isfinite(values)
        best = np.where(legal.any(axis=1), values.max(axis=1, initial=-np.inf), 0.0)
        per_action = np.concatenate(
            (np.where(legal, values - best[:, None], 0.0)[:, :, None] / HUNGRY_FEATURE_SCALE,
             details / DETAIL_SCALE), axis=2)
        derived = np.concatenate((
            counts.reshape(b, -1),
            observations[:, self._hand].astype(np.int64) @ RESORT_CARDS.T,
            observations[:, self._unseen].astype(np.int64) @ RESORT_CARDS.T,
            gains[:, _ACTION_RESORT]), axis=1)
        return np.concatenate((observations / self._scale, derived / HUNGRY_FEATURE_SCALE,
                               per_action.reshape(b, -1), best[:, None] / HUNGRY_FEATURE_SCALE),
                              axis=1).astype(np.float32)


_ACTION_RESORT = np.array(ACTION_RESORT)
# Divisors of the FORECAST_DETAILS: points in tens, chances and flags as they are.
DETAIL_SCALE = np.array([HUNGRY_FEATURE_SCALE] * 2 + [1.0] * 5 + [HUNGRY_FEATURE_SCALE, 1.0])
# ACTION_TO_RESORT[a, r] = 1 when action a places its tourist at resort r.
ACTION_TO_RESORT = np.zeros((NUM_ACTIONS, NUM_RESORTS), dtype=np.int64)
ACTION_TO_RESORT[np.arange(NUM_ACTIONS), _ACTION_RESORT] = 1
NO_PLACE = -1


def _places(counts: np.ndarray, void_tied_second: bool) -> tuple[np.ndarray, np.ndarray]:
    """First and second place (seat, or ``NO_PLACE``) at each resort, as ``resort_places``
    decides them (H6), for counts of shape (..., N seats, resorts)."""
    counts = np.moveaxis(counts, -2, -1)  # (..., resorts, N)
    alone = (counts[..., :, None] == counts[..., None, :]).sum(axis=-1) == 1
    ranked = np.where(alone & (counts > 0), counts, 0)  # only a count held alone places
    first = np.where(ranked.max(axis=-1) > 0, ranked.argmax(axis=-1), NO_PLACE)
    first_count = np.take_along_axis(counts, np.maximum(first, 0)[..., None], -1)
    below = np.where((first[..., None] >= 0) & (counts < first_count), counts, 0)
    if void_tied_second:
        # Second place goes to the next count below first only if one seat holds it alone.
        next_count = below.max(axis=-1, keepdims=True)
        holders = (counts == next_count) & (next_count > 0)
        second = np.where(holders.sum(axis=-1) == 1, holders.argmax(axis=-1), NO_PLACE)
    else:
        ranked_below = np.where(alone, below, 0)
        second = np.where(ranked_below.max(axis=-1) > 0, ranked_below.argmax(axis=-1), NO_PLACE)
    return first, second


def _margins(first: np.ndarray, second: np.ndarray, num_players: int) -> np.ndarray:
    """Seat 0's total minus the best other total, as ``totals_from_places`` scores the places
    (H7, H8), for place arrays of shape (..., resorts)."""
    seats = np.arange(num_players)
    firsts = first[..., None] == seats  # (..., resorts, N)
    totals = (firsts * FIRST_POINTS[:, None]).sum(axis=-2) + SECOND_PLACE_POINTS * (
        second[..., None] == seats).sum(axis=-2)
    # The two-homes bonus goes to the first seat to hold two homes, in resort order.
    homes = firsts[..., :NUM_STARS, :]
    second_home = homes & (np.cumsum(homes, axis=-2) == 2)  # (..., homes, N)
    reached = second_home.any(axis=-1)  # (..., homes)
    resort = reached.argmax(axis=-1)[..., None, None]
    winner = np.take_along_axis(second_home, resort, axis=-2)[..., 0, :]  # (..., N)
    totals = totals + TWO_HOMES_BONUS * (winner & reached.any(axis=-1)[..., None])
    return totals[..., 0] - totals[..., 1:].max(axis=-1)


class ShowEncoder(ScaledEncoder):
    """The HUNGER: The Show encoding: the scaled observation, then the crowd values (see the
    module docstring), compiled for the whole batch
    (``policies.hunger_show_batched.crowd_features``); in the full-decision mode, then the
    ``rule_action`` one-hot.

    A full-decision encoder also says where the default-mode encoding of the same position
    lies in its own (``default_input``: the scaled default-mode observation, then the crowd
    block), so that a network can score the daily picks as a default-mode network does."""

    def __init__(self, num_players: int, decision_mode: str = "objects"):
        super().__init__("hunger_show", num_players, decision_mode)
        self.num_players = num_players
        self.num_actions = SHOW_CHOICES
        self.action_feature_size = 1 + len(SHOW_ACTION_DETAILS)
        self.action_features = slice(
            self._scale.size, self._scale.size + self.num_actions * self.action_feature_size)
        crowd_stop = self.action_features.stop + 1
        self.full_decisions = decision_mode != "objects"
        if not self.full_decisions:
            self.size = crowd_stop
            return
        default_size = observation_scale("hunger_show", num_players).size
        self._default_size = default_size
        self.default_input = ((0, default_size), (self._scale.size, crowd_stop))
        self.rule_actions = slice(crowd_stop, crowd_stop + NUM_FULL_ACTIONS)
        self.size = self.rule_actions.stop

    def raw_input(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        if not self.full_decisions:
            return observation["observation"]
        return np.concatenate((observation["observation"], observation["rule_action"]))

    def batch(self, observations: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        if not self.full_decisions:
            crowd = crowd_features(observations, self.num_players, SHOW_VALUE_SCALE)
            return np.concatenate((super().batch(observations), crowd), axis=1)
        vectors = observations[:, :self._scale.size]
        crowd = crowd_features(vectors[:, :self._default_size], self.num_players,
                               SHOW_VALUE_SCALE)
        return np.concatenate((super().batch(vectors), crowd,
                               observations[:, self._scale.size:]), axis=1).astype(np.float32)


@dataclass(frozen=True)
class GameEncoding:
    """How a game's observations are encoded: the divisor of every raw entry (None: the
    entry's Box bound), and the encoder with derived features, from the player count and the
    ``tied_second`` rule and the decision mode."""

    raw_scale: float | None
    with_features: Callable[[int, str, str], ScaledEncoder]


# Each game's encoding (games of ``envs.GAMES``).
ENCODINGS = {
    "hungry": GameEncoding(None, lambda num_players, tied_second, _: HungryEncoder(
        num_players, tied_second)),
    "hunger_show": GameEncoding(SHOW_SCALE, lambda num_players, _, decision_mode: ShowEncoder(
        num_players, decision_mode)),
}


def _encoding(game: str) -> GameEncoding:
    if game not in ENCODINGS:
        raise ValueError(f"no observation encoding is registered for game {game!r}")
    return ENCODINGS[game]


@functools.cache
def _cached_encoder(game: str, num_players: int, tied_second: str, features: bool,
                    decision_mode: str):
    if features:
        return _encoding(game).with_features(num_players, tied_second, decision_mode)
    return ScaledEncoder(game, num_players, decision_mode)


def make_encoder(game: str, num_players: int, game_options: dict[str, Any] | None = None,
                 features: bool = True):
    """The observation encoder of ``game``: ``encoder(vector) -> array``,
    ``encoder.batch(vectors) -> array`` (the same encoding, row by row), ``encoder.size``.
    ``features=False`` gives the scaled observation only (policies exported by the RLlib
    backend)."""
    options = game_options or {}
    return _cached_encoder(game, num_players,
                           options.get("tied_second", OPTION_DEFAULTS["tied_second"]), features,
                           options.get("decision_mode", "objects"))
