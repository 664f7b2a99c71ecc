"""The learner against compiled opponents, inside the batched engine.

Each game slot of a :class:`~hunger_rl.engines.hungry.batched.BatchedHungry` has one learner seat;
after the learner's action the opponents (a :class:`~hunger_rl.policies.hungry_batched.
BatchedPolicy`) play, compiled, until the learner is to move again, so that one call advances
every game by one learner step (``training.batched_vec_env`` serves this to SB3).
:func:`branch_returns` plays positions on from a first action, the learner by a given policy,
to the ends of their games: the outcomes of different first actions on the same deal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from hunger_rl.engines.compiled import jit_allocating
from hunger_rl.engines.hungry.batched import (
    CURRENT,
    NUM_PLAYS,
    BatchedHungry,
    deal_next_game,
    first_illegal,
    observation_size,
    play,
    score_game,
    write_mask,
    write_observation,
)
from hunger_rl.engines.hungry.engine import NUM_ACTIONS, TOTAL_PLAYS
from hunger_rl.engines.validation import IllegalActionError, check_action_array
from hunger_rl.policies.hungry_batched import BatchedPolicy, forecast_scratch, policy_action


@jit_allocating
def _learner_step(g, actions, learner_seats, streams, rules, policy, out):
    """Each game: the learner plays its action, then the opponents play until it is to move again.

    A negative action plays nothing (opponents only, as after a reset). A game that ends on the
    way records the learner's reward and its final observation, is dealt again, and the
    learner's seat moves one place on (``(seat + 1) % N``), so that a slot visits every seat in
    turn; the opponents then play up to the learner's first turn.
    """
    seeds, game_number, deal_rng = streams
    seats, void_tied_second, reward_code, random_first = rules
    num_players = len(seats)
    policy_code, policy_rng = policy
    (observations, masks, rewards, terminated, final_observations, seat_rewards, final_totals,
     winners) = out
    scratch = forecast_scratch()
    for b in range(actions.shape[0]):
        terminated[b] = False
        rewards[b] = 0.0
        action = actions[b]
        while True:
            if action >= 0:  # a negative action: start from the opponents' turns
                play(g, b, action, num_players, void_tied_second)
            if g[b, NUM_PLAYS] == TOTAL_PLAYS:
                learner = learner_seats[b]
                terminated[b] = True
                score_game(g, b, num_players, reward_code, seat_rewards, final_totals,
                           winners)
                rewards[b] = seat_rewards[b, learner]
                write_observation(g, b, learner, num_players, final_observations, b)
                deal_next_game(g, b, seeds, game_number, deal_rng, num_players, random_first)
                learner_seats[b] = (learner + 1) % num_players
            if g[b, CURRENT] == learner_seats[b]:
                break
            action = policy_action(
                g, b, policy_code, num_players, void_tied_second, policy_rng, scratch
            )
        write_observation(g, b, learner_seats[b], num_players, observations, b)
        write_mask(g, b, masks)


class LearnerOutputs(NamedTuple):
    """What :func:`step_learners` reports per game; reused (overwritten) by the next call.

    ``observations``/``action_masks``: the learner's, now to move. ``rewards``: the learner's
    reward (non-zero only where ``terminated``), ``final_observations``: its last observation of
    the game that ended. ``seat_rewards``, ``final_totals``, ``winners``: every seat's, where
    ``terminated``.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_observations: np.ndarray
    seat_rewards: np.ndarray
    final_totals: np.ndarray
    winners: np.ndarray

    @classmethod
    def empty(cls, batch_size: int, num_players: int) -> LearnerOutputs:
        b, n, d = batch_size, num_players, observation_size(num_players)
        return cls(
            observations=np.zeros((b, d), np.float32),
            action_masks=np.zeros((b, NUM_ACTIONS), np.int8),
            rewards=np.zeros(b, np.float32),
            terminated=np.zeros(b, np.bool_),
            final_observations=np.zeros((b, d), np.float32),
            seat_rewards=np.zeros((b, n), np.float32),
            final_totals=np.zeros((b, n), np.int8),
            winners=np.zeros((b, n), np.bool_),
        )


