"""Every test process computes on one thread (torch, and the OpenMP and BLAS pools NumPy
uses): the default suite runs one xdist worker per core, and a second thread per worker only
waits for a core, many times slower on a busy machine (as the trainers' ``torch_threads: 1``).
Subprocesses the tests start inherit the setting.

On a cold numba cache (a fresh clone), a large run first compiles the batched engines and the
compiled players, one process per core (``numba_warmup.py``), while the test processes start
and collect; the tests then load the compiled code from the cache instead of each compiling it."""

import os
import subprocess

import numba_warmup  # beside this file, which pytest puts on sys.path
import pytest

# Read when torch and NumPy load, which the test modules do after this file.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

# A run of fewer tests compiles only what they call, in its own process.
LARGE_RUN = 100
_WARMUP = pytest.StashKey[subprocess.Popen]()


def pytest_configure(config):
    if not hasattr(config, "workerinput") and numba_warmup.cache_is_cold():
        config.stash[_WARMUP] = numba_warmup.start()


def _finish_warmup(config, num_tests: int) -> None:
    """Wait for the warm-up before a large run; stop it before a small one."""
    process = config.stash.get(_WARMUP, None)
    if process is None:
        return
    del config.stash[_WARMUP]
    if num_tests < LARGE_RUN or config.option.collectonly:
        numba_warmup.stop(process)
    else:
        process.wait()


def pytest_collection_finish(session):
    _finish_warmup(session.config, len(session.items))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    # On the controller, as each worker reports its collection; no test runs before it returns.
    _finish_warmup(node.config, len(ids))


def pytest_unconfigure(config):
    _finish_warmup(config, 0)
