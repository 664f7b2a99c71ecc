"""The privileged critic (``network.privileged_critic``): the value network reads the game's
state after the observation, the policy network never does, and the saved policy plays from
the observation alone."""

import numpy as np
import pytest
import torch

from hunger_rl.policies.learned import (
    LearnedPolicy,
    build_network,
    load_policy,
    read_metadata,
    save_policy,
)
from hunger_rl.policies.models.encoders import make_encoder, state_scale
from hunger_rl.policies.models.networks import PrivilegedCriticPolicy, action_logits
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.single_agent import make_single_agent_env
from hunger_rl.training.train import make_model, make_vec_env, policy_metadata, train

RUN = {
    "game": "hungry", "num_players": 2, "seed": 7, "total_steps": 256,
    "checkpoint_every_steps": 256, "torch_threads": 1,
    "env": {"n_envs": 2},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 2},
    "network": {"hidden": [32, 32], "privileged_critic": True},
    "opponents": {"weights": {"self": 0.5, "greedy": 0.5}, "snapshot_every": 1},
    "evaluation": {"every_steps": 256, "games": 4, "opponents": ["greedy"], "final_games": 4},
}


def run_config(tmp_path=None, **changes):
    raw = {**RUN, **changes}
    if tmp_path is not None:
        raw["out"] = str(tmp_path)
    return config_from_dict(raw)


@pytest.mark.parametrize(("changes", "message"), [
    ({"network": {"privileged_critic": True, "action_scorer": True}},
     "network.privileged_critic goes with the plain MLP; set network.action_scorer: false"),
    ({"backend": "rllib"}, "network.privileged_critic applies to the sb3 backend only"),
    ({"env": {"n_envs": 2, "batched": True}, "opponents": {"weights": {"greedy": 1.0}}},
     "network.privileged_critic reads state.. of the reference games; set env.batched: false"),
    ({"network": {"privileged_critic": "yes"}},
     "network.privileged_critic must be true or false, got 'yes'"),
])
def test_bad_combinations_name_the_key(changes, message):
    with pytest.raises(ValueError, match=message):
        run_config(**changes)


def play_inputs(env, steps, rng):
    """The training env's inputs along random legal play, with the game env's own view of each
    (the learner's raw observation and the state) for comparison."""
    seen = []
    network_input, _ = env.reset(seed=3)
    for _ in range(steps):
        seen.append((network_input, env.game_env.state()))
        legal = np.flatnonzero(env.action_masks())
        network_input, _, terminated, _, _ = env.step(int(rng.choice(legal)))
        if terminated:
            network_input, _ = env.reset()
    return seen


@pytest.mark.parametrize(("game", "num_players"), [("hungry", 2), ("hunger_show", 4)])
def test_the_training_input_is_the_observation_then_the_scaled_state(game, num_players):
    env = make_single_agent_env(game, num_players, privileged_state=True)
    encoder, scale = make_encoder(game, num_players), state_scale(game, num_players)
    assert env.observation_space.shape == (encoder.size + scale.size,)
    plain = make_single_agent_env(game, num_players)
    rng, plain_rng = np.random.default_rng(0), np.random.default_rng(0)
    for (network_input, state), (observation, _) in zip(
            play_inputs(env, 40, rng), play_inputs(plain, 40, plain_rng), strict=True):
        # The same games as without the state, the state appended and scaled to [-1, 1].
        np.testing.assert_array_equal(network_input[:encoder.size], observation)
        np.testing.assert_allclose(network_input[encoder.size:], state / scale, rtol=1e-6)
        assert np.abs(network_input[encoder.size:]).max() <= 1
        assert env.observation_space.contains(network_input)


@pytest.fixture(scope="module")
def model():
    config = run_config()
    return make_model(config, make_vec_env(config))


def test_the_actor_never_reads_the_state_and_the_critic_does(model):
    policy = model.policy
    assert isinstance(policy, PrivilegedCriticPolicy)
    size = make_encoder("hungry", 2).size
    env = make_single_agent_env("hungry", 2, privileged_state=True)
    inputs = torch.as_tensor(np.stack(
        [x for x, _ in play_inputs(env, 16, np.random.default_rng(1))]))
    other = inputs.clone()
    other[:, size:] = torch.rand_like(other[:, size:])
    with torch.no_grad():
        logits = policy.get_distribution(inputs).distribution.logits
        other_logits = policy.get_distribution(other).distribution.logits
        values, other_values = policy.predict_values(inputs), policy.predict_values(other)
    assert torch.equal(logits, other_logits)
    assert not torch.allclose(values, other_values)
    # No path at all from the state to the logits: their gradient there is exactly zero.
    inputs.requires_grad_(True)
    policy.get_distribution(inputs).distribution.logits.sum().backward()
    assert inputs.grad[:, size:].abs().max() == 0
    assert inputs.grad[:, :size].abs().max() > 0


def test_the_saved_policy_plays_from_the_observation_alone(model, tmp_path):
    config = run_config()
    metadata = policy_metadata(config, model.observation_space, model.action_space)
    assert metadata.observation_size == make_encoder("hungry", 2).size
    assert metadata.critic_state_size == state_scale("hungry", 2).size
    path = save_policy(tmp_path / "policy.safetensors", model.policy, metadata)
    assert read_metadata(path) == metadata
    loaded = load_policy(path, "hungry", 2)
    env = make_single_agent_env("hungry", 2, privileged_state=True)
    rng = np.random.default_rng(2)
    env.reset(seed=4)
    for _ in range(60):
        observation = env.game_env.observe(env.learner)
        with_state = env._network_input()
        mask = env.action_masks()
        full = action_logits(model.policy, torch.as_tensor(with_state[None]))[0].numpy()
        # The file's policy reads the raw observation only, and plays the trained network's
        # masked argmax over the input with the state.
        assert loaded.act(observation, rng) == int(np.where(mask, full, -np.inf).argmax())
        np.testing.assert_allclose(loaded.logits([observation["observation"]])[0], full,
                                   rtol=1e-5, atol=1e-5)
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated:
            env.reset()


def test_a_critic_state_size_that_is_not_the_games_is_refused(model):
    metadata = policy_metadata(run_config(), model.observation_space, model.action_space)
    wrong = type(metadata)(**{**metadata.__dict__, "critic_state_size": 7})
    with pytest.raises(ValueError, match="has 207 numbers, the policy's critic reads 7"):
        build_network(wrong)
    assert isinstance(LearnedPolicy.from_weights(metadata, model.policy.state_dict())
                      .torch_network(), PrivilegedCriticPolicy)


def test_a_tiny_run_trains_and_evaluates_its_policy(tmp_path):
    table = train(run_config(tmp_path), progress=False)
    assert [row["opponent"] for row in table] == ["greedy"]
    assert read_metadata(tmp_path / "policy.safetensors").critic_state_size == 207
    # Resuming with the plain critic is refused: the checkpoint's network differs.
    plain = dict(RUN["network"], privileged_critic=False)
    with pytest.raises(ValueError, match="critic_state_size is 207 there, 0 here"):
        train(run_config(tmp_path / "again", network=plain),
              resume=tmp_path / "checkpoints" / "step_000000256", progress=False)
