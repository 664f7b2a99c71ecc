"""Policy files: metadata is checked field by field and against the file's tensor shapes before
any network is built; weights must be finite; every bad file is a ValueError saying what."""

import json

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from hunger_rl.envs import hungry_v0
from hunger_rl.policies import learned
from hunger_rl.policies.learned import (
    FORMAT,
    METADATA_KEY,
    PolicyMetadata,
    build_network,
    load_policy,
    save_policy,
)
from hunger_rl.policies.models.encoders import make_encoder


def tiny_metadata(**changes):
    encoder = make_encoder("hungry", 2, {}, False)
    num_actions = int(hungry_v0.raw_env(num_players=2).action_space("player_0").n)
    fields = {"game": "hungry", "num_players": 2, "observation_size": encoder.size,
              "num_actions": num_actions, "hidden": [8, 8], "activation": "tanh"}
    return PolicyMetadata(**{**fields, **changes})


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    """A small untrained Hungry 2p policy, as ``save_policy`` writes it."""
    metadata = tiny_metadata()
    path = tmp_path_factory.mktemp("policy") / "policy.safetensors"
    return save_policy(path, build_network(metadata), metadata)


def header_of(path):
    with safe_open(str(path), framework="pt") as handle:
        return handle.metadata()


def rewrite(source, target, metadata=None, tensors=None):
    """A copy of a policy file with other metadata fields and/or tensors."""
    fields = json.loads(header_of(source)[METADATA_KEY])
    fields.update(metadata or {})
    weights = load_file(str(source))
    weights.update(tensors or {})
    save_file(weights, str(target), metadata={"format": FORMAT, METADATA_KEY: json.dumps(fields)})
    return target


def test_a_good_file_loads_and_plays(policy_file):
    policy = load_policy(policy_file, "hungry", 2)
    game = hungry_v0.raw_env(num_players=2)
    game.reset(seed=0)
    observation = game.observe(game.agent_selection)
    assert observation["action_mask"][policy.act(observation, np.random.default_rng(0))]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Defect 8: sizes the tensors do not have are refused before anything is built.
        ({"hidden": [20000, 20000]}, r"make mlp_extractor.policy_net.0.weight of shape "
                                     r"\(20000, 157\); the file's is \(8, 157\)"),
        ({"hidden": [10**6, 10**6]}, r"the file's is \(8, 157\)"),
        ({"num_actions": 10**9},
         r"action_net.bias of shape \(1000000000,\); the file's is \(50,\)"),
        ({"hidden": [8]}, r"hidden \[8\] has 1 layers, the file has more"),
        ({"activation": "sigmoid"},
         r"activation must be one of \['relu', 'tanh'\], got 'sigmoid'"),
        ({"game_options": [1]}, r"game_options must be a mapping of option names, got \[1\]"),
        ({"game_options": {"wizard": 1}},
         r"game_options or num_players rejected by hungry: .*'wizard'"),
        ({"game_options": {"tied_second": "never"}},
         r"game_options or num_players rejected by hungry: .*tied_second"),
        ({"game_options": {"reward": 3}}, r"rejected by hungry: .*reward"),
        ({"num_players": 5}, r"game_options or num_players rejected by hungry: .*num_players"),
        ({"hidden": [-1]}, r"hidden must be a non-empty list of positive integers, got \[-1\]"),
        ({"hidden": []}, r"hidden must be a non-empty list"),
        ({"hidden": "8,8"}, r"hidden must be a non-empty list"),
        ({"endgame_hidden": []}, r"endgame_hidden must be a non-empty list"),
        ({"endgame_hidden": [0]}, r"endgame_hidden must be a non-empty list"),
        ({"num_players": "2"}, r"num_players must be a positive integer, got '2'"),
        ({"observation_size": True}, r"observation_size must be a positive integer"),
        ({"game": "chess"}, r"game must be one of \['hunger_show', 'hungry'\]"),
        ({"action_scorer": "yes"}, r"action_scorer must be true or false"),
        ({"steps": -1}, r"steps must be a non-negative integer"),
        ({"action_value_gain": 0}, r"action_value_gain must be a number in \(0, 1e6\], got 0"),
        ({"action_value_gain": True}, r"action_value_gain must be a number"),
        ({"wizard": 1}, r"unknown keys \['wizard'\]"),
    ],
)
def test_bad_metadata_is_refused_before_building(policy_file, tmp_path, monkeypatch, changes,
                                                 message):
    bad = rewrite(policy_file, tmp_path / "bad.safetensors", metadata=changes)

    def no_build(metadata):
        raise AssertionError("a network was built from unchecked metadata")

    monkeypatch.setattr(learned, "build_network", no_build)
    with pytest.raises(ValueError, match=message) as error:
        load_policy(bad, "hungry", 2)
    assert "corrupt policy metadata" in str(error.value)
    assert len(str(error.value)) < 400


