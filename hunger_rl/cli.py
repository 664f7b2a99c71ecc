"""The ``hunger-rl`` command."""

from __future__ import annotations

import argparse
import sys

from hunger_rl.envs import GAMES, load_game
from hunger_rl.training.commands import add_commands as add_evaluation_commands


def _demo(args: argparse.Namespace) -> int:
    module = load_game(args.game)
    module.demo(num_players=args.players, seed=args.seed, out=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hunger-rl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="print one random game with the text renderer")
    demo.add_argument("game", choices=sorted(GAMES))
    demo.add_argument("--players", type=int, default=2, help="number of players")
    demo.add_argument("--seed", type=int, default=0, help="seed of the deal and of the moves")
    demo.set_defaults(handler=_demo)

    add_evaluation_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except ValueError as error:
        print(f"hunger-rl: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
