"""Whether one PPO update learnt from its rollout, for the batched envs' learning tests."""

from __future__ import annotations

import torch
from stable_baselines3.common.callbacks import BaseCallback


class RolloutProbe(BaseCallback):
    """Keeps the rollout PPO is about to train on, and the policy's view of it before."""

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        buffer = self.model.rollout_buffer
        self.observations = torch.as_tensor(buffer.observations.reshape(-1, buffer.obs_shape[0]))
        self.actions = torch.as_tensor(buffer.actions.reshape(-1))
        self.masks = buffer.action_masks.reshape(len(self.actions), -1)
        self.advantages = buffer.advantages.reshape(-1)
        self.returns = torch.as_tensor(buffer.returns.reshape(-1))
        self.before = self.evaluate()

    def evaluate(self):
        with torch.no_grad():
            values, log_probs, _ = self.model.policy.evaluate_actions(
                self.observations, self.actions, action_masks=self.masks)
        return values.flatten(), log_probs


def assert_one_update_learns(model, min_each: int = 50) -> None:
    """One rollout, then PPO's update (``model`` a MaskablePPO): the plays that did better than
    expected (positive advantage) become more likely than those that did worse, and the value
    head predicts the returns better than before."""
    probe = RolloutProbe()
    model.learn(total_timesteps=model.n_envs * model.n_steps, callback=probe)
    values_before, log_probs_before = probe.before
    values_after, log_probs_after = probe.evaluate()
    change = (log_probs_after - log_probs_before).numpy()
    better, worse = probe.advantages > 0, probe.advantages < 0
    assert better.sum() > min_each and worse.sum() > min_each
    assert change[better].mean() > change[worse].mean() + 0.01
    error_before = torch.mean((values_before - probe.returns) ** 2)
    assert torch.mean((values_after - probe.returns) ** 2) < 0.9 * error_before
