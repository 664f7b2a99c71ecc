"""HUNGER's full-decision mode on the training side: the single-agent view, a short training run
whose learner makes all its own choices, and evaluation in that mode."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from hunger_rl.arena.matches import play_games
from hunger_rl.engines.hunger_show.full_decisions import NUM_FULL_ACTIONS, NUM_PICKS
from hunger_rl.policies.learned import load_policy
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.single_agent import make_single_agent_env
from hunger_rl.training.train import train

FULL = {"decision_mode": "agents"}


def test_env_checkers_pass_in_the_full_decision_mode():
    gymnasium_check_env(make_single_agent_env("hunger_show", 3, FULL), skip_render_check=True)
    sb3_check_env(make_single_agent_env("hunger_show", 3, FULL), warn=False)


def test_the_learner_makes_its_sub_decisions_and_its_rewards_sum_to_its_result():
    env = make_single_agent_env("hunger_show", 4, FULL)
    rng = np.random.default_rng(0)
    sub_decisions = 0
    for seed in range(6):
        _, info = env.reset(seed=seed)
        total, terminated = 0.0, False
        while not terminated:
            mask = env.action_masks()
            assert mask.shape == (NUM_FULL_ACTIONS,) and mask.any()
            sub_decisions += not mask[:NUM_PICKS].any()
            _, reward, terminated, _, step_info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
        share = step_info["win_share"]
        # R1 with 4 players: 4/3 * (share - 1/4); an early elimination gets -1/3.
        assert total == pytest.approx(4 / 3 * (share - 0.25))
    assert sub_decisions > 0  # supper at least, every evening


def test_scripted_lineups_play_the_full_decision_mode():
    records = play_games("hunger_show", 4, [("random", "greedy", "expert", "crowd")] * 4, seed=3,
                         env_kwargs=FULL, progress=False)
    for record in records:
        assert sum(record.win_shares) == pytest.approx(1.0)


FULL_RUN = {
    "game": "hunger_show", "num_players": 4, "seed": 2, "total_steps": 256,
    "game_options": FULL, "checkpoint_every_steps": 256, "torch_threads": 1,
    "env": {"n_envs": 2, "vec_env": "dummy"},
    "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
    "network": {"hidden": [32, 32]},
    "opponents": {"weights": {"expert": 0.5, "self": 0.5}},
    "evaluation": {"every_steps": 256, "games": 4, "opponents": ["expert"], "final_games": 4},
}


def test_a_full_decision_run_trains_and_its_file_plays_that_mode(tmp_path):
    train(config_from_dict({**FULL_RUN, "out": str(tmp_path)}), progress=False)
    policy = load_policy(tmp_path, "hunger_show", 4)
    assert policy.metadata.game_options == FULL
    assert policy.metadata.num_actions == NUM_FULL_ACTIONS
    records = play_games("hunger_show", 4, [(str(tmp_path), "expert", "expert", "expert")] * 2,
                         seed=1, env_kwargs=FULL, progress=False)
    assert all(sum(r.win_shares) == pytest.approx(1.0) for r in records)
