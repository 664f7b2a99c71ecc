"""The play server through a real HTTP client (``http.client``) on 127.0.0.1: every bad request
of issue 50 gets its 4xx and one line naming the problem, an unexpected error a logged 500
without its traceback, and the game stays as it was; the slow load test keeps it up."""

from __future__ import annotations

import http.client
import json
import logging
import os
import random
import resource
import socket
import threading
import time
from contextlib import contextmanager
from urllib.parse import quote

import pytest
from werkzeug.serving import make_server

from hunger_rl.ui.server import MAX_BODY_BYTES, MAX_JSON_DEPTH, PlayApp
from hunger_rl.ui.session import PlaySession

HOST = "127.0.0.1"  # loopback only


@contextmanager
def serving(session: PlaySession):
    """The play server of ``session`` on a free port of 127.0.0.1, in a thread; its port."""
    server = make_server(HOST, 0, PlayApp(session), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def request(port: int, method: str, path: str, body: bytes | str | None = None,
            headers: dict | None = None, **options) -> tuple[int, dict]:
    """One request on its own connection: the status and the JSON answer."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {}, **options)
        response = connection.getresponse()
        text = response.read().decode()
        assert response.getheader("Content-Type") == "application/json", text
        return response.status, json.loads(text)
    finally:
        connection.close()


@pytest.fixture
def game(tmp_path):
    session = PlaySession("hungry", 2, 0, ["greedy"], seed=1, record_dir=tmp_path)
    with serving(session) as port:
        yield session, port


def move_body(**fields) -> str:
    return json.dumps(fields)


def test_bad_seats_in_the_query_get_400_naming_them(game):
    session, port = game
    before = request(port, "GET", "/api/state?seat=0")
    for seat, message in [
        ("9" * 5000, "the seat must be a seat number in ASCII digits, got str '9999"),  # was 500
        (quote("\u00b2"), "ASCII digits, got str '\u00b2'"),  # superscript two: was 500
        (quote("\u0660"), "ASCII digits, got str '\u0660'"),  # Arabic-Indic zero: was seat 0
        ("-1", "ASCII digits, got str '-1'"),
        ("", "ASCII digits, got str ''"),
        ("2", "there is no seat 2 in this 2-player game: its seats are 0 to 1"),
    ]:
        status, answer = request(port, "GET", f"/api/state?seat={seat}")
        assert status == 400 and message in answer["error"]
    assert request(port, "GET", "/api/state")[0] == 400
    status, answer = request(port, "GET", "/api/state?seat=1")
    assert status == 403 and "seat 1 is not yours: you play seat 0" in answer["error"]
    assert request(port, "GET", "/api/state?seat=0") == before


def test_bad_move_bodies_get_4xx_and_change_nothing(game):
    session, port = game
    status, before = request(port, "GET", "/api/state?seat=0")
    legal = before["legal"][0]["action"]
    cases = [
        # Issue 50: a 403 that read "seat '0' is not yours: you play seat 0".
        (move_body(seat="0", action=legal), 400, "the seat must be an integer, got str '0'"),
        (move_body(seat=True, action=legal), 400, "the seat must be an integer, got bool"),
        (move_body(seat=0.0, action=legal), 400, "the seat must be an integer, got float"),
        (move_body(seat=7, action=legal), 400, "there is no seat 7 in this 2-player game"),
        (move_body(seat=1, action=legal), 403, "seat 1 is not yours: you play seat 0"),
        # Issue 50: unknown keys were ignored.
        (move_body(seat=0, action=legal, mode="fast"), 400,
         "a move is {\"seat\": K, \"action\": A} and nothing else: unknown key str 'mode'"),
        (move_body(action=legal), 400,
         "a move is {\"seat\": K, \"action\": A} and nothing else: no 'seat'"),
        ("[0, 3]", 400, 'a move is a JSON object {"seat": K, "action": A}, got list'),
        ("{not json", 400, "the request body must be JSON"),
        (move_body(seat=0, action=[legal]), 400, "action [" + str(legal) + "] is not a legal"),
        # Issue 50: 100,000 deep was a 500 (RecursionError); any depth past the limit is a 400.
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), 400,
         f"the request body is nested deeper than {MAX_JSON_DEPTH} levels"),
        ('{"seat": 0, "action": "' + "[" * 100 + '"}', 400, "action '[[[["),  # in a string
        ("[" * 100_000 + "]" * 100_000, 413, f"the request body is over {MAX_BODY_BYTES} bytes"),
        # Issue 50: a 50 MB body was read whole and played.
        (move_body(seat=0, action=legal, pad=" " * 50 * 2**20), 413, "the request body is over"),
    ]
    for body, status, message in cases:
        answer_status, answer = request(port, "POST", "/api/move", body)
        assert (answer_status, answer["error"][: len(message)]) == (status, message), body[:80]
        assert "Traceback" not in answer["error"]
    assert request(port, "GET", "/api/state?seat=0") == (200, before)
    status, after = request(port, "POST", "/api/move", move_body(seat=0, action=legal))
    assert status == 200 and after["snapshot"] != before["snapshot"]


def test_a_large_body_is_refused_before_it_is_read(game):
    """413 on the Content-Length alone (the 50 MB are never sent), and a chunked body once it
    passes the limit."""
    session, port = game
    with socket.create_connection((HOST, port), timeout=30) as connection:
        connection.sendall(b"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Length: 52428800\r\n\r\n{")
        assert connection.recv(4096).startswith(b"HTTP/1.1 413 ")

    def chunks(body: str):
        for start in range(0, len(body), 100):
            yield body[start : start + 100].encode()

    legal = session.legal_actions()[0]
    # A move followed by padding: Werkzeug's read of a chunked body stops at its limit without
    # an error, and the first MAX_BODY_BYTES alone would be a valid move.
    padded = move_body(seat=0, action=legal) + " " * MAX_BODY_BYTES
    fits = move_body(seat=0, action=legal).ljust(MAX_BODY_BYTES)
    for body, status in [(padded, 413), (padded[: MAX_BODY_BYTES + 1], 413), (fits, 200)]:
        answer_status, answer = request(port, "POST", "/api/move", chunks(body),
                                        encode_chunked=True,
                                        headers={"Transfer-Encoding": "chunked"})
        assert answer_status == status, answer
    assert "over 1024 bytes" in request(port, "POST", "/api/move", padded)[1]["error"]


def test_an_unexpected_error_is_a_logged_500_without_its_traceback(game, monkeypatch, caplog):
    session, port = game

    def broken(seat):
        raise RuntimeError("the snapshot failed")

    monkeypatch.setattr(session, "state", broken)
    with caplog.at_level(logging.ERROR, logger="hunger_rl.ui.server"):
        status, answer = request(port, "GET", "/api/state?seat=0")
    assert status == 500
    assert answer == {"error": "the server failed on this request (see its log); the game is "
                               "unchanged"}
    (logged,) = [r for r in caplog.records if r.name == "hunger_rl.ui.server"]
    assert logged.getMessage() == "GET /api/state failed"
    assert "RuntimeError: the snapshot failed" in logged.exc_text
    monkeypatch.undo()
    assert request(port, "GET", "/api/state?seat=0")[0] == 200  # still serving


# The load test's bounds: threads, requests per thread, and the wall time it may take.
LOAD_THREADS = 8
LOAD_REQUESTS = 150
LOAD_SECONDS = 120.0
LOAD_MEMORY_MIB = 64  # the most the server's process may grow by


def resident_mib() -> float:
    """This process's resident memory now (Linux), else its peak."""
    try:
        with open(f"/proc/{os.getpid()}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.slow
def test_the_server_stays_up_under_a_bounded_load_of_good_and_bad_requests(tmp_path):
    """LOAD_THREADS clients, LOAD_REQUESTS each, on 127.0.0.1 only: states, moves (legal,
    illegal and malformed), oversized and deep bodies, bad seats. No 500, every answer JSON,
    the memory bounded, and the game still served at the end."""
    session = PlaySession("hungry", 2, 0, ["greedy"], seed=2, record_dir=tmp_path)
    statuses: dict[int, int] = {}
    failures: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + LOAD_SECONDS

    def client(index: int) -> None:
        rng = random.Random(index)
        for _ in range(LOAD_REQUESTS):
            if time.monotonic() > deadline:
                return
            kind = rng.randrange(6)
            try:
                if kind == 0:
                    status, answer = request(port, "GET", "/api/state?seat=0")
                elif kind == 1:
                    status, state = request(port, "GET", "/api/state?seat=0")
                    action = state["legal"][0]["action"] if state["legal"] else 0
                    status, answer = request(port, "POST", "/api/move",
                                             move_body(seat=0, action=action))
                elif kind == 2:
                    status, answer = request(port, "POST", "/api/move",
                                             move_body(seat=0, action=rng.randrange(-5, 60)))
                elif kind == 3:
                    status, answer = request(port, "POST", "/api/move",
                                             "x" * rng.choice([10, 5 * MAX_BODY_BYTES, 2**20]))
                elif kind == 4:
                    depth = rng.choice([MAX_JSON_DEPTH + 1, 400])
                    status, answer = request(port, "POST", "/api/move",
                                             "[" * depth + "]" * depth)
                else:
                    seat = rng.choice(["9" * 3000, quote("\u00b2"), "1", "-0", "0"])
                    status, answer = request(port, "GET", f"/api/state?seat={seat}")
            except (OSError, http.client.HTTPException, ValueError) as error:
                with lock:
                    failures.append(f"{type(error).__name__}: {error}")
                continue
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    before = resident_mib()
    with serving(session) as port:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(LOAD_THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=LOAD_SECONDS + 30)
        assert not any(thread.is_alive() for thread in threads)
        grown = resident_mib() - before
        final = request(port, "GET", "/api/state?seat=0")
    assert final[0] == 200
    assert not failures, failures[:5]
    assert 500 not in statuses and set(statuses) <= {200, 400, 403, 413}, statuses
    assert sum(statuses.values()) >= LOAD_THREADS * 10, statuses  # it did get loaded
    assert grown < LOAD_MEMORY_MIB, f"grew by {grown:.0f} MiB"
