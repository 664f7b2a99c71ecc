"""Warm start by imitation: fit the learner to a stronger teacher's choices before PPO.

A short search (``search:16`` for Hungry) plays far better than anything PPO finds by trial
within minutes, but costs milliseconds per move, too slow to play every training game. So the
teacher labels a fixed set of positions once, and the learner's network (the one PPO then
trains) is fitted to its choices by masked cross-entropy: policy improvement by search,
distilled, as in expert iteration. The network averages the teacher's noisy choices over
similar positions, and PPO then continues from there.

Positions come from whole games between compiled forecast players on the batched engine (each
mover's observation at every turn), labelled in worker processes; every chunk of positions has
its own random stream, so the labels do not depend on the number of workers.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from hunger_rl.envs.hungry.batched import BatchedHungry
from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.policies.learned import agreement
from hunger_rl.training.matches import cached_policy, map_chunks

# Positions per labelling task: large enough to amortise the hand-off, small enough to keep the
# progress bar moving.
CHUNK_SIZE = 250


@dataclass(frozen=True)
class DistillResult:
    positions: int
    agreement_before: float  # share of positions where the learner's argmax is the teacher's
    agreement_after: float
    final_loss: float


def game_positions(num_players: int, positions: int, seed: int,
                   game_options: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``positions`` (observation vector, action mask) pairs of the players to move, from whole
    games of forecast players (every turn of every game, games in parallel)."""
    games = -(-positions // TOTAL_PLAYS)
    batch = BatchedHungry(games, num_players, **(game_options or {}))
    out = batch.reset(seed=seed)
    players = BatchedPolicy("forecast", games, seed=seed + 1)
    observations, masks = [], []
    for _ in range(TOTAL_PLAYS):
        observations.append(out.observations.copy())
        masks.append(out.action_masks.astype(bool))
        out = batch.step(players.act(batch))
    return (np.concatenate(observations)[:positions], np.concatenate(masks)[:positions])


def label_positions(teacher: str, num_players: int, observations: np.ndarray,
                    masks: np.ndarray, seed: int, workers: int = 1,
                    progress: bool = True) -> np.ndarray:
    """The teacher's action in every position."""
    tasks = [(teacher, num_players, observations[start : start + CHUNK_SIZE],
              masks[start : start + CHUNK_SIZE], seed, start // CHUNK_SIZE)
             for start in range(0, len(observations), CHUNK_SIZE)]
    bar = tqdm(total=len(observations), desc=f"label with {teacher}", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    with bar:
        labels = list(map_chunks(_label_chunk, tasks, workers, bar))
    return np.concatenate(labels)


def _label_chunk(task) -> np.ndarray:
    teacher, num_players, observations, masks, seed, chunk = task
    policy = cached_policy("hungry", num_players, teacher, 0)
    rng = np.random.default_rng([seed, chunk])
    return np.array([policy.act({"observation": o, "action_mask": m.astype(np.int8)}, rng)
                     for o, m in zip(observations, masks, strict=True)], dtype=np.int64)


def minibatch_epoch(rows: np.ndarray, batch_size: int, generator: torch.Generator,
                    loss_of, optimizer: torch.optim.Optimizer) -> float:
    """One pass over ``rows`` in shuffled minibatches, one optimiser step each on
    ``loss_of(minibatch rows)``; the mean loss over the rows."""
    total = 0.0
    for order in torch.randperm(rows.size, generator=generator).split(batch_size):
        batch = rows[order.numpy()]
        loss = loss_of(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * batch.size
    return total / rows.size


def fit_to_teacher(policy, inputs: np.ndarray, masks: np.ndarray, labels: np.ndarray,
                   epochs: int, batch_size: int, learning_rate: float, seed: int,
                   progress: bool = True) -> DistillResult:
    """Fit an SB3 masked actor-critic's action distribution to ``labels`` (masked
    cross-entropy over encoded ``inputs``), with its own Adam optimiser."""
    inputs_t = torch.as_tensor(inputs, dtype=torch.float32)
    masks_t = torch.as_tensor(masks, dtype=torch.bool)
    labels_t = torch.as_tensor(labels, dtype=torch.int64)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    before = agreement(policy, inputs, masks, labels)
    loss = torch.tensor(0.0)
    policy.set_training_mode(True)
    for _ in tqdm(range(epochs), desc="fit to teacher", disable=not progress, file=sys.stderr,
                  dynamic_ncols=True):
        for rows in torch.randperm(len(labels_t), generator=generator).split(batch_size):
            distribution = policy.get_distribution(inputs_t[rows],
                                                   action_masks=masks_t[rows].numpy())
            loss = -distribution.log_prob(labels_t[rows]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.set_training_mode(False)
    after = agreement(policy, inputs, masks, labels)
    return DistillResult(len(labels), before, after, loss.item())

