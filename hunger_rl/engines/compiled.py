"""What the compiled (numba) code of both batched engines and of the compiled players shares.

- :data:`jit` and :data:`jit_allocating`, the two decorators, with one set of options: compiled
  once and cached on disk, without the GIL (other threads run meanwhile), with NumPy's error
  model (no exception check on every integer division). :data:`jit` also compiles without
  numba's reference counts (``_nrt=False``): every array argument and view otherwise costs two
  runtime calls. It cannot allocate; a function that allocates (scratch, a copy) uses
  :data:`jit_allocating` and holds the arrays for the functions it calls.
- Seeds: :data:`MAX_SEED`, :func:`spread_seeds` (one seed into one per slot, the batched engines'
  ``reset(seed=...)``), :func:`check_seeds` and :func:`reset_seeds` (the batched engines'
  ``reset(seed, seeds)``: one or the other).
- SplitMix64 streams, one uint64 state per slot: :func:`splitmix_next`, :func:`random_below`,
  :func:`random_uniform`, :func:`splitmix_key`.
- :func:`at`, unsigned indexing, and :func:`prefetch_for_write`, a cache hint.
- :func:`r1_reward`, the reward of ruling R1, and :func:`r1_leaving_reward`, HUNGER's payout of
  a seat that leaves the show, compiled from ``engines.rewards``.
- :class:`PackageCacheLocator`, numba's disk cache locator for the package's compiled functions:
  a change to any module their code may call or read (:data:`COMPILED_CODE_TREES`) recompiles
  them.

Integers passed to compiled helpers are int64, never narrow reads of an array nor bare Python
constants: numba compiles a function once per argument type, and once more per literal value.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import caching, cgutils, types
from numba.extending import intrinsic, register_jitable

from hunger_rl.engines import rewards
from hunger_rl.engines.validation import InvalidTypeError, InvalidValueError, check_seed

# -- the disk cache --------------------------------------------------------------------------------

# numba stamps a function's cached code with its own source file only (a hash of the file), yet
# that code holds the compiled functions it calls from other modules, inlined or linked, and the
# constants it reads from them: after a change to those modules alone (a pull), the cache stays
# valid and the old code runs, silently (numba issue #1833, open). The package's functions are
# stamped instead with their own file and every module compiled code may call or read: the
# trees below (a test keeps every compiled module's imports inside them). A change to any of
# those files recompiles every function of the package; the cache files stay where numba puts
# them. Functions outside the package keep numba's own locators.
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
COMPILED_CODE_TREES = ("engines", "policies")


@functools.cache
def source_trees_fingerprint(root: Path, trees: tuple[str, ...]) -> bytes:
    """A hash of the names and contents of every ``.py`` file under ``root / tree`` for each of
    ``trees``. Once per process: a process runs the code it imported."""
    digest = hashlib.sha256()
    for path in sorted(path for tree in trees for path in (root / tree).rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def _numba_cache_api():
    """numba's private cache API the locator below builds on (numba.core.caching): a clear error
    if a numba version moved it, rather than the stale caches without it."""
    try:
        return caching._CacheLocator, caching.CacheImpl._locator_classes
    except AttributeError as error:
        raise ImportError(
            f"numba {numba.__version__} has no numba.core.caching._CacheLocator or "
            "CacheImpl._locator_classes, which hunger_rl.engines.compiled.PackageCacheLocator "
            "needs to keep the package's compiled code fresh in numba's disk cache: update it "
            "to this numba version") from error


_CacheLocator, _NUMBA_LOCATORS = _numba_cache_api()


class PackageCacheLocator(_CacheLocator):
    """The cache of a function of the files under :attr:`root`: where the locator numba would pick
    puts it (the same folder and file names), stamped with the function's file and
    :func:`source_trees_fingerprint` of :attr:`trees`."""

    root = PACKAGE_ROOT
    trees = COMPILED_CODE_TREES

    def __init__(self, numba_locator: _CacheLocator):
        self._numba_locator = numba_locator

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(cls.root):
            return None
        for numba_class in _NUMBA_LOCATORS:
            if not issubclass(numba_class, PackageCacheLocator):
                numba_locator = numba_class.from_function(py_func, py_file)
                if numba_locator is not None:
                    return cls(numba_locator)
        return None

    def ensure_cache_path(self):
        self._numba_locator.ensure_cache_path()

    def get_cache_path(self):
        return self._numba_locator.get_cache_path()

    def get_disambiguator(self):
        return self._numba_locator.get_disambiguator()

    def get_source_stamp(self):
        return (self._numba_locator.get_source_stamp(),
                source_trees_fingerprint(self.root, self.trees))


_NUMBA_LOCATORS.insert(0, PackageCacheLocator)

jit = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
# The small functions the batched loops call once a game-step, inlined by numba into each caller
# before it compiles: a call passes each array as its unpacked fields (write_observation's two
# arrays, about twenty words on the stack) and cost more than their work. Larger ones stay calls
# (update_resort inlined made a step slower).
jit_inline = numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False, inline="always")
jit_allocating = numba.njit(cache=True, nogil=True, error_model="numpy")

# The largest seed of the batched engines (``reset(seed)``, a slot's seed): held in int64
# (Python's random.Random, NumPy's default_rng and SplitMix64 streams all take them). The envs'
# ``reset(seed)`` takes any integer >= 0 (``validation.check_seed``).
MAX_SEED = 2**63 - 1


def spread_seeds(seed: int | None, count: int) -> np.ndarray:
    """``count`` slot seeds (int64, 0 .. MAX_SEED) drawn from ``seed``: ``SeedSequence(seed)``'s
    first ``count`` uint64 words, halved; fresh entropy when ``seed`` is None. Nearby seeds give
    unrelated slot seeds, so two batches reset with seeds 0 and 1 share no deal."""
    words = np.random.SeedSequence(check_seed(seed)).generate_state(count, np.uint64)
    return (words >> np.uint64(1)).astype(np.int64)


def check_seeds(seeds: Any, count: int) -> np.ndarray:
    """``seeds`` as ``count`` int64 slot seeds, each in 0 .. MAX_SEED, else a clear error."""
    array = np.asarray(seeds)
    if array.dtype.kind not in "iu" or array.dtype == np.bool_:
        raise InvalidTypeError(f"seeds must be integers, got dtype {array.dtype}")
    if array.shape != (count,):
        raise InvalidValueError(f"seeds must hold one seed per slot ({count}), got shape "
                                f"{array.shape}")
    if array.size and (array.min() < 0 or array.max() > MAX_SEED):
        raise InvalidValueError(f"seeds must be in 0..{MAX_SEED}, got {array.min()} .. "
                                f"{array.max()}")
    return array.astype(np.int64)


def reset_seeds(seed: int | None, seeds: Any, count: int) -> np.ndarray:
    """The ``count`` slot seeds of a batched engine's ``reset(seed=None, seeds=None)``:
    ``seeds`` checked (:func:`check_seeds`), or else ``seed`` spread (:func:`spread_seeds`;
    fresh entropy when None); not both."""
    if seeds is None:
        seeds = spread_seeds(seed, count)
    elif seed is not None:
        raise InvalidValueError("give seed or seeds, not both")
    return check_seeds(seeds, count)


# R1 (``engines.rewards``) compiled from the same source, for both batched engines:
# ``r1_reward`` and HUNGER's payout of a seat that leaves, ``r1_leaving_reward``, whose call of
# ``r1_reward`` compiles since that Python function is registered with numba
# (``register_jitable``).
register_jitable(error_model="numpy")(rewards.r1_reward)
r1_reward = jit(rewards.r1_reward)
r1_leaving_reward = jit(rewards.r1_leaving_reward)


# -- SplitMix64 -----------------------------------------------------------------------------------

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


@jit_inline
def splitmix_finish(z):
    """SplitMix64's output function of a state word."""
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@jit_inline
def splitmix_next(rng_state, slot):
    """The next 64-bit word of ``rng_state[slot]``'s SplitMix64 stream, advancing it."""
    rng_state[slot] += GOLDEN_GAMMA
    return splitmix_finish(rng_state[slot])


