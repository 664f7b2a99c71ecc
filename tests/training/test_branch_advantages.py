"""ppo.branch_advantages: each decision's advantage is the outcome of its action minus that of a
second draw of the policy, both played on from the same position on the same deal."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.training.batched_learner import LearnerOutputs, step_learners
from hunger_rl.training.batched_vec_env import BatchedHungryVecEnv, make_batched_vec_env
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import make_model, make_vec_env

GAME_STEPS = TOTAL_PLAYS // 2

BRANCH_RUN = {
    "game": "hungry", "num_players": 2, "seed": 3, "total_steps": 8 * GAME_STEPS,
    "checkpoint_every_steps": 8 * GAME_STEPS, "torch_threads": 1,
    "env": {"n_envs": 8, "batched": True},
    "ppo": {"n_steps": GAME_STEPS, "batch_size": 64, "n_epochs": 1, "gamma": 1.0,
            "gae_lambda": 1.0, "branch_advantages": True},
    "network": {"hidden": [16]},
    "opponents": {"weights": {"random": 1.0}},
    "evaluation": {"every_steps": 10**6, "games": 4, "opponents": ["random"], "final_games": 4},
}


SCORES = np.random.default_rng(1).normal(size=(400, 50))


def linear_scorer(observations, masks):
    """A deterministic learner that reads the position: the legal action of best fixed linear
    score of the observation."""
    scores = observations @ SCORES[: observations.shape[1]]
    return np.where(np.asarray(masks, bool), scores, -np.inf).argmax(axis=1)


def play_recorded(env, steps, learner):
    """Play ``steps`` steps of ``env`` by ``learner``, recording; return the actions, masks and
    each decision's outcome (the learner's reward at the end of the game it was made in)."""
    observations = env.reset()
    env.record_decisions()
    actions, masks, rewards, dones = [], [], [], []
    for _ in range(steps):
        mask = env.action_masks()
        action = np.asarray(learner(observations, mask.astype(np.int8)), dtype=np.int64)
        observations, reward, done, _ = env.step(action)
        actions.append(action)
        masks.append(mask)
        rewards.append(reward)
        dones.append(done)
    outcomes = np.zeros((steps, env.num_envs), np.float32)
    following = np.full(env.num_envs, np.nan, np.float32)
    for step in range(steps - 1, -1, -1):
        following = np.where(dones[step], rewards[step], following)
        outcomes[step] = following
    return np.array(actions), np.array(masks), outcomes


# Seeds on which the learner both wins and loses a game.
@pytest.mark.parametrize(("num_players", "opponent", "seed"), [
    (2, "random", 11), (2, "expert", 15), (3, "random", 11), (4, "greedy", 12)])
def test_branches_of_the_actions_played_replay_the_games(num_players, opponent, seed):
    """Played on by the learner that played the games, each decision's branch of its own action
    ends as its game did: the same cards drawn, the opponents' same random choices."""
    env = BatchedHungryVecEnv(6, num_players, opponent=opponent, seed=seed)
    steps = 2 * TOTAL_PLAYS // num_players
    actions, _, outcomes = play_recorded(env, steps, linear_scorer)
    assert len(np.unique(outcomes)) > 1
    at_step, in_game = np.divmod(np.arange(steps * 6), 6)
    returns = env.branch_returns(at_step, in_game, actions.reshape(-1), linear_scorer)
    np.testing.assert_array_equal(returns, outcomes.reshape(-1))


def test_a_batch_of_branches_plays_each_as_if_alone():
    """Other first actions, in one call and one by one (each its own batch of one game)."""
    env = BatchedHungryVecEnv(4, 2, opponent="random", seed=5)
    _, masks, _ = play_recorded(env, 2 * GAME_STEPS, linear_scorer)
    rng = np.random.default_rng(0)
    at_step = rng.integers(0, 2 * GAME_STEPS, 40)
    in_game = rng.integers(0, 4, 40)
    firsts = np.array([rng.choice(np.flatnonzero(masks[s, g]))
                       for s, g in zip(at_step, in_game, strict=True)])
    together = env.branch_returns(at_step, in_game, firsts, linear_scorer)
    alone = [env.branch_returns(at_step[[i]], in_game[[i]], firsts[[i]], linear_scorer)[0]
             for i in range(40)]
    np.testing.assert_array_equal(together, alone)
    assert len(set(together.tolist())) > 1


def test_a_joined_env_plays_each_branch_in_its_own_part():
    env = make_batched_vec_env(6, {"greedy": 1.0, "expert": 1.0}, seed=2, num_players=2)
    actions, _, outcomes = play_recorded(env, GAME_STEPS, linear_scorer)
    at_step, in_game = np.divmod(np.arange(GAME_STEPS * 6), 6)
    returns = env.branch_returns(at_step, in_game, actions.reshape(-1), linear_scorer)
    np.testing.assert_array_equal(returns, outcomes.reshape(-1))


