"""The play session, its server (through Werkzeug's test client) and its terminal mode."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from werkzeug.test import Client

from hunger_rl.cli import main
from hunger_rl.envs.records import load_record, replay, state_digest
from hunger_rl.ui.server import PlayApp
from hunger_rl.ui.session import PlayError, PlaySession
from hunger_rl.ui.tui import play_tui


def _finish(client, seat):
    moves = 0
    while True:
        state = client.get(f"/api/state?seat={seat}").get_json()
        if state["done"]:
            return state, moves
        assert state["legal"], "the human is asked only when it has a legal move"
        response = client.post("/api/move", json={"seat": seat,
                                                  "action": state["legal"][-1]["action"]})
        assert response.status_code == 200, response.get_json()
        moves += 1


@pytest.mark.parametrize(("game", "players", "seat"), [("hungry", 3, 1), ("hunger_show", 4, 2),
                                                       ("hunger_show", 2, 0)])
def test_a_whole_game_through_the_server_is_recorded_and_replays(game, players, seat, tmp_path):
    opponents = ["greedy", "random"][: players - 1]
    session = PlaySession(game, players, seat, opponents, seed=4, record_dir=tmp_path)
    client = Client(PlayApp(session))
    state, moves = _finish(client, seat)
    assert moves > 0
    record = load_record(state["record"])
    assert record.players[seat] == "human"
    assert record.result == state["result"]
    env = replay(record)
    assert state_digest(env.game) == record.result["state_digest"]
    page = client.get("/")
    assert page.status_code == 200 and b"renderSnapshot" in page.data


def test_the_human_sees_only_its_own_hand(tmp_path):
    session = PlaySession("hungry", 3, 2, ["expert"], seed=0, record_dir=tmp_path)
    state = session.state(2)
    hands = state["snapshot"]["hands"]
    assert hands[0] is None and hands[1] is None and len(hands[2]) == 8
    assert state["snapshot"]["removed"] is None
    # Seats 0 and 1 (the policies) have played: the human is to move at play 2.
    assert state["snapshot"]["play"] == 2 and len(state["recent"]) == 2
    legal = {move["action"] for move in state["legal"]}
    held = [card for card, count in enumerate(session.env.game.hands[2].tolist()) if count]
    assert legal == {2 * card + d for card in held for d in (0, 1)}


def test_show_values_hidden_unless_remembered(tmp_path):
    session = PlaySession("hunger_show", 4, 0, ["expert"], seed=2, record_dir=tmp_path)
    session.move(0, session.legal_actions()[0])
    snapshot = session.state(0)["snapshot"]
    game = session.env.game
    for seat, player in enumerate(snapshot["players"]):
        holding = sorted(game.holdings[seat], key=lambda t: (game.category[t], t))
        assert [t["value"] is not None for t in player["tokens"]] == [
            game.knows(0, t) for t in holding]
        assert all(t["known"] is None for t in player["tokens"])
    assert all(pile["tokens"] is None for loc in snapshot["locations"] for pile in loc["piles"])


def test_bad_requests_leave_the_game_unchanged(tmp_path):
    session = PlaySession("hungry", 2, 0, ["greedy"], seed=1, record_dir=tmp_path)
    client = Client(PlayApp(session))
    before = client.get("/api/state?seat=0").get_json()
    illegal = next(a for a in range(50) if a not in {m["action"] for m in before["legal"]})
    cases = [
        ({"seat": 1, "action": 0}, 403, "seat 1 is not yours: you play seat 0"),
        ({"seat": 0, "action": illegal}, 400, f"action {illegal} is not a legal move"),
        ({"seat": 0, "action": "3"}, 400, "action '3' is not a legal move"),
        ({"seat": 0}, 400, "a move is"),
    ]
    for body, status, message in cases:
        response = client.post("/api/move", json=body)
        assert response.status_code == status
        assert message in response.get_json()["error"]
    response = client.post("/api/move", data="{not json", content_type="application/json")
    assert response.status_code == 400 and "must be JSON" in response.get_json()["error"]
    assert client.get("/api/state?seat=1").status_code == 403
    assert client.get("/api/state").status_code == 400
    assert client.get("/nowhere").status_code == 404
    assert client.get("/api/state?seat=0").get_json() == before


def test_session_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="--seat must be a seat of the 2-player game"):
        PlaySession("hungry", 2, 2, ["greedy"], record_dir=tmp_path)
    with pytest.raises(ValueError, match="3 opponents for 1 other seats"):
        PlaySession("hungry", 2, 0, ["greedy", "random", "expert"], record_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown policy spec"):
        PlaySession("hungry", 2, 0, ["nobody"], record_dir=tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="--record-dir .*: .*file is a file, not a folder"):
        PlaySession("hungry", 2, 0, ["greedy"], record_dir=tmp_path / "file" / "games")
    if Path("/proc").is_dir():  # root passes the permission bits; the folder cannot be made
        with pytest.raises(ValueError, match="--record-dir /proc/games: cannot create or write"):
            PlaySession("hungry", 2, 0, ["greedy"], record_dir="/proc/games")
    session = PlaySession("hungry", 2, 0, ["greedy"], record_dir=tmp_path)
    with pytest.raises(PlayError, match="not a legal move"):
        session.move(0, 99)


def test_terminal_mode_plays_a_game(tmp_path):
    session = PlaySession("hunger_show", 3, 1, ["expert"], seed=3, record_dir=tmp_path)
    out = io.StringIO()
    # Always the first listed move; bad lines first are refused and asked again (issue 50:
    # '\u00b2', which str.isdigit passes and int() refuses, ended the game).
    bad = ["x", "99", "\u00b2", "\u0660", "9" * 5000]
    assert play_tui(session, io.StringIO("\n".join(bad) + "\n" + "0\n" * 40), out) == 0
    text = out.getvalue()
    for line in bad:
        assert f"'{line}' is not one of the numbers" in text
    assert "Game over. Winner(s):" in text
    replay(load_record(session.record_path))


def test_terminal_mode_stops_at_the_end_of_input(tmp_path):
    session = PlaySession("hungry", 2, 0, ["greedy"], seed=3, record_dir=tmp_path)
    assert play_tui(session, io.StringIO("0\n"), io.StringIO()) == 1
    assert session.record_path is None


def test_cli_play_tui_and_view(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 60))
    assert main(["play", "--game", "hungry", "--players", "2", "--seat", "1", "--opponents",
                 "random", "--tui", "--record-dir", str(tmp_path)]) == 0
    (record_file,) = tmp_path.glob("*.jsonl")
    out = tmp_path / "game.html"
    assert main(["view", str(record_file), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    page = out.read_text()
    data = json.loads(page.split('id="game-data">')[1].split("</script>")[0])
    assert len(data["steps"]) == 49 and data["seats"] == ["random", "human"]
    assert main(["view", str(record_file), "--game-index", "2", "--out", str(out)]) == 2
    assert "game index 2 is not one of 0..0" in capsys.readouterr().err
