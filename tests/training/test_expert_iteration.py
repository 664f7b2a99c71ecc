"""Expert iteration on a tiny budget: its games and targets, its fit, its artefacts, a resume
after a kill that continues identically, Ray, and bad configs."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from hunger_rl.cli import main
from hunger_rl.engines.hungry.engine import TOTAL_PLAYS
from hunger_rl.policies.learned import build_network, network_weights, read_metadata
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.networks import action_logits
from hunger_rl.policies.registry import make_policy
from hunger_rl.training import expert_iteration
from hunger_rl.training.config import ExpertIterationConfig, config_from_dict, load_config
from hunger_rl.training.expert_iteration import (
    GameSettings,
    Positions,
    fit,
    game_seeds,
    held_out_value_losses,
    play_games,
    play_iteration,
)
from hunger_rl.training.positions import forecast_games

TINY = Path(__file__).with_name("tiny_expert_iteration.yaml")
REPOSITORY = Path(__file__).resolve().parents[2]
FIRST_CHECKPOINT = Path("checkpoints") / "step_000000144" / "state.json"


def tiny_settings(cutoff=None, explore=True):
    config = load_config(TINY)
    metadata = expert_iteration._metadata(config, make_encoder("hungry", 2).size)
    torch.manual_seed(0)
    return config, GameSettings(metadata, network_weights(build_network(metadata)), 4, cutoff,
                                explore)


def test_games_record_every_move_with_its_target_and_the_movers_win_share():
    config, settings = tiny_settings(cutoff=2)
    seeds = game_seeds(config.seed, 0, 3)
    games = play_games("hungry", 2, {}, settings, seeds)
    assert len(games) == 3
    for game in games:
        assert len(game) == 48
        assert (game.targets[~game.masks] == 0).all()
        assert np.allclose(game.targets.sum(axis=1), 1.0)
        # Player 0 moves first and the seats alternate; each one's share is the same at every
        # one of its moves, and the two shares of a 2-player game add up to 1.
        assert (game.win_shares[0::2] == game.win_shares[0]).all()
        assert (game.win_shares[1::2] == game.win_shares[1]).all()
        assert game.win_shares[0] + game.win_shares[1] == 1.0
    # Each game is played from its own seeds: chunks of games make the same games.
    apart = (play_games("hungry", 2, {}, settings, seeds[:1])
             + play_games("hungry", 2, {}, settings, seeds[1:]))
    for alone, together in zip(apart, games, strict=True):
        for name in ("observations", "masks", "targets", "win_shares"):
            assert np.array_equal(getattr(alone, name), getattr(together, name))


def test_fit_moves_the_policy_to_the_targets_and_the_value_to_the_shares():
    config, settings = tiny_settings()
    positions = Positions.joined(play_games("hungry", 2, {}, settings, game_seeds(1, 0, 2)))
    encoder = make_encoder("hungry", 2)
    network = build_network(settings.metadata)
    network.load_state_dict({k: torch.as_tensor(v) for k, v in settings.weights.items()})

    def losses():
        inputs = torch.as_tensor(encoder.batch(positions.observations))
        with torch.no_grad():
            actor, critic = network.mlp_extractor(network.extract_features(inputs))
            logits = network.action_net(actor).masked_fill(
                ~torch.as_tensor(positions.masks), -1e9)
            policy = -(torch.as_tensor(positions.targets)
                       * torch.log_softmax(logits, 1).masked_fill(
                           ~torch.as_tensor(positions.masks), 0)).sum(1).mean()
            value = ((network.value_net(critic)[:, 0]
                      - torch.as_tensor(positions.win_shares)) ** 2).mean()
        return policy.item(), value.item()

    before = losses()
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-3)
    fit(network, optimizer, encoder, positions, ExpertIterationConfig(epochs=20, batch_size=32),
        torch.Generator().manual_seed(0), progress=False)
    after = losses()
    assert after[0] < before[0] and after[1] < 0.5 * before[1]


def test_forecast_games_give_every_position_its_movers_final_win_share():
    games = 5
    observations, masks, shares = forecast_games(3, games, seed=4)
    assert observations.shape[0] == masks.shape[0] == shares.size == games * TOTAL_PLAYS
    # Row t * games + g is game g's turn t; the seats move in turn from seat 0, so game g's
    # seat p moves at turns p, p + 3, ...: the same share at each, the three adding up to 1,
    # each 1, 1/k in a k-way draw or 0.
    by_turn = shares.reshape(TOTAL_PLAYS, games)
    seat_shares = by_turn[:3]
    assert (by_turn == np.tile(seat_shares, (TOTAL_PLAYS // 3, 1))).all()
    assert np.allclose(seat_shares.sum(axis=0), 1.0)
    winners = (seat_shares > 0).sum(axis=0)
    assert np.allclose(seat_shares, np.where(seat_shares > 0, 1.0 / winners, 0.0))
    assert masks[np.arange(masks.shape[0]), masks.argmax(axis=1)].all()


def test_a_value_fit_leaves_the_policy_and_values_held_out_games_better_than_a_constant():
    config = config_from_dict({**BASE, "network": {"hidden": [16, 16], "action_scorer": True},
                               "expert_iteration": {"players": "forecast", "fit": "value",
                                                    "games": 1000, "epochs": 4}})
    # Hungry's outcome is hard to tell before the last plays (a constant scores about 0.249
    # where the shipped network's value, fitted to 8,000 such games, scores 0.24), so the fit
    # needs many games.
    fitted = play_iteration(config, None, 0, None, progress=False)
    held_out = play_iteration(config, None, 1, None, progress=False)
    assert len(fitted) == 1000 * TOTAL_PLAYS and not fitted.targets.any()
    encoder = make_encoder("hungry", 2)
    torch.manual_seed(0)
    network = build_network(expert_iteration._metadata(config, encoder.size))
    inputs = torch.as_tensor(encoder.batch(held_out.observations[:500]))
    with torch.no_grad():
        logits_before = action_logits(network, inputs)
    before = held_out_value_losses(network, encoder, held_out)
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-3)
    losses = fit(network, optimizer, encoder, fitted, config.expert_iteration,
                 torch.Generator().manual_seed(0), progress=False)
    after = held_out_value_losses(network, encoder, held_out)
    assert list(losses) == ["value_loss"]
    with torch.no_grad():
        assert torch.equal(action_logits(network, inputs), logits_before)
    # The untrained value head is worse than a constant; fitted, it is better on games it
    # never saw, clearly so over their last 12 plays, where the outcome shows (over a whole
    # game the margin is small: the outcome is hard to tell before the last plays).
    assert before["held_out_value_loss"] > before["constant_value_loss"]
    assert after["held_out_value_loss"] < before["held_out_value_loss"]
    late = np.arange(len(held_out)) >= (TOTAL_PLAYS - 12) * 1000  # row t * games + g: turn t
    late_losses = held_out_value_losses(network, encoder, Positions(
        held_out.observations[late], held_out.masks[late], held_out.targets[late],
        held_out.win_shares[late]))
    assert late_losses["held_out_value_loss"] < 0.9 * late_losses["constant_value_loss"]


def test_held_out_value_losses_are_the_values_and_the_mean_shares_squared_errors():
    config, settings = tiny_settings()
    game = play_games("hungry", 2, {}, settings, game_seeds(3, 0, 1))[0]
    positions = Positions(game.observations[:4], game.masks[:4], game.targets[:4],
                          np.array([1.0, 0.0, 0.5, 1.0], np.float32))
    network = build_network(settings.metadata)
    with torch.no_grad():  # a value head that says 0.5 everywhere
        network.value_net.weight.zero_()
        network.value_net.bias.fill_(0.5)
    # 0.5 against the shares: (0.25 + 0.25 + 0 + 0.25) / 4; their mean 0.625: (0.140625 +
    # 0.390625 + 0.015625 + 0.140625) / 4.
    assert held_out_value_losses(network, make_encoder("hungry", 2), positions) == {
        "held_out_value_loss": 0.1875, "constant_value_loss": 0.17188}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny run through the command line (2 iterations of 3 games)."""
    out = tmp_path_factory.mktemp("expert_iteration")
    assert main(["train", str(TINY), "--out", str(out), "--no-progress"]) == 0
    return out


