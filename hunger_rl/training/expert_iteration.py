"""``backend: expert_iteration``: the search as the teacher of the network (Expert Iteration,
Anthony et al. 2017): for Hungry with Gumbel AlphaZero's root search and policy target, for
HUNGER: The Show with the simultaneous-move search ``smmcts:N`` and its visit counts.

The trainer reads top to bottom in :func:`train_expert_iteration`. Each iteration:

1. Games: ``expert_iteration.games`` games with every seat played by the game's search guided
   by the current network, with Gumbel noise on its logits (``explore``): Hungry's
   ``search:N:SPEC`` (``policies.hungry_search``), whose target is its improved policy
   (``SearchStatistics.improved_policy``); HUNGER's ``smmcts:N:SPEC``
   (``policies.hunger_show_search``), the network's softmax a progressive bias on the
   searcher's own picks, whose target is the searcher's visit counts over its picks less
   each pick's first try, normalised. Every move keeps the mover's observation, its legal
   plays and the target; when the game ends, each position gets its mover's win share (1,
   1/k in a k-way draw, 0). The game's function playing them is its
   ``TrainingGame.expert_iteration_games``. With ``players: forecast`` (Hungry, ``fit: value``)
   compiled forecast players play them instead (``training.positions.forecast_games``): the
   win share a search's forecast playout would reach from a position, for its cut-off.
2. Fit: the network's policy to the targets (cross-entropy), its value to the win shares
   (squared error, weighted by ``value_weight``), ``epochs`` passes with Adam; with ``fit:
   value`` the value alone, the policy frozen (a start network's value head fitted to win
   shares for the cut-off, its prior unchanged). Before the fit, the value's squared error on
   the iteration's new games (held out until then) is logged beside a constant guess's.
3. The fitted network guides the next iteration's search; with ``cutoff`` (Hungry) its value
   also ends the playouts (from the second iteration on: before it, the value head is not
   fitted yet, unless ``start`` names a network whose value head is).
4. Before the first iteration and after every ``evaluate_every`` iterations, the network
   alone plays ``evaluation.games`` seat-rotated games against each of
   ``evaluation.opponents`` (the learning curve, whose last point is the final table); every
   iteration ends with a checkpoint (``training.checkpoint``: the network, Adam's state and the
   history, safetensors and JSON).

Games run in spawned local processes (``workers``), or as Ray tasks where
``ray_address`` is set. Each game's deal and search draw from a seed of its own, made from
(seed, iteration, game), and the fit's shuffles from (seed, iteration), so a run does not
depend on the number of workers or where they run, and one resumed from a checkpoint continues
exactly as if it had not stopped. The steps of the learning curve are the positions played so
far (learner decisions). Output folder: as ``training.train``'s (no ``tensorboard/``), plus
``iterations.jsonl``, one line per iteration (positions, losses, seconds).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from tqdm import tqdm

from hunger_rl.arena.matches import map_chunks
from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import NUM_ACTIONS, TOTAL_PLAYS
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.envs import game_spec, hunger_show_v0
from hunger_rl.policies.hunger_show_search import SMMCTSShowPolicy
from hunger_rl.policies.hungry_search import SearchHungryPolicy
from hunger_rl.policies.learned import (
    POLICY_FILE,
    VALUE_KEY,
    WIN_SHARE_VALUE,
    LearnedPolicy,
    PolicyMetadata,
    build_network,
    network_weights,
    save_policy,
    write_atomically,
)
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.checkpoint import (
    TrainingState,
    checkpoint_folder,
    load_checkpoint,
    save_checkpoint,
)
from hunger_rl.training.config import TrainConfig
from hunger_rl.training.games import training_game
from hunger_rl.training.outputs import (
    evaluate_policy,
    final_evaluation,
    format_table,
    policy_metadata,
    prepare_output,
    write_learning_curve,
    write_table,
)
from hunger_rl.training.positions import forecast_games, minibatch_epoch
from hunger_rl.training.ray_cluster import check_ray_address

ITERATIONS_LOG = "iterations.jsonl"
# Games per task handed to a worker: small enough to spread an iteration over the workers and
# keep the progress bar moving, large enough to amortise building the network in the task.
GAMES_PER_TASK = 4
# An illegal play's logit in the fit's softmax: exp of it is 0 in float32.
MASKED_LOGIT = -1e9


@dataclass(frozen=True)
class GameSettings:
    """What a worker needs to play an iteration's games: the network and the search (``cutoff``
    is Hungry's only)."""

    metadata: PolicyMetadata
    weights: dict[str, np.ndarray]
    simulations: int
    cutoff: int | None
    explore: bool


