"""An SB3 ``VecEnv`` of B HUNGER shows on the batched engine: one learning seat per show.

- ``num_envs`` = B shows (:class:`~hunger_rl.engines.hunger_show.batched.BatchedShow`); each step
  every show plays one day: the learner's action at its seat, the other living seats played
  inside the batch by compiled players (:mod:`hunger_rl.policies.hunger_show_batched`), one
  kind per seat drawn for each show from ``opponent_weights``.
- Observation: the learner's ``hunger_show_v0`` observation vector, or ``encode(observations)``
  of the whole batch (with ``encoded_size``); ``action_masks()`` gives the learner's legal
  actions, as :class:`~hunger_rl.training.single_agent.ShowSingleAgentEnv` does.
- Episode: ends when the learner leaves its show (eliminated, or the show ended), with its own
  reward (R1, or "shaped" through ``reward``) as in ``ShowSingleAgentEnv``; the slot then deals
  its next show (auto-reset; a show the learner left early is abandoned) and ``infos[i]`` holds
  ``terminal_observation``, ``learner_seat``, ``win_share`` and ``episode`` (return, length).
- Seats: show i starts with the learner at seat ``i % N`` and moves one seat on after each of
  its episodes.
- Seeds: slot i's first show is ``hunger_show_v0``'s after ``reset(seed=s_i)`` with ``s_i``
  spread from ``seed`` by the batched engine's ``reset``; later ones follow its per-slot
  stream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from hunger_rl.engines.hunger_show.batched import BatchedShow
from hunger_rl.engines.hunger_show.observation import NUM_CHOICES, OBSERVATION_HIGH
from hunger_rl.policies.hunger_show_batched import LEARNER, POLICY_KINDS, BatchedShowPolicies
from hunger_rl.training.whole_batch_vec_env import WholeBatchVecEnv


class BatchedShowVecEnv(WholeBatchVecEnv):
    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        opponent_weights: Mapping[str, float] | None = None,
        seed: int | None = None,
        encode: Callable[[np.ndarray], np.ndarray] | None = None,
        encoded_size: int | None = None,
        **game_options: Any,
    ):
        weights = dict(opponent_weights or {"random": 1.0})
        unknown = [kind for kind in weights if kind not in POLICY_KINDS]
        if unknown:
            raise ValueError(f"the batched HUNGER engine plays only {list(POLICY_KINDS)} "
                             f"opponents, not {unknown}")
        if sum(weights.values()) <= 0 or min(weights.values()) < 0:
            raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {weights}")
        self.batch = BatchedShow(num_players, num_envs, **game_options)
        self.num_players = num_players
        self._codes = np.array([POLICY_KINDS.index(k) for k in weights], np.int64)
        self._chances = np.array(list(weights.values()), float)
        self._chances /= self._chances.sum()
        self._rng = np.random.default_rng(seed)
        self._seed = seed
        self.learner_seats = np.arange(num_envs, dtype=np.int64) % num_players
        self.players = BatchedShowPolicies([["random"] * num_players] * num_envs, num_players,
                                           seed=None if seed is None else seed + 1)
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, dtype=np.int64)
        self._rows = np.arange(num_envs)
        self._actions: np.ndarray | None = None
        self.encode = encode
        if encode is None:
            size = self.batch.observation_size
            observation_space = spaces.Box(-1.0, OBSERVATION_HIGH, (size,), np.float32)
        else:
            if encoded_size is None:
                raise ValueError("encoded_size is required with encode")
            observation_space = spaces.Box(-np.inf, np.inf, (encoded_size,), np.float32)
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        super().__init__(num_envs, observation_space, spaces.Discrete(NUM_CHOICES))

    def _new_opponents(self, shows: np.ndarray) -> None:
        """Draw the opponent kind of every seat of ``shows``; the learner's seat is left out."""
        drawn = self._codes[self._rng.choice(len(self._codes), p=self._chances,
                                             size=(len(shows), self.num_players))]
        drawn[np.arange(len(shows)), self.learner_seats[shows]] = LEARNER
        self.players.kinds[shows] = drawn

    # -- VecEnv ---------------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        self.batch.reset(seed=self._seed)
        if self._seed is not None:
            self._seed += 2  # the next reset deals other shows
        self.learner_seats[:] = np.arange(self.num_envs) % self.num_players
        self._new_opponents(self._rows)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return self._learner_observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        out = self.batch.outputs
        actions = self.players.act(out.observations, out.action_masks)
        seats = self.learner_seats.copy()
        actions[self._rows, seats] = self._actions
        out = self.batch.step(actions)
        rewards = out.rewards[self._rows, seats].astype(np.float32)
        dones = out.terminated[self._rows, seats].copy()
        self._returns += rewards
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        finished = np.flatnonzero(dones)
        if finished.size:
            ended = out.done[finished]
            final = np.where(ended[:, None], out.final_observations[finished, seats[finished]],
                             out.observations[finished, seats[finished]])
            final = self._encoded(final)
            for row, show in enumerate(finished.tolist()):
                seat = int(seats[show])
                winners = out.winners[show]
                share = (float(winners[seat]) / int(winners.sum())) if ended[row] else 0.0
                infos[show] = {
                    "terminal_observation": final[row],
                    "learner_seat": seat,
                    "win_share": share,
                    "episode": {"r": float(self._returns[show]),
                                "l": int(self._lengths[show]), "t": 0.0},
                }
            abandoned = finished[~ended]
            if abandoned.size:
                self.batch.restart(abandoned)
            self._returns[finished] = 0.0
            self._lengths[finished] = 0
            self.learner_seats[finished] = (self.learner_seats[finished] + 1) % self.num_players
            self._new_opponents(finished)
        return self._learner_observations(), rewards, dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        return self.batch.outputs.action_masks[self._rows, self.learner_seats].astype(bool)

    def seed(self, seed: int | None = None) -> Sequence[None]:
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        return [None] * self.num_envs

    # -- helpers --------------------------------------------------------------------------------

    def _learner_observations(self) -> np.ndarray:
        return self._encoded(self.batch.outputs.observations[self._rows, self.learner_seats])

    def _encoded(self, observations: np.ndarray) -> np.ndarray:
        if self.encode is None:
            return observations.copy()
        return np.asarray(self.encode(observations), dtype=np.float32)


def batched_vec_env_from_config(config: Any, encoder: Any) -> BatchedShowVecEnv:
    """HUNGER's batched training env for a ``TrainConfig`` with ``env.batched``."""
    return BatchedShowVecEnv(
        config.env.n_envs, config.num_players, config.opponents.weights, seed=config.seed,
        encode=encoder.batch, encoded_size=encoder.size, **config.game_options)
