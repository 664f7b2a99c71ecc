"""Warm start by imitation: positions, labels, the fit, the config rules and a tiny run."""

import json

import numpy as np
import pytest

from hunger_rl.policies.learned import PolicyMetadata, build_network
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.distill import fit_to_teacher, game_positions, label_positions
from hunger_rl.training.train import train

DISTILL = {"teacher": "greedy", "positions": 300, "epochs": 2, "workers": 1}


def test_positions_are_movers_views_with_legal_plays():
    observations, masks = game_positions(3, 500, seed=1)
    assert observations.shape[0] == masks.shape[0] == 500
    assert masks.any(axis=1).all()
    # The mover's own hand (first 25 numbers) holds exactly the card types its mask allows.
    held = observations[:, :25] > 0
    np.testing.assert_array_equal(masks[:, 0::2], held)
    np.testing.assert_array_equal(masks[:, 1::2], held)


def test_labels_are_the_teachers_legal_choices_whatever_the_workers():
    observations, masks = game_positions(2, 600, seed=2)
    one = label_positions("search:4", 2, observations, masks, seed=7, workers=1, progress=False)
    two = label_positions("search:4", 2, observations, masks, seed=7, workers=2, progress=False)
    np.testing.assert_array_equal(one, two)
    assert masks[np.arange(600), one].all()
    # A deterministic teacher's labels are exactly its choices.
    greedy = label_positions("greedy", 2, observations[:50], masks[:50], seed=0, progress=False)
    rng = np.random.default_rng(0)
    policy = make_policy("greedy", "hungry", 2)
    values_agree = [policy.act({"observation": o, "action_mask": m.astype(np.int8)}, rng) == a
                    for o, m, a in zip(observations[:50], masks[:50], greedy, strict=True)]
    assert np.mean(values_agree) > 0.8  # greedy breaks exact ties at random


def test_fitting_raises_agreement_with_the_teacher():
    observations, masks = game_positions(2, 2000, seed=3)
    labels = label_positions("greedy", 2, observations, masks, seed=0, progress=False)
    encoder = make_encoder("hungry", 2)
    metadata = PolicyMetadata("hungry", 2, encoder.size, 50, [64, 64], "tanh", features=True)
    result = fit_to_teacher(build_network(metadata), encoder.batch(observations), masks, labels,
                            epochs=6, batch_size=128, learning_rate=1e-3, seed=0, progress=False)
    assert result.positions == 2000
    assert result.agreement_after > result.agreement_before + 0.25


def test_tiny_run_with_a_warm_start_reports_it(tmp_path, tiny_scorer_config):
    config = {**tiny_scorer_config, "distill": DISTILL}
    train(config_from_dict({**config, "out": str(tmp_path)}), progress=False)
    report = json.loads((tmp_path / "distill.json").read_text())
    assert report["teacher"] == "greedy" and report["positions"] == 300
    assert 0.0 <= report["agreement_before"] <= 1.0 and 0.0 <= report["agreement_after"] <= 1.0
    assert (tmp_path / "policy.safetensors").is_file()


def test_distill_config_rules(tiny_scorer_config):
    tiny = {**tiny_scorer_config, "distill": DISTILL}
    with pytest.raises(ValueError, match="distill applies to hungry"):
        config_from_dict({"game": "hunger_show", "num_players": 4,
                          "distill": {"teacher": "expert"}})
    with pytest.raises(ValueError, match="distill.teacher: unknown policy spec 'oracle'"):
        config_from_dict({**tiny, "distill": {"teacher": "oracle"}})
    with pytest.raises(ValueError, match="distill.positions must be"):
        config_from_dict({**tiny, "distill": {"teacher": "greedy", "positions": 0}})
    assert config_from_dict({"game": "hungry", "num_players": 2}).distill.teacher is None
