"""Throughput of random masked play, in agent-steps per second, against reference environments.

Each benchmark runs side by side with its reference in this one process, several rounds
interleaved, and reports medians and their ratio, since machines are noisy.

    python scripts/bench_envs.py                  # every benchmark
    python scripts/bench_envs.py --only hungry    # one of them
    python scripts/bench_envs.py --batched --one-core   # batched Hungry against Pgx
    python scripts/bench_envs.py --batched --game hunger_show --one-core   # batched HUNGER
    python scripts/bench_envs.py --against b5ffab3 --one-core   # this checkout against a commit
    python scripts/bench_envs.py --against b5ffab3 --one-core --only learner --rounds 3

References need PettingZoo's classic games: ``pip install -e '.[bench]'``.

``--against REF`` measures this checkout against the git ref REF instead of the reference envs:
REF is checked out in a temporary git worktree, each side imports its own ``hunger_rl`` in a
worker process of its own (the same measuring loops of this script), and the two workers take
turns, one benchmark at a time, alternating which side goes first. Printed per benchmark: the
medians of both sides and the median of the per-round ratios (this checkout / REF), with their
range; a benchmark the other side cannot run (an API it lacks) is named and skipped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

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

ROOT = Path(__file__).resolve().parents[1]


def hungry_env_rate(num_players: int, seconds: float) -> float:
    from hunger_rl.envs import hungry_v0

    return aec_steps_per_second(lambda: hungry_v0.env(num_players=num_players), seconds)


def show_env_rate(num_players: int, seconds: float) -> float:
    from hunger_rl.envs import hunger_show_v0

    return parallel_steps_per_second(
        lambda: hunger_show_v0.parallel_env(num_players=num_players), seconds)


def show_aec_rate(num_players: int, seconds: float, **options) -> float:
    from hunger_rl.envs import hunger_show_v0

    return aec_steps_per_second(lambda: hunger_show_v0.env(num_players=num_players, **options),
                                seconds)


def batched_hungry_rate(seconds: float) -> float:
    from bench_batched import hungry_rate

    return hungry_rate(256, 2, seconds)


def batched_show_rate(seconds: float) -> float:
    from bench_batched import show_rate

    return show_rate(256, 4, seconds)


# The learner benchmarks: each config's own PPO (its batched env, network and settings) from a
# fresh network, one torch thread.
LEARNER_CONFIGS = {"hungry": "hungry_2p_vs_expert", "hunger_show": "hunger_show_4p_batched"}
_learners: dict[str, tuple] = {}


def _learner(game: str) -> tuple:
    """The config's SB3 learner with one rollout collected, ready to collect more and to
    update, built once per process. Its ``target_kl`` is off, so every update makes all of its
    passes."""
    if game not in _learners:
        import torch
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.utils import configure_logger

        from hunger_rl.training.config import load_config
        from hunger_rl.training.train import make_model, make_vec_env

        class Continue(BaseCallback):
            def _on_step(self) -> bool:
                return True

        torch.set_num_threads(1)
        config = load_config(ROOT / "hunger_rl" / "configs" / f"{LEARNER_CONFIGS[game]}.yaml")
        model = make_model(config, make_vec_env(config))
        model.target_kl = None
        callback = Continue()
        model._setup_learn(2**62, callback)
        model.set_logger(configure_logger(0, None, "bench", False))
        callback.init_callback(model)
        model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
        _learners[game] = (model, callback)
    return _learners[game]


def learner_rate(game: str, part: str, seconds: float) -> float:
    """PPO's pace on ``game``'s learner config, for at least ``seconds``: ``learn``, learner
    steps per second of whole rollouts and updates; ``rollout``, steps per second of collecting
    rollouts alone (simulation and the network's inference); ``update``, samples per second of
    updates alone (on the last rollout collected: a rollout's samples times the passes over
    them)."""
    model, callback = _learner(game)
    collect, update = part in ("learn", "rollout"), part in ("learn", "update")
    rounds = 0
    began = time.perf_counter()
    while rounds == 0 or time.perf_counter() - began < seconds:
        if collect:
            model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
        if update:
            model.train()
        rounds += 1
    samples = model.n_steps * model.env.num_envs * rounds
    passes = model.n_epochs if part == "update" else 1
    return samples * passes / (time.perf_counter() - began)


# --against: per group of --only, the side-by-side benchmarks, each measuring ``seconds``.
AGAINST_BENCHMARKS: dict[str, dict[str, Callable[[float], float]]] = {
    "hungry": {f"hungry_v0 env() {n}p": lambda s, n=n: hungry_env_rate(n, s) for n in (2, 4)},
    "hunger_show": {"hunger_show_v0 parallel 4p": lambda s: show_env_rate(4, s)},
    # HUNGER's other paths: the AEC view of the Parallel env, and the full-decision env.
    "hunger_show_aec": {
        "hunger_show_v0 env() 4p": lambda s: show_aec_rate(4, s),
        "hunger_show_v0 env(agents) 4p": lambda s: show_aec_rate(4, s, decision_mode="agents"),
    },
    "batched_hungry": {"BatchedHungry 2p B=256": batched_hungry_rate},
    "batched_show": {"BatchedShow 4p B=256": batched_show_rate},
    # Whole PPO rollouts and updates: seconds per round, so only when named by --only.
    "learner": {f"PPO {part} {game}": lambda s, game=game, part=part: learner_rate(game, part, s)
                for game in LEARNER_CONFIGS for part in ("learn", "rollout", "update")},
}
# Measured by --against when --only names none.
DEFAULT_AGAINST = [group for group in AGAINST_BENCHMARKS if group != "learner"]
AGAINST_BY_NAME = {name: measure for group in AGAINST_BENCHMARKS.values()
                   for name, measure in group.items()}


def serve_measurements() -> None:
    """The worker of ``--against``: says where its ``hunger_rl`` comes from, then answers each
    line ``SECONDS NAME`` with the rate of that benchmark (or ``error: ...``)."""
    import hunger_rl

    root = Path(hunger_rl.__file__).resolve().parents[1]
    # The batched benchmarks come from the side's own bench_batched, written for its own API
    # (the batched engines' constructors changed their argument order).
    sys.path.insert(0, str(root / "scripts"))
    print(f"ready {root}", flush=True)
    for line in sys.stdin:
        seconds, name = line.rstrip("\n").split(" ", 1)
        try:
            print(repr(AGAINST_BY_NAME[name](float(seconds))), flush=True)
        except Exception as error:  # reported by the parent: this side cannot run it
            print(f"error: {type(error).__name__}: {error}".replace("\n", " "), flush=True)


class Worker:
    """One side of ``--against``: this script in a process importing ``hunger_rl`` from
    ``root`` only."""

    def __init__(self, root: Path):
        environment = dict(os.environ, PYTHONPATH=str(root))
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"], cwd=root,
            env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline().split()
        if ready[:1] != ["ready"] or Path(ready[1]) != root.resolve():
            self.close()
            raise SystemExit(f"the worker for {root} imported hunger_rl from "
                             f"{ready[1:] or 'nowhere'}")

    def measure(self, name: str, seconds: float) -> float | str:
        self.process.stdin.write(f"{seconds} {name}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if not answer:
            raise SystemExit(f"the worker stopped while measuring {name}")
        return answer if answer.startswith("error") else float(answer)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def compare_against(ref: str, args) -> None:
    """This checkout against ``ref``, each benchmark in alternating turns (see the docstring)."""
    names = [name for group in (args.only or DEFAULT_AGAINST)
             for name in AGAINST_BENCHMARKS[group]]
    commit = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                            cwd=ROOT, capture_output=True, text=True).stdout.strip()
    if not commit:
        raise SystemExit(f"--against: {ref!r} is not a commit of this repository")
    with tempfile.TemporaryDirectory(prefix="bench-against-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), commit],
                       cwd=ROOT, check=True)
        try:
            sides = {"this": Worker(ROOT), ref: Worker(tree)}
            try:
                run_rounds(sides, names, ref, args)
            finally:
                for worker in sides.values():
                    worker.close()
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           check=True)


def run_rounds(sides: dict[str, Worker], names: list[str], ref: str, args) -> None:
    this, other = sides["this"], sides[ref]
    skipped: dict[str, str] = {}
    for name in names:  # warm-up (numba compiles, caches); a side that cannot run it is named
        for side, worker in sides.items():
            answer = worker.measure(name, min(args.seconds, 0.2))
            if isinstance(answer, str):
                skipped[name] = f"{side}: {answer}"
    names = [name for name in names if name not in skipped]
    rates: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in names}
    for round_index in range(args.rounds):
        for name in names:
            order = (this, other) if round_index % 2 == 0 else (other, this)
            measured = {worker: worker.measure(name, args.seconds) for worker in order}
            rates[name][0].append(measured[this])
            rates[name][1].append(measured[other])
    cpus = sorted(os.sched_getaffinity(0))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"this checkout against {ref}: medians of {args.rounds} alternating rounds of "
          f"{args.seconds:g} s, CPUs {cpus}, load average {load}")
    print(f"{'agent-steps/s':<30}{'this':>12}{ref[:12]:>14}   ratio this/{ref[:12]} (range)")
    for name, (ours, theirs) in rates.items():
        ratios = [mine / other_rate for mine, other_rate in zip(ours, theirs, strict=True)]
        print(f"{name:<30}{statistics.median(ours):>12,.0f}{statistics.median(theirs):>14,.0f}"
              f"   {statistics.median(ratios):5.2f}x ({min(ratios):.2f}-{max(ratios):.2f})")
    for name, why in skipped.items():
        print(f"{name:<30}not compared: {why}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(AGAINST_BENCHMARKS), action="append",
                        help="batched_hungry, batched_show, hunger_show_aec and learner with "
                        "--against only (learner only when named)")
    parser.add_argument("--against", metavar="REF",
                        help="measure this checkout against a git ref instead of references")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
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
    if args.worker:
        serve_measurements()
        return
    if args.against is not None:
        if args.one_core:
            from bench_batched import pin_to_one_core

            pin_to_one_core()  # the workers inherit the CPU and the thread settings
        compare_against(args.against, args)
        return
    if any(name not in BENCHMARKS for name in args.only or ()):
        parser.error("--only batched_hungry / batched_show / hunger_show_aec need --against "
                     "(else: --batched)")
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
