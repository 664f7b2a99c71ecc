"""The ``evaluate`` and ``tournament`` subcommands of ``hunger-rl``."""

from __future__ import annotations

import argparse
import os

from hunger_rl.envs import GAMES


def add_commands(commands) -> None:
    """Register ``evaluate`` and ``tournament`` on the CLI's subparsers."""
    evaluate = commands.add_parser(
        "evaluate",
        help="seat-rotated matches of a lineup of policies, with 95%% win-share intervals",
        description="Policy specs: random, greedy, expert, forecast and search:N (hungry), or a "
        "checkpoint path. Give one spec per seat, or fewer: the last one fills the other seats.",
    )
    _common_arguments(evaluate, default_games=2000)
    evaluate.add_argument("--record", metavar="DIR",
                          help="write every game's record (one JSON line per game) to "
                               "DIR/GAME_Np.jsonl, for `hunger-rl view` and replay")
    evaluate.set_defaults(handler=_evaluate)

    tournament = commands.add_parser(
        "tournament",
        help="round-robin over policies: OpenSkill ratings and a pairwise win-share matrix",
        description="Every seat arrangement of the policies is played equally often.",
    )
    _common_arguments(tournament, default_games=1000)
    tournament.set_defaults(handler=_tournament)


def _common_arguments(parser: argparse.ArgumentParser, default_games: int) -> None:
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--players", type=int, default=2, help="number of players")
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

    record_path = None
    if args.record:
        try:  # an unusable folder fails before the games, not after
            os.makedirs(args.record, exist_ok=True)
        except OSError as error:
            raise ValueError(f"--record {args.record!r}: {error}") from None
        record_path = os.path.join(args.record, f"{args.game}_{args.players}p.jsonl")
    result = evaluate(
        args.game, args.players, args.policies, args.games, seed=args.seed,
        workers=args.workers, progress=not args.no_progress, record=record_path is not None,
    )
    _write_outputs(result, args)
    if record_path:
        result.write_records(record_path)
        print(f"wrote {record_path} ({result.games} games)")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from hunger_rl.training.tournament import tournament

    result = tournament(
        args.game, args.players, args.policies, args.games, seed=args.seed,
        workers=args.workers, progress=not args.no_progress,
    )
    _write_outputs(result, args)
    return 0
