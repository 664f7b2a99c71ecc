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

One game in ``VALIDATION_EVERY`` (23, a prime: see ``training.config``) is held out, and the
network keeps the weights of the epoch with the least loss on those games: the outcomes are
mostly the deal's luck, so the fit soon starts to learn noise, and an overfitted network plays
worse.

Unlike imitation (``training.distill``), this needs no teacher: the labels are outcomes, cheap
enough to collect by the million, and the network averages their noise over similar positions.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from hunger_rl.envs.hungry.batched import BatchedHungry
from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import forecast_values_of_observations
from hunger_rl.policies.learned import agreement
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.training.config import ACTION_VALUE_VALIDATION_EVERY as VALIDATION_EVERY
from hunger_rl.training.distill import minibatch_epoch
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
    positions: int  # fitted; the held-out games' positions are not counted
    training_losses: list[float]  # mean binary cross-entropy of the win predictions, per epoch
    validation_losses: list[float]  # the same on the held-out games, after each epoch
    best_epoch: int  # the epoch whose weights the network keeps (0-based)
    win_scale: float  # win log-odds per logit at that epoch
    forecast_agreement: float  # share of positions where the network's argmax is the forecast's


@dataclass(frozen=True)
class ExplorerSamples:
    observations: np.ndarray  # (P, D) int8 raw observation vectors of the explorer
    masks: np.ndarray  # (P, 50) bool legal actions
    actions: np.ndarray  # (P,) the explorer's plays
    win_shares: np.ndarray  # (P,) the explorer's final win share
    forecast_best: np.ndarray  # (P,) the forecast's best play (ties at random)
    games: np.ndarray  # (P,) the game each sample comes from


def explorer_samples(num_players: int, games: int, temperature: float, seed: int,
                     game_options: dict | None = None, progress: bool = False) -> ExplorerSamples:
    """Every explorer decision of ``games`` whole games (module docstring), played together;
    game by game, turn by turn."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    batch = BatchedHungry(games, num_players, **(game_options or {}))
    out = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    explorer = np.arange(games) % num_players
    observations, masks, actions, best_plays, turns = [], [], [], [], []
    for _ in tqdm(range(TOTAL_PLAYS), desc=f"play {games} explorer games", unit="turn",
                  disable=not progress, file=sys.stderr, dynamic_ncols=True):
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
                           np.concatenate(best_plays)[order], game_of_sample[order])


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
    with its own Adam optimiser, for at most ``epochs`` epochs."""
    held_out = samples.games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    fitted, validation = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    if validation.size == 0:
        raise ValueError(f"fitting action values needs at least {VALIDATION_EVERY} games "
                         f"(one in {VALIDATION_EVERY} is held out)")
    baseline = torch.nn.Linear(policy.mlp_extractor.latent_dim_vf, 1)
    scale = torch.nn.Parameter(torch.tensor(INITIAL_SCALE))
    optimizer = torch.optim.Adam([*policy.parameters(), *baseline.parameters(), scale],
                                 lr=learning_rate)
    actions = torch.as_tensor(samples.actions, dtype=torch.int64)
    targets = torch.as_tensor(samples.win_shares, dtype=torch.float32)

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        batch = torch.as_tensor(inputs[rows], dtype=torch.float32)
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(batch))
        played = policy.action_net(latent_pi).gather(1, actions[rows, None])[:, 0]
        log_odds = scale * played + baseline(latent_vf)[:, 0]
        return torch.nn.functional.binary_cross_entropy_with_logits(log_odds, targets[rows])

    generator = torch.Generator().manual_seed(seed)
    training_losses, validation_losses, best = [], [], None
    for epoch in tqdm(range(epochs), desc="fit action values", disable=not progress,
                      file=sys.stderr, dynamic_ncols=True):
        policy.set_training_mode(True)
        training_losses.append(minibatch_epoch(fitted, batch_size, generator, loss_of, optimizer))
        policy.set_training_mode(False)
        with torch.no_grad():
            validation_losses.append(sum(
                loss_of(rows).item() * rows.size
                for rows in np.array_split(validation, -(-validation.size // batch_size))
            ) / validation.size)
        if best is None or validation_losses[-1] < validation_losses[best[0]]:
            best = (epoch, copy.deepcopy(policy.state_dict()), scale.item())
    best_epoch, weights, win_scale = best
    policy.load_state_dict(weights)
    forecast_agreement = agreement(policy, inputs, samples.masks, samples.forecast_best)
    return ActionValueResult(int(fitted.size), training_losses, validation_losses, best_epoch,
                             win_scale, forecast_agreement)

