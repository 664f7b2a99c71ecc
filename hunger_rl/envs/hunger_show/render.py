"""Text picture of a game of HUNGER: The Show: the island, the piles, public holdings, last day."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hunger_rl.engines.hunger_show.engine import PLAYER_LABELS, ShowGame, day_log_text
from hunger_rl.engines.hunger_show.tokens import CATEGORY_NAMES, LOCATION_NAMES, PILE_SIZES


def render_text(game: ShowGame, last_log: Mapping[str, Any] | None) -> str:
    """The island as text: what any spectator can see, plus the last day's public log."""
    lines = [f"HUNGER: The Show - {game.num_players} players, {game.day} day(s) played, "
             f"{len(game.coconuts)} coconuts, {len(game.deck)} event card(s) left"]
    for loc in range(1, game.config.num_locations):
        piles = ", ".join(f"{CATEGORY_NAMES[k]} {len(game.piles[loc][k])}/{PILE_SIZES[k]}"
                          for k in range(3))
        lines.append(f"  {LOCATION_NAMES[loc].capitalize():<10} {piles}")
    for seat in range(game.num_players):
        counts = [0] * 5
        for token in game.holdings[seat]:
            counts[game.category[token]] += 1
        holding = " ".join(f"{CATEGORY_NAMES[c]}:{counts[c]}" for c in range(5))
        marks = ("L" if seat == game.leader and not game.done else " ")
        status = "" if game.alive[seat] else "  (eliminated)"
        character = f" [{game.characters[seat]}]" if game.characters[seat] else ""
        lines.append(f" {marks} {PLAYER_LABELS[seat]}{character}: {holding}{status}")
    if last_log is not None:
        lines.append(day_log_text(last_log))
    return "\n".join(lines)
