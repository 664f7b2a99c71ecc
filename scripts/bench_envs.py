"""Throughput of random masked play, in agent-steps per second, against reference environments.

Each benchmark runs side by side with its reference in this one process, several rounds
interleaved, and reports medians and their ratio, since machines are noisy.

    python scripts/bench_envs.py                  # every benchmark
    python scripts/bench_envs.py --only hungry    # one of them
    python scripts/bench_envs.py --batched --one-core   # batched Hungry against Pgx
    python scripts/bench_envs.py --batched --game hunger_show --one-core   # batched HUNGER

References need PettingZoo's classic games: ``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np


def aec_steps_per_second(make_env: Callable, seconds: float, seed: int = 0) -> float:
    """Agent-steps/s of uniformly random legal play through an AEC ``env()``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def parallel_steps_per_second(make_env: Callable, seconds: float, seed: int = 0) -> float:
    """Agent-steps/s of uniformly random legal play through a Parallel ``parallel_env()``."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        observations, _ = env.reset(seed=seed + episode)
        episode += 1
        while env.agents:
            actions = {}
            for agent in env.agents:
                mask = (
                    observations[agent].get("action_mask")
                    if isinstance(observations[agent], dict)
                    else None
                )
                if mask is None:
                    actions[agent] = int(env.action_space(agent).sample())
                else:
                    legal = np.flatnonzero(mask)
                    actions[agent] = int(legal[rng.integers(len(legal))])
            observations, *_ = env.step(actions)
            steps += len(actions)
    return steps / (time.perf_counter() - start)


def compare(
    name: str, measure: Callable, ours: Callable, reference: Callable, ref_name: str, args
) -> None:
    """Interleave rounds of ours and the reference; print medians and the ratio."""
    ours_rates, ref_rates = [], []
    for _ in range(args.rounds):
        ours_rates.append(measure(ours, args.seconds))
        ref_rates.append(measure(reference, args.seconds))
    mine, theirs = statistics.median(ours_rates), statistics.median(ref_rates)
    print(
        f"{name:<28}{mine:>12,.0f} agent-steps/s   {ref_name:<24}{theirs:>10,.0f}   "
        f"ratio {mine / theirs:5.2f}x"
    )


def bench_hungry(args) -> None:
    from pettingzoo.classic import connect_four_v3

    from hunger_rl.envs import hungry_v0

    for players in (2, 4):
        compare(
            f"hungry_v0 env() {players}p",
            aec_steps_per_second,
            lambda p=players: hungry_v0.env(num_players=p),
            connect_four_v3.env,
            "connect_four_v3 env()",
            args,
        )


def bench_hunger_show(args) -> None:
    from pettingzoo.classic import rps_v2
    from pettingzoo.utils.conversions import aec_to_parallel

    from hunger_rl.envs import hunger_show_v0

    compare(
        "hunger_show_v0 parallel 4p",
        parallel_steps_per_second,
        lambda: hunger_show_v0.parallel_env(num_players=4),
        rps_v2.parallel_env,
        "rps_v2 parallel_env()",
        args,
    )
    # PettingZoo's conversion of the AEC view gives back the Parallel env (the view's options:
    # eliminated players stay), so the two should run at the same speed.
    compare(
        "aec_to_parallel(env()) 4p",
        parallel_steps_per_second,
        lambda: aec_to_parallel(hunger_show_v0.env(num_players=4)),
        lambda: hunger_show_v0.parallel_env(num_players=4, eliminated="stay"),
        "parallel_env(stay) 4p",
        args,
    )


BENCHMARKS = {"hungry": bench_hungry, "hunger_show": bench_hunger_show}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(BENCHMARKS), action="append")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one round")
    parser.add_argument(
        "--rounds", type=int, default=15, help="interleaved rounds per env (many short: less noise)"
    )
    parser.add_argument(
        "--batched", action="store_true", help="batched engine at B=1, 256, 4096 against Pgx"
    )
    parser.add_argument("--players", type=int, default=2, help="players per batched game")
    parser.add_argument("--game", choices=("hungry", "hunger_show"), default="hungry",
                        help="the batched engine to measure")
    parser.add_argument(
        "--one-core", action="store_true", help="pin to one CPU, one thread for XLA and BLAS"
    )
    args = parser.parse_args()
    if args.batched:
        from bench_batched import bench_batched, pin_to_one_core

        if args.one_core:
            pin_to_one_core()
        bench_batched(args)
        return
    for name in args.only or BENCHMARKS:
        BENCHMARKS[name](args)


if __name__ == "__main__":
    main()
