"""The one contract of the batched engines, ``BatchedHungry`` (``engines.hungry.batched``) and
``BatchedShow`` (``engines.hunger_show.batched``), as protocols: :class:`BatchedEngine` and the
fields of :class:`BatchOutputs` both engines' ``StepOutputs`` share. Both are
``runtime_checkable``, so ``isinstance`` checks that an engine has every member (not their
types nor signatures; ``tests/envs/test_batched_contract.py`` checks what they do).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BatchOutputs(Protocol):
    """What ``reset`` and ``step`` return: one reused tuple of arrays, overwritten by each
    call, whose shared fields mean the same in both engines.

    ``observations[b]``, ``action_masks[b]``: the current ones of game b (Hungry: of the player
    to move; HUNGER: of every seat); in a game that ended in this step, of its next game.
    ``rewards[b, p]``: seat p's reward for the step. ``terminated[b, p]``: seat p left game b in
    this step (eliminated, or every seat still playing when the game ended). ``done[b]``: game
    b ended in this step; where ``done``, ``winners[b, p]`` and the ended game's last
    observations, ``final_observations[b]``. Each engine adds its own results where ``done``
    (Hungry: ``final_totals``; HUNGER: ``end_condition``, ``ranking_keys``, ``days``).
    """

    observations: np.ndarray
    action_masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    done: np.ndarray
    final_observations: np.ndarray
    winners: np.ndarray


@runtime_checkable
class BatchedEngine(Protocol):
    """B games of one player count held in arrays, all stepped by one call, each game that
    ends dealt again at once.

    Constructor: ``Engine(num_players, batch_size, *, <the env's options>)``: the player count
    and the batch size, both required, in that order; the game's options (those of its
    PettingZoo env) by keyword only. Errors, all ``engines.validation.InvalidInputError`` and
    raised before anything changes: ``InvalidValueError`` / ``InvalidTypeError`` for a bad
    constructor argument or seed, ``NotResetError`` for a step before the first reset,
    ``IllegalActionError`` (``ActionTypeError`` for non-integers) for actions of the wrong
    shape, out of range or not legal.
    """

    num_players: int
    batch_size: int
    observation_size: int
    reward_mode: str
    # The reused outputs of ``reset`` and ``step``.
    outputs: BatchOutputs
    # The slot seeds of the last reset, int64.
    seeds: np.ndarray

    def reset(self, seed: int | None = None, seeds: Any = None) -> BatchOutputs:
        """Deal every game: ``seeds``, one per slot in 0 .. ``MAX_SEED``, deal slot b as the
        game's env after ``reset(seed=seeds[b])``; or else ``seed`` is spread into one per slot
        (``engines.compiled.reset_seeds``: ``spread_seeds``, fresh entropy for None); not both.
        A slot's later games come from its own stream of its seed, whatever the other slots
        do."""
        ...

    def step(self, actions: Any) -> BatchOutputs:
        """One move of every game: integer actions, one per game (Hungry: the player to move's)
        or one per seat and game (HUNGER: ``(B, N)``, ignored for seats that have left)."""
        ...
