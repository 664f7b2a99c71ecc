"""An SB3 ``VecEnv`` of B Hungry games on the batched engine: one learning seat per game.

- ``num_envs`` = B games; each step the learner of every game plays its action, then the other
  seats are played inside the batch by a compiled opponent ("random" or "greedy", see
  :class:`~hunger_rl.envs.hungry.batched.BatchedPolicy`) until the learner is to move again.
- Observation: the learner's flat ``hungry_v0`` observation vector (float32 Box with
  ``hungry_v0``'s bounds), or ``encode(observations) -> array`` applied to the whole batch when
  given (with ``encoded_size``). ``action_masks()`` (and ``env_method("action_masks")``, which
  MaskablePPO calls) give the learner's legal actions as booleans.
- Reward: the learner's own terminal reward (R1 by default, or "score"), on the step its game
  ends; the game is then dealt again (auto-reset) and ``infos[i]`` holds
  ``terminal_observation``, ``win_share``, ``learner_seat`` and ``score``.
- Seats: game i starts with the learner at seat ``i % N`` and moves one seat on after each of its
  games, so every seat of the turn order is learnt equally.
- Seeds: game i is first dealt as ``hungry_v0`` after ``reset(seed=s_i)`` with
  ``s = SeedSequence(seed)``; later games follow the batched engine's per-slot stream.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from hunger_rl.envs.hungry import env as hungry_env
from hunger_rl.envs.hungry.batched import (
    BatchedHungry,
    BatchedPolicy,
    LearnerOutputs,
    play_to_learners,
    step_learners,
)
from hunger_rl.envs.hungry.engine import NUM_ACTIONS


class BatchedHungryVecEnv(VecEnv):
    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        opponent: str = "random",
        seed: int | None = None,
        reward: str = "win",
        tied_second: str = "next",
        encode: Callable[[np.ndarray], np.ndarray] | None = None,
        encoded_size: int | None = None,
    ):
        self.batch = BatchedHungry(num_envs, num_players, reward=reward, tied_second=tied_second)
        self.num_players = num_players
        self.opponents = BatchedPolicy(opponent, num_envs, seed=_offset_seed(seed, 1))
        self.learner_seats = np.arange(num_envs, dtype=np.int64) % num_players
        self.outputs = LearnerOutputs.empty(num_envs, num_players)
        self.encode = encode
        self._seed = seed
        self._actions: np.ndarray | None = None
        if encode is None:
            observation_space = hungry_env.raw_env(num_players=num_players).observation_space(
                "player_0"
            )["observation"]
        else:
            if encoded_size is None:
                raise ValueError("encoded_size is required with encode")
            observation_space = spaces.Box(-np.inf, np.inf, (encoded_size,), np.float32)
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        super().__init__(num_envs, observation_space, spaces.Discrete(NUM_ACTIONS))

    # -- VecEnv -------------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        self.batch.reset(seed=self._seed)
        self._seed = _offset_seed(self._seed, 2)  # the next reset deals other games
        self.learner_seats[:] = np.arange(self.num_envs) % self.num_players
        play_to_learners(self.batch, self.learner_seats, self.opponents, self.outputs)
        return self._encoded(self.outputs.observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        seats_before = self.learner_seats.copy()
        out = step_learners(
            self.batch, self._actions, self.learner_seats, self.opponents, self.outputs
        )
        observations = self._encoded(out.observations)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        finished = np.flatnonzero(out.terminated)
        if finished.size:
            final = self._encoded(out.final_observations[finished])
            for row, game in enumerate(finished.tolist()):
                seat = int(seats_before[game])
                winners = out.winners[game]
                infos[game] = {
                    "terminal_observation": final[row],
                    "learner_seat": seat,
                    "win_share": float(winners[seat]) / int(winners.sum()),
                    "score": int(out.final_totals[game, seat]),
                }
        return observations, out.rewards.copy(), out.terminated.copy(), infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """(num_envs, 50) booleans: the learners' legal actions."""
        return self.outputs.action_masks.astype(bool)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def seed(self, seed: int | None = None) -> Sequence[None]:
        self._seed = seed
        return [None] * self.num_envs

    # -- helpers ------------------------------------------------------------------------------

    def _encoded(self, observations: np.ndarray) -> np.ndarray:
        if self.encode is None:
            return observations.copy()
        return np.asarray(self.encode(observations), dtype=np.float32)

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _offset_seed(seed: int | None, offset: int) -> int | None:
    return None if seed is None else seed + offset