@dataclass(frozen=True)
class Positions:
    """Positions of finished games: the mover's raw observation, legal plays, the search's
    policy target and the mover's final win share."""

    observations: np.ndarray
    masks: np.ndarray
    targets: np.ndarray
    win_shares: np.ndarray

    def __len__(self) -> int:
        return len(self.win_shares)

    @staticmethod
    def joined(parts: list[Positions]) -> Positions:
        return Positions(*(np.concatenate([getattr(p, name) for p in parts])
                           for name in ("observations", "masks", "targets", "win_shares")))


def train_expert_iteration(config: TrainConfig, resume: str | Path | None = None,
                           progress: bool = True) -> list[dict[str, Any]]:
    """Train as ``config`` says (continuing ``resume``, a checkpoint or a run folder, if
    given); return the final table."""
    started = time.perf_counter()
    settings = config.expert_iteration
    check_ray_address(settings.ray_address, "expert_iteration.ray_address")
    out = prepare_output(config)
    encoder = make_encoder(config.game, config.num_players, config.game_options)
    metadata = _metadata(config, encoder.size)

    # 1. The network and its optimizer: fresh (from ``start``'s weights, if given) or restored.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        network = build_network(metadata)
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)
    value_fitted = False
    if resume is None:
        state = TrainingState()
        if settings.start is not None:
            start = make_policy(settings.start, config.game, config.num_players)
            network.load_state_dict(start.torch_network().state_dict(), strict=True)
            value_fitted = start.predicts_win_share
    else:
        state = load_checkpoint(resume, network, optimizer, metadata)
    _keep_iterations_log(out, state.updates)
    if resume is None:  # the curve's first point: the network as it starts
        _evaluate(config, out, network, metadata, state)

    ray = _start_ray(settings.ray_address)
    try:
        with tqdm(total=settings.iterations, initial=state.updates, unit="iteration",
                  desc=f"expert iteration {config.game} {config.num_players}p",
                  disable=not progress, dynamic_ncols=True, file=sys.stderr) as bar:
            while state.updates < settings.iterations:
                iteration = state.updates
                began = time.perf_counter()
                game_settings = GameSettings(
                    _with_steps(metadata, state.steps), network_weights(network),
                    settings.simulations,
                    settings.cutoff if (iteration > 0 or value_fitted) else None,
                    settings.explore)
                positions = play_iteration(config, game_settings, iteration, ray, progress)
                played = time.perf_counter()
                held_out = held_out_value_losses(network, encoder, positions)
                losses = fit(network, optimizer, encoder, positions, settings,
                             _generator(config.seed, iteration), progress)
                state.steps += len(positions)
                state.updates += 1
                if state.updates % settings.evaluate_every == 0 \
                        and state.updates < settings.iterations:
                    _evaluate(config, out, network, metadata, state)
                _log_iteration(out, {
                    "iteration": state.updates, "steps": state.steps,
                    "positions": len(positions), "cutoff": game_settings.cutoff,
                    **held_out, **losses,
                    "game_seconds": round(played - began, 1),
                    "fit_and_evaluation_seconds": round(time.perf_counter() - played, 1)})
                save_checkpoint(checkpoint_folder(out, state.steps), network, optimizer,
                                _with_steps(metadata, state.steps), state, config.to_dict())
                bar.update(1)
    finally:
        if ray is not None:
            ray.shutdown()

    # 2. Final artefacts: policy, evaluation table, learning curve.
    final_metadata = _with_steps(metadata, state.steps)
    policy_path = save_policy(out / POLICY_FILE, network, final_metadata)
    write_atomically(out / "policy.json", json.dumps(final_metadata.as_file_fields(), indent=1))
    train_seconds = time.perf_counter() - started
    table = final_evaluation(config, policy_path, progress)
    write_table(table, out, {"steps": state.steps, "iterations": state.updates,
                             "train_seconds": round(train_seconds, 1),
                             "policy": str(policy_path), "backend": "expert_iteration"})
    write_learning_curve(state.history + [{"steps": state.steps, **row} for row in table], out)
    print(format_table(table, config, state.steps, train_seconds))
    return table


