"""Batched HUNGER: The Show: B shows of the same options held in arrays, stepped with one call.

The rules are those of :mod:`hunger_rl.engines.hunger_show.engine` with the default decisions of
S19/S21 (:class:`~hunger_rl.engines.hunger_show.decisions.DefaultDecisions`), re-implemented as
compiled per-show loops (numba). Observations, action masks, action encoding, rewards,
eliminations, end conditions and rankings are exactly those of ``hunger_show_v0``.

Chance. The reference engine draws from Python's ``random.Random(seed)`` (Mersenne Twister):
leader, characters, pile and stack shuffles, the event deck, and the random tie-breaks of
``take``. Each show here carries its own MT19937 state with CPython's seeding and draws
(``twister``), so show b dealt with seed s is the reference show ``reset(seed=s)``, draw for
draw. A differential test replays random shows through ``hunger_show_v0`` and compares
everything.

Seeds. ``reset(seeds=...)`` deals show b with ``seeds[b]``; the show that follows in slot b after
its e-th show ended is dealt with :func:`stream_seed` ``(seeds[b], e)``, so a slot's sequence
of shows depends only on its seed and its own actions.

The modules, by role: ``layout`` (the tables, a show's row and the day's scratch), ``twister``
(CPython's random generator), ``deal``, ``holdings``, ``decisions`` (the default decisions),
``day``, ``observe``, ``batch`` (:class:`BatchedShow` and its loops over the shows) and ``show``
(``CompiledShow``, one show a call: the default path of ``hunger_show_v0``).
"""

from hunger_rl.engines.hunger_show.batched.batch import (
    PREFETCH_FROM,
    BatchedShow,
    StepOutputs,
    observation_size,
)
from hunger_rl.engines.hunger_show.batched.deal import stream_seed
from hunger_rl.engines.hunger_show.batched.layout import END_CONDITIONS, MAX_PLAYERS

__all__ = ["END_CONDITIONS", "MAX_PLAYERS", "PREFETCH_FROM", "BatchedShow", "StepOutputs",
           "observation_size", "stream_seed"]
