"""The UI registry (``ui.games``) covers every game, and the play session knows a game only
through its registrations: a copy of a game under another name plays exactly like it."""

from __future__ import annotations

import dataclasses
import re
from importlib import resources

import numpy as np
import pytest

from hunger_rl.envs import GAMES
from hunger_rl.envs.records import load_record, replay
from hunger_rl.policies.registry import POLICY_TABLES
from hunger_rl.ui.games import UI_GAMES, game_ui
from hunger_rl.ui.session import PlaySession
from hunger_rl.ui.tui import board_text


def _js_renderers() -> set[str]:
    script = resources.files("hunger_rl.ui").joinpath("render.js").read_text(encoding="utf-8")
    table = re.search(r"const RENDERERS = \{(.*?)\n\};", script, re.S)
    assert table, "render.js has no RENDERERS table"
    return set(re.findall(r"^\s*(\w+): \{render:", table.group(1), re.M))


def test_every_game_has_a_ui_registration_and_a_renderer():
    assert set(UI_GAMES) == set(GAMES)
    assert _js_renderers() == set(GAMES)


def test_a_game_without_a_ui_registration_is_named_in_the_error():
    with pytest.raises(ValueError, match="game 'chess' has no UI registration"):
        game_ui("chess")


def _register_copy(monkeypatch, game: str) -> str:
    """Register ``game`` again under another name, in every table the session reads."""
    name = f"copy_of_{game}"
    monkeypatch.setitem(GAMES, name, dataclasses.replace(GAMES[game], name=name))
    monkeypatch.setitem(POLICY_TABLES, name, POLICY_TABLES[game])
    monkeypatch.setitem(UI_GAMES, name, UI_GAMES[game])
    return name


def _play(game, num_players, seat, directory):
    """A whole game where the human plays a move drawn from its legal ones by a seeded rng;
    every state it saw, and the record."""
    session = PlaySession(game, num_players, seat, ["greedy", "random"], seed=11,
                          record_dir=directory)
    rng = np.random.default_rng(5)
    states = [session.state(seat)]
    while not states[-1]["done"]:
        legal = states[-1]["legal"]
        states.append(session.move(seat, legal[rng.integers(len(legal))]["action"]))
    return states, load_record(session.record_path)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_session_plays_a_game_by_its_registrations_not_its_name(game, monkeypatch,
                                                                    tmp_path):
    spec = GAMES[game]
    num_players, seat = spec.min_players + 1, 1
    states, record = _play(game, num_players, seat, tmp_path / "original")
    copy = _register_copy(monkeypatch, game)
    copied_states, copied_record = _play(copy, num_players, seat, tmp_path / "copy")

    assert len(states) > 2  # the human moved more than once
    # A Parallel game steps everyone at once, so the human sees one state per day; an AEC game
    # steps one agent at a time, so the policies' moves come between the human's.
    assert all(bool(s["recent"]) == (spec.api == "aec") for s in states[1:-1])
    for state, copied in zip(states, copied_states, strict=True):
        assert copied["game"] == copy and copied["snapshot"]["game"] == copy
        assert board_text(copied) == board_text(state)
        for key in ("game", "record"):
            del state[key], copied[key]
        del state["snapshot"]["game"], copied["snapshot"]["game"]
        assert copied == state
    assert copied_record.game == copy
    assert dataclasses.replace(copied_record, game=game) == record
    replay(copied_record)  # the copy's record replays through the copy's registration
