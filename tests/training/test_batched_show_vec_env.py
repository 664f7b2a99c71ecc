"""BatchedShowVecEnv: the learner's episodes, its masks and MaskablePPO on it."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from ppo_probe import assert_one_update_learns
from sb3_contrib import MaskablePPO

from hunger_rl.configs import config_path
from hunger_rl.envs.hunger_show.env import ShowParallelEnv
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.training.batched_show_vec_env import BatchedShowVecEnv
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import make_vec_env


def test_learner_episodes_follow_the_reference_show():
    """The first episode of each slot is the reference show of its seed with the batch's
    actions: the learner's observations, masks, rewards and end agree step by step."""
    vec = BatchedShowVecEnv(3, num_players=4, opponent_weights={"expert": 1, "greedy": 1},
                            seed=5, characters=True)
    observations = vec.reset()
    seeds = vec.batch.seeds.copy()
    envs = [ShowParallelEnv(num_players=4, characters=True) for _ in range(3)]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=int(seed))
    live = [True] * 3
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = vec.action_masks()
        for i, env in enumerate(envs):
            if live[i]:
                seat = f"player_{vec.learner_seats[i]}"
                np.testing.assert_array_equal(observations[i], env.observe(seat)["observation"])
                np.testing.assert_array_equal(masks[i], env.observe(seat)["action_mask"])
        learner = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        seats = vec.learner_seats.copy()
        # The opponents' actions of this step, as the VecEnv will draw them.
        before = vec.batch.outputs
        state = vec.players.rng.copy(), vec.players.pick_counts.copy(), vec.players.last_day.copy()
        opponents = vec.players.act(before.observations, before.action_masks).copy()
        vec.players.rng[:], vec.players.pick_counts[:], vec.players.last_day[:] = state
        observations, rewards, dones, infos = vec.step(learner)
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            actions = {a: int(opponents[i, env.agent_seats[a]]) for a in env.agents}
            actions[f"player_{seats[i]}"] = int(learner[i])
            _, ref_rewards, terminations, _, ref_infos = env.step(actions)
            agent = f"player_{seats[i]}"
            assert rewards[i] == pytest.approx(ref_rewards[agent])
            assert dones[i] == terminations[agent]
            if dones[i]:
                winners = env.winners
                share = 1 / len(winners) if agent in winners else 0.0
                assert infos[i]["win_share"] == pytest.approx(share)
                assert infos[i]["learner_seat"] == seats[i]
                np.testing.assert_array_equal(infos[i]["terminal_observation"],
                                              env.observe(agent)["observation"])
                assert vec.learner_seats[i] == (seats[i] + 1) % 4
                live[i] = False
    assert not any(live)


def test_refuses_what_the_batch_cannot_play():
    with pytest.raises(ValueError, match="a trained network, not 'search:4': unknown policy spec"):
        BatchedShowVecEnv(2, opponent_weights={"search:4": 1.0})
    with pytest.raises(ValueError, match="no snapshot yet"):
        BatchedShowVecEnv(2, opponent_weights={"self": 1.0}).reset()
    with pytest.raises(ValueError, match="default decisions"):
        BatchedShowVecEnv(2, decisions=[object()] * 4)


def test_maskable_ppo_learns_on_the_batched_config():
    """The shipped 4-player config made batched: one rollout against expert players, then
    PPO's update learns from it (better plays more likely, the value head closer to the
    returns)."""
    raw = yaml.safe_load(config_path("hunger_show_4p").read_text())
    raw["env"] = {"n_envs": 16, "batched": True}
    raw["opponents"]["weights"] = {"expert": 1.0}
    config = config_from_dict(raw)
    vec = make_vec_env(config)
    assert isinstance(vec, BatchedShowVecEnv)
    assert vec.observation_space.shape == (make_encoder("hunger_show", 4).size,)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=128, n_epochs=4, seed=0,
                        device="cpu")
    assert_one_update_learns(model)
