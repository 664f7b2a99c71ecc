"""Ctrl-C or SIGTERM during a multi-worker evaluation: one line from the command, no worker
tracebacks, and no worker left running."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process table from /proc")

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if int(parent) == pid and state != "Z":
            found.append(int(entry.name))
    return found


def take_ctrl_c() -> None:
    """In the command's process before it starts: Ctrl-C's default action, as a terminal's
    foreground command has. A shell ignores SIGINT in what it starts in the background (a test
    run started with ``&``), the command would inherit that and rightly ignore the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(condition, what: str, limit: float = 120.0) -> None:
    """Poll until ``condition()``; the limit only keeps a broken run from hanging the suite."""
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"still waiting for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("moment", ["starting", "playing"])
@pytest.mark.parametrize(("sent", "to_group", "line", "status"), [
    (signal.SIGINT, True, "hunger-rl: evaluate interrupted (Ctrl-C)", 130),  # a terminal's Ctrl-C
    (signal.SIGTERM, False, "hunger-rl: evaluate terminated (SIGTERM)", 143),  # kill PID
    (signal.SIGTERM, True, "hunger-rl: evaluate terminated (SIGTERM)", 143),
])
def test_a_stopped_evaluation_says_one_line_and_stops_its_workers(sent, to_group, line, status,
                                                                  moment):
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "hunger_rl.cli", "evaluate", "--game", "hungry",
               "--policies", "random", "--games", "1000000", "--workers", str(WORKERS)]
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=take_ctrl_c)
    err: list[str] = []  # the progress bar, then whatever the command says
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: process.stderr.read(1), "")))
    reader.start()
    try:
        # The pool's workers, plus the resource tracker that spawning starts.
        wait_for(lambda: len(children(process.pid)) >= WORKERS + 1, "the workers")
        if moment == "playing":
            wait_for(lambda: re.search(r"\| *[1-9][0-9]*/1000000", "".join(err)),
                     "games from the workers")
        workers = children(process.pid)
        if to_group:
            os.killpg(process.pid, sent)
        else:
            process.send_signal(sent)
        process.wait(timeout=120)
        reader.join(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    lines = "".join(err).replace("\r", "\n").strip().splitlines()
    assert "Traceback" not in "".join(err) and "Error" not in "".join(err)
    assert lines[-1] == line
    assert process.returncode == status
    wait_for(lambda: not set(workers) & set(children(process.pid)), "the workers to end")


# The largest budget a spec may give (policies.registry.MAX_SPEC_COUNT): every move of the
# search's seat seconds of playouts (tens on a busy machine), nearly all in compiled code.
LONG_SEARCH = "search:100000"
SEARCHING_SECONDS = 4.0  # after the game starts: numba's cache loaded, the playouts running
STOP_WITHIN_SECONDS = 3.0


@pytest.mark.parametrize(("sent", "line", "status"), [
    (signal.SIGINT, "hunger-rl: evaluate interrupted (Ctrl-C)", 130),
    (signal.SIGTERM, "hunger-rl: evaluate terminated (SIGTERM)", 143),
])
def test_a_search_in_its_playouts_stops_within_seconds(sent, line, status):
    """The search plays its playouts in chunks of compiled calls, between which Python acts on
    the signal: a search that would go on for minutes stops within seconds."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "hunger_rl.cli", "evaluate", "--game", "hungry",
               "--policies", LONG_SEARCH, "random", "--games", "1", "--workers", "1"]
    process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=take_ctrl_c)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: process.stderr.read(1), "")))
    reader.start()
    try:
        wait_for(lambda: "| 0/" in "".join(err), "the games to start")  # the bar
        time.sleep(SEARCHING_SECONDS)
        assert process.poll() is None, "the game ended before the signal"
        sent_at = time.monotonic()
        process.send_signal(sent)
        process.wait(timeout=120)
        stopped_after = time.monotonic() - sent_at
        reader.join(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    text = "".join(err)
    assert "Traceback" not in text
    assert text.replace("\r", "\n").strip().splitlines()[-1] == line
    assert process.returncode == status
    assert stopped_after < STOP_WITHIN_SECONDS, f"stopped {stopped_after:.1f} s after the signal"
