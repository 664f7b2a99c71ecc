"""The ``hunger-rl`` command."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from hunger_rl.envs import GAMES, load_game
from hunger_rl.training.commands import add_commands as add_evaluation_commands
from hunger_rl.ui.commands import add_commands as add_game_commands


def _demo(args: argparse.Namespace) -> int:
    module = load_game(args.game)
    module.demo(num_players=args.players, seed=args.seed, out=sys.stdout)
    return 0


def _train(args: argparse.Namespace) -> int:
    # Imported here: torch, stable-baselines3 and Ray take seconds to load.
    from hunger_rl.training.config import load_config

    config = load_config(args.config)
    overrides = {"total_steps": args.total_steps, "out": args.out}
    config = config.replace(**{k: v for k, v in overrides.items() if v is not None})
    if args.final_games is not None:
        config = config.replace(evaluation=dataclasses.replace(
            config.evaluation, final_games=args.final_games))
    if args.beside:
        from hunger_rl.policies.registry import make_policy

        make_policy(args.beside, config.game, config.num_players)  # a bad spec fails before
    if config.backend == "rllib":
        if args.beside:
            raise ValueError("--beside works with the sb3 backend only")
        if args.resume:
            raise ValueError("--resume works with the sb3 backend only")
        try:
            from hunger_rl.training.rllib import train_rllib
        except ImportError as error:  # the rllib extra is not installed
            raise ValueError(str(error)) from error
        train_rllib(config, progress=not args.no_progress)
        return 0
    from hunger_rl.training.train import final_evaluation, format_beside, train

    table = train(config, resume=args.resume, progress=not args.no_progress)
    if args.beside:
        other = final_evaluation(config, args.beside, progress=not args.no_progress)
        print(f"\nThe same games with {args.beside} in the trained policy's seats:")
        print(format_beside(table, args.beside, other))
    return 0


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hunger-rl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="print one random game with the text renderer")
    demo.add_argument("game", choices=sorted(GAMES))
    demo.add_argument("--players", type=int, default=2, help="number of players")
    demo.add_argument("--seed", type=int, default=0, help="seed of the deal and of the moves")
    demo.set_defaults(handler=_demo)

    add_evaluation_commands(commands)
    add_game_commands(commands)

    train = commands.add_parser("train", help="self-play PPO from a YAML config (SB3 or Ray RLlib)")
    train.add_argument("config", help="a config file, e.g. configs/hungry_2p.yaml")
    train.add_argument("--resume", help="a checkpoint folder (OUT/checkpoints/step_N)")
    train.add_argument("--total-steps", type=_positive_int, help="override total_steps")
    train.add_argument("--out", help="override the output folder")
    train.add_argument("--final-games", type=_positive_int,
                       help="override evaluation.final_games (games per baseline at the end)")
    train.add_argument("--beside", metavar="SPEC",
                       help="also evaluate this policy (e.g. pretrained:hungry_2p) against the "
                            "same opponents and print both side by side")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    train.set_defaults(handler=_train)
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
