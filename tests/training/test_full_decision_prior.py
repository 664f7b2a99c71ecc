"""The full-decision action scorer (``FullDecisionPolicy``): started from a default-mode agent
and the rule prior it plays the default decisions exactly; its config keys refuse bad values by
name; its policy files round-trip. scripts/full_decision_compare.py counts its departures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from hunger_rl.arena.matches import play_games
from hunger_rl.engines.hunger_show.full_decisions import NUM_FULL_ACTIONS, NUM_PICKS
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies.learned import load_policy, read_metadata, save_policy
from hunger_rl.policies.models.networks import FullDecisionPolicy
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.outputs import policy_metadata
from hunger_rl.training.train import make_model, make_vec_env, start_from, train

FULL = {"decision_mode": "agents"}
START = "pretrained:hunger_show_4p"
# The start as the full-decision network plays it: its argmax (the shipped agent samples).
START_ARGMAX = f"argmax:{START}"
PRIOR_RUN = {
    "game": "hunger_show", "num_players": 4, "seed": 3, "total_steps": 128,
    "game_options": FULL, "checkpoint_every_steps": 128, "torch_threads": 1,
    "env": {"n_envs": 2, "vec_env": "dummy"},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "network": {"hidden": [256, 256], "action_scorer": True, "rule_prior": 6.0,
                "start": START},
    "opponents": {"weights": {"expert": 1.0}},
    "evaluation": {"every_steps": 128, "games": 4, "opponents": ["expert"], "final_games": 4},
}


def started_policy_file(tmp_path, overrides=None):
    """The untrained full-decision network of ``PRIOR_RUN`` as training builds and starts it,
    written to a policy file."""
    config = config_from_dict({**PRIOR_RUN, **(overrides or {})})
    vec_env = make_vec_env(config)
    model = make_model(config, vec_env)
    start_from(model.policy, config, config.network.start)
    path = tmp_path / "start.safetensors"
    save_policy(path, model.policy, policy_metadata(config, vec_env.observation_space,
                                                    vec_env.action_space))
    return path, model.policy


def test_the_started_policy_takes_the_default_agents_picks_and_the_rule_choices(tmp_path):
    path, _ = started_policy_file(tmp_path)
    learner = load_policy(path, "hunger_show", 4)
    default_agent = make_policy(START_ARGMAX, "hunger_show", 4)
    base_size = default_agent._encode.action_features.start  # the default-mode observation
    env = hunger_show_v0.env(num_players=4, decision_mode="agents")
    opponents = [make_policy(spec, "hunger_show", 4) for spec in ("expert", "crowd", "greedy")]
    rng = np.random.default_rng(0)
    picks = later = 0
    for seed in range(4):
        env.reset(seed=seed)
        learner_agent = env.possible_agents[seed % 4]
        others = iter(opponents)
        seats = {agent: learner if agent == learner_agent else next(others)
                 for agent in env.possible_agents}
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = seats[agent].act(observation, rng)
            if agent == learner_agent:
                mask = observation["action_mask"]
                if mask[:NUM_PICKS].any():
                    picks += 1
                    default_view = {"observation": observation["observation"][:base_size],
                                    "action_mask": mask[:NUM_PICKS]}
                    assert action == default_agent.act(default_view, rng)
                else:
                    later += 1
                    assert action == int(np.flatnonzero(observation["rule_action"])[0])
            env.step(action)
    assert picks > 10 and later > 10


def test_at_the_start_full_decision_games_are_the_default_agents_games(tmp_path):
    path, _ = started_policy_file(tmp_path)
    lineups = [(str(path), "expert", "crowd", "greedy"), ("greedy", str(path), "expert", "crowd"),
               ("crowd", "greedy", str(path), "expert"), ("expert", "crowd", "greedy", str(path))]
    full = play_games("hunger_show", 4, lineups * 2, seed=11, env_kwargs=FULL, progress=False)
    default = play_games("hunger_show", 4,
                         [tuple(START_ARGMAX if s == str(path) else s for s in lineup)
                          for lineup in lineups * 2], seed=11, progress=False)
    assert [(g.win_shares, g.scores) for g in full] == [(g.win_shares, g.scores)
                                                        for g in default]
    # Not a table of identical games: the seeds deal different shows.
    assert len({g.scores for g in default}) > 1


def test_the_compare_script_counts_no_departure_at_the_start_and_every_one_after(tmp_path):
    script = Path(__file__).parents[2] / "scripts" / "full_decision_compare.py"
    spec = importlib.util.spec_from_file_location("full_decision_compare", script)
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    path, network = started_policy_file(tmp_path)
    counts = compare.departures(str(path), START_ARGMAX, games=2, seed=5)
    assert counts["pick"]["steps"] > 0 and counts["supper"]["steps"] > 0
    assert all(row["departures"] == 0 for row in counts.values())
    # A prior below zero on the rule's choice: every later choice with another legal one departs.
    with torch.no_grad():
        later = NUM_FULL_ACTIONS - NUM_PICKS
        network.action_net.weight[NUM_PICKS:, -later:] = -6.0 * torch.eye(later)
    save_policy(path, network, read_metadata(path))
    counts = compare.departures(str(path), START_ARGMAX, games=2, seed=5)
    assert counts["pick"]["departures"] == 0
    assert sum(row["departures"] for kind, row in counts.items() if kind != "pick") > 0


def test_the_rule_prior_and_the_network_round_trip_a_policy_file(tmp_path):
    path, network = started_policy_file(tmp_path)
    assert isinstance(network, FullDecisionPolicy)
    metadata = read_metadata(path)
    assert (metadata.rule_prior, metadata.action_scorer, metadata.game_options) == (
        6.0, True, FULL)
    loaded = load_policy(path, "hunger_show", 4)
    saved = network.state_dict()
    assert all(torch.equal(tensor, saved[name])
               for name, tensor in loaded.torch_network().state_dict().items())
    # The later choices' rows read the rule one-hot with the prior's weight, nothing else.
    weight = loaded.torch_network().action_net.weight
    later = NUM_FULL_ACTIONS - NUM_PICKS
    assert torch.equal(weight[NUM_PICKS:, -later:], 6.0 * torch.eye(later))
    assert not weight[NUM_PICKS:, :-later].any()


def test_a_prior_started_run_trains_and_its_file_plays_that_mode(tmp_path):
    train(config_from_dict({**PRIOR_RUN, "out": str(tmp_path)}), progress=False)
    policy = load_policy(tmp_path, "hunger_show", 4)
    assert policy.metadata.rule_prior == 6.0 and policy.metadata.steps == 128
    records = play_games("hunger_show", 4, [(str(tmp_path), "expert", "expert", "expert")] * 2,
                         seed=1, env_kwargs=FULL, progress=False)
    assert all(sum(r.win_shares) == pytest.approx(1.0) for r in records)


def test_weights_that_do_not_fit_are_refused_and_leave_the_network_as_it_was():
    config = config_from_dict(PRIOR_RUN)
    network = make_model(config, make_vec_env(config)).policy  # not started from the agent
    before = {name: tensor.clone() for name, tensor in network.state_dict().items()}
    weights = make_policy(START, "hunger_show", 4).torch_network().state_dict()
    with pytest.raises(ValueError, match=r"mlp_extractor\.endgame\.bias has no place"):
        network.start_from_default_decisions({**weights,
                                              "mlp_extractor.endgame.bias": torch.zeros(1)})
    with pytest.raises(ValueError, match=r"value_net\.weight has shape \(1, 8\), this "
                                         r"network's \(1, 256\)"):
        network.start_from_default_decisions({**weights, "value_net.weight": torch.zeros(1, 8)})
    assert all(torch.equal(tensor, before[name])
               for name, tensor in network.state_dict().items())


@pytest.mark.parametrize(("network", "message"), [
    ({"rule_prior": -1.0}, r"network\.rule_prior must be a number in \[0, 100\]"),
    ({"rule_prior": "strong"}, r"network\.rule_prior must be a number"),
    ({"rule_prior": 101}, r"network\.rule_prior must be a number in \[0, 100\]"),
    ({"start": 3}, r"network\.start must be a string or null"),
    ({"start": "pretrained:nobody"}, r"network\.start: unknown pretrained agent 'nobody'"),
    ({"start": "pretrained:hunger_show_2p"}, r"network\.start: pretrained:hunger_show_2p plays "
                                             r"hunger_show with 2 players"),
    ({"start": "expert"}, r"network\.start: 'expert' is not a trained network"),
    ({"hidden": [64, 64]}, r"network\.start: 'pretrained:hunger_show_4p' has network\.hidden "
                           r"\[256, 256\], the config \[64, 64\]"),
    ({"action_scorer": False, "rule_prior": 0.0},
     r"network\.start: 'pretrained:hunger_show_4p' has network\.action_scorer True"),
])
def test_bad_values_of_the_new_network_keys_are_named(network, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict({**PRIOR_RUN, "network": {**PRIOR_RUN["network"], **network}})


def test_the_rule_prior_needs_the_full_decision_action_scorer():
    default_mode = {**PRIOR_RUN, "game_options": {},
                    "network": {"action_scorer": True, "rule_prior": 2.0}}
    with pytest.raises(ValueError, match=r"network\.rule_prior applies to "
                                         r"network\.action_scorer: true in the full-decision"):
        config_from_dict(default_mode)
    plain = {**PRIOR_RUN, "network": {"rule_prior": 2.0}}
    with pytest.raises(ValueError, match=r"network\.rule_prior applies"):
        config_from_dict(plain)


def test_a_default_mode_start_must_match_the_whole_network():
    # In the default mode the start is loaded whole, so its game options must be the config's.
    with pytest.raises(ValueError, match=r"network\.start: 'pretrained:hunger_show_4p' was "
                                         r"trained with game_options \{\}"):
        config_from_dict({**PRIOR_RUN, "game_options": {"characters": True},
                          "network": {"action_scorer": True, "start": START}})
    with pytest.raises(ValueError, match=r"network\.start applies to the sb3 and "
                                         r"exploiter_league backends only"):
        config_from_dict({**PRIOR_RUN, "game_options": {}, "backend": "rllib",
                          "network": {"start": START}})


def test_a_default_mode_run_starts_from_the_agent_it_names(tmp_path):
    config = config_from_dict({**PRIOR_RUN, "game_options": {},
                               "network": {"action_scorer": True, "start": START}})
    model = make_model(config, make_vec_env(config))
    start_from(model.policy, config, config.network.start)
    agent = make_policy(START, "hunger_show", 4).torch_network().state_dict()
    assert all(torch.equal(tensor, agent[name])
               for name, tensor in model.policy.state_dict().items())
