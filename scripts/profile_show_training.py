"""Where a batched HUNGER training run spends its time, per PPO step.

Builds the config's batched env and learner as the trainer does, learns one rollout to warm up,
then learns ``--steps`` more with timers around each part:

- engine: ``BatchedShow.step``, the day of every show;
- opponents: the compiled players of the other seats (``BatchedShowPolicies.act``);
- crowd features: the compiled part of the encoder (``crowd_features``);
- encoding, other: the rest of the learner's observation encoding (scaling, joining);
- VecEnv, other: ``BatchedShowVecEnv.step_wait`` beside the above (rewards, infos, new seats);
- action masks: MaskablePPO fetching the learners' masks;
- policy forward: the network choosing the rollout's actions;
- rollout, other: the rest of ``collect_rollouts`` (buffer adds, callbacks, returns);
- PPO update: ``MaskablePPO.train`` (n_epochs passes of minibatches, forward and backward).

    python scripts/profile_show_training.py --config hunger_show_4p_batched --steps 16384
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable

import torch
from sb3_contrib.ppo_mask import ppo_mask

from hunger_rl.configs import resolve_config
from hunger_rl.policies.models import encoders
from hunger_rl.training.config import load_config
from hunger_rl.training.train import make_model, make_vec_env

# Each part: the timer names it is made of, minus the timers nested in it.
PARTS = {
    "engine": (["engine"], []),
    "opponents": (["opponents"], []),
    "crowd features": (["crowd features"], []),
    "encoding, other": (["encoding"], ["crowd features"]),
    "VecEnv, other": (["step_wait"], ["engine", "opponents", "encoding"]),
    "action masks": (["action masks"], []),
    "policy forward": (["policy forward"], []),
    "rollout, other": (["collect_rollouts"], ["step_wait", "action masks", "policy forward"]),
    "PPO update": (["train"], []),
}


class Timers:
    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, name: str, function: Callable) -> Callable:
        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - began
        return timed

    def parts(self) -> dict[str, float]:
        return {part: sum(self.seconds[n] for n in plus) - sum(self.seconds[n] for n in minus)
                for part, (plus, minus) in PARTS.items()}


def profile(config_name: str, steps: int) -> tuple[dict[str, float], float, int]:
    """Seconds per part, the wall time and the steps learnt over ``steps`` (at least)."""
    config = load_config(resolve_config(config_name))
    if not (config.game == "hunger_show" and config.env.batched):
        raise ValueError(f"{config_name}: this profiles batched HUNGER runs (game: hunger_show, "
                         "env.batched: true)")
    torch.set_num_threads(config.torch_threads)
    vec_env = make_vec_env(config)
    model = make_model(config, vec_env)
    model.learn(1)  # one rollout and update: numba and torch warm up
    timers = Timers()
    vec_env.batch.step = timers.wrap("engine", vec_env.batch.step)
    vec_env.players.act = timers.wrap("opponents", vec_env.players.act)
    vec_env.step_wait = timers.wrap("step_wait", vec_env.step_wait)
    vec_env._encoded = timers.wrap("encoding", vec_env._encoded)
    model.policy.forward = timers.wrap("policy forward", model.policy.forward)
    model.train = timers.wrap("train", model.train)
    model.collect_rollouts = timers.wrap("collect_rollouts", model.collect_rollouts)
    patched = {(encoders, "crowd_features"): "crowd features",
               (ppo_mask, "get_action_masks"): "action masks"}
    originals = {key: getattr(*key) for key in patched}
    try:
        for (module, attribute), name in patched.items():
            setattr(module, attribute, timers.wrap(name, getattr(module, attribute)))
        first = model.num_timesteps
        began = time.perf_counter()
        model.learn(steps, reset_num_timesteps=False)
        wall = time.perf_counter() - began
    finally:
        for (module, attribute), function in originals.items():
            setattr(module, attribute, function)
    return timers.parts(), wall, model.num_timesteps - first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="hunger_show_4p_batched",
                        help="a batched HUNGER config (name or file)")
    parser.add_argument("--steps", type=int, default=16384, help="PPO steps to time")
    args = parser.parse_args(argv)
    try:
        if args.steps < 1:
            raise ValueError("--steps must be at least 1")
        parts, wall, steps = profile(args.config, args.steps)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.config}: {steps:,} PPO steps in {wall:.1f} s, {steps / wall:,.0f} steps/s")
    print(f"{'part':<18}{'us/step':>9}{'share':>8}")
    for part, seconds in parts.items():
        print(f"{part:<18}{seconds / steps * 1e6:>9.1f}{seconds / wall:>8.1%}")
    rest = wall - sum(parts.values())
    print(f"{'learn, other':<18}{rest / steps * 1e6:>9.1f}{rest / wall:>8.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
