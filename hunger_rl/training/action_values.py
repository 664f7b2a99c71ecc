"""Warm start by fitted action values: one step of policy iteration, learned from game outcomes.

Compiled forecast players play whole games on the batched engine. In every game one seat, the
*explorer* (seats take turns from game to game), draws its plays from a softmax over the
forecast values with a ``temperature`` in points; the other seats play the forecast's best play,
as the expert would. Each explorer decision is one sample: its observation, its play and its
final win share (1 for a sole win, 1/k in a k-way draw, else 0).

The network is then fitted so that its logit for the played action, times a learned scale, plus
a state baseline (a head on the critic's latent used for this fit only) is the log-odds of that
win share (binary cross-entropy). Its logits thus become action values of the explorer's play
against expert-like opponents, up to a per-state constant, and playing their argmax is one step
of policy improvement over the forecast. PPO then continues from that network.

Unlike imitation (``training.distill``), this needs no teacher: the labels are outcomes, cheap
enough to collect by the million, and the network averages their noise over similar positions.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from hunger_rl.envs.hungry.batched import BatchedHungry, forecast_values_of_observations
from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.learned import action_logits
from hunger_rl.training.features import make_encoder
from hunger_rl.training.matches import map_chunks

# Win log-odds per logit at the start of the fit: the action scorer's logits are 4 per forecast
# point, and a point is worth a few tenths in log-odds.
INITIAL_SCALE = 0.05
# Positions encoded per worker task.
ENCODE_CHUNK = 20_000
# Forecast values this close count as equal (ties broken at random).
TIE = 1e-9


@dataclass(frozen=True)
class ActionValueResult:
    positions: int
    loss_first_epoch: float  # mean binary cross-entropy of the win predictions
    loss_last_epoch: float
    win_scale: float  # win log-odds per logit after the fit
    forecast_agreement: float  # share of positions where the network's argmax is the forecast's


@dataclass(frozen=True)
class ExplorerSamples:
    observations: np.ndarray  # (P, D) int8 raw observation vectors of the explorer
    masks: np.ndarray  # (P, 50) bool legal actions
    actions: np.ndarray  # (P,) the explorer's plays
    win_shares: np.ndarray  # (P,) the explorer's final win share
    forecast_best: np.ndarray  # (P,) the forecast's best play (ties at random)


def explorer_samples(num_players: int, games: int, temperature: float, seed: int,
                     game_options: dict | None = None) -> ExplorerSamples:
    """Every explorer decision of ``games`` whole games (module docstring), played together;
    game by game, turn by turn."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    batch = BatchedHungry(games, num_players, **(game_options or {}))
    out = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    explorer = np.arange(games) % num_players
    observations, masks, actions, best_plays, turns = [], [], [], [], []
    for _ in range(TOTAL_PLAYS):
        values = forecast_values_of_observations(out.observations, num_players)
        best = values >= values.max(axis=1, keepdims=True) - TIE
        best_play = np.argmax(best * rng.random(values.shape), axis=1)
        explored = np.argmax(values / temperature + rng.gumbel(size=values.shape), axis=1)
        exploring = out.to_move == explorer
        observations.append(out.observations[exploring].astype(np.int8))
        masks.append(out.action_masks[exploring].astype(bool))
        actions.append(explored[exploring])
        best_plays.append(best_play[exploring])
        turns.append(np.flatnonzero(exploring))
        out = batch.step(np.where(exploring, explored, best_play))
    if not out.terminated.all():
        raise RuntimeError("a Hungry game outlasted TOTAL_PLAYS plays")
    winners = out.winners.astype(float)
    shares = winners[np.arange(games), explorer] / winners.sum(axis=1)
    game_of_sample = np.concatenate(turns)
    order = np.argsort(game_of_sample, kind="stable")  # game by game, turn by turn
    return ExplorerSamples(np.concatenate(observations)[order], np.concatenate(masks)[order],
                           np.concatenate(actions)[order], shares[game_of_sample[order]],
                           np.concatenate(best_plays)[order])


def encode_samples(num_players: int, observations: np.ndarray, game_options: dict | None,
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


def fit_action_values(policy, inputs: np.ndarray, samples: ExplorerSamples, epochs: int,
                      batch_size: int, learning_rate: float, seed: int,
                      progress: bool = True) -> ActionValueResult:
    """Fit an SB3 masked actor-critic's logits to the samples' outcomes (module docstring),
    with its own Adam optimiser."""
    baseline = torch.nn.Linear(policy.mlp_extractor.latent_dim_vf, 1)
    scale = torch.nn.Parameter(torch.tensor(INITIAL_SCALE))
    optimizer = torch.optim.Adam([*policy.parameters(), *baseline.parameters(), scale],
                                 lr=learning_rate)
    actions = torch.as_tensor(samples.actions, dtype=torch.int64)
    targets = torch.as_tensor(samples.win_shares, dtype=torch.float32)
    generator = torch.Generator().manual_seed(seed)
    losses = []
    policy.set_training_mode(True)
    for _ in tqdm(range(epochs), desc="fit action values", disable=not progress,
                  file=sys.stderr, dynamic_ncols=True):
        total = 0.0
        for rows in torch.randperm(len(actions), generator=generator).split(batch_size):
            batch = torch.as_tensor(inputs[rows.numpy()], dtype=torch.float32)
            features = policy.extract_features(batch)
            latent_pi, latent_vf = policy.mlp_extractor(features)
            played = policy.action_net(latent_pi).gather(1, actions[rows, None])[:, 0]
            log_odds = scale * played + baseline(latent_vf)[:, 0]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(log_odds, targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        losses.append(total / len(actions))
    policy.set_training_mode(False)
    return ActionValueResult(len(actions), losses[0], losses[-1], scale.item(),
                             _agreement(policy, inputs, samples, batch_size))


def _agreement(policy, inputs: np.ndarray, samples: ExplorerSamples, batch_size: int) -> float:
    picks = []
    for start in range(0, len(inputs), batch_size * 16):
        rows = slice(start, start + batch_size * 16)
        logits = action_logits(policy, torch.as_tensor(inputs[rows], dtype=torch.float32))
        masked = logits.masked_fill(~torch.as_tensor(samples.masks[rows]), -torch.inf)
        picks.append(masked.argmax(dim=1).numpy())
    return float((np.concatenate(picks) == samples.forecast_best).mean())
