"""The ``evaluate``, ``tournament`` and ``compare`` subcommands of ``hunger-rl``."""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from hunger_rl.engines.validation import LEGACY_NUMPY_SEED_LIMIT, typed_count
from hunger_rl.envs import GAMES, player_counts_text
from hunger_rl.policies.registry import spec_names

# A command's --seed: NumPy's legacy range, the strictest of the generators a seed may reach.
MAX_COMMAND_SEED = LEGACY_NUMPY_SEED_LIMIT - 1
MAX_PLAYERS = 64  # a sanity bound; each game names its own player counts
MAX_GAMES = 10**7
MAX_WORKERS = 256


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer in [low, high], or an error argparse reports with the
    option's name (``argument --seed: must be an integer in [0, ...], got '-1'``)."""
    wanted = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"

    def parse(text: str) -> int:
        value = typed_count(text)
        if value is None or value < low or (high is not None and value > high):
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {shown!r}")
        return value

    return parse


def output_file(option: str, value: str, default_name: str) -> Path:
    """Where ``option`` will write, checked before any game is played: a file in an existing
    folder; an existing folder gets ``default_name`` inside it. The file is opened for appending
    once (and removed again if that made it), since permission bits do not tell all: root passes
    them, and a read-only or virtual file system or a name too long refuses only the write."""
    path = Path(value)
    try:
        if path.is_dir():
            path = path / default_name
        if path.is_dir() or (path.exists() and not path.is_file()):
            raise ValueError(f"{option} {value}: {path} is not a file")
        if not path.parent.is_dir():
            raise ValueError(f"{option} {value}: there is no folder {path.parent}")
        existed = path.exists()
        with open(path, "ab"):
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        raise ValueError(f"{option} {value}: cannot write {path}: {error.strerror}") from None
    return path


def output_folder(option: str, value: str) -> Path:
    """A folder ``option`` may create or write into, checked before any work starts: it is
    created (with its missing parents) and a file is written in it, then the check removes what
    it made. As for ``output_file``, permission bits do not tell all: root passes them, and
    /proc refuses only the folder's creation."""
    path = Path(value)
    existing, missing = path, []  # missing: the folders to create, deepest first
    while not existing.exists() and existing != existing.parent:
        missing.append(existing)
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option} {value}: {existing} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ValueError(f"{option} {value}: cannot create or write in {path}: "
                         f"{error.strerror}") from None
    finally:
        for folder in missing:
            with contextlib.suppress(OSError):  # not made, or written meanwhile
                folder.rmdir()
    return path


def plot_file(value: str, default_name: str) -> Path:
    """``--plot``'s file: a name without a suffix gets ``.png`` (as matplotlib would add), so
    that the path printed is the path written; a suffix matplotlib cannot write is refused."""
    path = Path(value)
    if not path.is_dir() and not path.suffix:
        path = path.with_name(path.name + ".png")
    path = output_file("--plot", str(path), default_name)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    formats = FigureCanvasAgg.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise ValueError(f"--plot {value}: matplotlib cannot write {path.suffix!r} files; use "
                         f"one of {sorted('.' + f for f in formats)}")
    return path


def add_commands(commands) -> None:
    """Register ``evaluate``, ``tournament`` and ``compare`` on the CLI's subparsers."""
    evaluate = commands.add_parser(
        "evaluate",
        help="seat-rotated matches of a lineup of policies, with 95%% win-share intervals",
        description=f"Policy specs: {_specs_text()}. Give one spec per seat, or fewer: the last "
        "one fills the other seats.",
    )
    _common_arguments(evaluate, default_games=2000)
    evaluate.add_argument("--record", metavar="DIR",
                          help="write every game's record (one JSON line per game) to "
                               "DIR/GAME_Np.jsonl, for `hunger-rl view` and replay")
    evaluate.set_defaults(handler=_evaluate)

    tournament = commands.add_parser(
        "tournament",
        help="round-robin over policies: OpenSkill ratings and a pairwise win-share matrix",
        description=f"Every seat arrangement of the policies is played equally often. Policy "
        f"specs: {_specs_text()}.",
    )
    _common_arguments(tournament, default_games=1000)
    tournament.set_defaults(handler=_tournament)

    compare = commands.add_parser(
        "compare",
        help="two policies against the same opponents on the same deals: the paired "
             "difference of their win shares, with its 95%% interval",
        description="Each policy plays the seat-rotated lineup POLICY AGAINST... with the same "
        "seed, so game i is the same deal, seats and opponents' draws for both; the interval is "
        f"over the per-game differences. Policy specs: {_specs_text()}.",
    )
    _game_arguments(compare, default_games=2000)
    compare.add_argument("--policies", nargs=2, required=True, metavar=("CANDIDATE", "BASELINE"))
    compare.add_argument("--against", nargs="+", required=True, metavar="SPEC",
                         help="the opponents, one spec per seat or fewer (the last fills the "
                              "other seats)")
    compare.add_argument("--json", help="write the comparison as JSON here")
    compare.set_defaults(handler=_compare)


