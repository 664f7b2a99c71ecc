"""``hunger-rl play --tui``: the same game as the play server, with prompts on the terminal."""

from __future__ import annotations

import sys
from typing import TextIO

from hunger_rl.engines.validation import typed_count
from hunger_rl.ui.games import game_ui
from hunger_rl.ui.session import PlayError, PlaySession


def board_text(state: dict) -> str:
    """What the human sees, as text (its own view only)."""
    return game_ui(state["game"]).board_text(state["snapshot"], state["seat"])


def play_tui(session: PlaySession, stdin: TextIO | None = None,
             stdout: TextIO | None = None) -> int:
    """Prompt for the human's moves until the game ends (or the input does)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    state = session.state(session.seat)
    while not state["done"]:
        print(board_text(state), file=stdout)
        for number, move in enumerate(state["legal"]):
            print(f"  [{number}] {move['label']}", file=stdout)
        print("Your move (number): ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            print("\nno more input: the game is left unfinished", file=stdout)
            return 1
        text = line.strip()
        choice = typed_count(text)
        if choice is None or choice >= len(state["legal"]):
            print(f"'{text}' is not one of the numbers 0..{len(state['legal']) - 1}",
                  file=stdout)
            continue
        try:
            state = session.move(session.seat, state["legal"][choice]["action"])
        except PlayError as error:
            print(error, file=stdout)
    print(board_text(state), file=stdout)
    winners = ", ".join(state["result"]["winners"])
    print(f"Game over. Winner(s): {winners}. Record saved in {state['record']}", file=stdout)
    return 0