def _evaluate(config: TrainConfig, out: Path, network: Any, metadata: PolicyMetadata,
              state: TrainingState) -> None:
    """The network alone against the evaluation opponents: a point of the learning curve."""
    policy_path = save_policy(out / POLICY_FILE, network, _with_steps(metadata, state.steps))
    rows = evaluate_policy(config, policy_path, config.evaluation.games,
                           seed=config.seed + state.steps)
    state.history += [{"steps": state.steps, **row} for row in rows]
    write_learning_curve(state.history, out)


def _metadata(config: TrainConfig, encoded_size: int) -> PolicyMetadata:
    """The policy file's metadata: the config's network, its value head a win-share estimate."""
    env = game_spec(config.game).make_env(config.num_players, **config.game_options)
    metadata = policy_metadata(config, spaces.Box(-np.inf, np.inf, (encoded_size,), np.float32),
                               env.action_space(env.possible_agents[0]))
    return replace(metadata, extra={**metadata.extra, VALUE_KEY: WIN_SHARE_VALUE})


def _with_steps(metadata: PolicyMetadata, steps: int) -> PolicyMetadata:
    return replace(metadata, steps=steps)


# -- games ------------------------------------------------------------------------------------


def game_seeds(seed: int, iteration: int, games: int) -> np.ndarray:
    """(games, 2): each game's deal seed and search seed, from (seed, iteration, game)."""
    return np.array([np.random.SeedSequence([seed, iteration, game]).generate_state(2)
                     for game in range(games)], dtype=np.int64) & 0x7FFF_FFFF


def play_iteration(config: TrainConfig, settings: GameSettings, iteration: int, ray: Any,
                   progress: bool) -> Positions:
    """The iteration's games, in chunks, on the workers or Ray; their positions in game
    order."""
    if config.expert_iteration.players == "forecast":
        return forecast_positions(config, iteration)
    seeds = game_seeds(config.seed, iteration, config.expert_iteration.games)
    chunks = [seeds[start : start + GAMES_PER_TASK]
              for start in range(0, len(seeds), GAMES_PER_TASK)]
    bar = tqdm(total=len(seeds), unit="game", desc=f"iteration {iteration + 1} games",
               disable=not progress, leave=False, file=sys.stderr, dynamic_ncols=True)
    with bar:
        if ray is None:
            tasks = [(config.game, config.num_players, config.game_options, settings, chunk)
                     for chunk in chunks]
            parts = list(map_chunks(_play_task, tasks, config.expert_iteration.workers, bar))
        else:
            remote = ray.remote(num_cpus=1)(play_games)
            shared = ray.put(settings)
            references = [remote.remote(config.game, config.num_players, config.game_options,
                                        shared, chunk)
                          for chunk in chunks]
            parts = []
            for reference in references:
                parts.append(ray.get(reference))
                bar.update(len(parts[-1]))
    return Positions.joined([game for part in parts for game in part])


def forecast_positions(config: TrainConfig, iteration: int) -> Positions:
    """The iteration's games played by compiled forecast players (``players: forecast``),
    dealt from a seed made from (seed, iteration); no policy targets (all 0)."""
    seed = int(np.random.SeedSequence([config.seed, iteration]).generate_state(1)[0]) \
        & 0x7FFF_FFFF
    observations, masks, shares = forecast_games(
        config.num_players, config.expert_iteration.games, seed, config.game_options)
    return Positions(observations, masks, np.zeros(masks.shape, np.float32), shares)


def _play_task(task) -> list[Positions]:
    return play_games(*task)


