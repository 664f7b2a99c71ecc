"""Compile the batched engines and the compiled players into numba's on-disk cache ahead of a
large test run (``conftest.py`` starts it on a cold cache, as in a fresh clone).

Without it, each test process (one per xdist worker, and the subprocesses some tests start)
compiles what its tests call as it meets them, several processes often the same functions at
once. Here the parts are compiled once, one process per core; the tests then load them.

``python tests/numba_warmup.py PART...`` (PARTs from ``PARTS``) compiles those parts.
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The modules that hold functions compiled with cache=True (numba writes one index file per
# function beside the source, in __pycache__).
COMPILED_MODULES = (
    "hunger_rl/engines/compiled.py",
    "hunger_rl/engines/hunger_show/batched/batch.py",
    "hunger_rl/engines/hunger_show/batched/day.py",
    "hunger_rl/engines/hunger_show/batched/deal.py",
    "hunger_rl/engines/hunger_show/batched/decisions.py",
    "hunger_rl/engines/hunger_show/batched/holdings.py",
    "hunger_rl/engines/hunger_show/batched/observe.py",
    "hunger_rl/engines/hunger_show/batched/show.py",
    "hunger_rl/engines/hunger_show/batched/twister.py",
    "hunger_rl/engines/hungry/batched.py",
    "hunger_rl/policies/hunger_show_batched.py",
    "hunger_rl/policies/hungry_batched.py",
    "hunger_rl/policies/hungry_beliefs.py",
    "hunger_rl/policies/hungry_endgame.py",
    "hunger_rl/policies/hungry_search.py",
    "hunger_rl/training/batched_learner.py",
)
# The trees whose every module stamps each compiled function's cache (engines.compiled.
# COMPILED_CODE_TREES, read here without importing numba).
STAMPED_TREES = ("hunger_rl/engines", "hunger_rl/policies")


def cache_is_cold() -> bool:
    """Whether a compiled module has no cache index newer than its source and every module of
    the stamped trees (a fresh clone, or a module changed since the last compile). File dates
    only: no import, a few milliseconds."""
    newest_tree_source = max(path.stat().st_mtime for tree in STAMPED_TREES
                             for path in (ROOT / tree).rglob("*.py"))
    for module in COMPILED_MODULES:
        source = ROOT / module
        patterns = [str(source.parent / "__pycache__" / f"{source.stem}.*.nbi")]
        if os.environ.get("NUMBA_CACHE_DIR"):  # numba keeps one folder per source folder there
            patterns.append(os.path.join(os.environ["NUMBA_CACHE_DIR"], "*",
                                         f"{source.stem}.*.nbi"))
        indexes = [index for pattern in patterns for index in glob.glob(pattern)]
        newest = max((os.path.getmtime(index) for index in indexes), default=0.0)
        if newest < max(source.stat().st_mtime, newest_tree_source):
            return True
    return False


def show_engine() -> None:
    """Every compiled entry point of ``BatchedShow``: reset, step (to the end of a show, so that
    its scoring and redeal compile too), restart; and those of ``CompiledShow`` (deal, day,
    observe), the default path of ``hunger_show_v0``; for every player count (the entry points
    are compiled once per player count)."""
    import numpy as np

    from hunger_rl.engines.hunger_show.batched import MAX_PLAYERS, PREFETCH_FROM, BatchedShow
    from hunger_rl.engines.hunger_show.batched.show import CompiledShow
    from hunger_rl.engines.hunger_show.engine import ShowConfig

    for num_players in range(2, MAX_PLAYERS + 1):
        show = BatchedShow(num_players=num_players, batch_size=2)
        outputs = show.reset(seed=0)
        while not outputs.done.any():
            outputs = show.step(np.argmax(outputs.action_masks, axis=2))
        show.restart([0])
        single = CompiledShow(ShowConfig(num_players))
        single.deal(0)
        single.play_day([(0, 0) if alive else None for alive in single.alive])
        single.observe()
    large = BatchedShow(num_players=4, batch_size=PREFETCH_FROM)  # the prefetching step
    large.step(np.argmax(large.reset(seed=0).action_masks, axis=2))


def hungry() -> None:
    """The Hungry engine, its compiled policies, the search's playouts, the learner loop."""
    import numpy as np

    from hunger_rl.engines.hungry.batched import BatchedHungry, stream_deck
    from hunger_rl.engines.hungry.engine import NUM_CARD_TYPES, NUM_RESORTS
    from hunger_rl.engines.hungry.view import HungryView
    from hunger_rl.policies.hungry_batched import (
        POLICY_KINDS,
        BatchedPolicy,
        forecast_values_of_observations,
    )
    from hunger_rl.policies.hungry_beliefs import (
        Decision,
        PlayRecord,
        _metropolis_chains,
        deal_log_likelihoods,
    )
    from hunger_rl.policies.hungry_endgame import EndgameSolver
    from hunger_rl.policies.hungry_search import (
        _observe_seat_zero,
        load_deals,
        playout_win_shares,
    )
    from hunger_rl.training.batched_learner import LearnerOutputs, play_to_learners

    games = BatchedHungry(num_players=2, batch_size=2)
    outputs = games.reset(seed=0)
    for kind in POLICY_KINDS:
        outputs = games.step(BatchedPolicy(kind, 2, seed=0).act(games))
    games.step_games(games.all_games, np.argmax(outputs.action_masks, axis=1),
                     final_observers=np.zeros(2, np.int64))
    games.observe(np.zeros(2, np.int64))
    stream_deck(1, 1)
    forecast_values_of_observations(outputs.observations, 2, details=True)
    play_to_learners(games, np.zeros(2, np.int64), BatchedPolicy("forecast", 2, seed=0),
                     LearnerOutputs.empty(2, 2))
    view = HungryView.from_observation(outputs.observations[0])
    candidates = np.flatnonzero(outputs.action_masks[0])[:2]
    playout_win_shares(view, candidates, 1, np.random.default_rng(0))
    rows = load_deals(view, 1, np.random.default_rng(0))
    _observe_seat_zero(rows, np.zeros(1, np.int64), 2, np.zeros_like(outputs.observations[:1]))
    record = PlayRecord()
    record.decisions.append(Decision(1, int(candidates[0]), view.placed))
    deal_log_likelihoods(rows, record, view, 1.0)
    # posterior_deals' chains, which want the deck empty: one chain of one step on empty hands.
    _metropolis_chains(np.zeros((1, 2, NUM_CARD_TYPES), np.int64), np.full((1, 5, 1), 0.5), 2,
                       *record.arrays(view), 1.0, np.zeros(1))
    # The endgame solver on a last play: one card in the mover's hand, two unseen.
    last = HungryView(num_players=2, hand=np.eye(NUM_CARD_TYPES, dtype=np.int64)[0],
                      placed=np.zeros((2, 2 * NUM_CARD_TYPES), np.int64),
                      hand_sizes=np.array([1, 0]), deck_size=0, to_move=0,
                      unseen=2 * np.eye(NUM_CARD_TYPES, dtype=np.int64)[1],
                      resort_counts=np.zeros((2, NUM_RESORTS), np.int64))
    EndgameSolver(table_bits=4).best_play(last, 0)


