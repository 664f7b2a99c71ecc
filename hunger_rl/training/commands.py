"""The ``evaluate`` and ``tournament`` subcommands of ``hunger-rl``."""

from __future__ import annotations

import argparse
import os

from hunger_rl.envs import GAMES, player_counts_text
from hunger_rl.policies.registry import spec_names


def add_commands(commands) -> None:
    """Register ``evaluate`` and ``tournament`` on the CLI's subparsers."""
    evaluate = commands.add_parser(
        "evaluate",
        help="seat-rotated matches of a lineup of policies, with 95%% win-share intervals",
        description=f"Policy specs: {_specs_text()}. Give one spec per seat, or fewer: the last "
        "one fills the other seats.",
    )
    _common_arguments(evaluate, default_games=2000)
    evaluate.set_defaults(handler=_evaluate)

    tournament = commands.add_parser(
        "tournament",
        help="round-robin over policies: OpenSkill ratings and a pairwise win-share matrix",
        description=f"Every seat arrangement of the policies is played equally often. Policy "
        f"specs: {_specs_text()}.",
    )
    _common_arguments(tournament, default_games=1000)
    tournament.set_defaults(handler=_tournament)


def _specs_text() -> str:
    """Every game's policy specs, from the registry (``--help`` text)."""
    per_game = "; ".join(f"{game}: {', '.join(spec_names(game))}" for game in sorted(GAMES))
    return f"{per_game}; or the path of a trained policy"


def _common_arguments(parser: argparse.ArgumentParser, default_games: int) -> None:
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--players", type=int, default=2,
                        help=f"number of players ({player_counts_text()}; default 2)")
    parser.add_argument("--policies", nargs="+", required=True, metavar="SPEC")
    parser.add_argument("--games", type=int, default=default_games)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="worker processes"
    )
    parser.add_argument("--csv", help="write the table as CSV here")
    parser.add_argument("--json", help="write the results as JSON here")
    parser.add_argument("--plot", help="draw the results into this PNG")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _write_outputs(result, args: argparse.Namespace) -> None:
    print(result.to_table())
    for path, write in ((args.csv, result.to_csv), (args.json, result.to_json),
                        (args.plot, result.plot)):
        if path:
            write(path)
            print(f"wrote {path}")


def _evaluate(args: argparse.Namespace) -> int:
    from hunger_rl.training.evaluation import evaluate

    return _play_and_report(evaluate, args)


def _tournament(args: argparse.Namespace) -> int:
    from hunger_rl.training.tournament import tournament

    return _play_and_report(tournament, args)


def _play_and_report(play, args: argparse.Namespace) -> int:
    """Run ``evaluate`` or ``tournament`` (same arguments) and print and write its results."""
    result = play(
        args.game, args.players, args.policies, args.games, seed=args.seed,
        workers=args.workers, progress=not args.no_progress,
    )
    _write_outputs(result, args)
    return 0