def _specs_text() -> str:
    """Every game's policy specs, from the registry (``--help`` text)."""
    per_game = "; ".join(f"{game}: {', '.join(spec_names(game))}" for game in sorted(GAMES))
    return f"{per_game}; or the path of a trained policy"


def _game_arguments(parser: argparse.ArgumentParser, default_games: int) -> None:
    """The game, its players, and how many games to play with which seed, on how many
    workers."""
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--players", type=bounded_int(1, MAX_PLAYERS), default=2,
                        help=f"number of players ({player_counts_text()}; default 2)")
    parser.add_argument("--games", type=bounded_int(1, MAX_GAMES), default=default_games)
    parser.add_argument("--seed", type=bounded_int(0, MAX_COMMAND_SEED), default=0)
    parser.add_argument("--workers", type=bounded_int(1, MAX_WORKERS),
                        default=min(os.cpu_count() or 1, MAX_WORKERS), help="worker processes")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _common_arguments(parser: argparse.ArgumentParser, default_games: int) -> None:
    _game_arguments(parser, default_games)
    parser.add_argument("--policies", nargs="+", required=True, metavar="SPEC")
    parser.add_argument("--csv", help="write the table as CSV here")
    parser.add_argument("--json", help="write the results as JSON here")
    parser.add_argument("--plot", help="draw the results into this image file (PNG unless "
                        "its name ends in another format matplotlib writes)")


def _output_paths(args: argparse.Namespace) -> dict[str, Path]:
    """The files the command will write, checked before any game is played."""
    paths = {}
    if args.csv:
        paths["csv"] = output_file("--csv", args.csv, f"{args.command}.csv")
    if args.json:
        paths["json"] = output_file("--json", args.json, f"{args.command}.json")
    if args.plot:
        paths["plot"] = plot_file(args.plot, f"{args.command}.png")
    return paths


def _write_outputs(result, paths: dict[str, Path]) -> None:
    print(result.to_table())
    writers = {"csv": result.to_csv, "json": result.to_json, "plot": result.plot}
    for kind, path in paths.items():
        try:  # checked before the games, but a disk can still fill up since
            writers[kind](str(path))
        except OSError as error:
            raise ValueError(f"--{kind} {path}: cannot write: {error.strerror}") from None
        print(f"wrote {path}")


def _evaluate(args: argparse.Namespace) -> int:
    from hunger_rl.arena.evaluation import evaluate

    record_path = None
    if args.record:
        try:  # an unusable folder fails before the games, not after
            os.makedirs(args.record, exist_ok=True)
        except OSError as error:
            raise ValueError(f"--record {args.record!r}: {error}") from None
        record_path = output_file("--record", args.record, f"{args.game}_{args.players}p.jsonl")
    result = _play_and_report(evaluate, args, record=record_path is not None)
    if record_path:
        result.write_records(record_path)
        print(f"wrote {record_path} ({result.games} games)")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from hunger_rl.arena.tournament import tournament

    _play_and_report(tournament, args)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from hunger_rl.arena.evaluation import compare

    json_path = output_file("--json", args.json, "compare.json") if args.json else None
    candidate, baseline = args.policies
    result = compare(args.game, args.players, candidate, baseline, args.against, args.games,
                     seed=args.seed, workers=args.workers, progress=not args.no_progress)
    print(result.to_table())
    if json_path:
        try:
            result.to_json(str(json_path))
        except OSError as error:
            raise ValueError(f"--json {json_path}: cannot write: {error.strerror}") from None
        print(f"wrote {json_path}")
    return 0


def _play_and_report(play, args: argparse.Namespace, **options):
    """Run ``evaluate`` or ``tournament`` (same arguments, plus ``options``), print and write
    its results, and return them."""
    paths = _output_paths(args)
    result = play(
        args.game, args.players, args.policies, args.games, seed=args.seed,
        workers=args.workers, progress=not args.no_progress, **options,
    )
    _write_outputs(result, paths)
    return result
