"""A library's default recipe as a reference training: sb3-contrib's ``MaskablePPO`` with every
setting at its default (``"MlpPolicy"``) on a game's Gymnasium view, saved as a model file that
``sb3:PATH`` plays (``hunger-rl evaluate``, ``exploit``, ``benchmark``).

    python scripts/train_maskable_ppo.py --game hungry --players 2 --opponents expert \\
        --steps 200000 --seed 0 --out runs/reference/maskable_ppo_hungry_2p.zip
    hunger-rl benchmark sb3:runs/reference/maskable_ppo_hungry_2p.zip --game hungry --players 2

``--opponents`` is one policy spec for every other seat or one per seat after the learner's
(the view rotates the learner's seat every episode). The same arguments on the same kind of CPU
give the same file. The leaderboard's reference entries name the command that trained them
(docs/benchmark.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from hunger_rl.envs import GAMES
from hunger_rl.training.interop import train_maskable_ppo_defaults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--opponents", nargs="+", required=True, metavar="SPEC")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="the model file (.zip)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    if args.out.suffix != ".zip":
        parser.error(f"--out must name a .zip model file, got {args.out}")
    opponents = args.opponents[0] if len(args.opponents) == 1 else args.opponents
    started = time.perf_counter()
    try:
        model = train_maskable_ppo_defaults(args.game, args.players, opponents, args.steps,
                                            args.seed, progress=not args.no_progress)
    except ValueError as error:
        parser.error(str(error))
    seconds = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    print(json.dumps({"model": str(args.out), "steps": int(model.num_timesteps),
                      "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
