"""The ``view``, ``play`` and ``policies`` subcommands of ``hunger-rl``."""

from __future__ import annotations

import argparse
from pathlib import Path

from hunger_rl.arena.commands import bounded_int, output_file
from hunger_rl.envs import GAMES

# TCP's port numbers; 0 asks the system for a free one.
MAX_PORT = 65535


def add_commands(commands) -> None:
    """Register ``view``, ``play`` and ``policies`` on the CLI's subparsers."""
    view = commands.add_parser(
        "view", help="write a self-contained HTML page that steps through a recorded game")
    view.add_argument("record", help="a record file (JSON lines), e.g. from evaluate --record")
    view.add_argument("--game-index", type=int, default=0, help="which game of the file (from 0)")
    view.add_argument("--out", required=True, help="the HTML file to write (a folder: "
                      "RECORD_INDEX.html in it)")
    view.set_defaults(handler=_view)

    play = commands.add_parser(
        "play", help="play against policies in the browser (a local server) or the terminal")
    play.add_argument("--game", choices=sorted(GAMES), required=True)
    play.add_argument("--players", type=int, default=2, help="number of players")
    play.add_argument("--seat", type=int, default=0, help="your seat (0 moves first in Hungry)")
    play.add_argument("--opponents", nargs="+", required=True, metavar="SPEC",
                      help="policy specs of the other seats in order; the last fills the rest")
    play.add_argument("--seed", type=int, default=0, help="seed of the deal and the policies")
    play.add_argument("--record-dir", default="played_games",
                      help="where the finished game's record is written")
    play.add_argument("--host", default="127.0.0.1", help="address to serve on")
    play.add_argument("--port", type=bounded_int(0, MAX_PORT), default=8000,
                      help=f"port, 0 to {MAX_PORT} (0: any free port)")
    play.add_argument("--tui", action="store_true", help="play in the terminal instead")
    play.set_defaults(handler=_play)

    policies = commands.add_parser(
        "policies", help="list the policy specs of a game with a line on each")
    policies.add_argument("--game", choices=sorted(GAMES), required=True)
    policies.add_argument("--players", type=int, default=2, help="number of players")
    policies.set_defaults(handler=_policies)


def _view(args: argparse.Namespace) -> int:
    from hunger_rl.ui.viewer import write_viewer

    # Checked before the game is replayed; a folder gets the record's name.
    out = output_file("--out", args.out, f"{Path(args.record).stem}_{args.game_index}.html")
    try:  # checked, but a disk can still fill up since
        write_viewer(args.record, out, args.game_index)
    except OSError as error:
        raise ValueError(f"--out {out}: cannot write: {error.strerror}") from None
    print(f"wrote {out}")
    return 0


def _play(args: argparse.Namespace) -> int:
    from hunger_rl.ui.session import PlaySession

    session = PlaySession(args.game, args.players, args.seat, args.opponents, seed=args.seed,
                          record_dir=args.record_dir)
    if args.tui:
        from hunger_rl.ui.tui import play_tui

        return play_tui(session)
    try:
        from hunger_rl.ui.server import serve
    except ImportError as error:
        raise ValueError(f"the play server needs the 'play' extra (pip install "
                         f"'hunger-rl[play]'): {error}") from error
    serve(session, args.host, args.port)
    return 0


def _policies(args: argparse.Namespace) -> int:
    from hunger_rl.policies.registry import describe_specs

    for spec, description in describe_specs(args.game, args.players):
        print(f"{spec:<28} {description}")
    return 0
