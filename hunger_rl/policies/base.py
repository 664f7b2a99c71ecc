"""The one policy interface shared by scripted baselines, search and learned policies."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

Observation = Mapping[str, np.ndarray]


class Policy(ABC):
    """Maps one player's observation (with its ``action_mask``) to a legal action.

    ``view`` is the game's read-only public view for the observing player (public state plus
    the observer's own private information, never anything hidden from it); policies that only
    read the observation ignore it. Randomness comes only from ``rng``, so a seeded caller
    gets reproducible games.
    """

    name: str = "policy"

    def reset(self) -> None:  # noqa: B027 - most policies keep no memory between games
        """Forget anything remembered from the previous game."""

    @abstractmethod
    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        """A legal action for this observation."""

    def act_batch(
        self,
        observations: Sequence[Observation],
        rng: np.random.Generator,
        views: Sequence[Any] | None = None,
    ) -> np.ndarray:
        """Actions for several observations; override where a vectorised form pays."""
        views = views if views is not None else [None] * len(observations)
        return np.array([self.act(o, rng, v) for o, v in zip(observations, views, strict=True)])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def legal_actions(observation: Observation) -> np.ndarray:
    """Indices of the actions the observation's mask allows; an error if there are none."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this player is not to move")
    return legal


class RandomPolicy(Policy):
    """Uniformly random over the legal actions."""

    name = "random"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        legal = legal_actions(observation)
        return int(legal[rng.integers(legal.size)])

    def act_batch(self, observations, rng, views=None) -> np.ndarray:
        masks = np.stack([o["action_mask"] for o in observations]).astype(bool)
        return sample_masked_uniform(masks, rng)


def sample_masked_uniform(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean (batch, actions) mask."""
    counts = masks.sum(axis=1)
    if (counts == 0).any():
        raise ValueError("an action mask in the batch allows no action")
    picks = (rng.random(len(masks)) * counts).astype(np.int64)
    # Index of the (pick+1)-th True in each row.
    return (masks.cumsum(axis=1) > picks[:, None]).argmax(axis=1)
