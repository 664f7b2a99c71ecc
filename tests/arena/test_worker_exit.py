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
