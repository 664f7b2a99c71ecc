"""A CleanRL-style PPO in one file: the reference our trainer is compared with.

Hungry on the batched engine (``training.batched_vec_env``), one learning seat per game and a
fixed compiled opponent (random, greedy or forecast) in every other seat, the learner's inputs
encoded as in training (``encoders.make_encoder``). The algorithm follows CleanRL's ``ppo.py``
(Huang et al., "The 37 implementation details of PPO") read top to bottom: separate actor and
critic MLPs with orthogonal initialisation, Adam with eps 1e-5 and a linearly annealed learning
rate, GAE, per-minibatch advantage normalisation, clipped surrogate and clipped value loss, an
entropy bonus, global gradient clipping; illegal actions are masked out of the logits.

Every ``--eval-every`` steps the greedy (argmax) policy plays ``--eval-games`` seat-rotated games
against the same opponent on the batched engine, and the run prints one CSV row: steps, win
share with its 95% Wilson interval, the sampled training policy's win share over the last
rollouts, and PPO's diagnostics (approximate KL, clip fraction, value explained variance,
entropy). Example::

    python scripts/cleanrl_ppo_hungry.py --opponent random --total-steps 200000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from hunger_rl.arena.evaluation import wilson_interval
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.training.batched_vec_env import BatchedHungryVecEnv


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="random", help="random, greedy or forecast")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--total-steps", type=int, default=200_000)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--num-steps", type=int, default=64, help="rollout length per env")
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--anneal-lr", type=int, default=1)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=4)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--norm-adv", type=int, default=1)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--clip-vloss", type=int, default=1)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--target-kl", type=float, default=None)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--margin-shaping", type=float, default=0.0)
    parser.add_argument("--eval-every", type=int, default=50_000)
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--threads", type=int, default=1)
    return parser.parse_args()


def layer(inputs: int, outputs: int, gain: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, inputs: int, actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer(inputs, hidden), nn.Tanh(), layer(hidden, hidden),
                                    nn.Tanh(), layer(hidden, 1, gain=1.0))
        self.actor = nn.Sequential(layer(inputs, hidden), nn.Tanh(), layer(hidden, hidden),
                                   nn.Tanh(), layer(hidden, actions, gain=0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(x).masked_fill(~mask, -1e8)

    def action_and_value(self, x, mask, action=None):
        distribution = torch.distributions.Categorical(logits=self.masked_logits(x, mask))
        if action is None:
            action = distribution.sample()
        return (action, distribution.log_prob(action), distribution.entropy(), self.value(x))


def evaluate(agent: Agent, args: argparse.Namespace, encoder, seed: int) -> tuple[float, int]:
    """Argmax play, one game per slot; slot i starts in seat i mod N, so seats rotate."""
    env = BatchedHungryVecEnv(args.eval_games, args.players, args.opponent, seed=seed,
                              encode=encoder.batch, encoded_size=encoder.size)
    observations = env.reset()
    shares = np.full(args.eval_games, np.nan)
    while np.isnan(shares).any():
        with torch.no_grad():
            logits = agent.masked_logits(torch.as_tensor(observations),
                                         torch.as_tensor(env.action_masks()))
        observations, _, dones, infos = env.step(logits.argmax(dim=1).numpy())
        for game in np.flatnonzero(dones & np.isnan(shares)):
            shares[game] = infos[game]["win_share"]
    return float(shares.sum()), args.eval_games


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    encoder = make_encoder("hungry", args.players)
    env = BatchedHungryVecEnv(args.num_envs, args.players, args.opponent, seed=args.seed,
                              encode=encoder.batch, encoded_size=encoder.size,
                              margin_shaping=args.margin_shaping)
    agent = Agent(encoder.size, env.action_space.n, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # Rollout storage, (num_steps, num_envs, ...).
    shape = (args.num_steps, args.num_envs)
    observations = torch.zeros(shape + (encoder.size,))
    masks = torch.zeros(shape + (env.action_space.n,), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    log_probs = torch.zeros(shape)
    rewards = torch.zeros(shape)
    dones = torch.zeros(shape)
    values = torch.zeros(shape)

    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = -(-args.total_steps // batch_size)
    next_observation = torch.as_tensor(env.reset())
    next_mask = torch.as_tensor(env.action_masks())
    next_done = torch.zeros(args.num_envs)
    steps, next_eval, started = 0, 0, time.perf_counter()
    recent_shares: list[float] = []
    diagnostics = {"approx_kl": 0.0, "clip_fraction": 0.0, "explained_variance": 0.0,
                   "entropy": 0.0}
    print("steps,win_share,ci_low,ci_high,train_win_share,approx_kl,clip_fraction,"
          "explained_variance,entropy,steps_per_second", flush=True)

    for update in range(num_updates + 1):
        if steps >= next_eval or update == num_updates:
            wins, games = evaluate(agent, args, encoder, seed=args.seed + 10**6 + steps)
            low, high = wilson_interval(wins, games)
            train_share = np.mean(recent_shares) if recent_shares else float("nan")
            rate = steps / (time.perf_counter() - started)
            print(f"{steps},{wins / games:.3f},{low:.3f},{high:.3f},{train_share:.3f},"
                  f"{diagnostics['approx_kl']:.4f},{diagnostics['clip_fraction']:.3f},"
                  f"{diagnostics['explained_variance']:.3f},{diagnostics['entropy']:.3f},"
                  f"{rate:.0f}", flush=True)
            recent_shares.clear()
            next_eval += args.eval_every
        if update == num_updates:
            break
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1 - update / num_updates)

        # 1. Rollout: num_steps decisions in every game.
        for t in range(args.num_steps):
            observations[t], masks[t], dones[t] = next_observation, next_mask, next_done
            with torch.no_grad():
                action, log_prob, _, value = agent.action_and_value(next_observation, next_mask)
            actions[t], log_probs[t], values[t] = action, log_prob, value
            raw_observation, reward, done, infos = env.step(action.numpy())
            rewards[t] = torch.as_tensor(reward)
            next_observation = torch.as_tensor(raw_observation)
            next_mask = torch.as_tensor(env.action_masks())
            next_done = torch.as_tensor(done, dtype=torch.float32)
            recent_shares += [info["win_share"] for info in infos if "win_share" in info]
        steps += batch_size

        # 2. GAE: a game's last step does not bootstrap from the next game's first state.
        with torch.no_grad():
            next_value = agent.value(next_observation)
            advantages = torch.zeros(shape)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    not_done, following = 1.0 - next_done, next_value
                else:
                    not_done, following = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            returns = advantages + values

        # 3. PPO update over shuffled minibatches.
        b_obs = observations.reshape(-1, encoder.size)
        b_masks, b_actions = masks.reshape(-1, env.action_space.n), actions.reshape(-1)
        b_log_probs, b_advantages = log_probs.reshape(-1), advantages.reshape(-1)
        b_returns, b_values = returns.reshape(-1), values.reshape(-1)
        clip_fractions, entropies = [], []
        for _epoch in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for start in range(0, batch_size, minibatch_size):
                index = order[start:start + minibatch_size]
                _, new_log_prob, entropy, new_value = agent.action_and_value(
                    b_obs[index], b_masks[index], b_actions[index])
                log_ratio = new_log_prob - b_log_probs[index]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clip_fractions.append(((ratio - 1).abs() > args.clip_coef).float().mean())
                advantage = b_advantages[index]
                if args.norm_adv:
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(
                    -advantage * ratio,
                    -advantage * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                if args.clip_vloss:
                    clipped = b_values[index] + (new_value - b_values[index]).clamp(
                        -args.clip_coef, args.clip_coef)
                    value_loss = 0.5 * torch.max((new_value - b_returns[index]) ** 2,
                                                 (clipped - b_returns[index]) ** 2).mean()
                else:
                    value_loss = 0.5 * ((new_value - b_returns[index]) ** 2).mean()
                loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
                entropies.append(entropy.mean().detach())
            if args.target_kl is not None and approx_kl > args.target_kl:
                break
        variance = b_returns.var()
        diagnostics = {
            "approx_kl": float(approx_kl),
            "clip_fraction": float(torch.stack(clip_fractions).mean()),
            "explained_variance": float(1 - (b_returns - b_values).var() / variance)
            if variance > 0 else float("nan"),
            "entropy": float(torch.stack(entropies).mean())}


if __name__ == "__main__":
    main()
