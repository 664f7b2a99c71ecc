"""Fit the endgame head (``policies.models.hungry_endgame``) to play values measured by playouts.

Positions: every turn after the last draw in whole games of compiled forecast players (the
batched engine), ``HAND_SIZE`` turns per seat and game. Labels: for each legal play, its mean
win share (H9) over ``deals`` sampled completions of the mover's view, the play made and then
every seat playing the forecast to the end (``policies.hungry_search.playout_win_shares``: all
plays of a position share their deals and playout random streams, so their differences are
measured far more precisely than the values themselves). With the ``opponent`` "expert" (the
opponent the network is measured against) the positions come from games of one forecast player
against compiled experts, and in the playouts the other seats play the compiled expert while the
mover's seat keeps the forecast. Labelling runs in worker processes, every chunk with its own
random stream, so the labels do not depend on the number of workers.

The head alone is fitted (the rest of the network is frozen): the policy's logits for the legal
plays, centred per position and times a learned scale, regress on the play values centred the
same way. Their argmax is then the play of best measured value, which is what search finds by
playing it out, now learned so that the policy plays it without a playout. One game in
``VALIDATION_EVERY`` is held out, and the head keeps the weights of the epoch whose picks lose
the least value there.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from hunger_rl.arena.matches import map_chunks
from hunger_rl.engines.hungry.engine import HAND_SIZE, OPTION_DEFAULTS, TOTAL_PLAYS
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.policies.hungry_batched import forecast_values_of_observations
from hunger_rl.policies.hungry_search import playout_win_shares
from hunger_rl.training.config import ENDGAME_VALIDATION_EVERY as VALIDATION_EVERY
from hunger_rl.training.positions import game_positions, minibatch_epoch

# Positions per labelling task.
CHUNK_SIZE = 500
# Win share per unit of (logit / PRIOR_WEIGHT) at the start of the fit.
INITIAL_SCALE = 1.0


@dataclass(frozen=True)
class EndgamePositions:
    observations: np.ndarray  # (P, D) raw observation vectors of the mover, deck empty
    masks: np.ndarray  # (P, 50) bool legal plays
    games: np.ndarray  # (P,) the game each position comes from


@dataclass(frozen=True)
class EndgameResult:
    positions: int  # fitted; the held-out games' positions are not counted
    training_losses: list[float]  # mean squared error of the centred values, per epoch
    held_out_losses: list[float]  # per epoch, after it
    held_out_regrets: list[float]  # mean value lost by the head's picks on held-out positions
    forecast_regret: float  # the same for the forecast's picks
    best_epoch: int  # the epoch whose weights the head keeps (0-based)
    learning_rates: list[float]  # Adam's step size in each epoch


def endgame_positions(num_players: int, positions: int, seed: int,
                      game_options: dict | None = None,
                      opponent: str = "forecast") -> EndgamePositions:
    """The first ``positions`` positions after the last draw of forecast players' games (with
    ``opponent: "expert"``, of one forecast player's games against experts; every seat's)."""
    per_game = HAND_SIZE * num_players  # the deck runs out with every hand full
    games = -(-positions // per_game)
    observations, masks = game_positions(num_players, games * TOTAL_PLAYS, seed, game_options,
                                         opponent)
    deck = observation_layout(num_players)["deck_size"].start
    endgame = np.flatnonzero(observations[:, deck] == 0)
    if endgame.size != games * per_game:
        raise RuntimeError(f"expected {per_game} turns after the last draw per game")
    # game_positions stacks turn by turn: row t * games + g is game g's turn t.
    game_of_row = endgame % games
    order = endgame[np.argsort(game_of_row, kind="stable")][:positions]
    return EndgamePositions(observations[order], masks[order], order % games)


def play_values(num_players: int, positions: EndgamePositions, deals: int, seed: int,
                game_options: dict | None = None, workers: int = 1,
                progress: bool = True, opponent: str = "forecast") -> np.ndarray:
    """(P, 50) mean win share of every legal play over ``deals`` sampled deals, the other seats
    playing the ``opponent`` in the playouts; NaN where illegal."""
    tied_second = (game_options or {}).get("tied_second", OPTION_DEFAULTS["tied_second"])
    tasks = [(positions.observations[start : start + CHUNK_SIZE],
              positions.masks[start : start + CHUNK_SIZE], deals, tied_second, opponent, seed,
              start // CHUNK_SIZE)
             for start in range(0, len(positions.masks), CHUNK_SIZE)]
    bar = tqdm(total=len(positions.masks), desc=f"play out endgame positions ({deals} deals)",
               disable=not progress, file=sys.stderr, dynamic_ncols=True)
    with bar:
        return np.concatenate(list(map_chunks(_values_chunk, tasks, workers, bar)))


def _values_chunk(task) -> np.ndarray:
    observations, masks, deals, tied_second, opponent, seed, chunk = task
    rng = np.random.default_rng([seed, chunk])
    values = np.full(masks.shape, np.nan)
    for row, (observation, mask) in enumerate(zip(observations, masks, strict=True)):
        view = HungryView.from_observation(
            {"observation": observation, "action_mask": mask.astype(np.int8)}, tied_second)
        plays = np.flatnonzero(mask)
        values[row, plays] = playout_win_shares(view, plays, deals, rng,
                                                   opponent=opponent).mean(axis=0)
    return values


def fit_endgame_head(policy, inputs: np.ndarray, positions: EndgamePositions,
                     values: np.ndarray, epochs: int, batch_size: int, learning_rate: float,
                     seed: int, progress: bool = True,
                     learning_rate_schedule: str = "constant") -> EndgameResult:
    """Fit the endgame head of an SB3 action-scorer policy (module docstring)."""
    head = policy.mlp_extractor.endgame
    if head is None:
        raise ValueError("the network has no endgame head (network.endgame_head)")
    held_out = positions.games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    fitted, validation = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    if validation.size == 0 or fitted.size == 0:
        raise ValueError(f"fitting the endgame head needs positions from at least "
                         f"{VALIDATION_EVERY} games (one in {VALIDATION_EVERY} is held out)")
    x = torch.as_tensor(inputs, dtype=torch.float32)
    legal = torch.as_tensor(positions.masks, dtype=torch.bool)
    targets = torch.as_tensor(np.nan_to_num(values), dtype=torch.float32)
    # Frozen: the MLP latent, so each row's logits are action_net(latent, head scores).
    policy.set_training_mode(False)
    with torch.no_grad():
        latent = policy.mlp_extractor.mlp.forward_actor(policy.extract_features(x))
    scale = torch.nn.Parameter(torch.tensor(INITIAL_SCALE))
    optimizer = torch.optim.Adam([*head.parameters(), scale], lr=learning_rate)
    weight = policy.action_net.weight.detach()
    bias = policy.action_net.bias.detach()

    def logits_of(rows: np.ndarray) -> torch.Tensor:
        """The rows' logits; those of illegal plays are not the policy's (neither the loss nor
        the picks read them)."""
        scores = head.legal_scores(x[rows])
        return torch.cat((latent[rows], scores), dim=1) @ weight.T + bias

    def loss_of(rows: np.ndarray, logits: torch.Tensor | None = None) -> torch.Tensor:
        """The fit's loss on ``rows`` (from their ``logits`` when already computed)."""
        logits = logits_of(rows) if logits is None else logits
        mask = legal[rows].to(torch.float32)
        count = mask.sum(dim=1, keepdim=True)
        predicted = scale * logits / policy.PRIOR_WEIGHT * mask
        target = targets[rows] * mask
        residual = (predicted - predicted.sum(dim=1, keepdim=True) / count) - (
            target - target.sum(dim=1, keepdim=True) / count)
        return ((residual * mask) ** 2).sum() / mask.sum()

    # Held-out passes go a batch at a time: the head's hidden vectors are per play.
    held_out_batches = np.array_split(validation, -(-validation.size // batch_size))

    def held_out_loss_and_regret() -> tuple[float, float]:
        losses, picks = [], []
        with torch.no_grad():
            for rows in held_out_batches:
                logits = logits_of(rows)
                losses.append(loss_of(rows, logits).item() * positions.masks[rows].sum())
                picks.append(logits.masked_fill(~legal[rows], -torch.inf).argmax(dim=1))
        return (sum(losses) / positions.masks[validation].sum(),
                _regret(values[validation], torch.cat(picks).numpy()))

    forecast = forecast_values_of_observations(positions.observations[validation],
                                               head.num_players)
    forecast_regret = _regret(values[validation],
                              np.where(positions.masks[validation], forecast, -np.inf).argmax(1))
    generator = torch.Generator().manual_seed(seed)
    training_losses, held_out_losses, regrets, learning_rates, best = [], [], [], [], None
    for epoch in tqdm(range(epochs), desc="fit endgame head", disable=not progress,
                      file=sys.stderr, dynamic_ncols=True):
        if learning_rate_schedule == "linear":
            for group in optimizer.param_groups:
                group["lr"] = learning_rate * (1 - epoch / epochs)
        learning_rates.append(optimizer.param_groups[0]["lr"])
        head.train()
        training_losses.append(minibatch_epoch(fitted, batch_size, generator, loss_of, optimizer))
        head.eval()
        loss, regret = held_out_loss_and_regret()
        held_out_losses.append(loss)
        regrets.append(regret)
        if best is None or regrets[-1] < regrets[best[0]]:
            best = (epoch, copy.deepcopy(head.state_dict()))
    head.load_state_dict(best[1])
    return EndgameResult(int(fitted.size), training_losses, held_out_losses, regrets,
                         forecast_regret, best[0], learning_rates)


def _regret(values: np.ndarray, picks: np.ndarray) -> float:
    """Mean of (best legal value - value of the pick) over rows."""
    return float(np.mean(np.nanmax(values, axis=1) - values[np.arange(len(values)), picks]))
