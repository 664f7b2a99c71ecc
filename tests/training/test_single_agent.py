"""The single-agent views: env checkers, whose reward, seat rotation, eliminations, masks."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from hunger_rl.engines.rewards import r1_reward
from hunger_rl.envs.hungry_v0 import observation_layout
from hunger_rl.training.single_agent import make_single_agent_env

VIEWS = [("hungry", 2), ("hungry", 4), ("hunger_show", 2), ("hunger_show", 4)]


def play_random_episode(env, rng):
    """Random legal actions until the episode ends; (reward sum, last info)."""
    total, terminated = 0.0, False
    while not terminated:
        action = rng.choice(np.flatnonzero(env.action_masks()))
        _, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        total += reward
    return total, info


@pytest.mark.parametrize(("game", "num_players"), VIEWS)
def test_gymnasium_and_sb3_env_checkers_pass(game, num_players):
    gymnasium_check_env(
        make_single_agent_env(game, num_players), skip_render_check=True)
    sb3_check_env(make_single_agent_env(game, num_players), warn=False)


@pytest.mark.parametrize(("game", "num_players"), VIEWS)
def test_reward_is_the_learners_own_and_seats_rotate(game, num_players):
    env = make_single_agent_env(game, num_players)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    seats = []
    for _ in range(3 * num_players):
        total, info = play_random_episode(env, rng)
        seats.append(info["learner_seat"])
        # R1 paid to the learner: its own win share, never the last mover's reward.
        assert total == pytest.approx(r1_reward(num_players, info["win_share"]))
        assert info["opponents"] == ["random"] * (num_players - 1)
        env.reset()
    first = seats[0]
    assert seats == [(first + i) % num_players for i in range(len(seats))]


def test_hungry_learner_reward_matches_the_game_result():
    env = make_single_agent_env("hungry", 2)
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for _ in range(10):
        total, _ = play_random_episode(env, rng)
        winners = env.game_env.winners
        expected = 1.0 if winners == [env.learner] else (-1.0 if env.learner not in winners
                                                          else 0.0)
        assert total == pytest.approx(expected)
        env.reset()


def test_eliminated_learner_ends_its_episode_with_its_r1_reward():
    # Seats 0 and 1 start with a single 1-point can: they starve at the first supper (S15)
    # while seats 2 and 3 play on.
    env = make_single_agent_env("hunger_show", 4)
    starving = {"player_0": ["can1"], "player_1": ["can1"]}
    rng = np.random.default_rng(0)
    env.reset(seed=5, options={"holdings": starving})
    eliminated_episodes = 0
    for _ in range(4):
        total, info = play_random_episode(env, rng)
        if info["learner_seat"] in (0, 1):
            eliminated_episodes += 1
            assert total == pytest.approx(r1_reward(4, 0.0))
            assert info["win_share"] == 0.0
            assert env.game_env.agents  # the show went on without the learner
            assert not env.action_masks().any()
        env.reset(options={"holdings": starving})
    assert eliminated_episodes == 2


def test_masked_action_ends_the_episode_or_raises():
    env = make_single_agent_env("hungry", 2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info) == (-1.0, True, {"illegal_action": illegal})
    strict = make_single_agent_env("hungry", 2, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="masked"):
        strict.step(illegal)


def hungry_mask_from_observation(observations):
    """Hungry's rule: both destinations of every card type in the learner's hand."""
    hand = observations[:, observation_layout(2)["hand"]] > 0
    return np.repeat(hand, 2, axis=1)


@pytest.mark.parametrize("vec_env_class", [DummyVecEnv, SubprocVecEnv])
def test_vectorised_masks_are_each_envs_own(vec_env_class):
    vec_env = vec_env_class([lambda: make_single_agent_env("hungry", 2)] * 2)
    try:
        vec_env.seed(7)
        observations = vec_env.reset()
        rng = np.random.default_rng(0)
        for _ in range(60):  # past the end of the first games: resets included
            masks = np.stack(vec_env.env_method("action_masks"))
            assert masks.dtype == bool and masks.shape == (2, 50)
            np.testing.assert_array_equal(masks, get_action_masks(vec_env))
            np.testing.assert_array_equal(masks,
                                          hungry_mask_from_observation(observations))
            actions = [rng.choice(np.flatnonzero(m)) for m in masks]
            observations, _, _, _ = vec_env.step(np.array(actions))
    finally:
        vec_env.close()


def test_margin_shaping_sums_to_the_final_margin():
    shaped = make_single_agent_env("hungry", 2, margin_shaping=0.5)
    plain = make_single_agent_env("hungry", 2)
    for env in (shaped, plain):
        env.reset(seed=11)
    rng_shaped, rng_plain = np.random.default_rng(2), np.random.default_rng(2)
    total_shaped, _ = play_random_episode(shaped, rng_shaped)
    total_plain, _ = play_random_episode(plain, rng_plain)
    totals = shaped.game_env.game.totals()
    seat = shaped.game_env.possible_agents.index(shaped.learner)
    margin = (totals[seat] - totals[1 - seat]) / 10
    assert total_shaped == pytest.approx(total_plain + 0.5 * margin)
