"""A policy file's cost per move, played in numpy (``models.forward``) and in torch.

Side by side in one process, in alternating rounds (so that a busy machine slows both alike),
every shipped agent's network answers the same positions (from games of random and scripted
players) both ways: its numpy network, as a loaded policy plays, and the torch module training
builds from the same weights (``LearnedPolicy.torch_network``), on one torch thread, as in an
arena worker. A move is what ``LearnedPolicy.act`` does: encode one observation, the forward
pass, the masked argmax; a batch is ``--batch`` positions in one forward pass (the HUNGER
league's batched inference, a search's prior):
    python scripts/bench_numpy_forward.py [--rounds 7] [--moves 200] [--batch 256]
Prints the median time per move (and per batch) of each path and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from hunger_rl.envs.records import make_env
from hunger_rl.policies.models.networks import action_logits
from hunger_rl.policies.pretrained import catalogue
from hunger_rl.policies.registry import make_policy

# Scripted players that make the positions, compiled or quick in both games.
PLAYERS = {"hungry": ("random", "greedy", "forecast"), "hunger_show": ("random", "crowd")}
# Forward passes of the batch per path and round (one pass takes milliseconds, as long as a
# preemption on a busy machine).
BATCH_REPEATS = 10


def positions(game: str, num_players: int, count: int, seed: int):
    """``count`` observations (raw rows) and masks of players to move."""
    rng = np.random.default_rng(seed)
    players = [make_policy(spec, game, num_players) for spec in PLAYERS[game]]
    rows, masks = [], []
    while len(rows) < count:
        env = make_env(game, num_players, {})
        if game == "hungry":
            env.reset(seed=int(rng.integers(2**31)))
            while env.agents and len(rows) < count:
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    env.step(None)  # an agent that has left, as AEC envs require
                    continue
                observation = env.observe(agent)
                rows.append(observation["observation"])
                masks.append(observation["action_mask"])
                env.step(players[rng.integers(len(players))].act(observation, rng))
            continue
        observations, _ = env.reset(seed=int(rng.integers(2**31)))
        while env.agents and len(rows) < count:
            actions = {}
            for agent in env.agents:
                rows.append(observations[agent]["observation"])
                masks.append(observations[agent]["action_mask"])
                actions[agent] = players[rng.integers(len(players))].act(observations[agent],
                                                                        rng)
            observations, *_ = env.step(actions)
    return np.array(rows[:count]), np.array(masks[:count], bool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--moves", type=int, default=200, help="moves per path and round")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="torch's threads (default: torch's own choice)")
    args = parser.parse_args()
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    print(f"{'agent':16} {'numpy us/move':>14} {'torch us/move':>14} {'ratio':>6}   "
          f"{'numpy ms/batch':>15} {'torch ms/batch':>15} {'ratio':>6}")
    for name, entry in catalogue().items():
        game, num_players = entry["game"], entry["num_players"]
        policy = make_policy(f"pretrained:{name}:network", game, num_players)
        rows, masks = positions(game, num_players, max(args.moves, args.batch), seed=0)
        move_us, batch_ms = timings(policy, rows, masks, args)
        print(f"{name:16} {move_us['numpy']:14.0f} {move_us['torch']:14.0f} "
              f"{move_us['numpy'] / move_us['torch']:6.2f}   {batch_ms['numpy']:15.2f} "
              f"{batch_ms['torch']:15.2f} {batch_ms['numpy'] / batch_ms['torch']:6.2f}")


def timings(policy, rows: np.ndarray, masks: np.ndarray, args):
    """Median microseconds per move and milliseconds per batch, by path."""
    network, encode = policy.torch_network(), policy._encode

    def numpy_move(row, mask):
        logits = policy.network.logits(encode.batch(row[None]))
        return np.where(mask, logits, -np.inf).argmax(axis=1)

    def torch_move(row, mask):
        logits = action_logits(network, torch.as_tensor(encode.batch(row[None]))).numpy()
        return np.where(mask, logits, -np.inf).argmax(axis=1)

    batch = encode.batch(rows[: args.batch])
    paths = {
        "numpy": (numpy_move, lambda: policy.network.logits(batch)),
        "torch": (torch_move, lambda: action_logits(network, torch.as_tensor(batch))),
    }
    move_times: dict[str, list[float]] = {path: [] for path in paths}
    batch_times: dict[str, list[float]] = {path: [] for path in paths}
    for _ in range(args.rounds):
        for path, (move, forward_batch) in paths.items():
            start = time.perf_counter()
            for row, mask in zip(rows[: args.moves], masks[: args.moves], strict=True):
                move(row, mask)
            move_times[path].append((time.perf_counter() - start) / args.moves)
            start = time.perf_counter()
            for _ in range(BATCH_REPEATS):
                forward_batch()
            batch_times[path].append((time.perf_counter() - start) / BATCH_REPEATS)
    return ({path: statistics.median(times) * 1e6 for path, times in move_times.items()},
            {path: statistics.median(times) * 1e3 for path, times in batch_times.items()})


if __name__ == "__main__":
    main()
