"""The action-scorer network: it starts as the forecast player, trains, and round-trips a file."""

import numpy as np
import pytest
import torch

from hunger_rl.envs.hungry.batched import BatchedHungry, BatchedPolicy
from hunger_rl.policies.learned import (
    ActionScorerPolicy,
    LearnedPolicy,
    PolicyMetadata,
    build_network,
    load_policy,
)
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.features import HUNGRY_FEATURE_SCALE, make_encoder
from hunger_rl.training.train import train

SCORER_RUN = {
    "game": "hungry", "num_players": 2, "seed": 5, "total_steps": 512,
    "checkpoint_every_steps": 512, "torch_threads": 1,
    "env": {"n_envs": 8, "batched": True},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 2},
    "network": {"hidden": [32, 32], "action_scorer": True},
    "opponents": {"weights": {"forecast": 0.5, "greedy": 0.5}},
    "evaluation": {"every_steps": 512, "games": 4, "opponents": ["forecast"],
                   "final_games": 4},
}


def positions(num_players=2, games=32, moves=20):
    """Observations of the movers along random games."""
    batch = BatchedHungry(games, num_players)
    out = batch.reset(seed=11)
    moves_policy = BatchedPolicy("random", games, seed=2)
    seen = []
    for _ in range(moves):
        seen.append((out.observations.copy(), out.action_masks.astype(bool)))
        out = batch.step(moves_policy.act(batch))
    return seen


def test_an_untrained_scorer_plays_the_forecast_choice():
    """The corrections start at zero and the MLP's share of the logits is tiny, so the logits
    are the prior weight times the forecast values (in tens of points, relative to the best)."""
    metadata = PolicyMetadata("hungry", 2, make_encoder("hungry", 2).size, 50, [64, 64], "tanh",
                              features=True, action_scorer=True)
    network = build_network(metadata)
    network.ortho_init = True
    network._build(lambda _: 0.0)  # the training initialisation
    policy = LearnedPolicy(network, metadata)
    encoder = make_encoder("hungry", 2)
    for observations, masks in positions():
        logits = policy.logits(list(observations))
        prior = encoder.batch(observations)[:, encoder.action_features].reshape(
            len(observations), 50, -1)[:, :, 0]
        np.testing.assert_allclose(
            np.where(masks, logits, 0), np.where(masks, ActionScorerPolicy.PRIOR_WEIGHT * prior, 0),
            atol=0.1)
        chosen = np.where(masks, logits, -np.inf).argmax(axis=1)
        # The chosen play's forecast value is within 0.05 points of the best.
        assert (prior[np.arange(len(chosen)), chosen] * HUNGRY_FEATURE_SCALE > -0.05).all()


def test_scorer_run_trains_and_its_file_plays_the_same(tmp_path):
    config = config_from_dict({**SCORER_RUN, "out": str(tmp_path)})
    train(config, progress=False)
    policy = load_policy(tmp_path / "policy.safetensors", "hungry", 2)
    assert policy.metadata.action_scorer
    assert isinstance(policy.network, ActionScorerPolicy)
    observations, masks = positions()[5]
    again = load_policy(tmp_path, "hungry", 2)
    np.testing.assert_array_equal(policy.logits(list(observations)),
                                  again.logits(list(observations)))
    # Training moved the scorer away from its zero start.
    last = policy.network.mlp_extractor.scorer[-1]
    assert torch.count_nonzero(last.weight) > 0


def test_scorer_is_refused_where_it_has_no_features():
    with pytest.raises(ValueError, match="network.action_scorer applies to hungry"):
        config_from_dict({"game": "hunger_show", "num_players": 4,
                          "network": {"action_scorer": True}})
    with pytest.raises(ValueError, match="network.action_scorer applies to hungry"):
        config_from_dict({**SCORER_RUN, "backend": "rllib"})
