"""A finished multi-worker evaluation lets its workers leave quietly, torch loaded or not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A learned policy loads torch in the workers, whose exit then runs torch's clean-up: a SIGTERM
# arriving then (from the pool's terminate) printed a traceback per worker.
SCRIPT = """
from hunger_rl.arena.evaluation import evaluate
if __name__ == "__main__":
    for seed in range(2):
        result = evaluate("hunger_show", 2, ["pretrained:hunger_show_2p", "crowd"], 20,
                          seed=seed, workers=2, progress=False)
        print(result.row("pretrained:hunger_show_2p").games)
"""


def test_a_finished_evaluation_prints_no_worker_traceback(tmp_path):
    script = tmp_path / "evaluate_twice.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "20"]
    assert done.stderr == ""


# A worker that outlives its SIGTERM (as one whose SystemExit a finaliser swallowed, which then
# waits for the task queue's lock that the pool's terminate holds) while the other worker's
# task fails: the terminate must not wait for it for ever.
DEAF_WORKER_SCRIPT = """
import signal, sys, time
from pathlib import Path
from tqdm import tqdm
from hunger_rl.arena import matches

def task(job):
    kind, flag = job
    if kind == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        Path(flag).touch()
        time.sleep(600)
        return []
    while not Path(flag).exists():  # fail only once the other worker ignores SIGTERM
        time.sleep(0.01)
    raise RuntimeError("the failing task")

if __name__ == "__main__":
    matches.TERMINATE_GRACE_S = 1.0
    started = time.monotonic()
    try:
        list(matches.map_chunks(task, [("fail", sys.argv[1]), ("deaf", sys.argv[1])], 2,
                                tqdm(disable=True)))
    except RuntimeError as error:
        print(error, round(time.monotonic() - started))
"""


def test_a_worker_deaf_to_sigterm_is_killed_after_the_grace(tmp_path):
    script = tmp_path / "deaf_worker.py"
    script.write_text(DEAF_WORKER_SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "deaf")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    message, seconds = done.stdout.rsplit(" ", 1)
    assert message == "the failing task"
    assert int(seconds) < 60  # the deaf worker sleeps 600 s
