"""Every test process computes on one thread (torch, and the OpenMP and BLAS pools NumPy
uses): the default suite runs one xdist worker per core, and a second thread per worker only
waits for a core, many times slower on a busy machine (as the trainers' ``torch_threads: 1``).
Subprocesses the tests start inherit the setting."""

import os

# Read when torch and NumPy load, which the test modules do after this file.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
