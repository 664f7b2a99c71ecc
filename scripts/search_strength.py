"""Strength and cost of HUNGER's simultaneous-move search (`smmcts:N`): the tables of
docs/agents.md.

Each match is played in chunks of seat-rotated games (seeds 100, 101, ...), pooled: the win
share weighted by games, the 95% Wilson interval over all of them. The cost per move is the CPU
time (one process, one core) of each of the search's picks in whole shows where it plays seat 0
against `crowd`.

Usage: python scripts/search_strength.py [--search smmcts:100] [--chunks 4] [--workers 2]
       [--skip-matches] [--skip-cost] [--cost-shows 5]

``--search`` takes any HUNGER spec (``ismcts:100`` for the costs beside OpenSpiel's ISMCTS).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hunger_rl.arena.evaluation import evaluate, wilson_interval
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies.registry import make_policy

FIRST_SEED = 100


def matches(search: str) -> list[tuple[int, list[str]]]:
    """(players, [A, B]): A in one seat, B in all the others. The search against each
    baseline, then each shipped agent against the search."""
    rows = [(players, [search, opponent]) for players in (2, 4, 6)
            for opponent in ("crowd", "expert")]
    return rows + [(players, [f"pretrained:hunger_show_{players}p", search])
                   for players in (2, 4, 6)]


def chunk_games(players: int) -> int:
    """Games per chunk: about 100, a whole number of seat rotations."""
    return 102 if players == 6 else 100


def pooled(players: int, lineup: list[str], chunks: int, workers: int) -> str:
    """One row of the strength table: A's pooled win share over ``chunks`` chunks."""
    games = wins = 0.0
    for chunk in range(chunks):
        result = evaluate("hunger_show", players, lineup, chunk_games(players),
                          seed=FIRST_SEED + chunk, workers=workers, progress=False)
        row = result.row(lineup[0])
        games += row.games
        wins += row.win_share * row.games
    low, high = wilson_interval(wins, int(games))
    seeds = f"{FIRST_SEED}-{FIRST_SEED + chunks - 1}"
    return (f"| {players} | `{lineup[0]}` | `{lineup[1]}` | {int(games)} | "
            f"{wins / games:.3f} [{low:.3f}, {high:.3f}] | {1 / players:.3f} | {seeds} |")


def cost_per_move(search: str, players: int, shows: int) -> str:
    """CPU milliseconds of each of the search's picks at seat 0 against `crowd`."""
    policy = make_policy(search, "hunger_show", players)
    crowd = make_policy("crowd", "hunger_show", players)
    rng = np.random.default_rng(0)
    costs = []
    for show in range(shows):
        env = hunger_show_v0.parallel_env(num_players=players)
        observations, _ = env.reset(seed=show)
        while env.agents:
            actions = {}
            for agent in env.agents:
                if agent == "player_0":
                    start = time.process_time()
                    actions[agent] = policy.act(observations[agent], rng)
                    costs.append(time.process_time() - start)
                else:
                    actions[agent] = crowd.act(observations[agent], rng)
            observations, *_ = env.step(actions)
    milliseconds = 1000 * np.array(costs)
    return (f"| {players} | {milliseconds.size} | {milliseconds.mean():.0f} | "
            f"{np.median(milliseconds):.0f} | {milliseconds.max():.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", default="smmcts:100")
    parser.add_argument("--chunks", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cost-shows", type=int, default=5)
    parser.add_argument("--skip-matches", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()
    search = args.search
    if not args.skip_matches:
        print("| players | A | B (other seats) | games | A's win share [95% Wilson] "
              "| equal share | seeds |")
        print("|---|---|---|---|---|---|---|")
        for players, lineup in matches(search):
            print(pooled(players, lineup, args.chunks, args.workers), flush=True)
    if not args.skip_cost:
        print(f"\n`{search}`, CPU ms per pick (seat 0 against `crowd`, {args.cost_shows} shows)")
        print("| players | picks | mean | median | max |")
        print("|---|---|---|---|---|")
        for players in (2, 4, 6):
            print(cost_per_move(search, players, args.cost_shows), flush=True)


if __name__ == "__main__":
    main()
