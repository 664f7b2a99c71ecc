"""Playing scheduled games between policy specs, in one process or several.

Each game's randomness (the deal and every policy's draws) comes from ``(seed, game index)``
only, so a schedule gives the same records whatever the number of worker processes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from hunger_rl.envs import load_game
from hunger_rl.envs.rewards import win_shares
from hunger_rl.policies.base import Policy
from hunger_rl.policies.registry import make_policy

# Games per task sent to a worker: large enough to amortise the hand-off, small enough to
# keep the progress bar moving and the workers evenly loaded.
CHUNK_SIZE = 8


@dataclass(frozen=True)
class GameRecord:
    """Outcome of one game, by seat: who sat there, its win share and its score.

    ``scores`` is the Hungry total, or for HUNGER: The Show the ranking key (raft sets,
    leftover raft units, food value), ``None`` for a player eliminated before the ranking.
    """

    index: int
    seats: tuple[str, ...]
    win_shares: tuple[float, ...]
    scores: tuple


def play_games(
    game: str,
    num_players: int,
    schedule: Sequence[Sequence[str]],
    seed: int,
    workers: int = 1,
    env_kwargs: dict | None = None,
    progress: bool = True,
    description: str = "games",
) -> list[GameRecord]:
    """Play game ``i`` with ``schedule[i]`` (one spec per seat); records in schedule order."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    _make_env(game, num_players, env_kwargs or {})  # bad game or arguments: fail here, once
    for seats in schedule:
        if len(seats) != num_players:
            raise ValueError(f"a game of {num_players} players needs {num_players} seats: {seats}")
    for spec in {s for seats in schedule for s in seats}:
        make_policy(spec, game, num_players)  # fail early on a bad spec
    indexed = [(i, tuple(seats)) for i, seats in enumerate(schedule)]
    tasks = [
        (game, num_players, indexed[start : start + CHUNK_SIZE], seed, dict(env_kwargs or {}))
        for start in range(0, len(indexed), CHUNK_SIZE)
    ]
    bar = tqdm(total=len(schedule), desc=description, disable=not progress, file=sys.stderr)
    with bar:
        return [record for chunk in map_chunks(_play_chunk, tasks, workers, bar)
                for record in chunk]


def map_chunks(function, tasks: list, workers: int, bar: tqdm) -> Iterator:
    """``function(task)`` for every task, in order, in this process or in ``workers`` spawned
    processes; each result (a chunk of items) advances ``bar`` by its length."""
    if workers == 1 or len(tasks) <= 1:
        results = map(function, tasks)
        for chunk in results:
            bar.update(len(chunk))
            yield chunk
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(tasks)), initializer=init_worker) as pool:
        for chunk in pool.imap(function, tasks):
            bar.update(len(chunk))
            yield chunk


def init_worker() -> None:
    # Several workers each running torch's default thread pool would oversubscribe the CPUs.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


# Policies built in this process, by (game, players, spec, seat), reused across games.
_POLICY_CACHE: dict[tuple, Policy] = {}


def cached_policy(game: str, num_players: int, spec: str, seat: int) -> Policy:
    """The policy ``spec`` for one seat, built once per process and reused across games."""
    key = (game, num_players, spec, seat)
    if key not in _POLICY_CACHE:
        _POLICY_CACHE[key] = make_policy(spec, game, num_players)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    return _POLICY_CACHE[key]


def _play_chunk(task) -> list[GameRecord]:
    game, num_players, games, seed, env_kwargs = task
    play = _play_hungry if game == "hungry" else _play_show
    records = []
    for index, seats in games:
        sequence = np.random.SeedSequence([seed, index])
        env_seed = int(sequence.generate_state(1)[0])
        rngs = [np.random.default_rng(s) for s in sequence.spawn(num_players)]
        # One policy object per seat, so that a policy's memory of the game is its own.
        policies = [cached_policy(game, num_players, spec, seat) for seat, spec in enumerate(seats)]
        for policy in policies:
            policy.reset()
        shares, scores = play(num_players, policies, rngs, env_seed, env_kwargs)
        records.append(GameRecord(index, tuple(seats), tuple(shares), tuple(scores)))
    return records


def _make_env(game: str, num_players: int, env_kwargs: dict):
    """Hungry's AEC ``raw_env`` or HUNGER: The Show's native Parallel env (its AEC env in the
    full-decision mode)."""
    module = load_game(game)
    aec = game == "hungry" or env_kwargs.get("decision_mode") == "agents"
    factory = module.raw_env if aec else module.parallel_env
    try:
        return factory(num_players=num_players, **env_kwargs)
    except TypeError as error:  # an unknown keyword argument
        raise ValueError(f"bad environment arguments {env_kwargs}: {error}") from error


def _play_hungry(num_players, policies, rngs, env_seed, env_kwargs):
    from hunger_rl.envs.hungry.view import public_view

    game_env = _make_env("hungry", num_players, env_kwargs)
    game_env.reset(seed=env_seed)
    seat_of = {agent: i for i, agent in enumerate(game_env.possible_agents)}
    state = game_env.game
    while not state.is_over:
        agent = game_env.agent_selection
        seat = seat_of[agent]
        observation = game_env.observe(agent)
        action = policies[seat].act(observation, rngs[seat], public_view(game_env, agent))
        game_env.step(action)
    score = state.score()
    return win_shares(num_players, score.winners), score.totals


def _play_show(num_players, policies, rngs, env_seed, env_kwargs):
    if env_kwargs.get("decision_mode") == "agents":
        return _play_show_full(num_players, policies, rngs, env_seed, env_kwargs)
    game_env = _make_env("hunger_show", num_players, env_kwargs)
    observations, _ = game_env.reset(seed=env_seed)
    seat_of = {agent: i for i, agent in enumerate(game_env.possible_agents)}
    infos: dict = {}
    while game_env.agents:
        actions = {
            agent: policies[seat_of[agent]].act(observations[agent], rngs[seat_of[agent]])
            for agent in game_env.agents
        }
        observations, _, _, _, infos = game_env.step(actions)
    final = next(iter(infos.values()))
    winners = [seat_of[agent] for agent in final["winners"]]
    scores = [None] * num_players
    for agent, info in infos.items():
        if "ranking_key" in info:
            scores[seat_of[agent]] = tuple(info["ranking_key"])
    return win_shares(num_players, winners), scores


def _play_show_full(num_players, policies, rngs, env_seed, env_kwargs):
    """HUNGER in the full-decision mode: every pick and every later choice is a policy's step."""
    game_env = _make_env("hunger_show", num_players, env_kwargs)
    game_env.reset(seed=env_seed)
    seat_of = {agent: i for i, agent in enumerate(game_env.possible_agents)}
    for agent in game_env.agent_iter():
        observation, _, terminated, truncated, _ = game_env.last()
        if terminated or truncated:
            game_env.step(None)
            continue
        seat = seat_of[agent]
        game_env.step(policies[seat].act(observation, rngs[seat]))
    game = game_env.game
    scores = [game.final_keys.get(seat) for seat in range(num_players)]
    return win_shares(num_players, game.winners), scores