def play_games(game: str, num_players: int, game_options: dict[str, Any],
               settings: GameSettings, seeds: np.ndarray) -> list[Positions]:
    """Whole games of ``game``, every seat played by its search guided by ``settings``'
    network; one :class:`Positions` per game. Game g is dealt from ``seeds[g, 0]`` and searched
    with a generator seeded by ``seeds[g, 1]``; torch runs on one thread here, wherever it
    runs."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        player = training_game(game).expert_iteration_player()
        return player(num_players, game_options, settings, seeds)
    finally:
        torch.set_num_threads(threads)


def play_hungry_games(num_players: int, game_options: dict[str, Any], settings: GameSettings,
                      seeds: np.ndarray) -> list[Positions]:
    """Hungry's games (see :func:`play_games`), on the batched engine, every seat played by
    ``search:N:SPEC``; the targets are the search's improved policies."""
    guide = LearnedPolicy.from_weights(settings.metadata, settings.weights, name="network")
    search = SearchHungryPolicy(settings.simulations, guide, settings.cutoff,
                                settings.explore)
    batch = BatchedHungry(num_players, len(seeds), **game_options)
    out = batch.reset(seeds=seeds[:, 0])
    rngs = [np.random.default_rng(int(seed)) for seed in seeds[:, 1]]
    shape = (len(seeds), TOTAL_PLAYS)
    observations = np.zeros((*shape, batch.observation_size), np.float32)
    masks = np.zeros((*shape, NUM_ACTIONS), bool)
    targets = np.zeros((*shape, NUM_ACTIONS), np.float32)
    movers = np.zeros(shape, np.int64)
    for turn in range(TOTAL_PLAYS):
        actions = np.zeros(len(seeds), np.int64)
        for game in range(len(seeds)):
            observation = {"observation": out.observations[game].copy(),
                           "action_mask": out.action_masks[game].copy()}
            view = HungryView.from_observation(observation, batch.tied_second)
            actions[game] = search.act(observation, rngs[game], view)
            observations[game, turn] = observation["observation"]
            masks[game, turn] = observation["action_mask"].astype(bool)
            targets[game, turn] = search.last_search.improved_policy()
            movers[game, turn] = out.to_move[game]
        out = batch.step(actions)
    if not out.done.all():
        raise RuntimeError(f"a game did not end after {TOTAL_PLAYS} plays")
    shares = out.winners / out.winners.sum(axis=1, keepdims=True)
    return [Positions(observations[g], masks[g], targets[g],
                      shares[g, movers[g]].astype(np.float32)) for g in range(len(seeds))]


def play_show_games(num_players: int, game_options: dict[str, Any], settings: GameSettings,
                    seeds: np.ndarray) -> list[Positions]:
    """HUNGER's shows (see :func:`play_games`), on the Parallel env, every living seat played
    by ``smmcts:N:SPEC``; the targets are the searcher's visit counts over its picks, less
    each pick's first try, normalised (``SMMCTSShowPolicy.visit_policy``). A seat that does
    not search (eliminated, staying in the env) keeps no position."""
    guide = LearnedPolicy.from_weights(settings.metadata, settings.weights, name="network")
    search = SMMCTSShowPolicy(settings.simulations, guide=guide, explore=settings.explore)
    games = []
    for deal_seed, search_seed in seeds.tolist():
        env = hunger_show_v0.parallel_env(num_players=num_players, **game_options)
        observations, _ = env.reset(seed=deal_seed)
        rng = np.random.default_rng(search_seed)
        seats, vectors, masks, targets = [], [], [], []
        while env.agents:
            actions = {}
            for agent in env.agents:
                observation = observations[agent]
                actions[agent] = search.act(observation, rng)
                visits = search.visit_policy()
                if visits is not None:
                    mask = np.asarray(observation["action_mask"]).astype(bool)
                    # The searcher's picks are its legal actions, in order (S6).
                    target = np.zeros(mask.size, np.float32)
                    target[mask] = visits
                    seats.append(env.agent_seats[agent])
                    vectors.append(np.array(observation["observation"], np.float32))
                    masks.append(mask)
                    targets.append(target)
            observations, *_ = env.step(actions)
        shares = np.zeros(num_players, np.float32)
        shares[env.game.winners] = 1.0 / len(env.game.winners)
        games.append(Positions(np.stack(vectors), np.stack(masks), np.stack(targets),
                               shares[seats]))
    return games


