"""Text and picture renderings of a Hungry table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hunger_rl.engines.hungry.engine import NUM_RESORTS, TOTAL_PLAYS, HungryState, resort_name
from hunger_rl.envs.rendering import text_to_rgb

_MOVER = (255, 236, 179)
_WINNER = (200, 235, 200)


def _lines(game: HungryState, agents: Sequence[str]) -> tuple[list[str], dict[int, tuple]]:
    width = max(10, *(len(a) for a in agents))
    status = "game over" if game.is_over else f"{agents[game.current_player]} to move"
    lines = [
        f"Hungry  play {game.num_plays}/{TOTAL_PLAYS}  deck {len(game.deck)}  {status}",
        f"{'resort':<12}" + "".join(f"{a:>{width}}" for a in agents) + "   1st / 2nd",
    ]
    for resort in range(NUM_RESORTS):
        first, second = game.places[resort]
        placed = "".join(f"{game.resort_tourists[resort][p]:>{width}}" for p in range(len(agents)))
        names = " / ".join("-" if p is None else agents[p] for p in (first, second))
        lines.append(f"{resort_name(resort):<12}{placed}   {names}")
    score = game.score()
    lines.append(f"{'score':<12}" + "".join(f"{s.total:>{width}}" for s in score.players))
    lines.append(f"{'hand':<12}" + "".join(f"{n:>{width}}" for n in game.hand_sizes))
    highlights: dict[int, tuple] = {}
    if game.is_over:
        winners = ", ".join(agents[p] for p in score.winners)
        lines.append(("winner: " if len(score.winners) == 1 else "shared draw: ") + winners)
        highlights[len(lines) - 1] = _WINNER
    else:
        highlights[0] = _MOVER
    return lines, highlights


def ansi_table(game: HungryState, agents: Sequence[str]) -> str:
    """The ten resorts with each player's tourists and the places, then scores and hands."""
    return "\n".join(_lines(game, agents)[0])


def rgb_table(game: HungryState, agents: Sequence[str]) -> np.ndarray:
    """The ``ansi_table`` as an HxWx3 uint8 picture, the mover's or winner's line highlighted."""
    lines, highlights = _lines(game, agents)
    return text_to_rgb("\n".join(lines), highlights)
