"""Strength and exploitability of HUNGER agents, side by side: the table of docs/agents.md.

For each agent (every shipped HUNGER agent by default, or ``--spec SPEC --players N``):
- its win share at the tables its player count is judged at (seat-rotated, 95% Wilson):
  2 players one ``crowd``, one ``expert``; 4 players ``expert``+``crowd``+``greedy`` and three
  ``smmcts:100``; 6 players five ``crowd``;
- its exploiters, each trained from scratch against a table of the agent and then measured
  over ``--games`` seat-rotated games: the suite's shipped recipe (``hunger-rl exploit``, the
  batched engine) at each of ``--steps``, and sb3-contrib's ``MaskablePPO`` with every setting
  at its default on the registered Gymnasium view ``hunger_rl/HungerShow-v0`` (the agent in
  every other seat) at ``--sb3-steps``, measured playing its argmax (``predict`` with
  ``deterministic=True``).

    python scripts/hunger_show_robustness.py [--only hunger_show_4p] [--seed 7] [--json F]

A fresh ``--seed`` gives fresh exploiters and fresh games; the figures in docs/agents.md name
theirs. Slow: at 4 players the three searchers' table is the dearest part (``--no-search``
leaves it out).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

import hunger_rl  # noqa: F401 (registers the Gymnasium ids)
from hunger_rl.arena.evaluation import evaluate, wilson_interval
from hunger_rl.configs import config_path
from hunger_rl.policies.pretrained import PREFIX, catalogue, pretrained_names
from hunger_rl.training.exploit import exploit, exploit_config, recipe_name
from hunger_rl.training.interop import train_maskable_ppo_defaults

GAME = "hunger_show"
SEARCH = "smmcts:100"
# Each player count's tables: the opponents beside the agent (the last fills the other seats).
TABLES = {2: [["crowd"], ["expert"]], 4: [["expert", "crowd", "greedy"], [SEARCH]],
          6: [["crowd"]]}


def table_label(table: list[str], num_players: int) -> str:
    seats = table + [table[-1]] * (num_players - 1 - len(table))
    return "+".join(seats) if len(set(seats)) > 1 else f"{len(seats)} x {seats[0]}"


def strength(spec: str, num_players: int, table: list[str], games: int, seed: int) -> dict:
    result = evaluate(GAME, num_players, [spec, *table], games=games, seed=seed, progress=False)
    row = result.rows[0]
    return {"games": row.games, "win_share": row.win_share, "ci_low": row.ci_low,
            "ci_high": row.ci_high}


def suite_exploiter(spec: str, num_players: int, steps: int, games: int, seed: int,
                    folder: Path) -> dict:
    config = exploit_config(spec, GAME, num_players, steps, folder / f"suite_{steps}",
                            config_path(recipe_name(GAME)), seed=seed, games=games)
    started = time.perf_counter()
    report = exploit(config, progress=False)
    return {key: report[key] for key in ("steps", "games", "win_share", "ci_low", "ci_high",
                                         "batched")} | {
        "seconds": round(time.perf_counter() - started, 1)}


def sb3_default_exploiter(spec: str, num_players: int, steps: int, games: int,
                          seed: int) -> dict:
    """MaskablePPO, every setting at its default, on the Gymnasium view against ``spec``."""
    started = time.perf_counter()
    model = train_maskable_ppo_defaults(GAME, num_players, spec, steps, seed)
    seconds = time.perf_counter() - started
    env = model.get_env().envs[0]
    # Whole seat rotations; the view moves the learner one seat on every episode.
    games = -(-games // num_players) * num_players
    shares = []
    observation, _ = env.reset(seed=seed + 1)
    while len(shares) < games:
        action, _ = model.predict(observation, action_masks=env.unwrapped.action_masks(),
                                  deterministic=True)
        observation, _, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            shares.append(info["win_share"])
            observation, _ = env.reset()
    low, high = wilson_interval(sum(shares), len(shares))
    return {"steps": int(model.num_timesteps), "games": len(shares),
            "win_share": float(np.mean(shares)), "ci_low": low, "ci_high": high,
            "seconds": round(seconds, 1)}


def measure(spec: str, num_players: int, args: argparse.Namespace, folder: Path) -> dict:
    entry = {"spec": spec, "num_players": num_players, "seed": args.seed, "tables": {},
             "exploiters": {}}
    for table in TABLES[num_players]:
        if SEARCH in table and args.no_search:
            continue
        entry["tables"][table_label(table, num_players)] = strength(
            spec, num_players, table, args.games, args.seed)
    for steps in args.steps:
        entry["exploiters"][f"suite recipe, {steps:,} steps"] = suite_exploiter(
            spec, num_players, steps, args.games, args.seed, folder)
    if args.sb3_steps:
        entry["exploiters"][f"MaskablePPO defaults, {args.sb3_steps:,} steps"] = (
            sb3_default_exploiter(spec, num_players, args.sb3_steps, args.games, args.seed))
    return entry


def share(figure: dict) -> str:
    return f"{figure['win_share']:.3f} [{figure['ci_low']:.3f}, {figure['ci_high']:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="shipped agents by name (hunger_show_4p ...)")
    parser.add_argument("--spec", help="measure this policy spec instead (with --players)")
    parser.add_argument("--players", type=int, choices=sorted(TABLES))
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--steps", type=int, nargs="*", default=[50_000, 200_000],
                        help="the suite exploiter's budgets")
    parser.add_argument("--sb3-steps", type=int, default=50_000,
                        help="MaskablePPO's budget (0: leave it out)")
    parser.add_argument("--no-search", action="store_true", help="leave out the smmcts table")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if args.spec:
        if args.players is None:
            parser.error("--spec needs --players")
        agents = [(args.spec, args.players)]
    else:
        names = args.only or pretrained_names(GAME)
        agents = [(PREFIX + name, catalogue()[name]["num_players"]) for name in names]
    entries = []
    with tempfile.TemporaryDirectory() as folder:
        for spec, num_players in agents:
            entry = measure(spec, num_players, args, Path(folder) / spec.replace(":", "_"))
            entries.append(entry)
            print(f"\n{spec} ({num_players} players, seed {args.seed}, equal share "
                  f"{1 / num_players:.3f})")
            for label, figure in {**entry["tables"], **entry["exploiters"]}.items():
                print(f"| {label} | {figure['games']} | {share(figure)} |", flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(entries, indent=1))


if __name__ == "__main__":
    main()