def _start_ray(address: str | None):
    """The ``ray`` module, initialised at ``address`` (``"local"``: a fresh instance on this
    machine); None without an address."""
    if address is None:
        return None
    try:
        import ray
    except ImportError as error:
        raise ValueError(f"expert_iteration.ray_address needs Ray (the rllib extra): "
                         f"{error}") from error
    ray.init(address=address, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    return ray


# -- fit --------------------------------------------------------------------------------------


def fit(network: Any, optimizer: torch.optim.Optimizer, encoder: Any, positions: Positions,
        settings: Any, generator: torch.Generator, progress: bool) -> dict[str, float]:
    """``settings.epochs`` passes of Adam over the positions: cross-entropy of the policy to
    the search's improved policies plus ``value_weight`` times the value's squared error to the
    win shares; with ``settings.fit == "value"`` the value's error alone, which moves only the
    value's own branch (the networks' critics share no weight with their actors), so the
    policy stays as it was. Returns the last epoch's mean losses."""
    inputs = torch.as_tensor(encoder.batch(positions.observations))
    masks = torch.as_tensor(positions.masks)
    targets = torch.as_tensor(positions.targets)
    shares = torch.as_tensor(positions.win_shares)
    value_only = settings.fit == "value"
    last = {}

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        features = network.extract_features(inputs[rows])
        critic = network.mlp_extractor.forward_critic(features)
        value_loss = ((network.value_net(critic)[:, 0] - shares[rows]) ** 2).mean()
        last["value_loss"] = last.get("value_loss", 0.0) + value_loss.item() * rows.size
        if value_only:
            return settings.value_weight * value_loss
        actor = network.mlp_extractor.forward_actor(features)
        logits = network.action_net(actor).masked_fill(~masks[rows], MASKED_LOGIT)
        log_policy = torch.log_softmax(logits, dim=1).masked_fill(~masks[rows], 0.0)
        policy_loss = -(targets[rows] * log_policy).sum(dim=1).mean()
        last["policy_loss"] = last.get("policy_loss", 0.0) + policy_loss.item() * rows.size
        return policy_loss + settings.value_weight * value_loss

    network.train()
    rows = np.arange(len(positions))
    for _ in tqdm(range(settings.epochs), desc="fit", unit="epoch", leave=False,
                  disable=not progress, file=sys.stderr, dynamic_ncols=True):
        last.clear()
        minibatch_epoch(rows, settings.batch_size, generator, loss_of, optimizer)
    network.eval()
    return {name: round(last[name] / rows.size, 5) for name in sorted(last)}


def held_out_value_losses(network: Any, encoder: Any, positions: Positions) -> dict[str, float]:
    """The value's squared error to the win shares of positions it was not fitted to (an
    iteration's new games, before the fit), and that of the best constant guess in hindsight,
    their mean win share."""
    inputs = torch.as_tensor(encoder.batch(positions.observations))
    with torch.no_grad():
        values = network.predict_values(inputs)[:, 0].numpy()
    shares = positions.win_shares
    return {"held_out_value_loss": round(float(np.mean((values - shares) ** 2)), 5),
            "constant_value_loss": round(float(np.var(shares)), 5)}


def _generator(seed: int, iteration: int) -> torch.Generator:
    """The fit's shuffles in ``iteration``: their own stream, so a resumed run draws the
    same."""
    state = np.random.SeedSequence([seed, iteration, 1]).generate_state(1)[0]
    return torch.Generator().manual_seed(int(state))


# -- the per-iteration log ----------------------------------------------------------------------


def _log_iteration(out: Path, row: dict[str, Any]) -> None:
    with open(out / ITERATIONS_LOG, "a") as handle:
        handle.write(json.dumps(row) + "\n")


def _keep_iterations_log(out: Path, iterations: int) -> None:
    """Keep the log's lines of the first ``iterations`` iterations (a run killed after its
    log line but before its checkpoint would otherwise repeat one)."""
    path = out / ITERATIONS_LOG
    if not path.exists():
        return
    lines = [line for line in path.read_text().splitlines()
             if line and json.loads(line)["iteration"] <= iterations]
    write_atomically(path, "".join(line + "\n" for line in lines))