def play_to_learners(
    batch: BatchedHungry, learner_seats: np.ndarray, opponents: BatchedPolicy, out: LearnerOutputs
) -> LearnerOutputs:
    """After a reset: the opponents play every game up to its learner's first turn."""
    return _run_learner_step(batch, None, learner_seats, opponents, out)


def step_learners(
    batch: BatchedHungry,
    actions,
    learner_seats: np.ndarray,
    opponents: BatchedPolicy,
    out: LearnerOutputs,
) -> LearnerOutputs:
    """Every game's learner plays ``actions[b]``; ``opponents`` play until it is to move again.

    ``learner_seats`` (int64, one per game) is updated in place: when a game ends, its slot's
    learner moves one seat on, ``(seat + 1) % N``, for the next game. Raises
    :class:`IllegalActionError`, changing nothing, if a learner's action is not legal.
    """
    return _run_learner_step(batch, actions, learner_seats, opponents, out)


def _run_learner_step(batch, actions, learner_seats, opponents, out):
    if actions is None:
        actions = np.full(batch.batch_size, -1, np.int64)
    else:
        actions = check_action_array(actions, (batch.batch_size,))
        bad = first_illegal(batch.games, batch.all_games, actions)
        if bad >= 0:
            raise IllegalActionError(
                f"game {bad}: the learner cannot play action {int(actions[bad])}; legal: "
                f"{np.flatnonzero(batch.legal_masks()[bad]).tolist()}"
            )
    _learner_step(batch.games, actions, learner_seats, batch.streams, batch.rules,
                  (np.int64(opponents.code), opponents.rng_state), tuple(out))
    return out


def branch_returns(
    rows: np.ndarray,
    opponent_streams: np.ndarray,
    learner_seats: np.ndarray,
    first_actions: np.ndarray,
    learner: Callable[[np.ndarray, np.ndarray], np.ndarray],
    opponent: str,
    num_players: int,
    **rules,
) -> np.ndarray:
    """The learner's reward at the end of each branch's game.

    Branch i starts from the position ``rows[i]`` (a :class:`BatchedHungry` game row, the
    learner at seat ``learner_seats[i]`` to move) with the opponents' random stream
    ``opponent_streams[i]``; the learner plays ``first_actions[i]``, then every later move of
    the learner is ``learner(observations, action_masks)`` (a batch of the learner's
    ``hungry_v0`` observations and masks to actions), and the opponents play as the compiled
    ``opponent`` with the branch's stream, to the end of the game. The deck's order is part of
    the row, so branches from one position with different first actions draw the same cards and
    their opponents the same random numbers: their outcomes differ only by the learner's
    choices. ``rules`` are :class:`BatchedHungry`'s (``reward``, ``tied_second``).
    """
    rows = np.ascontiguousarray(rows, dtype=np.int8)
    returns = np.zeros(len(rows), np.float32)
    branches = np.arange(len(rows))
    actions = np.asarray(first_actions, dtype=np.int64)
    streams = np.array(opponent_streams, dtype=np.uint64)
    seats = np.array(learner_seats, dtype=np.int64)
    while branches.size:
        batch = BatchedHungry(num_players, branches.size, **rules)
        batch.games[:] = rows
        opponents = BatchedPolicy(opponent, branches.size)
        opponents.rng_state[:] = streams
        out = step_learners(batch, actions, seats, opponents,
                            LearnerOutputs.empty(branches.size, num_players))
        ended = out.terminated
        returns[branches[ended]] = out.rewards[ended]
        going = ~ended
        # The games that ended were dealt again; the rest go on in a smaller batch.
        branches, rows, streams, seats = (branches[going], batch.games[going],
                                          opponents.rng_state[going], seats[going])
        if branches.size:
            actions = np.asarray(learner(out.observations[going], out.action_masks[going]),
                                 dtype=np.int64)
    return returns
