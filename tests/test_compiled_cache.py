"""numba's disk cache of the package's compiled code (``engines.compiled.PackageCacheLocator``):
a change to a module that compiled code calls makes its callers recompile, a warm cache is still
loaded, and numba picks the locator for every compiled function of the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numba_warmup
import pytest
from numba.core import caching
from test_layers import PACKAGE, import_graph

from hunger_rl.engines import compiled
from hunger_rl.engines.compiled import COMPILED_CODE_TREES, PackageCacheLocator

ROOT = Path(__file__).resolve().parents[1]

CALLER = """\
from numba import njit

from tiny.callee import value


@njit(cache=True)
def caller():
    return value() + 100
"""
CALLEE = """\
from numba import njit


@njit(cache=True)
def value():
    return {value}
"""
# A fresh process: numba's cache is read from disk, as after a pull. With ``locator``, the tiny
# package's functions are cached as the package's are; without it, as numba does by default.
RUN = """\
import json, sys
from pathlib import Path
from numba.core import caching
from hunger_rl.engines.compiled import PackageCacheLocator

if sys.argv[1] == "locator":
    class TinyLocator(PackageCacheLocator):
        root = Path(sys.argv[2]) / "tiny"
        trees = ("",)

    caching.CacheImpl._locator_classes.insert(0, TinyLocator)
from tiny.caller import caller

result = caller()
print(json.dumps({"result": int(result), "hits": sum(caller.stats.cache_hits.values()),
                  "misses": sum(caller.stats.cache_misses.values()),
                  "locator": type(caller._cache._impl.locator).__name__}))
"""


def run_caller(directory: Path, locator: str) -> dict:
    """The tiny package's ``caller()`` in a fresh process, and whether it came from the cache."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(directory), str(ROOT)]))
    environment.pop("NUMBA_CACHE_DIR", None)  # the cache beside the sources, as in a clone
    completed = subprocess.run([sys.executable, "-c", RUN, locator, str(directory)], cwd=directory,
                               env=environment, capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.splitlines()[-1])


@pytest.mark.parametrize("locator", ["locator", "numba"])
def test_a_change_to_a_called_module_alone_recompiles_the_caller(tmp_path, locator):
    """Module ``caller`` calls ``callee``'s compiled ``value()``; ``value`` changes, ``caller``'s
    file does not. With the package's locator the next process runs the new ``value``; numba's
    own locator keeps loading ``caller``'s old code (numba issue #1833: if a numba release fixes
    it, this case fails and the locator may go)."""
    package = tmp_path / "tiny"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "caller.py").write_text(CALLER)
    (package / "callee.py").write_text(CALLEE.format(value=1))
    expected_locator = "TinyLocator" if locator == "locator" else "InTreeCacheLocator"

    cold = run_caller(tmp_path, locator)
    assert cold == {"result": 101, "hits": 0, "misses": 1, "locator": expected_locator}
    warm = run_caller(tmp_path, locator)  # nothing changed: loaded, not compiled
    assert warm == {"result": 101, "hits": 1, "misses": 0, "locator": expected_locator}

    (package / "callee.py").write_text(CALLEE.format(value=2))
    after_change = run_caller(tmp_path, locator)
    if locator == "locator":
        assert after_change == {"result": 102, "hits": 0, "misses": 1,
                                "locator": expected_locator}
        assert run_caller(tmp_path, locator)["hits"] == 1  # and cached again
    else:
        assert after_change == {"result": 101, "hits": 1, "misses": 0,
                                "locator": expected_locator}


def package_dispatchers():
    """Every compiled function of the package's compiled modules (``numba_warmup``'s list)."""
    import importlib

    for module_path in numba_warmup.COMPILED_MODULES:
        module = importlib.import_module(module_path.removesuffix(".py").replace("/", "."))
        for name, value in vars(module).items():
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == (
                    module.__name__) and name == value.__name__:
                yield value


