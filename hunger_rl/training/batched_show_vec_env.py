"""An SB3 ``VecEnv`` of B HUNGER shows on the batched engine: one learning seat per show.

- ``num_envs`` = B shows (:class:`~hunger_rl.engines.hunger_show.batched.BatchedShow`); each step
  every show plays one day: the learner's action at its seat, the other living seats played
  inside the batch by the members of a :class:`~hunger_rl.training.league.League`, one member
  per seat drawn for each show from ``opponent_weights``: compiled players
  (:mod:`hunger_rl.policies.hunger_show_batched`), trained networks named by their policy specs
  and, for ``self``, frozen snapshots of the learner (``add_snapshot``), the networks answered by
  one batched forward pass each, drawn by prioritised fictitious self-play with
  ``pfsp_exponent`` > 0.
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
  stream. ``seed(s)`` then ``reset()`` starts everything afresh as construction with ``s`` does
  (the draws, the compiled players and the snapshots' samples; the league keeps its pool and
  records), so that a training run resumed from a checkpoint plays what the uninterrupted run
  played.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from hunger_rl.engines.hunger_show import DEFAULT_PLAYERS
from hunger_rl.engines.hunger_show.batched import BatchedShow
from hunger_rl.engines.hunger_show.observation import NUM_CHOICES, OBSERVATION_HIGH
from hunger_rl.policies.hunger_show_batched import BatchedShowPolicies
from hunger_rl.training.config import SELF_PLAY
from hunger_rl.training.league import NO_MEMBER, League, pairwise_results
from hunger_rl.training.outputs import policy_metadata
from hunger_rl.training.whole_batch_vec_env import WholeBatchVecEnv


class BatchedShowVecEnv(WholeBatchVecEnv):
    def __init__(
        self,
        num_envs: int,
        num_players: int = DEFAULT_PLAYERS,
        opponent_weights: Mapping[str, float] | None = None,
        seed: int | None = None,
        encode: Callable[[np.ndarray], np.ndarray] | None = None,
        encoded_size: int | None = None,
        pfsp_exponent: float = 0.0,
        max_snapshots: int = 8,
        **game_options: Any,
    ):
        # With self-play the league's snapshot_metadata is set once the spaces exist
        # (batched_vec_env_from_config).
        self.league = League(dict(opponent_weights or {"random": 1.0}), pfsp_exponent,
                             max_snapshots, num_players=num_players)
        self.batch = BatchedShow(num_players, num_envs, **game_options)
        self.num_players = num_players
        self.learner_seats = np.arange(num_envs, dtype=np.int64) % num_players
        self.members = np.full((num_envs, num_players), NO_MEMBER, np.int64)
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
        self.seed(seed)

    def _new_opponents(self, shows: np.ndarray) -> None:
        """Draw the member of every seat of ``shows``; the learner's seat is left out."""
        drawn = self.league.draw(self._rng, len(shows), self.num_players)
        drawn[np.arange(len(shows)), self.learner_seats[shows]] = NO_MEMBER
        self.members[shows] = drawn
        self.players.kinds[shows] = self.league.compiled_kinds(drawn)
        if self.league.policies:
            self.league.forget_retired(self.members)

    def add_snapshot(self, weights: Mapping[str, np.ndarray]) -> None:
        """Freeze a copy of the learner into the league's pool (``VecEnv.env_method``)."""
        self.league.add_snapshot(weights)

    def league_state(self) -> dict[str, Any]:
        """The league's records, for a checkpoint (``VecEnv.env_method``)."""
        return self.league.state()

    def restore_league(self, state: Mapping[str, Any]) -> None:
        """Take back a checkpoint's league records, after its snapshots (``VecEnv.env_method``)."""
        self.league.restore(state)

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
        if self.league.policies:
            self.league.act_networks(self.members, out.observations, out.action_masks,
                                      actions, self._snapshot_rng)
        seats = self.learner_seats.copy()
        actions[self._rows, seats] = self._actions
        alive_before = self.batch.alive if self.league.pfsp_exponent else None
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
            if alive_before is not None:
                self._record_results(finished, seats[finished], ended, alive_before[finished])
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
        self._snapshot_rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        self.players = BatchedShowPolicies([["random"] * self.num_players] * self.num_envs,
                                           self.num_players,
                                           seed=None if seed is None else seed + 1)
        self.players.kinds[:] = self.league.compiled_kinds(self.members)
        return [None] * self.num_envs

    # -- helpers --------------------------------------------------------------------------------

    def _record_results(self, shows: np.ndarray, seats: np.ndarray, ended: np.ndarray,
                        alive_before: np.ndarray) -> None:
        """The learner's pairwise results against the members at the tables it just left."""
        winners = self.batch.outputs.winners[shows].astype(float)
        shares = np.where(ended[:, None], winners / np.maximum(winners.sum(1, keepdims=True), 1),
                          0.0)
        plays_on = self.batch.alive[shows] & ~ended[:, None]
        stays = alive_before.astype(int) + plays_on
        learner = shares[np.arange(len(shows)), seats]
        results = pairwise_results(learner[:, None], shares, stays)
        opponents = np.arange(self.num_players) != seats[:, None]
        self.league.record(self.members[shows][opponents], results[opponents])

    def _learner_observations(self) -> np.ndarray:
        return self._encoded(self.batch.outputs.observations[self._rows, self.learner_seats])

    def _encoded(self, observations: np.ndarray) -> np.ndarray:
        if self.encode is None:
            return observations.copy()
        return np.asarray(self.encode(observations), dtype=np.float32)


def batched_vec_env_from_config(config: Any, encoder: Any) -> BatchedShowVecEnv:
    """HUNGER's batched training env for a ``TrainConfig`` with ``env.batched``."""
    opponents = config.opponents
    env = BatchedShowVecEnv(
        config.env.n_envs, config.num_players, opponents.weights, seed=config.seed,
        encode=encoder.batch, encoded_size=encoder.size, pfsp_exponent=opponents.pfsp_exponent,
        max_snapshots=opponents.max_snapshots, **config.game_options)
    if SELF_PLAY in opponents.weights:
        # The snapshots are rebuilt from the env's spaces, hence set after construction.
        env.league.snapshot_metadata = policy_metadata(config, env.observation_space,
                                                       env.action_space)
    return env
