"""Playing scheduled games between policy specs, in one process or several.

Each game's randomness (the deal and every policy's draws) comes from ``(seed, game index)``
only, so a schedule gives the same records whatever the number of worker processes.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import resource_tracker

import numpy as np
from tqdm import tqdm

from hunger_rl.engines.rewards import win_shares
from hunger_rl.envs import game_spec
from hunger_rl.envs.records import GameRecord as Record
from hunger_rl.envs.records import Recorder, make_env, recordable_options
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
    ``record`` is the game's full record (``hunger_rl.envs.records``) when the games were played
    with ``record=True``.
    """

    index: int
    seats: tuple[str, ...]
    win_shares: tuple[float, ...]
    scores: tuple
    record: Record | None = None


def play_games(
    game: str,
    num_players: int,
    schedule: Sequence[Sequence[str]],
    seed: int,
    workers: int = 1,
    env_kwargs: dict | None = None,
    progress: bool = True,
    description: str = "games",
    record: bool = False,
) -> list[GameRecord]:
    """Play game ``i`` with ``schedule[i]`` (one spec per seat); records in schedule order.
    With ``record`` each outcome carries the game's full record (every action and decision)."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    make_env(game, num_players, env_kwargs or {})  # bad game or arguments: fail here, once
    if record:
        recordable_options(env_kwargs)
    # Policies are built afresh for every schedule: a policy file may have changed since the
    # last one (a training run rewrites its policy.safetensors before each evaluation).
    _POLICY_CACHE.clear()
    for seats in schedule:
        if len(seats) != num_players:
            raise ValueError(f"a game of {num_players} players needs {num_players} seats: {seats}")
    for spec in {s for seats in schedule for s in seats}:
        make_policy(spec, game, num_players)  # fail early on a bad spec
    indexed = [(i, tuple(seats)) for i, seats in enumerate(schedule)]
    tasks = [
        (game, num_players, indexed[start : start + CHUNK_SIZE], seed, dict(env_kwargs or {}),
         record)
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
    pool = None
    try:
        with workers_starting(), single_threaded_children():
            pool = context.Pool(min(workers, len(tasks)), initializer=init_worker)
        for chunk in pool.imap(function, tasks):
            bar.update(len(chunk))
            yield chunk
        # Done: the workers leave on the pool's own sentinel. A SIGTERM from terminate() could
        # reach a worker already in its exit, amid torch's clean-up, and print a traceback.
        pool.close()
        pool.join()
    finally:
        if pool is not None:  # on any exception, Ctrl-C and SIGTERM included; else a no-op
            terminate_pool(pool)


# Seconds the pool's own terminate may take before its workers are killed.
TERMINATE_GRACE_S = 10.0


def terminate_pool(pool) -> None:
    """``pool.terminate()``, bounded: a worker left alive after the grace is killed.

    The terminate holds the task queue's lock while it sends SIGTERM and waits for each worker
    to leave. A worker whose SIGTERM is lost (the handler's SystemExit raised inside a
    finaliser, where Python prints and drops it) goes back to the queue, waits for that lock,
    and the terminate waits for it for ever; killing it ends the wait. The terminate runs in a
    thread so that this one can watch the clock; it is a daemon, and if it still waits after the
    kill (a worker killed holding the lock the terminate is waiting for), it is left behind
    rather than holding the caller up."""
    workers = list(pool._pool)  # the Process objects; Pool has no public list of them
    terminating = threading.Thread(target=pool.terminate, name="terminate pool", daemon=True)
    terminating.start()
    terminating.join(TERMINATE_GRACE_S)
    if terminating.is_alive():
        for worker in workers:
            if worker.is_alive():
                worker.kill()
        terminating.join(TERMINATE_GRACE_S)


@contextlib.contextmanager
def workers_starting() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while worker processes start, and act once the pool is whole
    (as the exception that terminates it): an exception halfway through starting a worker would
    leave it reading a cut-off pipe, with a traceback. SIGINT is also blocked, and so it stays
    in the workers, which inherit the mask (of this thread, and of the pool's threads started
    now, which start any replacement worker): a Ctrl-C reaches the whole process group, and
    only this process should act on it, rather than every worker with a traceback. Outside the
    main thread, which alone may set signal handlers, or without POSIX signal masks, nothing
    changes."""
    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "pthread_sigmask")):
        yield
        return
    # The pool's first semaphore starts multiprocessing's resource tracker, which unblocks
    # SIGINT in this thread after starting it: start it before, not amid the workers.
    resource_tracker.ensure_running()
    held: list[int] = []
    previous_handlers = {signum: signal.signal(signum, lambda signum, frame: held.append(signum))
                         for signum in (signal.SIGINT, signal.SIGTERM)}
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)  # a blocked Ctrl-C is held
        for signum, handler in previous_handlers.items():
            signal.signal(signum, handler)
        if held:
            signal.raise_signal(held[0])


