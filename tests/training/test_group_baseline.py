"""ppo.group_baseline: the batched env deals each game to a group of slots alike, and PPO's
advantage of each step is its return minus the mean return of the group's other copies."""

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from hunger_rl.engines.compiled import spread_seeds
from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.training.batched_vec_env import BatchedHungryVecEnv
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import (
    check_whole_group_games,
    leave_one_out_advantages,
    make_model,
    make_vec_env,
)

GAME_STEPS = TOTAL_PLAYS // 2  # a 2-player game: 24 learner decisions

GROUP_RUN = {
    "game": "hungry", "num_players": 2, "seed": 3, "total_steps": 4 * 8 * GAME_STEPS,
    "checkpoint_every_steps": 4 * 8 * GAME_STEPS, "torch_threads": 1,
    "env": {"n_envs": 8, "batched": True},
    "ppo": {"n_steps": GAME_STEPS, "batch_size": 64, "n_epochs": 1, "gamma": 1.0,
            "gae_lambda": 1.0, "group_baseline": 4},
    "network": {"hidden": [16]},
    "opponents": {"weights": {"expert": 1.0}},
    "evaluation": {"every_steps": 10**6, "games": 4, "opponents": ["random"], "final_games": 4},
}


def first_legal_actions(env):
    return env.action_masks().argmax(axis=1)


def test_the_copies_of_a_group_are_dealt_the_same_game_at_the_same_seat():
    env = BatchedHungryVecEnv(6, 2, opponent="expert", seed=3, group_size=3)
    env.reset()
    batch = env.batch
    # Two groups of three: the group's seed dealt in each copy, seats 0 and 1.
    group_seeds = spread_seeds(3, 2)
    np.testing.assert_array_equal(batch.seeds, np.repeat(group_seeds, 3))
    assert env.learner_seats.tolist() == [0, 0, 0, 1, 1, 1]
    for group, seed in enumerate(group_seeds.tolist()):
        alone = BatchedHungry(2, 1)
        alone.reset(seeds=[seed])
        for copy in range(3 * group, 3 * group + 3):
            assert batch.deck_order(copy) == alone.deck_order(0)
    # Seat 1's copies have seen the expert's first play, the same in all three.
    np.testing.assert_array_equal(batch.placed[3], batch.placed[4])
    np.testing.assert_array_equal(batch.placed[3], batch.placed[5])
    assert batch.placed[3, 0].sum() == 1 and batch.placed[0].sum() == 0
    assert batch.deck_order(0) != batch.deck_order(3)


def test_copies_stay_in_step_and_are_dealt_alike_game_after_game():
    """Copies whose learners play differently finish together and get the same next deal;
    copies whose learners play alike play the same game, the opponent's included."""
    env = BatchedHungryVecEnv(8, 2, opponent="expert", seed=5, group_size=4)
    env.reset()
    rng = np.random.default_rng(0)
    for game in range(2):
        orders = [env.batch.deck_order(b) for b in range(8)]
        assert orders[0] == orders[3] and orders[4] == orders[7] and orders[0] != orders[4]
        for step in range(GAME_STEPS):
            actions = first_legal_actions(env)
            # Copies 2 and 3 of each group choose at random; copies 0 and 1 play alike.
            for b in (2, 3, 6, 7):
                actions[b] = rng.choice(np.flatnonzero(env.action_masks()[b]))
            _, _, dones, _ = env.step(actions)
            assert dones.all() == (step == GAME_STEPS - 1) and dones.any() == dones.all()
            for first in (0, 4):
                np.testing.assert_array_equal(env.batch.games[first], env.batch.games[first + 1])
        assert env.learner_seats.tolist() == [(game + 1) % 2] * 4 + [game % 2] * 4
    assert env.batch.game_number.tolist() == [2] * 8


def test_leave_one_out_advantages_by_hand():
    returns = np.array([[1.0, -1.0, -1.0, 0.0, 1.0, 1.0],
                        [2.0, 4.0, 0.0, 0.0, 1.0, -1.0]], np.float32)
    # Groups of two: each slot minus its partner.
    np.testing.assert_allclose(leave_one_out_advantages(returns, 2),
                               [[2, -2, -1, 1, 0, 0], [-2, 2, 0, 0, 2, -2]])
    # Groups of three: slot 0 of the first row, 1 - (-1 - 1) / 2 = 2.
    np.testing.assert_allclose(leave_one_out_advantages(returns, 3),
                               [[2, -1, -1, -1, 0.5, 0.5], [0, 3, -3, 0, 1.5, -1.5]])


def collect_one_rollout(model, collect=None):
    _, callback = model._setup_learn(model.n_steps * model.n_envs)
    callback.on_training_start(locals(), globals())
    (collect or model.collect_rollouts)(model.env, callback, model.rollout_buffer, model.n_steps)
    return model.rollout_buffer


