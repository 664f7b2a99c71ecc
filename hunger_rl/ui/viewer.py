"""``hunger-rl view``: one self-contained HTML page that steps through a recorded game.

The page holds its style, its script and the snapshot of every step (replayed here, in Python,
through the engine) inline, so it needs no network and opens from ``file://``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from hunger_rl.envs.records import GameRecord, load_record, replay_steps
from hunger_rl.ui.games import game_ui, snapshot


def asset(name: str) -> str:
    """The text of one of the page assets shipped beside this module."""
    return resources.files("hunger_rl.ui").joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "</script>" can close it early."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def step_label(record: GameRecord, index: int, env) -> str:
    """What happened at step ``index`` (0 is the deal), read after it was replayed."""
    if index == 0:
        return "the deal"
    return game_ui(record.game).step_label(record.steps[index - 1], env)


def viewer_data(record: GameRecord) -> dict[str, Any]:
    """Every step's snapshot, replayed (and so checked) through the engine."""
    steps = [{"label": step_label(record, index, env), "snapshot": snapshot(record.game, env)}
             for index, env in enumerate(replay_steps(record))]
    return {"game": record.game, "players": [f"player_{s}" for s in range(record.num_players)],
            "seats": record.players, "steps": steps}


def viewer_html(record: GameRecord) -> str:
    """The whole page for one recorded game."""
    title = (f"{game_ui(record.game).title}, {record.num_players} players: "
             f"{' vs '.join(record.players)}")
    page = asset("viewer.html")
    for placeholder, text in (("__STYLE__", asset("style.css")), ("__RENDER__", asset("render.js")),
                              ("__TITLE__", _escape(title)),
                              ("__DATA__", embed_json(viewer_data(record)))):
        page = page.replace(placeholder, text)
    return page


def write_viewer(record_path: str | Path, out: str | Path, game_index: int = 0) -> Path:
    """Write the viewer of game ``game_index`` of a record file to ``out``."""
    record = load_record(record_path, game_index)
    out = Path(out)
    out.write_text(viewer_html(record), encoding="utf-8")
    return out


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
