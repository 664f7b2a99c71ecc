"""The numba warm-up of a large test run (``numba_warmup.py``) watches every compiled module."""

import re

import numba_warmup


def test_the_warmup_watches_every_module_with_cached_compiled_functions():
    root = numba_warmup.ROOT
    compiled = {path.relative_to(root).as_posix() for path in (root / "hunger_rl").rglob("*.py")
                if re.search(r"^@_?jit(_allocating)?$", path.read_text(), re.MULTILINE)}
    assert compiled == set(numba_warmup.COMPILED_MODULES)
