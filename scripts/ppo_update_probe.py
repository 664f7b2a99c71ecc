"""What one PPO update does from a checkpoint, at several learning rates and minibatch sizes.

From a checkpoint of a run (its config and its weights and optimizer state), the learner plays
``--held-out`` rollouts of its config (the held-out set), then ``--repeats`` times a further
training rollout; on each training rollout, for each setting ``RATE:MINIBATCH``, one update of
the run's own PPO (``ppo.n_epochs`` passes, ``ppo.target_kl``'s stop) from the same weights and
optimizer state. Per setting it prints, as means over the repeats: the minibatches the update
ran before the KL stop (of ``n_epochs`` x rollout / minibatch), the approximate KL it logged,
and its held-out surrogate gain, the mean over the held-out decisions of
``(new probability / old probability - 1) x advantage``, an importance-sampled estimate of the
change of the expected advantage that the update made, on decisions it did not train on (the
same held-out decisions for every setting, so the settings' gains are paired). Example::

    python scripts/ppo_update_probe.py runs/hungry_2p_mlp_vs_expert/checkpoints/step_002506752 \\
        --config hunger_rl/configs/hungry_2p_mlp_vs_expert.yaml --settings 1e-3:512 1e-3:2048
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import CallbackList

from hunger_rl.training.checkpoint import load_checkpoint
from hunger_rl.training.config import load_config
from hunger_rl.training.outputs import policy_metadata
from hunger_rl.training.train import make_model, make_vec_env


def parse_setting(text: str) -> tuple[float, int]:
    rate, minibatch = text.split(":")
    return float(rate), int(minibatch)


def rollout_decisions(buffer) -> tuple[torch.Tensor, ...]:
    """The rollout buffer's decisions, flattened over steps and games: observations, action
    masks, actions, advantages and the log-probabilities of the policy that played them."""
    def flat(values: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(values.reshape(-1, *values.shape[2:]).copy())
    return (flat(buffer.observations), flat(buffer.action_masks), flat(buffer.actions).long(),
            flat(buffer.advantages), flat(buffer.log_probs))


def surrogate_gain(policy, held_out: list[tuple[torch.Tensor, ...]]) -> float:
    gains = []
    with torch.no_grad():
        for observations, masks, actions, advantages, old_log_probs in held_out:
            distribution = policy.get_distribution(observations, action_masks=masks.numpy())
            ratio = torch.exp(distribution.log_prob(actions.flatten()) - old_log_probs)
            gains.append(((ratio - 1) * advantages).mean().item())
    return float(np.mean(gains))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path, help="a checkpoint folder of the run")
    parser.add_argument("--config", type=Path, required=True, help="the run's config")
    parser.add_argument("--settings", nargs="+", type=parse_setting, required=True,
                        help="RATE:MINIBATCH, e.g. 1e-3:512")
    parser.add_argument("--held-out", type=int, default=6, help="held-out rollouts")
    parser.add_argument("--repeats", type=int, default=3, help="training rollouts")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = load_config(args.config)
    vec_env = make_vec_env(config)
    model = make_model(config, vec_env)
    metadata = policy_metadata(config, vec_env.observation_space, vec_env.action_space)
    state = load_checkpoint(args.checkpoint, model.policy, model.policy.optimizer, metadata)
    model.num_timesteps = state.steps
    model._setup_learn(total_timesteps=config.total_steps, reset_num_timesteps=False)
    callback = CallbackList([])
    callback.init_callback(model)
    weights = copy.deepcopy(model.policy.state_dict())
    optimizer_state = copy.deepcopy(model.policy.optimizer.state_dict())

    def play_rollout() -> None:
        model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps,
                               use_masking=True)

    held_out = []
    for _ in range(args.held_out):
        play_rollout()
        held_out.append(rollout_decisions(model.rollout_buffer))
    results: dict[tuple[float, int], list[tuple[int, float, float]]] = {
        setting: [] for setting in args.settings}
    minibatches_run = [0]
    evaluate_actions = model.policy.evaluate_actions

    def counted_evaluate_actions(*positional, **keywords):
        minibatches_run[0] += 1
        return evaluate_actions(*positional, **keywords)

    model.policy.evaluate_actions = counted_evaluate_actions
    for _ in range(args.repeats):
        model.policy.load_state_dict(weights)
        play_rollout()
        for rate, minibatch in args.settings:
            model.policy.load_state_dict(weights)
            model.policy.optimizer.load_state_dict(optimizer_state)
            model.batch_size = minibatch
            model.lr_schedule = lambda _, rate=rate: rate
            minibatches_run[0] = 0
            model.train()
            results[(rate, minibatch)].append(
                (minibatches_run[0], model.logger.name_to_value["train/approx_kl"],
                 surrogate_gain(model.policy, held_out)))
    rollout = config.env.n_envs * config.ppo.n_steps
    print(f"checkpoint at {state.steps} steps; {args.held_out} held-out and {args.repeats} "
          f"training rollouts of {rollout} decisions")
    print("rate     minibatch  minibatches run   approx. KL  held-out gain (1e-3; each repeat)")
    for (rate, minibatch), rows in results.items():
        runs, kls, gains = (np.array(column) for column in zip(*rows, strict=True))
        available = config.ppo.n_epochs * rollout // minibatch
        print(f"{rate:<8.1e} {minibatch:>9}  {runs.mean():>6.0f} of {available:<5}"
              f"  {kls.mean():>10.4f}  {1000 * gains.mean():6.2f} "
              f"({', '.join(f'{1000 * gain:.2f}' for gain in gains)})")


if __name__ == "__main__":
    main()
