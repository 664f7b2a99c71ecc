"""An SB3 ``VecEnv`` of B Hungry games on the batched engine: one learning seat per game.

- ``num_envs`` = B games; each step the learner of every game plays its action, then the other
  seats are played inside the batch by a compiled opponent ("random", "greedy" or "forecast", see
  :class:`~hunger_rl.engines.hungry.batched.BatchedPolicy`) until the learner is to move again.
- Observation: the learner's flat ``hungry_v0`` observation vector (float32 Box with
  ``hungry_v0``'s bounds), or ``encode(observations) -> array`` applied to the whole batch when
  given (with ``encoded_size``). ``action_masks()`` (and ``env_method("action_masks")``, which
  MaskablePPO calls) give the learner's legal actions as booleans.
- Reward: the learner's own terminal reward (R1 by default, or "score"), on the step its game
  ends, plus ``margin_shaping`` times the change of its public score margin on every step, as
  in :class:`~hunger_rl.training.single_agent.HungrySingleAgentEnv`; the game is then dealt
  again (auto-reset) and ``infos[i]`` holds ``terminal_observation``, ``win_share``,
  ``learner_seat``, ``score`` and ``episode`` (return and length, which SB3 logs as a
  ``Monitor`` would).
- Seats: game i starts with the learner at seat ``i % N`` and moves one seat on after each of its
  games, so every seat of the turn order is learnt equally.
- Seeds: game i is first dealt as ``hungry_v0`` after ``reset(seed=s_i)`` with ``s_i`` spread
  from ``seed`` by the batched engine's ``reset``; later games follow its per-slot stream.
- Deal groups (``group_size`` K > 1, for ``ppo.group_baseline``): slots gK .. gK + K - 1 are
  copies of one game: the same slot seed (so the same deal, game after game), the same learner
  seat and the same random stream for their opponents (so the opponent breaks its ties alike
  while the copies' games agree). Games of one player count last the same number of learner
  steps, so copies started together end together; only the learners' own choices tell them
  apart.
- Branches (``ppo.branch_advantages``): after :meth:`BatchedHungryVecEnv.record_decisions`
  every step keeps the position its learners were to move in; :meth:`~BatchedHungryVecEnv.
  branch_returns` plays chosen positions on from given first actions, on their own deals and
  opponents' random streams, to the outcomes of their games.

:func:`make_batched_vec_env` mixes opponents: it splits the games between the opponent kinds
in proportion to weights and joins one such VecEnv per opponent in a :class:`JoinedVecEnv`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from hunger_rl.engines.compiled import spread_seeds
from hunger_rl.engines.hungry import DEFAULT_PLAYERS
from hunger_rl.engines.hungry.batched import NUM_PLAYS, BatchedHungry
from hunger_rl.engines.hungry.engine import NUM_ACTIONS, OPTION_DEFAULTS
from hunger_rl.envs.hungry.env import HungryEnv
from hunger_rl.policies.hungry_batched import POLICY_KINDS, BatchedPolicy
from hunger_rl.training.batched_learner import (
    LearnerOutputs,
    branch_returns,
    play_to_learners,
    step_learners,
)
from hunger_rl.training.single_agent import MARGIN_SCALE
from hunger_rl.training.whole_batch_vec_env import WholeBatchVecEnv

# Seeds of the parts of a joined env lie this far apart: each part also offsets its own seed
# by a few for its opponents and resets.
PART_SEED_SPACING = 1000


class BatchedHungryVecEnv(WholeBatchVecEnv):
    def __init__(
        self,
        num_envs: int,
        num_players: int = DEFAULT_PLAYERS,
        opponent: str = "random",
        seed: int | None = None,
        reward: str = "win",
        tied_second: str = OPTION_DEFAULTS["tied_second"],
        encode: Callable[[np.ndarray], np.ndarray] | None = None,
        encoded_size: int | None = None,
        first_player: str = OPTION_DEFAULTS["first_player"],
        margin_shaping: float = 0.0,
        group_size: int = 1,
    ):
        if group_size < 1 or num_envs % group_size:
            raise ValueError(f"group_size ({group_size}) must be a positive divisor of num_envs "
                             f"({num_envs})")
        self.group_size = group_size
        self.batch = BatchedHungry(num_players, num_envs, reward=reward,
                                   first_player=first_player, tied_second=tied_second)
        self.margin_shaping = margin_shaping
        self._margins = np.zeros(num_envs)  # the learners' margins after their last step
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, dtype=np.int64)
        self.num_players = num_players
        self.opponents = self._grouped_opponents(opponent, _offset_seed(seed, 1))
        self.learner_seats = self._first_seats()
        self.outputs = LearnerOutputs.empty(num_envs, num_players)
        self.encode = encode
        self._seed = seed
        self._actions: np.ndarray | None = None
        # (game rows, opponents' streams, learner seats) before each step, while recording
        self._decisions: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        if encode is None:
            observation_space = HungryEnv(num_players=num_players).observation_space(
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
        group_seeds = spread_seeds(self._seed, self.num_envs // self.group_size)
        self.batch.reset(seeds=np.repeat(group_seeds, self.group_size))
        self._seed = _offset_seed(self._seed, 2)  # the next reset deals other games
        self.learner_seats[:] = self._first_seats()
        play_to_learners(self.batch, self.learner_seats, self.opponents, self.outputs)
        self._margins = self._learner_margins(self.batch.totals, self.learner_seats)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return self._encoded(self.outputs.observations)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        seats_before = self.learner_seats.copy()
        if self._decisions is not None:
            self._decisions.append((self.batch.games.copy(), self.opponents.rng_state.copy(),
                                    seats_before))
        out = step_learners(
            self.batch, self._actions, self.learner_seats, self.opponents, self.outputs
        )
        observations = self._encoded(out.observations)
        rewards = out.rewards.copy()
        finished = np.flatnonzero(out.terminated)
        if self.margin_shaping:
            # Potential-based: a game's shaping sums to its final margin (its last totals).
            margins = self._learner_margins(self.batch.totals, self.learner_seats)
            ends = margins.copy()
            ends[finished] = self._learner_margins(out.final_totals[finished],
                                                   seats_before[finished])
            rewards += (self.margin_shaping * (ends - self._margins)).astype(np.float32)
            self._margins = margins
        self._returns += rewards
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
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
                    "episode": {"r": float(self._returns[game]),
                                "l": int(self._lengths[game]), "t": 0.0},
                }
            self._returns[finished] = 0.0
            self._lengths[finished] = 0
        return observations, rewards, out.terminated.copy(), infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        return self.outputs.action_masks.astype(bool)

    # -- branches on the same deal ------------------------------------------------------------

    def record_decisions(self) -> None:
        """Keep, from the next step on, the position of every game before its learner's action
        (its row, its opponent's random stream and the learner's seat), for
        :meth:`branch_returns`; forgets the positions kept before."""
        self._decisions = []

    def recorded_plays(self) -> np.ndarray:
        """(steps, games): the plays made in each kept position's game before its decision."""
        if self._decisions is None:
            raise RuntimeError("recorded_plays needs the positions kept since record_decisions")
        return np.stack([rows[:, NUM_PLAYS] for rows, _, _ in self._decisions]).astype(np.int64)

    def branch_returns(self, steps: np.ndarray, games: np.ndarray, first_actions: np.ndarray,
                       learner: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
        """The learner's outcome of each branch i: game ``games[i]`` from its position before
        the recorded step ``steps[i]``, the learner playing ``first_actions[i]`` there and then
        ``learner(encoded observations, action masks) -> actions``, the opponents as in that
        game, with the random stream they had then (:func:`~hunger_rl.training.batched_learner.
        branch_returns`). The env itself plays on unchanged."""
        if self._decisions is None:
            raise RuntimeError("branch_returns needs the positions kept since record_decisions")
        steps, games = np.asarray(steps, dtype=np.int64), np.asarray(games, dtype=np.int64)
        rows, streams, seats = (np.stack(kept)[steps, games] for kept in zip(*self._decisions,
                                                                             strict=True))
        return branch_returns(
            rows, streams, seats, first_actions,
            lambda observations, masks: learner(self._encoded(observations), masks),
            self.opponents.kind, self.num_players, reward=self.batch.reward_mode,
            tied_second=self.batch.tied_second)

    def seed(self, seed: int | None = None) -> Sequence[None]:
        """The next reset deals from ``seed`` and the opponents draw as if built with it, so
        that a training run resumed from a checkpoint plays what the uninterrupted run played."""
        self._seed = seed
        self.opponents = self._grouped_opponents(self.opponents.kind, _offset_seed(seed, 1))
        return [None] * self.num_envs

    # -- helpers ------------------------------------------------------------------------------

    def _first_seats(self) -> np.ndarray:
        """The learners' seats in the first games: group g (one slot when ungrouped) at seat
        ``g % N``."""
        groups = np.arange(self.batch.batch_size, dtype=np.int64) // self.group_size
        return groups % self.num_players

    def _grouped_opponents(self, kind: str, seed: int | None) -> BatchedPolicy:
        """The opponents, every copy of a deal group starting from its group's random stream."""
        opponents = BatchedPolicy(kind, self.batch.batch_size, seed=seed)
        opponents.rng_state[:] = np.repeat(opponents.rng_state[:: self.group_size],
                                           self.group_size)
        return opponents

    def _encoded(self, observations: np.ndarray) -> np.ndarray:
        if self.encode is None:
            return observations.copy()
        return np.asarray(self.encode(observations), dtype=np.float32)

    @staticmethod
    def _learner_margins(totals: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Each learner's total minus the best other total, in tens of points."""
        totals = totals.astype(np.float64)
        rows = np.arange(len(seats))
        own = totals[rows, seats]
        totals[rows, seats] = -np.inf
        return (own - totals.max(axis=1)) / MARGIN_SCALE



def _offset_seed(seed: int | None, offset: int) -> int | None:
    return None if seed is None else seed + offset


class JoinedVecEnv(WholeBatchVecEnv):
    """Batched VecEnvs side by side as one: game i of part k is game ``offset_k + i``."""

    def __init__(self, parts: Sequence[BatchedHungryVecEnv]):
        self.parts = list(parts)
        self._bounds = np.cumsum([0] + [part.num_envs for part in self.parts])
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        super().__init__(int(self._bounds[-1]), self.parts[0].observation_space,
                         self.parts[0].action_space)

    def reset(self) -> np.ndarray:
        return np.concatenate([part.reset() for part in self.parts])

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        for part, start, stop in zip(self.parts, self._bounds, self._bounds[1:], strict=False):
            part.step_async(actions[start:stop])

    def step_wait(self):
        observations, rewards, dones, infos = zip(*(part.step_wait() for part in self.parts),
                                                  strict=True)
        return (np.concatenate(observations), np.concatenate(rewards), np.concatenate(dones),
                [info for part_infos in infos for info in part_infos])

    def close(self) -> None:
        for part in self.parts:
            part.close()

    def action_masks(self) -> np.ndarray:
        return np.concatenate([part.action_masks() for part in self.parts])

    def record_decisions(self) -> None:
        for part in self.parts:
            part.record_decisions()

    def recorded_plays(self) -> np.ndarray:
        return np.concatenate([part.recorded_plays() for part in self.parts], axis=1)

    def branch_returns(self, steps: np.ndarray, games: np.ndarray, first_actions: np.ndarray,
                       learner: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
        """:meth:`BatchedHungryVecEnv.branch_returns`, each branch played by its game's part."""
        games = np.asarray(games, dtype=np.int64)
        returns = np.zeros(len(games), np.float32)
        for part, start, stop in zip(self.parts, self._bounds, self._bounds[1:], strict=False):
            mine = np.flatnonzero((games >= start) & (games < stop))
            if mine.size:
                returns[mine] = part.branch_returns(np.asarray(steps)[mine], games[mine] - start,
                                                    np.asarray(first_actions)[mine], learner)
        return returns

    def seed(self, seed: int | None = None) -> Sequence[None]:
        for index, part in enumerate(self.parts):
            part.seed(_part_seed(seed, index))
        return [None] * self.num_envs


def split_games(num_envs: int, weights: Mapping[str, float]) -> dict[str, int]:
    """Games per opponent kind, in proportion to ``weights`` (largest remainders round); kinds
    that get no game are left out."""
    unknown = [kind for kind in weights if kind not in POLICY_KINDS]
    if unknown:
        raise ValueError(f"the batched engine plays only {list(POLICY_KINDS)} opponents, "
                         f"not {unknown}")
    kinds = [kind for kind in POLICY_KINDS if weights.get(kind, 0) > 0]
    if not kinds:
        raise ValueError(f"no positive opponent weight in {dict(weights)}")
    shares = np.array([weights[kind] for kind in kinds], dtype=float)
    shares *= num_envs / shares.sum()
    counts = np.floor(shares).astype(np.int64)
    largest_remainders = np.argsort(counts - shares, kind="stable")
    counts[largest_remainders[: num_envs - counts.sum()]] += 1
    return {kind: int(count) for kind, count in zip(kinds, counts, strict=True) if count}


def make_batched_vec_env(num_envs: int, opponent_weights: Mapping[str, float],
                         seed: int | None = None, **options: Any) -> WholeBatchVecEnv:
    """``num_envs`` batched games split between the opponent kinds by ``opponent_weights``
    (see :func:`split_games`); ``options`` go to every :class:`BatchedHungryVecEnv`."""
    parts = [BatchedHungryVecEnv(games, opponent=kind, seed=_part_seed(seed, index), **options)
             for index, (kind, games) in enumerate(split_games(num_envs, opponent_weights).items())]
    return parts[0] if len(parts) == 1 else JoinedVecEnv(parts)


def batched_vec_env_from_config(config: Any, encoder: Any) -> WholeBatchVecEnv:
    """Hungry's batched training env for a ``TrainConfig`` with ``env.batched``."""
    return make_batched_vec_env(
        config.env.n_envs, config.opponents.weights, seed=config.seed,
        num_players=config.num_players, encode=encoder.batch, encoded_size=encoder.size,
        margin_shaping=config.env.margin_shaping, group_size=config.ppo.group_baseline or 1,
        **config.game_options)


def _part_seed(seed: int | None, index: int) -> int | None:
    return None if seed is None else seed + PART_SEED_SPACING * index