def test_a_run_writes_its_artefacts_and_its_network_guides_the_search(trained):
    for name in ("policy.safetensors", "policy.json", "config.yaml", "evaluation.csv",
                 "evaluation.json", "learning_curve.csv", "learning_curve.png",
                 "iterations.jsonl"):
        assert (trained / name).is_file(), name
    assert sorted(p.name for p in (trained / "checkpoints").iterdir()) == [
        "step_000000144", "step_000000288"]
    log = [json.loads(line) for line in (trained / "iterations.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in log] == [1, 2]
    # No cut-off in the first iteration: the value head is not fitted before it.
    assert [row["cutoff"] for row in log] == [None, 2]
    # Every iteration values its new games before fitting them: the squared errors of the
    # value and of the best constant, a share's variance (at most 1/4).
    for row in log:
        assert 0 <= row["constant_value_loss"] <= 0.25
        assert row["held_out_value_loss"] >= 0
    curve = (trained / "learning_curve.csv").read_text().splitlines()
    # The network as it started, after the first iteration, then the final table.
    assert [line.split(",")[:2] for line in curve[1:]] == [
        ["0", "random"], ["0", "greedy"], ["144", "random"], ["144", "greedy"],
        ["288", "random"], ["288", "greedy"]]
    metadata = read_metadata(trained / "policy.safetensors")
    assert metadata.steps == 288 and metadata.extra["value"] == "win_share"
    search = make_policy(f"search:4:1:{trained / 'policy.safetensors'}", "hungry", 2)
    from hunger_rl.envs import hungry_v0

    game_env = hungry_v0.env(num_players=2)
    game_env.reset(seed=0)
    observation = game_env.last()[0]
    assert observation["action_mask"][search.act(observation, np.random.default_rng(0))]


def test_a_killed_run_resumes_and_continues_identically(trained, tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "hunger_rl.cli", "train", str(TINY), "--out", str(out),
               "--no-progress"]
    run = subprocess.Popen(command, cwd=REPOSITORY, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL,
                           env={**os.environ, "PYTHONPATH": str(REPOSITORY)})
    try:
        while not (out / FIRST_CHECKPOINT).exists():
            assert run.poll() is None, "the run ended before its first checkpoint"
            time.sleep(0.02)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    # Whatever the kill left of the second iteration, the resumed run starts after the first.
    for later in (out / "checkpoints").glob("step_000000288"):
        shutil.rmtree(later)
    assert main(["train", str(TINY), "--out", str(out), "--resume", str(out),
                 "--no-progress"]) == 0
    for name, weights in load_file(trained / "policy.safetensors").items():
        assert torch.equal(weights, load_file(out / "policy.safetensors")[name]), name
    for name in ("learning_curve.csv", "evaluation.csv"):
        assert (out / name).read_text() == (trained / name).read_text()
    losses = [{k: v for k, v in json.loads(line).items() if "seconds" not in k}
              for line in (out / "iterations.jsonl").read_text().splitlines()]
    expected = [{k: v for k, v in json.loads(line).items() if "seconds" not in k}
                for line in (trained / "iterations.jsonl").read_text().splitlines()]
    assert losses == expected


@pytest.mark.slow
def test_ray_tasks_play_the_same_games_as_local_processes():
    config, settings = tiny_settings()
    local = play_iteration(config, settings, 0, None, progress=False)
    ray = expert_iteration._start_ray("local")
    try:
        remote = play_iteration(config, settings, 0, ray, progress=False)
    finally:
        ray.shutdown()
    for name in ("observations", "masks", "targets", "win_shares"):
        assert np.array_equal(getattr(local, name), getattr(remote, name))


BASE = {"game": "hungry", "num_players": 2, "backend": "expert_iteration"}


@pytest.mark.parametrize(("changes", "problem"), [
    ({"expert_iteration": {"simulations": 1}}, r"expert_iteration.simulations must be an "
                                               r"integer in \[2"),
    ({"expert_iteration": {"cutoff": -1}}, "expert_iteration.cutoff must be"),
    ({"expert_iteration": {"games": 0}}, "expert_iteration.games must be"),
    ({"expert_iteration": {"playouts": 8}}, "unknown key expert_iteration.playouts"),
    ({"expert_iteration": {"fit": "policy"}}, "expert_iteration.fit must be one of"),
    ({"expert_iteration": {"players": "expert"}}, "expert_iteration.players must be one of"),
    ({"expert_iteration": {"players": "forecast"}}, "expert_iteration.players: forecast plays "
                                                    "games without a search.*fit: value"),
    ({"expert_iteration": {"players": "forecast", "fit": "value", "cutoff": 2}},
     "expert_iteration.players: forecast .* cutoff: null"),
    ({"game": "hunger_show", "num_players": 4,
      "expert_iteration": {"players": "forecast", "fit": "value"}},
     "expert_iteration.players: forecast applies to hungry only"),
    ({"expert_iteration": {"ray_address": 6379}}, "expert_iteration.ray_address must be"),
    ({"expert_iteration": {"start": "nowhere/policy.safetensors"}}, "expert_iteration.start"),
    ({"expert_iteration": {"start": "expert"}}, "expert_iteration.start: 'expert' is not a "
                                                "trained network"),
    ({"expert_iteration": {"start": "pretrained:hungry_2p:network"}, "network": {"hidden": [16]}},
     "expert_iteration.start: 'pretrained:hungry_2p:network' has network.hidden"),
    # The shipped agent searches at play time; its network alone is the start.
    ({"expert_iteration": {"start": "pretrained:hungry_2p"}}, r"expert_iteration.start: "
     r"'pretrained:hungry_2p' is not a trained network \(a policy file or pretrained:NAME:network"),
    ({"network": {"privileged_critic": True}}, "network.privileged_critic applies to the sb3"),
])
def test_bad_expert_iteration_configs_name_the_key(changes, problem):
    with pytest.raises(ValueError, match=problem):
        config_from_dict({**BASE, **changes})