def numba_own_locator(py_func):
    """The locator numba picks for ``py_func`` by itself (``InTreeCacheLocator`` in a clone)."""
    source = py_func.__code__.co_filename
    return next(located for located in (
        numba_class.from_function(py_func, source) for numba_class in
        caching.CacheImpl._locator_classes if numba_class is not PackageCacheLocator)
        if located is not None)


def test_numba_picks_the_package_locator_for_every_compiled_function_of_the_package():
    """...and it caches where numba's own locator would, beside the source, under the same names
    (a function outside the package keeps numba's locator)."""
    dispatchers = list(package_dispatchers())
    assert len({dispatcher.__module__ for dispatcher in dispatchers}) == len(
        numba_warmup.COMPILED_MODULES)
    for dispatcher in dispatchers:
        locator = dispatcher._cache._impl.locator
        assert type(locator) is PackageCacheLocator, dispatcher
        numba_locator = numba_own_locator(dispatcher.py_func)
        assert locator.get_cache_path() == numba_locator.get_cache_path()
        assert locator.get_disambiguator() == numba_locator.get_disambiguator()

    outside = numba.njit(cache=True)(lambda: 1)
    assert type(outside._cache._impl.locator) is type(numba_own_locator(outside.py_func))


def test_the_stamp_covers_the_function_file_and_every_module_of_the_trees(tmp_path):
    """Two files with the same names and contents have the same stamp; one byte changed in any
    file of a tree, or a new file in it, changes it; a file outside the trees does not."""
    for name in ("one", "two"):
        (tmp_path / name / "engines").mkdir(parents=True)
        (tmp_path / name / "engines" / "rules.py").write_text("LIMIT = 10\n")
        (tmp_path / name / "cli.py").write_text("")
    fingerprint = compiled.source_trees_fingerprint
    same = fingerprint(tmp_path / "two", ("engines",))
    assert fingerprint(tmp_path / "one", ("engines",)) == same
    (tmp_path / "two" / "cli.py").write_text("changed = True\n")
    fingerprint.cache_clear()
    assert fingerprint(tmp_path / "two", ("engines",)) == same
    (tmp_path / "two" / "engines" / "rules.py").write_text("LIMIT = 11\n")
    fingerprint.cache_clear()
    changed = fingerprint(tmp_path / "two", ("engines",))
    assert changed != same
    (tmp_path / "two" / "engines" / "extra.py").write_text("")
    fingerprint.cache_clear()
    assert fingerprint(tmp_path / "two", ("engines",)) not in (same, changed)

    package_function = compiled.r1_reward
    stamp = package_function._cache._impl.locator.get_source_stamp()
    numba_stamp = numba_own_locator(package_function.py_func).get_source_stamp()
    assert stamp == (numba_stamp, fingerprint(compiled.PACKAGE_ROOT, COMPILED_CODE_TREES))


def test_compiled_code_reads_only_the_fingerprinted_trees():
    """Every module a compiled module imports, directly or through others, is in
    ``COMPILED_CODE_TREES``: the code and constants compiled code may hold (the compiled module
    itself is stamped with its own file, wherever it lies)."""
    graph = import_graph()
    trees = [PACKAGE / tree for tree in COMPILED_CODE_TREES]
    outside = set()
    for module in numba_warmup.COMPILED_MODULES:
        start = ROOT / module
        seen, pending = {start}, list(graph[start])
        while pending:
            target = pending.pop()
            if target in seen:
                continue
            seen.add(target)
            if not any(target.is_relative_to(tree) for tree in trees):
                outside.add(f"{module} imports {target.relative_to(ROOT)}")
            pending += graph[target]
    assert not outside, sorted(outside)


def test_the_warmup_sees_a_change_to_any_module_of_the_trees():
    """The test run's warm-up (``numba_warmup.cache_is_cold``) reads the trees the stamp covers."""
    stamped = tuple(f"hunger_rl/{tree}" for tree in COMPILED_CODE_TREES)
    assert stamped == numba_warmup.STAMPED_TREES
