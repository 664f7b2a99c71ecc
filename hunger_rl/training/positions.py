"""Positions for the fits made before PPO (the endgame head's, ``training.endgame``) and for
expert iteration's value fit from forecast players' games.

Positions come from whole games of compiled forecast players on the batched engine (each
mover's observation at every turn), or of one forecast player against compiled experts; they
are encoded in worker processes, chunk by chunk, so the inputs do not depend on the number of
workers.
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from tqdm import tqdm

from hunger_rl.arena.matches import map_chunks
from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.policies.hungry_search import PLAYOUT_OPPONENTS
from hunger_rl.policies.models.encoders import make_encoder

# Positions per encoding task: large enough to amortise the hand-off, small enough to keep the
# progress bar moving.
ENCODE_CHUNK = 20_000
# Offset the forecast players' and the expert opponents' seeds from the deal's, so that the
# three streams differ.
PLAYER_SEED_OFFSET = 1
OPPONENT_SEED_OFFSET = 2


def game_positions(num_players: int, positions: int, seed: int,
                   game_options: dict | None = None,
                   opponent: str = "forecast") -> tuple[np.ndarray, np.ndarray]:
    """``positions`` (observation vector, action mask) pairs of the players to move, from whole
    games (every turn of every game, games in parallel) of forecast players, or with
    ``opponent: "expert"`` of one forecast player (game g's seat g mod the players) against
    compiled experts in the other seats."""
    observations, masks, _ = forecast_games(num_players, -(-positions // TOTAL_PLAYS), seed,
                                            game_options, opponent)
    return observations[:positions], masks[:positions]


def forecast_games(num_players: int, games: int, seed: int, game_options: dict | None = None,
                   opponent: str = "forecast") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every position of ``games`` whole games of a forecast player against ``opponent``
    players (game g's forecast player in seat g mod the players; forecast: every seat), turn by
    turn (row ``t * games + g`` is game g's turn t): the mover's observation vector, its action
    mask and its final win share (H9: 1, 1/k in a k-way draw, 0)."""
    if opponent not in PLAYOUT_OPPONENTS:
        raise ValueError(f"the positions' opponent must be one of {PLAYOUT_OPPONENTS}, got "
                         f"{opponent!r}")
    batch = BatchedHungry(num_players, games, **(game_options or {}))
    out = batch.reset(seed=seed)
    players = BatchedPolicy("forecast", games, seed=seed + PLAYER_SEED_OFFSET)
    against_forecast = opponent == "forecast"
    if not against_forecast:
        opponents = BatchedPolicy(opponent, games, seed=seed + OPPONENT_SEED_OFFSET)
        forecast_seat = np.arange(games) % num_players
    observations, masks, movers = [], [], []
    for _ in range(TOTAL_PLAYS):
        observations.append(out.observations.copy())
        masks.append(out.action_masks.astype(bool))
        movers.append(out.to_move.copy())
        actions = players.act(batch)
        if not against_forecast:
            actions = np.where(batch.current_player == forecast_seat, actions,
                               opponents.act(batch))
        out = batch.step(actions)
    if not out.done.all():
        raise RuntimeError(f"a game did not end after {TOTAL_PLAYS} plays")
    shares = out.winners / out.winners.sum(axis=1, keepdims=True)
    win_shares = np.concatenate([shares[np.arange(games), turn] for turn in movers])
    return (np.concatenate(observations), np.concatenate(masks),
            win_shares.astype(np.float32))


def encode_positions(num_players: int, observations: np.ndarray, game_options: dict | None,
                     workers: int, progress: bool = True) -> np.ndarray:
    """The network inputs of ``observations`` as float16 (half the memory of float32; the
    encoded features are counts and chances that float16 holds to about 3 digits)."""
    tasks = [(num_players, game_options or {}, observations[start : start + ENCODE_CHUNK])
             for start in range(0, len(observations), ENCODE_CHUNK)]
    bar = tqdm(total=len(observations), desc="encode positions", disable=not progress,
               file=sys.stderr, dynamic_ncols=True)
    with bar:
        return np.concatenate(list(map_chunks(_encode_chunk, tasks, workers, bar)))


def _encode_chunk(task) -> np.ndarray:
    num_players, game_options, observations = task
    encoder = make_encoder("hungry", num_players, game_options)
    return encoder.batch(observations.astype(np.float32)).astype(np.float16)


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
