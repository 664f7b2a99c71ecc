"""``hunger-rl play --tui``: the same game as the play server, with prompts on the terminal."""

from __future__ import annotations

import sys
from typing import TextIO

from hunger_rl.ui.session import PlayError, PlaySession


def board_text(state: dict) -> str:
    """What the human sees, as text (its own view only)."""
    snap = state["snapshot"]
    if snap["game"] == "hungry":
        lines = [f"Play {snap['play']} of 48, deck {snap['deck']}. Scores: "
                 + ", ".join(f"{name} {score}" for name, score
                             in zip(snap["players"], snap["scores"], strict=True))]
        for resort in snap["resorts"]:
            counts = " ".join(f"{len(cards)}" for cards in resort["cards"])
            lines.append(f"  {resort['name']:<14} tourists by player: {counts}")
        lines.append("Your hand: " + " ".join(snap["hands"][state["seat"]] or []))
        if snap["last"]:
            lines.append(f"Last: player_{snap['last']['player']} played {snap['last']['action']}")
        return "\n".join(lines)
    lines = [f"Day {snap['day']}, coconuts {snap['coconuts']}, "
             f"event cards left {snap['events_left']}"]
    for location in snap["locations"]:
        lines.append(f"  {location['name']:<10} " + ", ".join(
            f"{pile['kind']} {pile['count']}" for pile in location["piles"]))
    for player in snap["players"]:
        tokens = " ".join(f"{t['kind']}{'?' if t['value'] is None else t['value']}"
                          for t in player["tokens"])
        status = "" if player["alive"] else " (eliminated)"
        lines.append(f"  {player['name']}{status}: {tokens}")
    log = snap["log"]
    if log:
        lines.append(f"Day {log['day']}: " + ", ".join(
            f"{p} {pick[1]}@{pick[0]}" for p, pick in log["choices"].items())
            + f"; event {log['event']}")
        if log["eliminated"]:
            lines.append("Eliminated: " + ", ".join(log["eliminated"]))
    return "\n".join(lines)


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
        if not text.isdigit() or int(text) >= len(state["legal"]):
            print(f"'{text}' is not one of the numbers 0..{len(state['legal']) - 1}",
                  file=stdout)
            continue
        try:
            state = session.move(session.seat, state["legal"][int(text)]["action"])
        except PlayError as error:
            print(error, file=stdout)
    print(board_text(state), file=stdout)
    winners = ", ".join(state["result"]["winners"])
    print(f"Game over. Winner(s): {winners}. Record saved in {state['record']}", file=stdout)
    return 0
