"""Train the reference-env and the batched HUNGER 4p configs with the same seed, then evaluate
both policies side by side.

- Training: each config (``hunger_show_4p`` on ``hunger_show_v0``, ``hunger_show_4p_batched``
  on the batched engine, or the two given by ``--configs``) trains with ``hunger-rl train``'s
  trainer into ``OUT/<config>/``, in a process of its own. With ``--cpus A,B C,D`` both run at
  once, each process pinned to its CPU set (its vector env's workers and evaluation workers
  inherit the set), so a many-core machine gives each run a quiet machine of its own; without
  it they run one after the other. Periodic evaluations are switched off (they would count in
  the wall time; they do not change the weights), and the compiled code is compiled (and cached)
  in this process first, so that neither run's wall time counts numba compilation.
- Evaluation, seat-rotated, ``--games`` games each: the trainer's own final table against three
  experts, then here the mixed table (the policy, an expert, a crowd and a greedy player), both
  from the final evaluation's seed.
- Output: one markdown table on stdout (config, training wall time with start-up, PPO steps/s
  in the learning loop, win share with its 95% interval at each table) and
  ``OUT/results.json``; each run's folder holds what the trainer writes, its printed table in
  ``train.log``.

    PYTHONPATH=. python scripts/compare_show_training.py --cpus 0,1 2,3
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from hunger_rl.arena.commands import output_folder
from hunger_rl.arena.evaluation import evaluate
from hunger_rl.configs import resolve_config
from hunger_rl.training.config import TrainConfig, config_from_dict, load_config
from hunger_rl.training.outputs import FINAL_EVALUATION_SEED_OFFSET
from hunger_rl.training.train import make_vec_env, train

DEFAULT_CONFIGS = ("hunger_show_4p", "hunger_show_4p_batched")
# The tables, as the lineup beside the trained policy (the last spec fills the open seats).
THREE_EXPERTS = "three experts"
MIXED_TABLE = "expert, crowd, greedy"
MIXED_LINEUP = ["expert", "crowd", "greedy"]
ROW_KEYS = ("games", "win_share", "ci_low", "ci_high")


def run_config(name: str, out: Path, steps: int | None, games: int, workers: int) -> TrainConfig:
    """The config ``name`` (a shipped name or a file) as this comparison trains it: into
    ``out/<stem>``, no periodic evaluations, the final table against experts only."""
    raw = load_config(resolve_config(name)).to_dict()
    if steps is not None:
        raw["total_steps"] = steps
    raw["out"] = str(out / Path(name).stem)
    raw["evaluation"].update(every_steps=raw["total_steps"] + 1, opponents=["expert"],
                             final_games=games, workers=workers)
    try:
        return config_from_dict(raw)
    except ValueError as error:
        raise ValueError(f"{name} with this comparison's overrides: {error}") from error


def parse_cpus(values: list[str]) -> list[set[int]]:
    """Two CPU sets, each ``A,B,...`` of CPUs this process may run on, disjoint."""
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError("--cpus needs os.sched_setaffinity (Linux)")
    allowed = os.sched_getaffinity(0)
    sets = []
    for value in values:
        try:
            cpus = {int(cpu) for cpu in value.split(",")}
        except ValueError:
            raise ValueError(f"--cpus {value!r}: give CPU numbers separated by commas, "
                             "e.g. 0,1") from None
        if not cpus <= allowed:
            raise ValueError(f"--cpus {value}: CPUs {sorted(cpus - allowed)} are not available "
                             f"to this process (available: {sorted(allowed)})")
        sets.append(cpus)
    if sets[0] & sets[1]:
        raise ValueError(f"--cpus: the two sets share CPUs {sorted(sets[0] & sets[1])}")
    return sets


def warm_compiled_code(config: TrainConfig) -> None:
    """Compile (and cache on disk) the batched engine, its opponents and the crowd features by
    one step of the config's env."""
    vec_env = make_vec_env(config)
    vec_env.reset()
    masks = np.asarray(vec_env.env_method("action_masks"))
    vec_env.step(masks.argmax(axis=1))
    vec_env.close()


def train_run(config: TrainConfig, cpus: set[int] | None) -> dict[str, Any]:
    """Train ``config`` in this process (pinned to ``cpus`` first, if given); what it wrote."""
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    folder = Path(config.out)
    folder.mkdir(parents=True, exist_ok=True)
    # The trainer's own table goes to its log, so that this script prints one table.
    with open(folder / "train.log", "w") as log, contextlib.redirect_stdout(log):
        train(config, progress=False)
    summary = json.loads((folder / "evaluation.json").read_text())
    summary["cpus"] = sorted(os.sched_getaffinity(0))
    return summary


