"""Env steps per second of the RLlib backend with 1, 2, ... env runners on a local Ray instance.

    python scripts/bench_rllib.py --game hungry --players 2 --runners 1 2

For each runner count: build the algorithm from the game's shipped ``rllib_*`` config (its
network, PPO and opponent settings), run one warm-up iteration, then time ``--iterations``
training iterations. Reports env steps per second of whole iterations (sampling plus learning,
what a run sees), with the 1-minute load average: other work on the machine slows it down.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

import ray
import torch
from ray.tune.registry import register_env

from hunger_rl.configs import config_path
from hunger_rl.training.config import load_config
from hunger_rl.training.rllib import ENV_NAME, algorithm_config, make_rllib_env

CONFIGS = {"hungry": "rllib_hungry_2p.yaml", "hunger_show": "rllib_hunger_show_4p.yaml"}


def measure(config, iterations: int) -> float:
    """Env steps per second of whole training iterations, after one warm-up iteration."""
    algorithm = algorithm_config(config).build_algo()
    try:
        result = algorithm.train()
        steps_before = result["env_runners"]["num_env_steps_sampled_lifetime"]
        started = time.perf_counter()
        for _ in range(iterations):
            result = algorithm.train()
        seconds = time.perf_counter() - started
        steps = result["env_runners"]["num_env_steps_sampled_lifetime"] - steps_before
        return steps / seconds
    finally:
        algorithm.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(CONFIGS), default="hungry")
    parser.add_argument("--players", type=int, help="default: the config's")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    args = parser.parse_args()

    torch.set_num_threads(1)
    config = load_config(config_path(CONFIGS[args.game]))
    if args.players:
        config = config.replace(num_players=args.players)
    ray.init(address="local", num_cpus=max(args.runners), include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    register_env(ENV_NAME, make_rllib_env)
    print(f"{config.game} {config.num_players}p, {args.batch} env steps per iteration, "
          f"{os.cpu_count()} CPUs")
    print(f"{'runners':>7}  {'env steps/s':>11}  {'load (1 min)':>12}")
    for runners in args.runners:
        rllib = dataclasses.replace(config.rllib, num_env_runners=runners,
                                    train_batch_size=args.batch,
                                    minibatch_size=min(config.rllib.minibatch_size, args.batch))
        steps_per_second = measure(config.replace(rllib=rllib), args.iterations)
        print(f"{runners:>7}  {steps_per_second:>11,.0f}  {os.getloadavg()[0]:>12.2f}")
    ray.shutdown()


if __name__ == "__main__":
    main()
