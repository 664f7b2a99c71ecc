"""Strength of the scripted baselines: the evaluation tables quoted in the README.

Usage: python scripts/baseline_strength.py [--games 2000] [--search-games 2000] [--workers 2]
"""

from __future__ import annotations

import argparse

from hunger_rl.arena.evaluation import evaluate

# (game, players, lineup): the first spec against the last one in the other seats.
MATCHES = [
    ("hungry", 2, ["greedy", "random"]),
    ("hungry", 2, ["expert", "greedy"]),
    ("hungry", 2, ["forecast", "expert"]),
    ("hungry", 4, ["greedy", "random"]),
    ("hungry", 4, ["expert", "greedy"]),
    ("hungry", 4, ["forecast", "expert"]),
    ("hunger_show", 2, ["greedy", "random"]),
    ("hunger_show", 2, ["expert", "greedy"]),
    ("hunger_show", 4, ["greedy", "random"]),
    ("hunger_show", 4, ["expert", "greedy"]),
    ("hunger_show", 2, ["crowd", "expert"]),
    ("hunger_show", 4, ["crowd", "expert"]),
    ("hunger_show", 6, ["crowd", "expert"]),
]
SEARCH_MATCHES = [("hungry", 2, ["search:200", "expert"]), ("hungry", 4, ["search:200", "expert"])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--search-games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-search", action="store_true")
    args = parser.parse_args()
    matches = [(m, args.games) for m in MATCHES]
    if not args.skip_search:
        matches += [(m, args.search_games) for m in SEARCH_MATCHES]
    for (game, players, lineup), games in matches:
        result = evaluate(game, players, lineup, games, seed=args.seed, workers=args.workers)
        stronger = result.row(lineup[0])
        verdict = "clear" if stronger.ci_low > result.equal_share else "NOT clear"
        print(result.to_table())
        print(f"{lineup[0]} above equal share {result.equal_share:.3f}: {verdict}\n", flush=True)


if __name__ == "__main__":
    main()
