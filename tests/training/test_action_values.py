"""Warm start by fitted action values: explorer samples, the fit, the config rules, a tiny run."""

import json

import numpy as np
import pytest
import torch

from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.hungry_batched import forecast_values_of_observations
from hunger_rl.policies.learned import PolicyMetadata, build_network
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.networks import action_logits
from hunger_rl.training.action_values import (
    VALIDATION_EVERY,
    ExplorerSamples,
    encode_samples,
    explorer_samples,
    fit_action_values,
)
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import train

ACTION_VALUES = {"games": 24, "epochs": 1, "workers": 1}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_explorer_samples_are_the_explorers_legal_turns(players):
    samples = explorer_samples(players, 30, temperature=0.5, seed=1)
    # One explorer per game, which moves in every players-th of the game's plays.
    assert samples.actions.shape == (30 * TOTAL_PLAYS // players,)
    assert samples.masks[np.arange(samples.actions.size), samples.actions].all()
    assert samples.masks[np.arange(samples.actions.size), samples.forecast_best].all()
    # The forecast's best play has the best forecast value of the explorer's view.
    values = forecast_values_of_observations(samples.observations.astype(np.float32), players)
    chosen = values[np.arange(values.shape[0]), samples.forecast_best]
    np.testing.assert_allclose(chosen, values.max(axis=1), atol=1e-9)
    # The mover's own hand (first 25 numbers) holds exactly the card types its mask allows.
    np.testing.assert_array_equal(samples.masks[:, 0::2], samples.observations[:, :25] > 0)
    # A game's outcome is one share, repeated for each of its explorer's turns; a share is a
    # sole win, a loss, or a share of a draw among at most all players.
    per_game = samples.win_shares.reshape(30, -1)
    assert (per_game == per_game[:, :1]).all()
    np.testing.assert_array_equal(samples.games, np.repeat(np.arange(30), per_game.shape[1]))
    allowed = {0.0, 1.0} | {1.0 / k for k in range(2, players + 1)}
    assert set(np.round(per_game[:, 0], 9)) <= {round(v, 9) for v in allowed}


def test_explorer_samples_are_reproducible_and_explore():
    one = explorer_samples(2, 40, temperature=0.5, seed=5)
    two = explorer_samples(2, 40, temperature=0.5, seed=5)
    for field in ExplorerSamples.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
    # A softmax over values in points at half a point: often the best play, not always.
    share_best = (one.actions == one.forecast_best).mean()
    assert 0.2 < share_best < 0.9
    cold = explorer_samples(2, 40, temperature=0.01, seed=5)
    assert (cold.actions == cold.forecast_best).mean() > share_best
    with pytest.raises(ValueError, match="temperature must be positive"):
        explorer_samples(2, 4, temperature=0.0, seed=0)


def test_encoding_matches_the_encoder_whatever_the_workers():
    samples = explorer_samples(2, 8, temperature=0.5, seed=2)
    one = encode_samples(2, samples.observations, None, workers=1, progress=False)
    two = encode_samples(2, samples.observations, None, workers=2, progress=False)
    np.testing.assert_array_equal(one, two)
    direct = make_encoder("hungry", 2).batch(samples.observations.astype(np.float32))
    np.testing.assert_allclose(one.astype(np.float32), direct, rtol=1e-3, atol=1e-3)


def test_fit_learns_which_plays_win():
    # Outcomes that reward one kind of play (sending the tourist to its hotel, odd actions):
    # after the fit the network prefers hotels wherever it can choose.
    samples = explorer_samples(2, 150, temperature=2.0, seed=3)
    rigged = ExplorerSamples(samples.observations, samples.masks, samples.actions,
                             (samples.actions % 2 == 1).astype(float), samples.forecast_best,
                             samples.games)
    encoder = make_encoder("hungry", 2)
    inputs = encoder.batch(samples.observations.astype(np.float32)).astype(np.float16)
    metadata = PolicyMetadata("hungry", 2, encoder.size, 50, [32, 32], "tanh", features=True)
    network = build_network(metadata)

    def hotel_share():
        logits = action_logits(network, torch.as_tensor(inputs.astype(np.float32)))
        masked = logits.masked_fill(~torch.as_tensor(samples.masks), -torch.inf)
        return float((masked.argmax(dim=1).numpy() % 2 == 1).mean())

    before = hotel_share()
    result = fit_action_values(network, inputs, rigged, epochs=8, batch_size=128,
                               learning_rate=3e-3, seed=0, progress=False)
    # Games 22, 45, ... (one in 23) are held out to choose the epoch.
    assert result.positions == samples.actions.size - 6 * TOTAL_PLAYS // 2
    assert len(result.training_losses) == len(result.validation_losses) == 8
    assert result.training_losses[-1] < result.training_losses[0]
    assert result.validation_losses[result.best_epoch] == min(result.validation_losses)
    assert result.win_scale > 0
    assert hotel_share() > max(0.95, before + 0.2)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_held_out_games_cycle_through_the_explorer_seats(players):
    held_out = np.arange(players) * VALIDATION_EVERY + VALIDATION_EVERY - 1
    assert set(held_out % players) == set(range(players))  # game g's explorer is g % players


def test_fit_needs_held_out_games():
    samples = explorer_samples(2, 22, temperature=0.5, seed=0)
    encoder = make_encoder("hungry", 2)
    metadata = PolicyMetadata("hungry", 2, encoder.size, 50, [8], "tanh", features=True)
    with pytest.raises(ValueError, match="at least 23 games"):
        fit_action_values(build_network(metadata), encoder.batch(samples.observations), samples,
                          epochs=1, batch_size=64, learning_rate=1e-3, seed=0, progress=False)


def test_tiny_run_with_fitted_action_values_reports_them(tmp_path, tiny_scorer_config):
    config = {**tiny_scorer_config, "action_values": ACTION_VALUES}
    train(config_from_dict({**config, "out": str(tmp_path)}), progress=False)
    report = json.loads((tmp_path / "action_values.json").read_text())
    assert report["positions"] == 23 * TOTAL_PLAYS // 2  # one game held out
    assert report["best_epoch"] == 0 and len(report["validation_losses"]) == 1
    assert 0.0 <= report["forecast_agreement"] <= 1.0
    assert (tmp_path / "policy.safetensors").is_file()


def test_action_value_config_rules(tiny_scorer_config):
    tiny = {**tiny_scorer_config, "action_values": ACTION_VALUES}
    with pytest.raises(ValueError, match="action_values applies to hungry"):
        config_from_dict({"game": "hunger_show", "num_players": 4,
                          "action_values": {"games": 30}})
    with pytest.raises(ValueError, match="choose one warm start"):
        config_from_dict({**tiny, "distill": {"teacher": "greedy"}})
    with pytest.raises(ValueError, match="action_values.temperature must be"):
        config_from_dict({**tiny, "action_values": {"games": 30, "temperature": 0}})
    with pytest.raises(ValueError, match="action_values.games must be"):
        config_from_dict({**tiny, "action_values": {"games": -1}})
    with pytest.raises(ValueError, match="action_values.games must be 0 .* or at least 23"):
        config_from_dict({**tiny, "action_values": {"games": 22}})
    assert config_from_dict({"game": "hungry", "num_players": 2}).action_values.games == 0
