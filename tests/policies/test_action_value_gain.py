"""A plain MLP's gain on each action's value (``network.action_value_gain``): what it multiplies,
that the policy file keeps it, and that the default network is SB3's own as before."""

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

from hunger_rl.envs import hungry_v0
from hunger_rl.policies.learned import PolicyMetadata, build_network, load_policy, save_policy
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.networks import ActionValueGain, action_logits


def metadata(gain):
    encoder = make_encoder("hungry", 2)
    return PolicyMetadata("hungry", 2, observation_size=encoder.size, num_actions=50,
                          hidden=[16, 16], activation="tanh", features=True,
                          action_value_gain=gain)


def encoded_positions(games=3):
    """Encoded observations of a few random 2-player games, every decision."""
    env = hungry_v0.env(num_players=2)
    encoder = make_encoder("hungry", 2)
    rng = np.random.default_rng(0)
    rows = []
    for game in range(games):
        env.reset(seed=game)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            rows.append(encoder(observation["observation"]))
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return torch.as_tensor(np.stack(rows))


def test_the_gain_multiplies_each_actions_value_and_nothing_else():
    """The gained network on an input is the plain network with the same weights on that input
    with the first of every action's features (its value relative to the best play, 0 for the
    best) multiplied by the gain: bit for bit."""
    plain, gained = build_network(metadata(1.0)), build_network(metadata(10.0))
    gained.load_state_dict(plain.state_dict())
    inputs = encoded_positions()
    encoder = make_encoder("hungry", 2)
    block = inputs[:, encoder.action_features].reshape(len(inputs), 50, -1)
    values = block[:, :, 0]
    assert (values <= 0).all() and (values.max(dim=1).values == 0).all()  # relative to the best
    scaled = inputs.clone()
    columns = torch.arange(encoder.action_features.start, encoder.action_features.stop,
                           encoder.action_feature_size)
    scaled[:, columns] *= 10.0
    assert not torch.equal(scaled, inputs)
    assert torch.equal(action_logits(gained, inputs), action_logits(plain, scaled))
    assert not torch.equal(action_logits(gained, inputs), action_logits(plain, inputs))


def test_the_default_network_is_sb3s_own():
    network = build_network(metadata(1.0))
    assert type(network) is MaskableActorCriticPolicy
    assert type(network.features_extractor) is FlattenExtractor
    assert isinstance(build_network(metadata(10.0)).features_extractor, ActionValueGain)


def test_a_policy_file_keeps_its_gain(tmp_path):
    network = build_network(metadata(10.0))
    path = save_policy(tmp_path / "policy.safetensors", network, metadata(10.0))
    policy = load_policy(path, "hungry", 2)
    assert policy.metadata.action_value_gain == 10.0
    inputs = encoded_positions(games=1)
    # The numpy network the policy plays applies the gain as the torch one does.
    np.testing.assert_allclose(policy.network.logits(inputs.numpy()),
                               action_logits(network, inputs).numpy(), rtol=1e-5, atol=1e-4)
    assert torch.equal(action_logits(policy.torch_network(), inputs),
                       action_logits(network, inputs))
    # The gain is not a tensor of the file: the metadata alone carries it.
    assert set(policy.network.weights) == set(build_network(metadata(1.0)).state_dict())


def test_an_action_scorer_refuses_the_gain():
    with pytest.raises(ValueError, match="an action value gain belongs to a plain MLP"):
        build_network(PolicyMetadata(**{**metadata(10.0).__dict__, "action_scorer": True}))
