"""The Hungry expert's cost: the Python reference (``ExpertHungryPolicy.act``, NumPy) beside its
compiled twin (the batched engine's "expert"), and the compiled forecast, in moves per second on
the same positions, one process, interleaved repeats (median).

Positions: 64 games of each player count played by the compiled expert, every move of them.
The Python expert decides one observation per call; the compiled ones decide a whole batch of
games per call (``BatchedPolicy.act``), as they run as training opponents.

    python scripts/bench_expert.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.policies.hungry import ExpertHungryPolicy
from hunger_rl.policies.hungry_batched import BatchedPolicy

GAMES = 64
REPEATS = 5


def positions(num_players: int):
    """Every position of GAMES games played by the compiled expert: (engine row copies,
    observations with masks)."""
    batch = BatchedHungry(num_players, GAMES)
    out = batch.reset(seed=0)
    expert = BatchedPolicy("expert", GAMES, seed=0)
    rows, observations = [], []
    for _ in range(48):
        rows.append(batch.games.copy())
        observations += [{"observation": o.copy(), "action_mask": m.copy()}
                         for o, m in zip(out.observations, out.action_masks, strict=True)]
        out = batch.step(expert.act(batch))
    return batch, rows, observations


def python_rate(observations) -> float:
    policy, rng = ExpertHungryPolicy(), np.random.default_rng(0)
    start = time.perf_counter()
    for observation in observations:
        policy.act(observation, rng)
    return len(observations) / (time.perf_counter() - start)


def compiled_rate(kind: str, batch: BatchedHungry, rows) -> float:
    policy = BatchedPolicy(kind, GAMES, seed=0)
    start = time.perf_counter()
    for row in rows:
        batch.games[:] = row
        policy.act(batch)
    return len(rows) * GAMES / (time.perf_counter() - start)


def main() -> None:
    for num_players in (2, 3, 4):
        batch, rows, observations = positions(num_players)
        compiled_rate("expert", batch, rows[:1])  # compiled before timing
        rates: dict[str, list[float]] = {"python expert": [], "compiled expert": [],
                                         "compiled forecast": []}
        for _ in range(REPEATS):
            rates["python expert"].append(python_rate(observations[: 8 * GAMES]))
            rates["compiled expert"].append(compiled_rate("expert", batch, rows))
            rates["compiled forecast"].append(compiled_rate("forecast", batch, rows))
        median = {name: statistics.median(values) for name, values in rates.items()}
        speedup = median["compiled expert"] / median["python expert"]
        print(f"{num_players} players: " + ", ".join(
            f"{name} {rate:,.0f} moves/s" for name, rate in median.items())
            + f"; compiled / python expert {speedup:.0f}x")


if __name__ == "__main__":
    main()