def test_non_finite_weights_are_refused(policy_file, tmp_path):
    weights = load_file(str(policy_file))
    for value in (float("nan"), float("inf")):
        poisoned = weights["action_net.weight"].clone()
        poisoned[0, 0] = value
        bad = rewrite(policy_file, tmp_path / "nan.safetensors",
                      tensors={"action_net.weight": poisoned})
        with pytest.raises(ValueError, match="action_net.weight holds NaN or infinite weights"):
            load_policy(bad, "hungry", 2)


def test_other_dtypes_and_missing_tensors_are_refused(policy_file, tmp_path):
    weights = load_file(str(policy_file))
    as_double = {"action_net.bias": weights["action_net.bias"].double()}
    with pytest.raises(ValueError, match=r"weights must be F32, the file has \['F64'\]"):
        load_policy(rewrite(policy_file, tmp_path / "f64.safetensors", tensors=as_double),
                    "hungry", 2)
    missing = tmp_path / "missing.safetensors"
    del weights["value_net.bias"]
    header = header_of(policy_file)
    save_file(weights, str(missing), metadata=header)
    with pytest.raises(ValueError, match="do not fit the network"):
        load_policy(missing, "hungry", 2)


def test_metadata_that_is_not_an_object_is_refused(policy_file, tmp_path):
    weights = load_file(str(policy_file))
    for text in ("[1, 2]", "{", "[" * 100_000):
        bad = tmp_path / "bad.safetensors"
        save_file(weights, str(bad), metadata={"format": FORMAT, METADATA_KEY: text})
        with pytest.raises(ValueError, match="corrupt policy metadata"):
            load_policy(bad, "hungry", 2)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats()
    | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
# The fixtures are read-only or rewritten whole by each example.
FIXTURES = [HealthCheck.function_scoped_fixture]
FIELDS = [f for f in PolicyMetadata.__dataclass_fields__] + ["other"]


@settings(max_examples=60, deadline=None, suppress_health_check=FIXTURES)
@given(changes=st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES | st.lists(
    st.integers(-3, 10**7), max_size=4), max_size=3))
def test_fuzzed_metadata_loads_or_is_a_value_error(policy_file, tmp_path, changes):
    """Any metadata fields: the policy loads, or a ValueError names the problem."""
    try:
        bad = rewrite(policy_file, tmp_path / "fuzz.safetensors", metadata=changes)
    except ValueError:  # JSON cannot write NaN-free... it can; only an unserialisable value
        return
    try:
        load_policy(bad, "hungry", 2)
    except ValueError as error:
        assert str(error)


@settings(max_examples=40, deadline=None, suppress_health_check=FIXTURES)
@given(data=st.binary(max_size=300), cut=st.integers(0, 2000))
def test_fuzzed_file_bytes_load_or_are_a_value_error(policy_file, tmp_path, data, cut):
    """A truncated file, a prefix spliced with random bytes, or random bytes alone."""
    original = policy_file.read_bytes()
    bad = tmp_path / "bytes.safetensors"
    for content in (original[:cut] + data, data, original[:8] + data):
        bad.write_bytes(content)
        with pytest.raises(ValueError):
            load_policy(bad, "hungry", 2)


def test_save_policy_replaces_the_file_atomically(policy_file, tmp_path, monkeypatch):
    """A crash while writing leaves the previous file whole and no stray temporary file."""
    target = tmp_path / "policy.safetensors"
    target.write_bytes(policy_file.read_bytes())
    network = build_network(tiny_metadata())
    with torch.no_grad():
        network.action_net.bias.fill_(1.0)

    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(learned.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        save_policy(target, network, tiny_metadata())
    assert target.read_bytes() == policy_file.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.safetensors"]
    monkeypatch.undo()
    save_policy(target, network, tiny_metadata())
    assert load_policy(target, "hungry", 2).torch_network().action_net.bias.eq(1.0).all()