# The variables by which numpy's BLAS (OpenBLAS, MKL) and torch choose their thread counts when
# they load.
THREAD_COUNT_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def single_threaded_children() -> Iterator[None]:
    """Processes started meanwhile run numpy's BLAS and torch on one thread each, unless the
    caller's environment says otherwise: several workers each running a thread pool over every
    CPU would oversubscribe them (a policy file's numpy forward pass took ten times as long on
    a busy machine). They read these variables when they load, which in a spawned worker is
    before its initializer runs, so the variables are set in this process around the start."""
    previous = {name: os.environ.get(name) for name in THREAD_COUNT_VARIABLES}
    for name in THREAD_COUNT_VARIABLES:
        os.environ.setdefault(name, "1")
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def init_worker() -> None:
    # SIGTERM (from the pool's terminate, or sent to the whole process group) ends a worker by
    # unwinding, which releases the task queue's lock an idle worker holds while it waits: a
    # worker killed holding it would leave the pool's terminate waiting for it for ever.
    signal.signal(signal.SIGTERM, _exit_worker)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _exit_worker(signum: int, frame: object) -> None:
    # A second SIGTERM (the process group's, then the pool's terminate) must not interrupt the
    # exit itself: raised inside the interpreter's shutdown, it printed a traceback.
    signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(128 + signum)  # the process ends silently, with the shell's status


# Policies built in this process, by (game, players, spec, seat), reused across the games of
# one schedule.
_POLICY_CACHE: dict[tuple, Policy] = {}


def cached_policy(game: str, num_players: int, spec: str, seat: int) -> Policy:
    """The policy ``spec`` for one seat, built once per process and schedule and reused across
    its games."""
    key = (game, num_players, spec, seat)
    if key not in _POLICY_CACHE:
        _POLICY_CACHE[key] = make_policy(spec, game, num_players)
        # A worker process runs one game at a time on one thread; the main process keeps the
        # threads its caller chose (a training run's ``torch_threads``), so that evaluating in
        # this process or in workers cannot change how the run trains.
        if "torch" in sys.modules and multiprocessing.parent_process() is not None:
            sys.modules["torch"].set_num_threads(1)
    return _POLICY_CACHE[key]


def _play_chunk(task) -> list[GameRecord]:
    game, num_players, games, seed, env_kwargs, record = task
    game_info = game_spec(game)
    play = _play_aec if game_info.native_api(env_kwargs) == "aec" else _play_parallel
    records = []
    for index, seats in games:
        sequence = np.random.SeedSequence([seed, index])
        env_seed = int(sequence.generate_state(1)[0])
        rngs = [np.random.default_rng(s) for s in sequence.spawn(num_players)]
        # One policy object per seat, so that a policy's memory of the game is its own.
        policies = [cached_policy(game, num_players, spec, seat) for seat, spec in enumerate(seats)]
        for policy in policies:
            policy.reset()
        recorder = Recorder(game, num_players, env_kwargs, env_seed, seats) if record else None
        shares, scores = play(game_info, num_players, policies, rngs, env_seed, env_kwargs,
                              recorder)
        records.append(GameRecord(index, tuple(seats), tuple(shares), tuple(scores),
                                  recorder.record if recorder else None))
    return records


def _play_aec(game_info, num_players, policies, rngs, env_seed, env_kwargs, recorder=None):
    options = recorder.env_options() if recorder else env_kwargs
    game_env = make_env(game_info.name, num_players, options)
    game_env.reset(seed=env_seed)
    seat_of = {agent: i for i, agent in enumerate(game_env.possible_agents)}
    while game_env.agents:
        agent = game_env.agent_selection
        if game_env.terminations[agent] or game_env.truncations[agent]:
            game_env.step(None)  # an agent that has left, as AEC envs require
            continue
        seat = seat_of[agent]
        observation = game_env.observe(agent)
        view = game_info.view_of(observation, env_kwargs)
        action = policies[seat].act(observation, rngs[seat], view)
        game_env.step(action)
        if recorder:
            recorder.aec_step(agent, action, game_env.rewards)
    if recorder:
        recorder.finish(game_env)
    return _outcome(game_info, num_players, seat_of, game_env)


def _play_parallel(game_info, num_players, policies, rngs, env_seed, env_kwargs, recorder=None):
    options = recorder.env_options() if recorder else env_kwargs
    game_env = make_env(game_info.name, num_players, options)
    observations, _ = game_env.reset(seed=env_seed)
    seat_of = {agent: i for i, agent in enumerate(game_env.possible_agents)}
    while game_env.agents:
        actions = {
            agent: policies[seat_of[agent]].act(
                observations[agent], rngs[seat_of[agent]],
                game_info.view_of(observations[agent], env_kwargs))
            for agent in game_env.agents
        }
        observations, rewards, *_ = game_env.step(actions)
        if recorder:
            recorder.parallel_step(actions, rewards)
    if recorder:
        recorder.finish(game_env)
    return _outcome(game_info, num_players, seat_of, game_env)


def _outcome(game_info, num_players, seat_of, game_env):
    """Win shares and scores by seat at the end: the unwrapped env's ``winners`` and its
    attribute ``game_info.score_attribute`` (each ranked agent's score)."""
    env = game_env.unwrapped
    winners = [seat_of[agent] for agent in env.winners]
    scores = [None] * num_players
    for agent, score in getattr(env, game_info.score_attribute).items():
        scores[seat_of[agent]] = score
    return win_shares(num_players, winners), scores

