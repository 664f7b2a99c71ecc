"""The batched Hungry VecEnv: SB3 contract, learner seats, rewards, masks, MaskablePPO."""

import numpy as np
import pytest
from ppo_probe import assert_one_update_learns
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.engines.rewards import r1_rewards
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.training.batched_vec_env import BatchedHungryVecEnv


def random_learner_actions(env, rng):
    masks = env.action_masks()
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_learner_plays_its_seat_and_gets_its_reward(num_players, opponent):
    env = BatchedHungryVecEnv(16, num_players, opponent=opponent, seed=3)
    observations = env.reset()
    assert observations.shape == (16, env.observation_space.shape[0])
    assert env.observation_space.contains(observations[0])
    rng = np.random.default_rng(0)
    seats_seen = set()
    episodes = 0
    for _ in range(3 * TOTAL_PLAYS):
        seats = env.learner_seats.copy()
        # The learner is to move: its one-hot "to_move" (relative seat 0) is set.
        assert (observations[:, -num_players] == 1).all()
        observations, rewards, dones, infos = env.step(random_learner_actions(env, rng))
        for game in np.flatnonzero(dones).tolist():
            info = infos[game]
            seat = info["learner_seat"]
            assert seat == seats[game]
            winners = np.flatnonzero(env.outputs.winners[game]).tolist()
            assert rewards[game] == np.float32(r1_rewards(num_players, winners)[seat])
            assert info["terminal_observation"][-num_players:].sum() == 0  # game over
            assert env.learner_seats[game] == (seat + 1) % num_players
            seats_seen.add(seat)
            episodes += 1
        assert (rewards[~dones] == 0).all()
    assert episodes >= 16 and seats_seen == set(range(num_players))


def test_learner_games_are_the_batched_engine_games():
    """With the learner at seat 0 the VecEnv plays what the engine plays with the same moves."""
    env = BatchedHungryVecEnv(1, 2, seed=4)
    env.reset()
    batch = BatchedHungry(2, 1)
    batch.reset(seed=4)
    np.testing.assert_array_equal(batch.games, env.batch.games)
    assert env.learner_seats[0] == 0


def test_masks_through_env_method_and_sb3_helper():
    env = BatchedHungryVecEnv(8, 3, seed=0)
    env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (8, 50) and masks.dtype == bool
    np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
    assert len(env.env_method("action_masks", indices=[1, 2])) == 2
    np.testing.assert_array_equal(masks, env.batch.legal_masks().astype(bool))


def test_greedy_opponents_beat_random_ones():
    """A random learner wins less against greedy opponents than against random ones."""
    rates = {}
    for opponent in ("random", "greedy"):
        env = BatchedHungryVecEnv(256, 2, opponent=opponent, seed=1)
        env.reset()
        rng = np.random.default_rng(1)
        shares = []
        for _ in range(TOTAL_PLAYS // 2 * 2):
            _, _, dones, infos = env.step(random_learner_actions(env, rng))
            shares += [infos[i]["win_share"] for i in np.flatnonzero(dones)]
        rates[opponent] = np.mean(shares)
    assert rates["greedy"] < rates["random"] - 0.2


def test_maskable_ppo_learns_from_its_batched_rollout():
    """One rollout on the batched env, then PPO's update: the plays that did better than
    expected (positive advantage) become more likely than those that did worse, and the value
    head predicts the returns better than before."""
    env = BatchedHungryVecEnv(8, 2, seed=0, margin_shaping=1.0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=4, seed=0,
                        device="cpu")
    assert_one_update_learns(model)


def test_encode_hook_changes_the_observation_space():
    env = BatchedHungryVecEnv(4, 2, seed=0, encode=lambda obs: obs[:, :10] / 2, encoded_size=10)
    observations = env.reset()
    assert observations.shape == (4, 10) and env.observation_space.shape == (10,)


def test_compiled_policies_play_only_legal_actions():
    batch = BatchedHungry(4, 64)
    batch.reset(seed=9)
    for kind in ("random", "greedy"):
        policy = BatchedPolicy(kind, 64, seed=0)
        for _ in range(TOTAL_PLAYS + 5):
            actions = policy.act(batch)
            assert batch.legal_masks()[np.arange(64), actions].all()
            batch.step(actions)
