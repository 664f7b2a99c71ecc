"""The batched HUNGER league: snapshot seats act as the same snapshot loaded as a policy does,
prioritised fictitious self-play draws, the learner's recorded results, config errors, and a
tiny league run that resumes after a kill exactly as the uninterrupted run goes on."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
from conftest import assert_same_weights

from hunger_rl.policies.hunger_show_batched import LEARNER
from hunger_rl.policies.learned import build_network, load_policy, network_weights, save_policy
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.checkpoint import STATE_FILE, checkpoint_folder
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.league import RESULT_MEMORY, League, pairwise_results
from hunger_rl.training.train import make_vec_env, train

TINY_LEAGUE = {
    "game": "hunger_show", "num_players": 4, "seed": 2, "total_steps": 512,
    "checkpoint_every_steps": 256, "torch_threads": 1,
    "env": {"n_envs": 8, "batched": True},
    "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1},
    "network": {"hidden": [32, 32], "action_scorer": True},
    # One snapshot per update and a pool of two: snapshots leave the pool during the run.
    "opponents": {"weights": {"self": 0.5, "expert": 0.25, "crowd": 0.25},
                  "pfsp_exponent": 2.0, "snapshot_every": 1, "max_snapshots": 2},
    "evaluation": {"every_steps": 512, "games": 4, "opponents": ["crowd"], "final_games": 4},
}
FADE = 1 - 1 / RESULT_MEMORY


def league_env(weights, seed=0):
    config = config_from_dict({**TINY_LEAGUE, "seed": seed,
                               "opponents": {"weights": weights, "max_snapshots": 8,
                                             "pfsp_exponent": 2.0}})
    return make_vec_env(config)


def saved_snapshots(vec, folder, count):
    """``count`` different networks, each added to the env's pool and saved as a policy file;
    the files, in the order of the pool."""
    metadata = vec.league.snapshot_metadata
    paths = []
    for k in range(count):
        torch.manual_seed(k)
        network = build_network(metadata)
        with torch.no_grad():
            for parameter in network.parameters():
                parameter.normal_(0.0, 0.3)
        paths.append(save_policy(folder / f"snapshot_{k}.safetensors", network, metadata))
        vec.add_snapshot(network_weights(network))
    return paths


def record_played_actions(vec):
    """Every (B, N) action array the env hands its batch."""
    played = []
    step = vec.batch.step

    def spy(actions):
        played.append(np.array(actions))
        return step(actions)

    vec.batch.step = spy
    return played


def snapshot_seats(vec, masks):
    """(shows, seats, pool index) of the seats snapshots play that have a move to make."""
    pool = list(vec.league.pool)
    seated = np.isin(vec.members, pool) & masks.any(axis=2)
    shows, seats = np.nonzero(seated)
    return shows, seats, np.array([pool.index(m) for m in vec.members[shows, seats]], int)


def test_snapshot_seats_act_as_the_loaded_snapshot(tmp_path):
    """Every snapshot seat of the batch plays what the same snapshot, loaded from its policy
    file, plays on that seat's observation: the same sample from the same generator (one
    forward pass per snapshot, as the env groups them), and, playing argmax, the same action
    as the loaded policy asked one observation at a time."""
    vec = league_env({"self": 1.0})
    paths = saved_snapshots(vec, tmp_path, 3)
    sampled = [load_policy(p, "hunger_show", 4, temperature=1.0) for p in paths]
    argmax = [load_policy(p, "hunger_show", 4) for p in paths]
    played = record_played_actions(vec)
    vec.reset()
    rng = np.random.default_rng(1)
    checked = {"sampled": 0, "argmax": 0}
    for step in range(24):
        if step == 12:  # the second half: the pool's snapshots play their argmax
            for policy in vec.league.policies.values():
                policy.temperature = 0.0
        out = vec.batch.outputs
        observations, masks = out.observations.copy(), out.action_masks.copy()
        shows, seats, owners = snapshot_seats(vec, masks)
        generator = copy.deepcopy(vec._snapshot_rng)
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))
        actions = played[-1][shows, seats]
        assert len(np.unique(owners)) > 1  # several snapshots at the tables at once
        for k in np.unique(owners):
            mine = owners == k
            requests = [{"observation": observations[b, s], "action_mask": masks[b, s]}
                        for b, s in zip(shows[mine], seats[mine], strict=True)]
            if step < 12:
                expected = sampled[k].act_batch(requests, generator)
                checked["sampled"] += mine.sum()
            else:
                expected = [argmax[k].act(r, np.random.default_rng()) for r in requests]
                checked["argmax"] += mine.sum()
            np.testing.assert_array_equal(actions[mine], expected)
    assert min(checked.values()) > 100


def test_named_network_seats_act_as_the_same_spec_loaded_by_path(tmp_path):
    """Trained networks named in opponents.weights by their specs play in the batch as the
    same specs loaded by ``make_policy`` play on the same observations: the sampled one the
    same sample from the same generator, the argmax one its argmax; scripted seats are left to
    the compiled players."""
    paths = saved_snapshots(league_env({"self": 1.0}), tmp_path, 2)
    sampled_spec, argmax_spec = f"sample:0.7:{paths[0]}", str(paths[1])
    vec = league_env({sampled_spec: 1.0, argmax_spec: 1.0, "expert": 1.0})
    assert vec.league.named == [sampled_spec, argmax_spec, "expert"]
    sampled = make_policy(sampled_spec, "hunger_show", 4)
    argmax = make_policy(argmax_spec, "hunger_show", 4)
    played = record_played_actions(vec)
    vec.reset()
    rng = np.random.default_rng(2)
    checked = {0: 0, 1: 0}
    unlike_argmax = 0
    for _ in range(16):
        out = vec.batch.outputs
        observations, masks = out.observations.copy(), out.action_masks.copy()
        members = vec.members.copy()
        generator = copy.deepcopy(vec._snapshot_rng)
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))
        # The members act in the order of their numbers: the sampled network draws first.
        for member, policy in ((0, sampled), (1, argmax)):
            shows, seats = np.nonzero((members == member) & masks.any(axis=2))
            requests = [{"observation": observations[b, s], "action_mask": masks[b, s]}
                        for b, s in zip(shows, seats, strict=True)]
            if not requests:
                continue
            expected = policy.act_batch(requests, generator)
            np.testing.assert_array_equal(played[-1][shows, seats], expected)
            checked[member] += len(requests)
            if member == 0:
                unlike_argmax += int((expected != make_policy(
                    f"argmax:{paths[0]}", "hunger_show", 4).act_batch(requests, rng)).sum())
        # The compiled players play the expert's seats and leave the networks' alone.
        kinds = vec.players.kinds
        assert (kinds[vec.members == 2] != LEARNER).all()
        assert (kinds[(vec.members == 0) | (vec.members == 1)] == LEARNER).all()
    assert min(checked.values()) > 50
    assert unlike_argmax > 0  # sampling at 0.7 is not the argmax


def test_pfsp_draws_each_member_by_its_weight_times_one_minus_p_squared(tmp_path):
    vec = league_env({"self": 1.0})
    league = League({"expert": 3.0, "crowd": 1.0, "self": 2.0}, pfsp_exponent=2.0,
                    max_snapshots=2, snapshot_metadata=vec.league.snapshot_metadata)
    weights = network_weights(build_network(vec.league.snapshot_metadata))
    for _ in range(3):  # the first leaves the pool of two
        league.add_snapshot(weights)
    assert list(league.pool) == [3, 4]
    league.record(np.array([0, 0, 0, 3, 4, 4]), np.array([1.0, 1.0, 0.0, 0.5, 0.0, 0.0]))
    # Faded sums and counts of the results, plus half a game of prior.
    p_expert = (FADE**2 + FADE + 0.5) / (FADE**2 + FADE + 1 + 1)
    p_crowd = 0.5  # not met yet
    p_first = (0.5 + 0.5) / (1 + 1)
    p_second = 0.5 / (FADE + 1 + 1)
    expected = np.array([3 * (1 - p_expert) ** 2, 1 * (1 - p_crowd) ** 2,
                         1 * (1 - p_first) ** 2, 1 * (1 - p_second) ** 2])
    members, chances = league.candidates()
    np.testing.assert_array_equal(members, [0, 1, 3, 4])
    np.testing.assert_allclose(chances, expected / expected.sum(), rtol=1e-12)
    drawn = league.draw(np.random.default_rng(0), 20_000, 4)
    shares = [(drawn == m).mean() for m in members]
    np.testing.assert_allclose(shares, chances, atol=0.01)
    # Without PFSP the weights alone, self shared between the snapshots.
    plain = League({"expert": 3.0, "crowd": 1.0, "self": 2.0}, max_snapshots=2,
                   snapshot_metadata=vec.league.snapshot_metadata)
    plain.add_snapshot(weights)
    plain.add_snapshot(weights)
    np.testing.assert_allclose(plain.candidates()[1], [0.5, 1 / 6, 1 / 6, 1 / 6])


def test_records_survive_a_checkpoint_round_trip():
    vec = league_env({"self": 1.0, "expert": 1.0})
    weights = network_weights(build_network(vec.league.snapshot_metadata))
    vec.add_snapshot(weights)
    vec.add_snapshot(weights)
    vec.league.record(np.array([0, 2, 1]), np.array([0.5, 1.0, 0.0]))
    state = json.loads(json.dumps(vec.league_state()))
    again = league_env({"self": 1.0, "expert": 1.0})
    again.add_snapshot(weights)
    again.add_snapshot(weights)
    again.restore_league(state)
    assert again.league.records == vec.league.records
    np.testing.assert_array_equal(again.league.candidates()[1], vec.league.candidates()[1])
    with pytest.raises(ValueError, match="league records for 2 snapshots, the pool holds 0"):
        league_env({"self": 1.0}).league.restore({"scripted": {}, "snapshots": [[0, 1]] * 2})


def test_pairwise_results_by_hand():
    # Ranked by win share, then by how long each stayed (the learner: 1, its last day).
    learner = np.array([1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    seat = np.array([0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    stays = np.array([1, 1, 1, 1, 0, 2, 1, 0])
    np.testing.assert_array_equal(pairwise_results(learner, seat, stays),
                                  [1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.5, 0.0])


def test_a_random_learner_is_recorded_level_with_random_players_and_beaten_by_experts():
    vec = league_env({"expert": 1.0, "random": 1.0}, seed=3)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))
    records = vec.league_state()["scripted"]
    assert min(count for _, count in records.values()) > 50
    p_expert, p_random = (total / count for total, count in records.values())
    # Against its own kind a random learner ranks level on average (0.5); experts beat it.
    assert p_expert < 0.35 and abs(p_random - 0.5) < 0.06


@pytest.mark.parametrize(("changes", "message"), [
    ({"opponents": {"pfsp_exponent": -1}},
     r"opponents.pfsp_exponent must be a number in \[0, 16\], got -1"),
    ({"opponents": {"pfsp_exponent": 2}, "env": {"batched": False}},
     "opponents.pfsp_exponent draws the league of the batched engine: set env.batched: true"),
    ({"game": "hungry", "num_players": 2, "network": {"action_scorer": True},
      "opponents": {"weights": {"forecast": 1}, "pfsp_exponent": 2},
      "evaluation": {"opponents": ["random"]}},
     r"opponents.pfsp_exponent draws the league .*\(hunger_show only\)"),
    ({"opponents": {"weights": {"self": 1, "smmcts:2": 1}}},
     r"opponents.weights: the batched HUNGER engine plays \['random', 'greedy', 'crowd', "
     r"'expert', 'self'\] or a trained network, not 'smmcts:2' \(which the reference env "
     r"plays: env.batched: false\)"),
    ({"opponents": {"weights": {"self": 1}, "max_snapshots": 0}},
     r"opponents.max_snapshots must be an integer in \[1, 1000\], got 0"),
])
def test_bad_league_settings_are_errors_naming_the_key(changes, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict({**TINY_LEAGUE, **changes})


def test_a_tiny_league_run_resumes_after_a_kill_as_the_uninterrupted_run(
        tmp_path, train_killed_and_resumed):
    config = config_from_dict({**TINY_LEAGUE, "out": str(tmp_path / "whole")})
    train(config, progress=False)
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    train_killed_and_resumed(config.replace(out=str(killed)))

    assert_same_weights(whole / "policy.safetensors", killed / "policy.safetensors")
    for name in ("policy.safetensors", "snapshots.safetensors"):
        assert_same_weights(checkpoint_folder(whole, 512) / name,
                            checkpoint_folder(killed, 512) / name)
    records = [json.loads((checkpoint_folder(out, 512) / STATE_FILE).read_text())
               for out in (whole, killed)]
    assert records[0]["league"] == records[1]["league"]
    assert records[0]["updates"] == records[1]["updates"] == 4
    assert len(records[0]["league"]["snapshots"]) == 2  # the pool of two, full
    assert all(count > 0 for _, count in records[0]["league"]["scripted"].values())
    rows = [json.loads((out / "evaluation.json").read_text())["rows"] for out in (whole, killed)]
    assert rows[0] == rows[1]