def brute_force_outcome(env, model, position, first_action):
    """One branch by hand: the recorded position copied into a batch of one, the learner's
    later moves from SB3's own deterministic ``predict``."""
    rows, streams, seats = position
    batch = BatchedHungry(2, 1)
    batch.games[0] = rows
    opponents = BatchedPolicy("random", 1)
    opponents.rng_state[0] = streams
    seat = np.array([seats], np.int64)
    out = LearnerOutputs.empty(1, 2)
    action = first_action
    while True:
        step_learners(batch, [action], seat, opponents, out)
        if out.terminated[0]:
            return float(out.rewards[0])
        predicted, _ = model.predict(env._encoded(out.observations),
                                     action_masks=out.action_masks.astype(bool),
                                     deterministic=True)
        action = int(predicted[0])


def collect_one_rollout(model):
    _, callback = model._setup_learn(model.n_steps * model.n_envs)
    callback.on_training_start(locals(), globals())
    model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    return model.rollout_buffer


def test_a_rollout_takes_the_differences_of_brute_force_branches():
    config = config_from_dict(BRANCH_RUN)
    model = make_model(config, make_vec_env(config))
    buffer = collect_one_rollout(model)
    env = model.env
    positions = env._decisions  # what the env kept of this rollout
    steps, envs = buffer.advantages.shape
    observations = buffer.observations.reshape(steps * envs, -1)
    masks = buffer.action_masks.reshape(steps * envs, -1).astype(bool)
    taken = buffer.actions.reshape(-1).astype(np.int64)
    # The second draws, as the rollout made them: seeded by the run's seed and step count.
    rng = np.random.default_rng([config.seed, model.num_timesteps])
    logits = model._logits(observations)
    others = (np.where(masks, logits, -np.inf) + rng.gumbel(size=logits.shape)).argmax(axis=1)
    assert masks[np.arange(len(others)), others].all()
    advantages = buffer.advantages.reshape(-1)
    assert (advantages[others == taken] == 0).all()
    differ = np.flatnonzero(others != taken)
    assert differ.size > steps * envs // 4
    for index in differ:
        step, game = divmod(int(index), envs)
        position = tuple(kept[game] for kept in positions[step])
        expected = (brute_force_outcome(env, model, position, int(taken[index]))
                    - brute_force_outcome(env, model, position, int(others[index])))
        assert advantages[index] == expected, (step, game)
    assert np.count_nonzero(advantages) > 0
    # The critic still learns the returns: each step's return is its game's outcome.
    np.testing.assert_allclose(buffer.returns, np.broadcast_to(
        buffer.rewards.sum(axis=0), (steps, envs)), atol=1e-6)


def test_the_second_draws_are_seeded_by_the_run():
    config = config_from_dict(BRANCH_RUN)
    first = collect_one_rollout(make_model(config, make_vec_env(config))).advantages.copy()
    second = collect_one_rollout(make_model(config, make_vec_env(config))).advantages
    np.testing.assert_array_equal(first, second)


def test_decisions_before_branch_from_play_take_no_branch():
    """The same rollout with branches from play 24 on: the later decisions take the advantages
    they take with every decision branched, the earlier ones 0."""
    config = config_from_dict(BRANCH_RUN)
    every = collect_one_rollout(make_model(config, make_vec_env(config)))
    late_config = config_from_dict({**BRANCH_RUN, "ppo": {**BRANCH_RUN["ppo"],
                                                          "branch_from_play": 24}})
    model = make_model(late_config, make_vec_env(late_config))
    late = collect_one_rollout(model)
    np.testing.assert_array_equal(every.actions, late.actions)
    plays = model.env.recorded_plays()
    assert plays.shape == late.advantages.shape and plays.min() < 24 <= plays.max()
    assert (late.advantages[plays < 24] == 0).all()
    np.testing.assert_array_equal(late.advantages[plays >= 24], every.advantages[plays >= 24])
    assert np.count_nonzero(every.advantages[plays < 24]) > 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"env": {"n_envs": 8, "batched": True, "margin_shaping": 0.5}},
         "ppo.branch_advantages compares the games' outcomes: set env.margin_shaping to 0, "
         "got 0.5"),
        ({"ppo": {"group_baseline": 4}},
         "ppo.branch_advantages and ppo.group_baseline both set the advantages"),
        ({"env": {"n_envs": 8, "batched": False}},
         "ppo.branch_advantages plays its branches in the batched engine: set env.batched: "
         "true"),
        ({"backend": "rllib"}, "ppo.branch_advantages applies to the sb3 backend only"),
        ({"game": "hunger_show", "num_players": 4}, "ppo.branch_advantages applies to hungry "
                                                    "only"),
        ({"ppo": {"branch_advantages": False, "branch_from_play": 24}},
         "ppo.branch_from_play needs ppo.branch_advantages: true"),
        ({"ppo": {"branch_from_play": 48}}, "ppo.branch_from_play must be an integer in [0, 47]"),
    ],
)
def test_bad_branch_settings_name_the_problem(changes, message):
    raw = {**BRANCH_RUN, **changes, "ppo": {**BRANCH_RUN["ppo"], **changes.get("ppo", {})}}
    with pytest.raises(ValueError) as error:
        config_from_dict(raw)
    assert message in str(error.value)
