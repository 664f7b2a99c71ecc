"""Measure each shipped agent against every scripted baseline and store it in the catalogue.

Seat-rotated games of ``pretrained:NAME`` in one seat against the baseline in all the others
(as ``hunger-rl evaluate --policies pretrained:NAME BASELINE``), win share with its 95% Wilson
interval; the figures go into ``hunger_rl/pretrained/agents.json`` and a Markdown table is
printed for the README:
    python scripts/pretrained_strength.py --games 400 [--only hungry_2p ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.policies.pretrained import CATALOGUE, PREFIX, catalogue

# Every scripted baseline but Hungry's search (minutes per hundred games).
BASELINES = {"hungry": ["random", "greedy", "expert", "forecast"],
             "hunger_show": ["random", "greedy", "expert", "crowd"]}
CATALOGUE_PATH = Path(__file__).resolve().parent.parent / "hunger_rl" / "pretrained" / CATALOGUE


def measure(name: str, games: int, workers: int) -> dict[str, dict]:
    entry = catalogue()[name]
    strength = {}
    for baseline in BASELINES[entry["game"]]:
        result = evaluate(entry["game"], entry["num_players"], [PREFIX + name, baseline], games,
                          seed=2024, workers=workers, progress=False)
        row = result.row(PREFIX + name)
        strength[baseline] = {"games": row.games, "win_share": round(row.win_share, 4),
                              "ci_low": round(row.ci_low, 4), "ci_high": round(row.ci_high, 4)}
        print(f"{name} vs {baseline}: {row.win_share:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]"
              f" over {row.games} games", flush=True)
    return strength


def markdown_table(entries: dict[str, dict]) -> str:
    lines = ["| agent | equal share | vs random | vs greedy | vs expert | vs forecast / crowd |",
             "|---|---|---|---|---|---|"]
    for name, entry in entries.items():
        strength = entry.get("strength", {})
        cells = []
        for baseline in BASELINES[entry["game"]]:
            s = strength.get(baseline)
            cells.append("-" if s is None else
                         f"{s['win_share']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}]")
        lines.append(f"| `{PREFIX}{name}` | {1 / entry['num_players']:.3f} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per baseline")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", nargs="+", help="agent names (default: all)")
    args = parser.parse_args()
    entries = json.loads(CATALOGUE_PATH.read_text())
    for name in args.only or list(entries):
        entries[name]["strength"] = measure(name, args.games, args.workers)
        CATALOGUE_PATH.write_text(json.dumps(entries, indent=1) + "\n")
    print(markdown_table(entries))


if __name__ == "__main__":
    main()
