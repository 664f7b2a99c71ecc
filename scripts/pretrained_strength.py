"""Measure each shipped agent against the baselines, and its cost per move, into the catalogue.

Seat-rotated games of ``pretrained:NAME`` in one seat against the baseline in all the others
(as ``hunger-rl evaluate --policies pretrained:NAME BASELINE``), win share with its 95% Wilson
interval; the figures go into ``hunger_rl/pretrained/agents.json`` (``strength``; with
``--network``, the network alone of an agent that searches, ``pretrained:NAME:network``, into
``network_strength``), and a Markdown table is printed for the README:
    python scripts/pretrained_strength.py --games 400 [--only hungry_2p ...] [--baselines expert]

The cost per move of a Hungry agent (``--cost-games``, into ``cost_ms_per_move``) is the CPU
time of each of its moves in whole games against ``expert``, seat-rotated, in this process with
one torch thread: the time of one core, whatever else the machine runs. Its maximum is the
honest figure for a searching agent: the first plays, whose playouts are longest, cost most.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.envs.records import make_env
from hunger_rl.policies.hungry_search import SearchHungryPolicy
from hunger_rl.policies.pretrained import CATALOGUE, NETWORK, PREFIX
from hunger_rl.policies.registry import make_policy

# Every scripted baseline, and for Hungry the search the shipped agents must beat.
BASELINES = {"hungry": ["random", "greedy", "expert", "forecast", "search:200"],
             "hunger_show": ["random", "greedy", "expert", "crowd"]}
CATALOGUE_PATH = Path(__file__).resolve().parent.parent / "hunger_rl" / "pretrained" / CATALOGUE
SEED = 2024
PASSES = 3


def measure(spec: str, game: str, players: int, baselines: list[str], games: int,
            workers: int) -> dict[str, dict]:
    strength = {}
    for baseline in baselines:
        result = evaluate(game, players, [spec, baseline], games, seed=SEED, workers=workers,
                          progress=False)
        row = result.row(spec)
        strength[baseline] = {"games": row.games, "win_share": round(row.win_share, 4),
                              "ci_low": round(row.ci_low, 4), "ci_high": round(row.ci_high, 4)}
        print(f"{spec} vs {baseline}: {row.win_share:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]"
              f" over {row.games} games", flush=True)
    return strength


def cost_per_move(spec: str, players: int, games: int) -> dict[str, float]:
    """CPU milliseconds of each of ``spec``'s moves in ``games`` games of Hungry against
    ``expert`` (its seat rotating), after one game that warms the compiled code and caches;
    each move the best of ``PASSES`` on the same random draws and each on its own copy of the
    agent (a search that records the game, ``search:N:beliefs``, must see every move once), so
    that another process's load (which slows this one's caches too) counts as little as it
    can."""
    agent = make_policy(spec, "hungry", players)
    opponent = make_policy("expert", "hungry", players)
    costs = []
    for index in range(games + 1):
        rng = np.random.default_rng([SEED, index])
        env = make_env("hungry", players, {})
        env.reset(seed=index)
        agent_name = env.possible_agents[index % players]
        while not env.game.is_over:
            observation = env.observe(env.agent_selection)
            if env.agent_selection != agent_name:
                env.step(opponent.act(observation, rng))
                continue
            passes = []
            for _ in range(PASSES):
                draws, player = copy.deepcopy((rng, agent))
                start = time.process_time()
                action = player.act(observation, draws)
                passes.append(time.process_time() - start)
            rng, agent = draws, player
            if index:
                costs.append(min(passes))
            env.step(action)
    milliseconds = 1000 * np.array(costs)
    return {"moves": int(milliseconds.size), "mean": round(float(milliseconds.mean()), 1),
            "max": round(float(milliseconds.max()), 1)}


def search_label(search: dict | None) -> str:
    """How an agent plays, for the table: ``network``, ``search:300`` (guided by its network),
    ``search:9600plays``, ``plain search:9600plays`` (without its network),
    ``plain search:4800plays:beliefs`` (modelling the other seats as the expert)."""
    if search is None:
        return "network"
    budget = search.get("simulations") or f"{search['plays']}{SearchHungryPolicy.PLAYS_SUFFIX}"
    beliefs = f":{SearchHungryPolicy.BELIEFS}" if search.get("beliefs") else ""
    return ("" if search.get("guided", True) else "plain ") + f"search:{budget}{beliefs}"


def markdown_table(entries: dict[str, dict]) -> str:
    lines = ["| agent | plays | vs random | vs greedy | vs expert | vs forecast / crowd "
             "| vs search:200 | ms a move (max) |", "|---|---|---|---|---|---|---|---|"]
    for name, entry in entries.items():
        strength = entry.get("strength", {})
        cells = []
        for baseline in BASELINES["hungry"]:
            if entry["game"] == "hunger_show" and baseline == "forecast":
                baseline = "crowd"
            s = strength.get(baseline)
            cells.append("-" if s is None else
                         f"{s['win_share']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}]")
        plays = search_label(entry.get("search"))
        cost = entry.get("cost_ms_per_move")
        cost_cell = "-" if cost is None else f"{cost['mean']:.0f} ({cost['max']:.0f})"
        lines.append(f"| `{name}` | {plays} | " + " | ".join(cells) + f" | {cost_cell} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400,
                        help="games per baseline (0: only the cost per move)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", nargs="+", help="agent names (default: all)")
    parser.add_argument("--baselines", nargs="+",
                        help="these baselines only (default: all of the agent's game); the "
                             "others' figures stay as they are")
    parser.add_argument("--network", action="store_true",
                        help="measure the network alone of each agent that searches")
    parser.add_argument("--cost-games", type=int, default=0,
                        help="games that measure the cost per move (0: not measured)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    entries = json.loads(CATALOGUE_PATH.read_text())
    for name in args.only or list(entries):
        entry = entries[name]
        if args.network and "search" not in entry:
            continue
        spec, key = ((f"{PREFIX}{name}:{NETWORK}", "network_strength") if args.network
                     else (PREFIX + name, "strength"))
        baselines = args.baselines or BASELINES[entry["game"]]
        unknown = set(baselines) - set(BASELINES[entry["game"]])
        if unknown:
            raise SystemExit(f"--baselines: {sorted(unknown)} are not baselines of "
                             f"{entry['game']} ({BASELINES[entry['game']]})")
        if args.games:
            entry[key] = {**entry.get(key, {}), **measure(
                spec, entry["game"], entry["num_players"], baselines, args.games, args.workers)}
        if args.cost_games and entry["game"] == "hungry" and not args.network:
            entry["cost_ms_per_move"] = cost_per_move(spec, entry["num_players"],
                                                      args.cost_games)
            print(f"{spec}: {entry['cost_ms_per_move']} ms a move", flush=True)
        CATALOGUE_PATH.write_text(json.dumps(entries, indent=1) + "\n")
    print(markdown_table(entries))


if __name__ == "__main__":
    main()
