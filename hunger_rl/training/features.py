"""What the network sees: the raw observation vector, scaled, plus derived public features.

Training and inference both go through :func:`make_encoder`, so a policy file always meets
the inputs it was trained on.

- Hungry: the observation divided by its bounds (counts become 0-1), then features that an MLP
  would otherwise have to learn to add up from the per-action counts: every seat's tourists
  per resort, the own hand's and the unseen cards fitting each resort, and for each action
  the change of the public score margin (own total minus the best other) that playing it
  would make right now. All of it is computed from the observation alone, i.e. from public
  information and the own hand (H5).
- HUNGER: The Show: the observation divided by 10 (its counts, days and piles stay well under
  30; its Box bound of 1000 is no guide), nothing derived yet.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from hunger_rl.envs import load_game
from hunger_rl.envs.hungry.engine import (
    ACTION_RESORT,
    NUM_RESORTS,
    resort_places,
    totals_from_places,
)
from hunger_rl.envs.hungry.view import HungryView
from hunger_rl.policies.hungry import RESORT_CARDS

SHOW_SCALE = 10.0
# Counts per resort and score changes are given in tens.
HUNGRY_FEATURE_SCALE = 10.0


@functools.cache
def observation_scale(game: str, num_players: int) -> np.ndarray:
    """Per-feature divisors of the raw observation vector (the scaling part of the encoders)."""
    game_env = load_game(game).raw_env(num_players=num_players)
    box = game_env.observation_space(game_env.possible_agents[0])["observation"]
    if game == "hunger_show":
        scale = np.full(box.shape, SHOW_SCALE, dtype=np.float32)
    else:
        scale = np.maximum(box.high, 1.0).astype(np.float32)
    scale.flags.writeable = False  # cached and shared
    return scale


class HungryEncoder:
    def __init__(self, num_players: int, tied_second: str = "next"):
        self.num_players = num_players
        self.tied_second = tied_second
        self._scale = observation_scale("hungry", num_players)
        self._action_resort = np.array(ACTION_RESORT)
        self.size = self._scale.size + NUM_RESORTS * (num_players + 2) + len(ACTION_RESORT)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        view = HungryView.from_observation(observation, self.tied_second)
        counts = view.resort_counts
        places = view.places()
        margin_now = _margin(totals_from_places(self.num_players, places))
        gains = np.empty(NUM_RESORTS)
        for resort in range(NUM_RESORTS):
            column = counts[:, resort].tolist()
            column[0] += 1
            after = list(places)
            after[resort] = resort_places(column, self.tied_second)
            gains[resort] = _margin(totals_from_places(self.num_players, after)) - margin_now
        derived = np.concatenate((counts.ravel(), RESORT_CARDS @ view.hand,
                                  RESORT_CARDS @ view.unseen, gains[self._action_resort]))
        return np.concatenate((observation / self._scale,
                               derived / HUNGRY_FEATURE_SCALE)).astype(np.float32)


def _margin(totals: list[int]) -> int:
    return totals[0] - max(totals[1:])


class ScaledEncoder:
    """The observation divided by :func:`observation_scale`, nothing derived."""

    def __init__(self, game: str, num_players: int):
        self._scale = observation_scale(game, num_players)
        self.size = self._scale.size

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return (observation / self._scale).astype(np.float32)


@functools.cache
def _cached_encoder(game: str, num_players: int, tied_second: str, features: bool):
    if game == "hungry" and features:
        return HungryEncoder(num_players, tied_second)
    return ScaledEncoder(game, num_players)


def make_encoder(game: str, num_players: int, game_options: dict[str, Any] | None = None,
                 features: bool = True):
    """The observation encoder of ``game``: ``encoder(vector) -> array``, ``encoder.size``.
    ``features=False`` gives the scaled observation only (policies exported by the RLlib
    backend)."""
    tied_second = (game_options or {}).get("tied_second", "next")
    return _cached_encoder(game, num_players, tied_second, features)