def train_all(configs: list[TrainConfig], cpu_sets: list[set[int]] | None) -> list[dict]:
    """Each config trained in a spawned process: both at once when pinned, else in turn."""
    context = multiprocessing.get_context("spawn")
    if cpu_sets is None:
        summaries = []
        for config in configs:
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                summaries.append(pool.submit(train_run, config, None).result())
        return summaries
    pools = [ProcessPoolExecutor(1, mp_context=context) for _ in configs]
    try:
        futures = [pool.submit(train_run, config, cpus)
                   for pool, config, cpus in zip(pools, configs, cpu_sets, strict=True)]
        return [future.result() for future in futures]
    finally:
        for pool in pools:
            pool.shutdown()


def compare(config_names: list[str], out: Path, steps: int | None, games: int, workers: int,
            cpu_sets: list[set[int]] | None) -> dict[str, Any]:
    if len({Path(name).stem for name in config_names}) < len(config_names):
        raise ValueError(f"--configs {' '.join(config_names)}: both would train into one "
                         "folder; give configs of different names")
    configs = [run_config(name, out, steps, games, workers) for name in config_names]
    seeds = {config.seed for config in configs}
    if len(seeds) > 1:
        raise ValueError(f"the configs train from different seeds {sorted(seeds)}")
    for config in configs:
        if config.env.batched:
            warm_compiled_code(config)
    summaries = train_all(configs, cpu_sets)
    runs = []
    for name, config, summary in zip(config_names, configs, summaries, strict=True):
        policy = summary["policy"]
        (experts,) = summary["rows"]
        mixed = evaluate(config.game, config.num_players, [policy, *MIXED_LINEUP], games,
                         seed=config.seed + FINAL_EVALUATION_SEED_OFFSET, workers=workers,
                         env_kwargs=config.game_options, progress=False)
        runs.append({
            "config": name, "out": config.out, "policy": policy, "steps": summary["steps"],
            "train_seconds": summary["train_seconds"],
            "ppo_steps_per_second": summary["ppo_steps_per_second"],
            "cpus": summary["cpus"],
            "tables": {THREE_EXPERTS: {key: experts[key] for key in ROW_KEYS},
                       MIXED_TABLE: {key: getattr(mixed.row(policy), key) for key in ROW_KEYS}},
        })
    return {"seed": configs[0].seed, "games": games, "pinned": cpu_sets is not None,
            "runs": runs}


def markdown(results: dict[str, Any]) -> str:
    def cell(row: dict[str, Any]) -> str:
        return f"{row['win_share']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"

    lines = [f"| config | training wall time | PPO steps/s | vs {THREE_EXPERTS} | "
             f"vs {MIXED_TABLE} |", "|---|---|---|---|---|"]
    for run in results["runs"]:
        tables = run["tables"]
        lines.append(f"| {run['config']} | {run['train_seconds'] / 60:.1f} min "
                     f"({run['steps']:,} steps) | {run['ppo_steps_per_second']:,.0f} | "
                     f"{cell(tables[THREE_EXPERTS])} | {cell(tables[MIXED_TABLE])} |")
    pinning = "each run pinned to its own CPUs" if results["pinned"] else "one after the other"
    lines.append(f"\nseed {results['seed']}, {results['games']} seat-rotated games per table, "
                 f"95% Wilson intervals; trained {pinning}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", nargs=2, default=list(DEFAULT_CONFIGS),
                        metavar=("REFERENCE", "BATCHED"), help="the two configs (names or files)")
    parser.add_argument("--steps", type=int, help="override total_steps of both configs")
    parser.add_argument("--games", type=int, default=2000, help="games per table")
    parser.add_argument("--workers", type=int, default=2, help="evaluation processes")
    parser.add_argument("--out", default="runs/compare_show_training", help="output folder")
    parser.add_argument("--cpus", nargs=2, metavar=("A,B", "C,D"),
                        help="train both at once, each pinned to its own CPU set")
    args = parser.parse_args(argv)
    try:
        if args.games < 1 or args.workers < 1:
            raise ValueError("--games and --workers must be at least 1")
        cpu_sets = None if args.cpus is None else parse_cpus(args.cpus)
        out = output_folder("--out", args.out)
        results = compare(args.configs, out, args.steps, args.games, args.workers, cpu_sets)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    (out / "results.json").write_text(json.dumps(results, indent=1))
    print(markdown(results))
    print(f"\nwrote {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
