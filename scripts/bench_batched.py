"""Batched engines against Pgx connect_four, in agent-steps per second (``bench_envs.py
--batched``; ``--game hunger_show``: batched HUNGER at 4 and 6 players beside ``hunger_show_v0``).

What one agent-step is, on both sides: the player to move in one game picks a uniformly random
legal action, the game advances by that play (re-dealt when it ends), and the next observation
and action mask exist in memory. Hungry: ``BatchedPolicy("random").act`` then
``BatchedHungry.step`` (full float32 observations of 51 + 53 N values and int8 masks for every
game, every step). Pgx: one jitted function per step that samples the action from the mask
(``jax.random.categorical``), steps the vmapped ``connect_four`` with ``auto_reset`` and returns
the new state, observations included; the timer stops after ``block_until_ready``.
"""

from __future__ import annotations

import os
import statistics
import time

HUNGRY_BATCHES = (1, 256, 4096)
PGX_BATCH = 1024
SHOW_PLAYERS = (4, 6)
TARGET_BATCH = 4096


def pin_to_one_core() -> None:
    """One CPU, one thread for XLA and BLAS; must run before jax or numpy start threads."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "")
        + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    )
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[name] = "1"


def hungry_rate(num_games: int, num_players: int, seconds: float) -> float:
    from hunger_rl.engines.hungry.batched import BatchedHungry
    from hunger_rl.policies.hungry_batched import BatchedPolicy

    batch = BatchedHungry(num_players, num_games)
    batch.reset(seed=0)
    policy = BatchedPolicy("random", num_games, seed=0)
    batch.step(policy.act(batch))  # compiled code loaded before the clock starts
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            batch.step(policy.act(batch))
        steps += 10 * num_games
    return steps / (time.perf_counter() - start)


def show_rate(num_shows: int, num_players: int, seconds: float) -> float:
    """Batched HUNGER: every living player of every show picks a uniformly random legal action
    (compiled ``random`` players), then ``BatchedShow.step`` plays the day; one agent-step per
    living player per day."""
    from hunger_rl.engines.hunger_show.batched import BatchedShow
    from hunger_rl.policies.hunger_show_batched import BatchedShowPolicies

    batch = BatchedShow(num_players, num_shows)
    out = batch.reset(seed=0)
    players = BatchedShowPolicies([["random"] * num_players] * num_shows, num_players, seed=0)
    out = batch.step(players.act(out.observations, out.action_masks))  # compiled code loaded
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            steps += int(batch.alive.sum())
            out = batch.step(players.act(out.observations, out.action_masks))
    return steps / (time.perf_counter() - start)


def show_reference_rate(num_players: int, seconds: float) -> float:
    """hunger_show_v0's Parallel env (one show, its default path) with uniformly random legal
    actions."""
    from bench_envs import parallel_steps_per_second

    from hunger_rl.envs import hunger_show_v0

    return parallel_steps_per_second(lambda: hunger_show_v0.parallel_env(num_players=num_players),
                                     seconds)


def make_pgx_runner(num_games: int):
    """A function running Pgx connect_four for ``seconds``, returning agent-steps/s; or None."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make("connect_four")
    step_all = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def step(state, key):
        key, action_key, step_key = jax.random.split(key, 3)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        action = jax.random.categorical(action_key, logits, axis=-1)
        return step_all(state, action, jax.random.split(step_key, num_games)), key

    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_games))
    state, key = step(state, key)
    state.observation.block_until_ready()

    def run(seconds: float) -> float:
        nonlocal state, key
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(10):
                state, key = step(state, key)
            steps += 10 * num_games
        state.observation.block_until_ready()
        return steps / (time.perf_counter() - start)

    return run


def bench_batched(args) -> None:
    """Each round measures Pgx before and after the engines, and each engine's ratio is to the
    mean of those two: the load of a shared machine drifts between rounds, far less within one.
    Printed: medians over the rounds of the rates and of those paired ratios."""
    num_players = args.players
    pgx_run = make_pgx_runner(PGX_BATCH)
    pgx_name = f"pgx connect_four B={PGX_BATCH}"
    rates: dict[str, list[float]] = {}
    ratios: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        before = pgx_run(args.seconds) if pgx_run is not None else None
        this_round: dict[str, float] = {}
        if args.game == "hunger_show":
            for players in SHOW_PLAYERS:
                for batch_size in HUNGRY_BATCHES:
                    this_round[f"hunger_show {players}p B={batch_size}"] = show_rate(
                        batch_size, players, args.seconds)
                this_round[f"hunger_show_v0 {players}p (one show)"] = show_reference_rate(
                    players, args.seconds)
        else:
            for batch_size in HUNGRY_BATCHES:
                this_round[f"hungry {num_players}p B={batch_size}"] = hungry_rate(
                    batch_size, num_players, args.seconds)
        if pgx_run is not None:
            reference = (before + pgx_run(args.seconds)) / 2
            for name, rate in this_round.items():
                ratios.setdefault(name, []).append(rate / reference)
            this_round[pgx_name] = reference
        for name, rate in this_round.items():
            rates.setdefault(name, []).append(rate)
    cpus = sorted(os.sched_getaffinity(0))
    print(
        f"batched engines, random legal play, medians of {args.rounds} interleaved rounds "
        f"of {args.seconds:g} s (ratios to each round's Pgx), CPUs {cpus}"
    )
    for name, values in rates.items():
        ratio = f"   {statistics.median(ratios[name]):5.2f}x pgx" if name in ratios else ""
        print(f"{name:<32}{statistics.median(values):>14,.0f} agent-steps/s{ratio}")
    if pgx_run is None:
        print("pgx is not installed (pip install -e '.[bench]'): no reference figure")