def test_a_rollout_takes_the_hand_computed_leave_one_out_advantages():
    config = config_from_dict({**GROUP_RUN, "ppo": {**GROUP_RUN["ppo"],
                                                    "n_steps": 2 * GAME_STEPS}})
    model = make_model(config, make_vec_env(config))
    buffer = collect_one_rollout(model)
    rewards = buffer.rewards  # (steps, slots): R1 at the end of each game, 0 before
    assert (rewards[[GAME_STEPS - 1, 2 * GAME_STEPS - 1]] != 0).any()
    for game in range(2):
        steps = slice(game * GAME_STEPS, (game + 1) * GAME_STEPS)
        outcomes = rewards[steps].sum(axis=0)
        for slot in range(8):
            group = range(slot // 4 * 4, slot // 4 * 4 + 4)
            others = np.mean([outcomes[other] for other in group if other != slot])
            np.testing.assert_allclose(buffer.advantages[steps, slot], outcomes[slot] - others,
                                       atol=1e-6)
    # The critic still learns the returns: each step's return is its game's outcome.
    np.testing.assert_allclose(buffer.returns[:GAME_STEPS], np.broadcast_to(
        rewards[:GAME_STEPS].sum(axis=0), (GAME_STEPS, 8)), atol=1e-6)


def test_without_a_group_baseline_the_advantages_are_sb3s():
    config = config_from_dict({**GROUP_RUN, "ppo": {**GROUP_RUN["ppo"], "group_baseline": 0,
                                                    "gae_lambda": 0.95}})
    ours = collect_one_rollout(make_model(config, make_vec_env(config)))
    model = make_model(config, make_vec_env(config))
    sb3 = collect_one_rollout(model, lambda *args: MaskablePPO.collect_rollouts(model, *args))
    np.testing.assert_array_equal(ours.rewards, sb3.rewards)
    np.testing.assert_array_equal(ours.advantages, sb3.advantages)


def test_an_ungrouped_env_deals_and_seats_as_before():
    env = BatchedHungryVecEnv(8, 2, opponent="expert", seed=7)
    np.testing.assert_array_equal(env.opponents.rng_state,
                                  BatchedPolicy("expert", 8, seed=8).rng_state)
    env.reset()
    np.testing.assert_array_equal(env.batch.seeds, spread_seeds(7, 8))
    assert env.learner_seats.tolist() == [0, 1] * 4


def test_a_rollout_of_broken_games_is_refused():
    starts = np.zeros((4, 4), np.float32)
    starts[0] = 1
    check_whole_group_games(starts, np.ones(4, bool), 2)
    with pytest.raises(RuntimeError, match="did not start and end with whole games"):
        check_whole_group_games(starts, np.array([1, 1, 0, 1], bool), 2)
    starts[2, 0] = 1
    with pytest.raises(RuntimeError, match="did not start their games on the same steps"):
        check_whole_group_games(starts, np.ones(4, bool), 2)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ppo": {"group_baseline": 1}}, "ppo.group_baseline must be 0 (none) or at least 2"),
        ({"ppo": {"group_baseline": -2}}, "ppo.group_baseline must be an integer in [0, 4096]"),
        ({"env": {"n_envs": 8, "batched": False}}, "batched engine: set env.batched: true"),
        ({"env": {"n_envs": 6, "batched": True}}, "ppo.group_baseline (4) must divide "
                                                  "env.n_envs (6)"),
        ({"opponents": {"weights": {"expert": 0.5, "greedy": 0.5}}},
         "opponents.weights must name one, got ['expert', 'greedy']"),
        ({"ppo": {"gae_lambda": 0.95}}, "set ppo.gamma and ppo.gae_lambda to 1, got 1.0 and 0.95"),
        ({"ppo": {"gamma": 0.99}}, "set ppo.gamma and ppo.gae_lambda to 1"),
        ({"ppo": {"n_steps": 32}}, "ppo.n_steps (32) must be a multiple of a game's learner "
                                   "steps (24 at 2 players)"),
        ({"num_players": 3, "ppo": {"n_steps": 24}}, "must be a multiple of a game's learner "
                                                     "steps (16 at 3 players)"),
        ({"backend": "rllib"}, "ppo.group_baseline applies to the sb3 backend only"),
        ({"game": "hunger_show", "num_players": 4, "ppo": {"n_steps": 24}},
         "ppo.group_baseline applies to hungry only"),
    ],
)
def test_bad_group_baselines_name_the_problem(changes, message):
    raw = {**GROUP_RUN, **changes, "ppo": {**GROUP_RUN["ppo"], **changes.get("ppo", {})}}
    if raw["game"] == "hunger_show":
        raw["opponents"] = {"weights": {"expert": 1.0}}
    with pytest.raises(ValueError) as error:
        config_from_dict(raw)
    assert message in str(error.value)


def test_three_player_groups_accept_whole_games():
    config = config_from_dict({**GROUP_RUN, "num_players": 3,
                               "ppo": {**GROUP_RUN["ppo"], "n_steps": 48}})
    assert config.ppo.group_baseline == 4
