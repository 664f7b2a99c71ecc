"""League training's pace on the batched HUNGER engine, with and without snapshot seats.

Side by side in one process, in alternating rounds (so that a busy machine slows every variant
alike), MaskablePPO learns on ``configs/hunger_show_4p_league.yaml`` with its opponents
replaced by each variant's; every variant's pool is full (``max_snapshots`` snapshots), so its
``self`` seats are spread over that many networks, each answered by one forward pass per step:
    python scripts/bench_league.py [--rounds 5] [--steps 4096]
Prints learner steps per second (PPO's rollouts and updates) per variant, and each variant's
pace as a ratio of the scripted-only one.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import yaml

from hunger_rl.configs import config_path
from hunger_rl.policies.learned import network_weights
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import make_model, make_vec_env

VARIANTS = {
    "scripted only": {"expert": 0.45, "crowd": 0.45, "greedy": 0.1},
    "league (self 0.3)": {"self": 0.3, "expert": 0.3, "crowd": 0.3, "greedy": 0.1},
    "self only": {"self": 1.0},
}


def learner(weights: dict[str, float]):
    raw = yaml.safe_load(config_path("hunger_show_4p_league").read_text())
    raw["opponents"]["weights"] = weights
    config = config_from_dict(raw)
    model = make_model(config, make_vec_env(config))
    if "self" in weights:
        for _ in range(config.opponents.max_snapshots):
            model.get_env().add_snapshot(network_weights(model.policy))
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per round")
    args = parser.parse_args()
    torch.set_num_threads(1)
    models = {name: learner(weights) for name, weights in VARIANTS.items()}
    for model in models.values():  # compiled code and first allocations before the clock
        model.learn(model.n_steps * model.n_envs, reset_num_timesteps=False)
    paces: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, model in models.items():
            began, steps = time.perf_counter(), model.num_timesteps
            model.learn(args.steps, reset_num_timesteps=False)
            paces[name].append((model.num_timesteps - steps) / (time.perf_counter() - began))
    base = paces["scripted only"]
    for name, pace in paces.items():
        ratios = [p / b for p, b in zip(pace, base, strict=True)]
        print(f"{name:>20}: {statistics.median(pace):7.0f} learner steps/s, "
              f"{statistics.median(ratios):.2f}x the scripted-only pace")


if __name__ == "__main__":
    main()
