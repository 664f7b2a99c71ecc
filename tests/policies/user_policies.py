"""A user's own policies, named to the suite as ``python:user_policies:NAME``
(tests/policies/test_external_policies.py), and some that do not fit."""

from __future__ import annotations

import numpy as np

from hunger_rl.policies.hungry import ForecastHungryPolicy
from hunger_rl.policies.registry import make_policy

_FORECAST = ForecastHungryPolicy()


def forecast_play(observation, rng, view=None):
    """A function: the forecast's play, which needs the public view."""
    return _FORECAST.act(observation, rng, view)


forecast_play.game = "hungry"


class Expert:
    """A class with the policy interface: the suite's expert for the game it is made for,
    counting the games it was reset for."""

    def __init__(self, game, num_players):
        self.inner = make_policy("expert", game, num_players)
        self.resets = 0

    def reset(self):
        self.resets += 1
        self.inner.reset()

    def act(self, observation, rng, view=None):
        return self.inner.act(observation, rng, view)


def highest_legal(observation, rng, view=None):
    return np.flatnonzero(observation["action_mask"])[-1]  # a numpy integer


def first_illegal(observation, rng, view=None):
    return int(np.flatnonzero(~observation["action_mask"].astype(bool))[0])


def a_string(observation, rng, view=None):
    return "3"


def observation_only(observation):
    return 0


class TwoPlayers:
    num_players = 2

    def act(self, observation, rng, view=None):
        return int(np.flatnonzero(observation["action_mask"])[0])


class NotSix:
    def __init__(self, num_players):
        if num_players == 6:
            raise ValueError("six players are too many for me")

    def act(self, observation, rng, view=None):
        return int(np.flatnonzero(observation["action_mask"])[0])


class NoAct:
    pass


NOT_A_POLICY = 3


class Forward:
    """A class taking the spec's text: the legal action at that offset from the first."""

    def __init__(self, offset: str, num_players: int):
        self.offset = int(offset)  # a ValueError for text that is not a number

    def act(self, observation, rng, view=None):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[min(self.offset, len(legal) - 1)])
