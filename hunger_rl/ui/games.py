"""What the viewer, the play server and the terminal mode know of each game, registered by game
name beside ``envs.GAMES``.

Each game's entry says how to show it: its title, the JSON snapshot of its native env (everything
a page draws, computed in Python), the label of an action, what a recorded step did, and its
board as text. The pages draw a snapshot with the renderer that ``render.js`` registers under
the game's name in ``RENDERERS``. A new game is one module here (``hungry.py`` is one), one
entry below and one renderer in ``render.js``.

Snapshots: with ``viewer=None`` everything is revealed (a replay); with a seat they hold only
what that player may know; hidden values are ``null``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hunger_rl.engines.hungry.engine import describe_action
from hunger_rl.ui import hunger_show, hungry


@dataclass(frozen=True)
class GameUI:
    """One game as the viewer, the play server and the terminal mode show it."""

    title: str
    # ``(env, viewer)``: the state of the game's native env as seen by seat ``viewer`` (all of
    # it for None), as JSON values.
    snapshot: Callable[[Any, int | None], dict[str, Any]]
    # ``(action)``: the move an action number stands for, for the human's choices.
    action_label: Callable[[int], str]
    # ``(step, env)``: what a step of a game record did, read from the env just after it.
    step_label: Callable[[dict[str, Any], Any], str]
    # ``(snapshot, seat)``: the board as the player at ``seat`` sees it, for the terminal mode.
    board_text: Callable[[dict[str, Any], int], str]


UI_GAMES: dict[str, GameUI] = {
    "hungry": GameUI(
        title="Hungry",
        snapshot=hungry.snapshot,
        action_label=describe_action,
        step_label=hungry.step_label,
        board_text=hungry.board_text,
    ),
    "hunger_show": GameUI(
        title="HUNGER: The Show",
        snapshot=hunger_show.snapshot,
        action_label=hunger_show.action_label,
        step_label=hunger_show.step_label,
        board_text=hunger_show.board_text,
    ),
}


def game_ui(name: str) -> GameUI:
    """The UI registration of game ``name``; a clear error for a game without one."""
    if name not in UI_GAMES:
        raise ValueError(f"game {name!r} has no UI registration (hunger_rl.ui.games); games "
                         f"that can be shown: {sorted(UI_GAMES)}")
    return UI_GAMES[name]


def snapshot(game: str, env, viewer: int | None = None) -> dict[str, Any]:
    """The snapshot of ``env``, a native env of ``game``, tagged with the game's name (the key
    of its renderer in ``render.js``)."""
    return {"game": game, **game_ui(game).snapshot(env, viewer)}
