"""The compiled HUNGER expert against the Python one (``ExpertShowPolicy``).

Both value actions alike and pick at random from the same softened best reply, with different
random streams, so their picks cannot agree every time; what should match is how often they
agree compared with two Python experts drawing independently.

- Pick agreement: 4-player batched shows played by compiled experts; at every decision a Python
  expert (fed the same observations, so the same memory) and a second one with another seed
  pick too. Reported: compiled vs Python agreement, Python vs Python agreement.
- Head to head: two compiled and two Python experts at each table (seats alternate between
  shows); the win share of each side (0.5 each if they are equal).

    python scripts/compare_show_expert.py --shows 200
"""

from __future__ import annotations

import argparse

import numpy as np

from hunger_rl.engines.hunger_show.batched import BatchedShow
from hunger_rl.policies.hunger_show import ExpertShowPolicy
from hunger_rl.policies.hunger_show_batched import BatchedShowPolicies


def play(shows: int, num_players: int, batch_size: int, seed: int) -> dict[str, float]:
    batch = BatchedShow(num_players, batch_size)
    out = batch.reset(seed=seed)
    compiled_seats = np.array([[(seat + b) % 2 == 0 for seat in range(num_players)]
                               for b in range(batch_size)])
    compiled = BatchedShowPolicies([["expert"] * num_players] * batch_size, num_players,
                                   seed=seed)
    python = [[ExpertShowPolicy() for _ in range(num_players)] for _ in range(batch_size)]
    second = [[ExpertShowPolicy() for _ in range(num_players)] for _ in range(batch_size)]
    rng, rng2 = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    agree = agree_python = decisions = 0
    wins = {"compiled": 0.0, "python": 0.0}
    finished = 0
    while finished < shows:
        actions = compiled.act(out.observations, out.action_masks).copy()
        for b in range(batch_size):
            for seat in range(num_players):
                if not out.action_masks[b, seat].any():
                    continue
                observation = {"observation": out.observations[b, seat],
                               "action_mask": out.action_masks[b, seat]}
                pick = python[b][seat].act(observation, rng)
                other = second[b][seat].act(observation, rng2)
                decisions += 1
                agree += pick == actions[b, seat]
                agree_python += pick == other
                if not compiled_seats[b, seat]:
                    actions[b, seat] = pick
        out = batch.step(actions)
        for b in np.flatnonzero(out.done):
            share = 1.0 / out.winners[b].sum()
            for seat in np.flatnonzero(out.winners[b]):
                wins["compiled" if compiled_seats[b, seat] else "python"] += share
            for policies in (python[b], second[b]):
                for policy in policies:
                    policy.reset()
            compiled_seats[b] = ~compiled_seats[b]
            finished += 1
    return {"decisions": decisions, "agreement compiled vs python": agree / decisions,
            "agreement python vs python": agree_python / decisions,
            "win share compiled": wins["compiled"] / finished,
            "win share python": wins["python"] / finished, "shows": finished}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shows", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, value in play(args.shows, args.players, args.batch, args.seed).items():
        print(f"{name:<32}{value:.4f}" if isinstance(value, float) else f"{name:<32}{value}")


if __name__ == "__main__":
    main()
