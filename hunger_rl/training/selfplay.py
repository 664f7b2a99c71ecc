"""Self-play opponents: frozen snapshots of the learner mixed with scripted baselines.

Every episode each opponent seat draws a policy spec with probability proportional to its
weight in the config's ``opponents.weights`` (default: ``self`` 0.4, ``random`` 0.1,
``greedy`` 0.2, ``expert`` 0.3). ``self`` is a snapshot of the learner drawn uniformly from
the pool, which keeps the ``max_snapshots`` most recent ones; the trainer adds one at the start
and one every ``snapshot_every`` PPO updates. Snapshots sample from their action distribution
(not argmax), so that self-play sees varied play. While the pool is empty, ``self`` is left
out of the draw.

Each environment holds its own pool; snapshots reach environments in worker processes as plain
arrays through ``VecEnv.env_method("add_snapshot", weights)``.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from hunger_rl.policies.base import Policy
from hunger_rl.policies.learned import LearnedPolicy, PolicyMetadata
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.config import SELF_PLAY


class OpponentPool:
    def __init__(self, game: str, num_players: int, weights: dict[str, float],
                 snapshot_metadata: PolicyMetadata, max_snapshots: int):
        self.game = game
        self.num_players = num_players
        self.specs = list(weights)
        self.weights = np.array([weights[s] for s in self.specs], dtype=float)
        self.snapshot_metadata = snapshot_metadata
        self.snapshots: deque[LearnedPolicy] = deque(maxlen=max_snapshots)
        # One instance per (spec, opponent slot): scripted policies may remember the game.
        self._scripted: dict[tuple[str, int], Policy] = {}

    def add_snapshot(self, weights: dict[str, np.ndarray]) -> None:
        self.snapshots.append(LearnedPolicy.from_weights(
            self.snapshot_metadata, weights, temperature=1.0, name=SELF_PLAY))

    def draw(self, rng: np.random.Generator, slot: int) -> tuple[str, Policy]:
        weights = self.weights.copy()
        if not self.snapshots and SELF_PLAY in self.specs:
            weights[self.specs.index(SELF_PLAY)] = 0.0
        spec = self.specs[rng.choice(len(self.specs), p=weights / weights.sum())]
        if spec == SELF_PLAY:
            return spec, self.snapshots[rng.integers(len(self.snapshots))]
        key = (spec, slot)
        if key not in self._scripted:
            self._scripted[key] = make_policy(spec, self.game, self.num_players)
        return spec, self._scripted[key]