@jit_inline
def random_below(rng_state, slot, n):
    """A random integer in 0..n-1 from ``rng_state[slot]``, advancing it.

    Multiply-shift on the top 32 bits: the bias is below 2**-26 for the n <= 50 used here.
    """
    high = splitmix_next(rng_state, slot) >> np.uint64(32)
    return np.int64((high * np.uint64(n)) >> np.uint64(32))


@jit
def random_uniform(rng_state, slot):
    """A float in [0, 1) from ``rng_state[slot]`` (53 bits), advancing it."""
    return np.float64(splitmix_next(rng_state, slot) >> np.uint64(11)) / 9007199254740992.0


@jit
def splitmix_key(seed, number):
    """The start of stream ``number`` of ``seed`` (a counter-based key: streams of one seed and
    of different seeds do not overlap in practice)."""
    return splitmix_finish(splitmix_finish(seed + GOLDEN_GAMMA) + np.uint64(number))


# -- indexing and memory --------------------------------------------------------------------------


@jit
def at(index):
    """``index`` as uint64: numba wraps every signed index that might be negative around (a
    compare and a select per access), never an unsigned one. Only for indices that cannot be
    negative (a negative one would read or write far out of bounds, unchecked); the busiest
    loops index their rows and scratch through it where the index is computed or read from an
    array."""
    return np.uint64(index)


@intrinsic
def prefetch_for_write(typingctx, array, byte):
    """Ask the CPU to bring the cache line at ``byte`` bytes into ``array``'s data towards the
    core, with intent to write (``llvm.prefetch``; a hint: it never faults)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.gep(builder.bitcast(data, ir.IntType(8).as_pointer()), [args[1]])
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(function, [pointer, i32(1), i32(3), i32(1)])  # write, keep, data
        return context.get_dummy_value()
    return types.void(array, types.int64), codegen