def show_players() -> None:
    """The compiled HUNGER players and the crowd features of the learned players' encoder."""
    import numpy as np

    from hunger_rl.engines.hunger_show.batched import observation_size
    from hunger_rl.envs.hunger_show.env import NUM_CHOICES
    from hunger_rl.policies.hunger_show_batched import BatchedShowPolicies, crowd_features

    n = 3
    observations = np.zeros((1, n, observation_size(n)), np.float32)
    masks = np.ones((1, n, NUM_CHOICES), np.int8)
    BatchedShowPolicies([["expert"] * n], n, seed=0).act(observations, masks)
    crowd_features(observations[0], n, 1.0)


# Longest first, so that a part left alone at the end is a short one.
PARTS = {"show_engine": show_engine, "hungry": hungry, "show_players": show_players}


def compile_parts(parts) -> None:
    """The parts, as many at once as there are cores, each process taking the next part."""
    with multiprocessing.Pool(min(len(parts), os.cpu_count() or 1)) as pool:
        pool.map(_compile, parts, chunksize=1)


def _compile(part: str) -> None:
    PARTS[part]()


def start() -> subprocess.Popen:
    """Every part, in the background, in a process group of its own (see :func:`stop`)."""
    return subprocess.Popen([sys.executable, __file__, *PARTS], cwd=ROOT, start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    """End the warm-up and its pool's processes."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


if __name__ == "__main__":
    compile_parts(sys.argv[1:])
