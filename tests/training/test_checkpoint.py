"""Checkpoints: a round trip restores everything; a bad state.json or tensor file is a clear
ValueError that changes nothing; a run killed during any write of a checkpoint still resumes
from its run folder, from the newest complete checkpoint, and says which."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hunger_rl.envs import hungry_v0
from hunger_rl.policies import learned
from hunger_rl.policies.learned import PolicyMetadata, build_network, network_weights
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.training.checkpoint import (
    STATE_FILE,
    TrainingState,
    checkpoint_folder,
    load_checkpoint,
    save_checkpoint,
)
from hunger_rl.training.config import config_from_dict, load_config
from hunger_rl.training.train import prepare_output

ROW = {"steps": 256, "opponent": "random", "games": 8, "win_share": 0.5, "ci_low": 0.2,
       "ci_high": 0.8}


def tiny_metadata():
    return PolicyMetadata(
        game="hungry", num_players=2, observation_size=make_encoder("hungry", 2, {}, False).size,
        num_actions=int(hungry_v0.raw_env(num_players=2).action_space("player_0").n),
        hidden=[8, 8], activation="tanh")


def trained_network(seed):
    """A small network whose Adam state is filled by one step."""
    torch.manual_seed(seed)
    network = build_network(tiny_metadata())
    for parameter in network.parameters():
        torch.nn.init.normal_(parameter)
    loss = sum(p.square().sum() for p in network.parameters())
    loss.backward()
    network.optimizer.step()
    return network


def save(run, network, steps):
    state = TrainingState(steps=steps, updates=steps // 64, history=[{**ROW, "steps": steps}],
                          snapshots=[network_weights(network)])
    return save_checkpoint(checkpoint_folder(run, steps), network, network.optimizer,
                           tiny_metadata(), state, {"seed": 0})


def weights_of(network):
    return {k: v.clone() for k, v in network.state_dict().items()}


def same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture
def run(tmp_path):
    """A run folder with checkpoints at 256 and 512 steps, of different networks."""
    save(tmp_path, trained_network(1), 256)
    save(tmp_path, trained_network(2), 512)
    return tmp_path


def test_round_trip(run, capsys):
    network = trained_network(9)
    state = load_checkpoint(checkpoint_folder(run, 256), network, network.optimizer,
                            tiny_metadata())
    source = trained_network(1)
    assert same(network.state_dict(), source.state_dict())
    assert (state.steps, state.updates, state.history) == (256, 4, [ROW])
    assert same({k: torch.from_numpy(v) for k, v in state.snapshots[0].items()},
                source.state_dict())
    restored, original = network.optimizer.state_dict(), source.optimizer.state_dict()
    for index, entries in original["state"].items():
        assert same(restored["state"][index], entries)
    assert capsys.readouterr().out == ""  # a named checkpoint is taken as it is, silently


def test_a_run_folder_resumes_from_its_newest_checkpoint(run, capsys):
    network = trained_network(9)
    state = load_checkpoint(run, network, network.optimizer, tiny_metadata())
    assert state.steps == 512
    assert same(network.state_dict(), trained_network(2).state_dict())
    assert f"resume: from {checkpoint_folder(run, 512)}" in capsys.readouterr().out
    assert load_checkpoint(run / "checkpoints", network, network.optimizer,
                           tiny_metadata()).steps == 512


def corrupt_state(run, steps, text):
    (checkpoint_folder(run, steps) / STATE_FILE).write_text(text)


def good_record(run, steps=512):
    return json.loads((checkpoint_folder(run, steps) / STATE_FILE).read_text())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Defect 9: each of these was a raw int() error or was accepted.
        ({"steps": "abc"}, r"steps must be an integer in \[0, 1000000000\], got 'abc'"),
        ({"steps": None}, "steps must be an integer .*, got None"),
        ({"steps": -5}, "steps must be an integer .*, got -5"),
        ({"steps": 1e30}, "steps must be an integer .*, got 1e[+]30"),
        ({"steps": True}, "steps must be an integer"),
        ({"updates": 2.5}, "updates must be an integer"),
        ({"history": "abc"}, "history must be a list of evaluation rows, got 'abc'"),
        ({"history": [1]}, r"history\[0\] must be a mapping of"),
        ({"history": [{**ROW, "win_share": 7}]}, r"history\[0\].win_share is not valid: 7"),
        ({"history": [{**ROW, "steps": "x"}]}, r"history\[0\].steps is not valid"),
        ({"format": "other/1"}, "format 'other/1', expected"),
        ({"config": None}, "config must be a mapping"),
        ({"league": "x"}, "league must be a mapping of scripted and snapshots records"),
        ({"league": {"scripted": {"expert": [3, 2]}, "snapshots": []}},
         r"league.scripted\['expert'\] must be a \[sum, count\] pair"),
        ({"league": {"scripted": {}, "snapshots": [[0.5, float("inf")]]}},
         r"league.snapshots\[0\] must be a \[sum, count\] pair"),
        ({"league": {"scripted": {}, "snapshots": [[0, 1], [1, 2]]}},
         "league records for 2 snapshots, the checkpoint holds 1"),
    ],
)
def test_a_bad_state_file_is_refused_and_changes_nothing(run, changes, message):
    corrupt_state(run, 512, json.dumps({**good_record(run), **changes}))
    network = trained_network(9)
    before, optimizer_before = weights_of(network), network.optimizer.state_dict()
    with pytest.raises(ValueError, match=message) as error:
        load_checkpoint(checkpoint_folder(run, 512), network, network.optimizer,
                        tiny_metadata())
    assert "corrupt" in str(error.value) and STATE_FILE in str(error.value)
    assert same(network.state_dict(), before)
    assert same(network.optimizer.state_dict()["state"][0], optimizer_before["state"][0])


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "[" * 100_000, "\udcff"])
def test_a_state_file_that_is_not_a_json_object_is_refused(run, text):
    (checkpoint_folder(run, 512) / STATE_FILE).write_bytes(text.encode(errors="surrogateescape"))
    network = trained_network(9)
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(checkpoint_folder(run, 512), network, network.optimizer,
                        tiny_metadata())


def test_tensor_files_that_do_not_fit_are_refused(run):
    folder = checkpoint_folder(run, 512)
    other = build_network(PolicyMetadata(**{**tiny_metadata().__dict__, "hidden": [4, 4]}))
    network = trained_network(9)
    before = weights_of(network)
    state = TrainingState(snapshots=[network_weights(other)])
    small = save_checkpoint(run / "small", other, other.optimizer,
                            PolicyMetadata(**{**tiny_metadata().__dict__, "hidden": [4, 4]}),
                            state, {})
    (folder / "snapshots.safetensors").write_bytes((small / "snapshots.safetensors").read_bytes())
    with pytest.raises(ValueError, match="snapshot 0 does not fit the network"):
        load_checkpoint(folder, network, network.optimizer, tiny_metadata())
    (folder / "snapshots.safetensors").unlink()
    (folder / "optimizer.safetensors").write_bytes((small / "optimizer.safetensors").read_bytes())
    with pytest.raises(ValueError, match="is corrupt"):
        load_checkpoint(folder, network, network.optimizer, tiny_metadata())
    assert same(network.state_dict(), before)


def test_newer_incomplete_checkpoints_are_skipped_with_a_line(run, capsys):
    """A newest folder as a non-atomic writer killed mid-write would leave it: resume falls back
    and says why."""
    corrupt_state(run, 512, '{"format": "hunger-rl-checkpoint/1", "ste')
    network = trained_network(9)
    state = load_checkpoint(run, network, network.optimizer, tiny_metadata())
    assert state.steps == 256
    out = capsys.readouterr().out
    assert f"resume: skipping {checkpoint_folder(run, 512)}: corrupt" in out
    assert f"resume: from {checkpoint_folder(run, 256)}" in out
    corrupt_state(run, 256, "")
    with pytest.raises(ValueError, match="no complete checkpoint in .* \\(tried step_000000512, "
                                         "step_000000256\\)"):
        load_checkpoint(run, network, network.optimizer, tiny_metadata())


class Crash(BaseException):
    """A stand-in for the process being killed: nothing after it runs."""


def crash_at(monkeypatch, target, name, call):
    """Make ``target.name`` raise ``Crash`` on its ``call``-th use from now on."""
    original, calls = getattr(target, name), []

    def wrapper(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise Crash
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, wrapper)
    return calls


# A checkpoint writes four files (policy, optimizer, snapshots, state), each flushed to disk
# (fsync) and then renamed into place (os.replace), then renames its folder: crash at each.
@pytest.mark.parametrize(("name", "call"), [("fsync", c) for c in range(1, 5)]
                         + [("replace", c) for c in range(1, 6)])
def test_a_kill_during_any_write_of_a_checkpoint_leaves_resume_working(run, monkeypatch,
                                                                        capsys, name, call):
    calls = crash_at(monkeypatch, learned.os, name, call)
    with pytest.raises(Crash):
        save(run, trained_network(3), 768)
    assert len(calls) == call
    monkeypatch.undo()
    assert not checkpoint_folder(run, 768).exists()
    network = trained_network(9)
    assert load_checkpoint(run, network, network.optimizer, tiny_metadata()).steps == 512
    assert same(network.state_dict(), trained_network(2).state_dict())
    assert f"resume: from {checkpoint_folder(run, 512)}" in capsys.readouterr().out
    # The next save of that step clears what the killed one left.
    save(run, trained_network(3), 768)
    assert load_checkpoint(run, network, network.optimizer, tiny_metadata()).steps == 768
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "step_000000256", "step_000000512", "step_000000768"]


def ended_process_id():
    """The id of a process that has ended (as one killed mid-write)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_leftovers_of_killed_writes_are_removed_at_the_next_save_and_start(run, capsys):
    dead, alive = ended_process_id(), os.getppid()
    checkpoints = run / "checkpoints"
    partial = checkpoints / ".step_000000768.partial"  # killed while saving another step
    partial.mkdir()
    (partial / f".policy.safetensors.{dead}.tmp").write_bytes(b"half")
    killed = run / f".policy.json.{dead}.tmp"
    writing = run / f".policy.json.{alive}.tmp"  # another process writing now: kept
    killed_inside = checkpoint_folder(run, 256) / f".state.json.{dead}.tmp"
    for leftover in (killed, writing, killed_inside):
        leftover.write_text("half")
    save(run, trained_network(3), 1024)
    assert sorted(p.name for p in checkpoints.iterdir()) == [
        "step_000000256", "step_000000512", "step_000001024"]
    learned.write_atomically(run / "policy.json", "{}")
    assert not killed.exists() and writing.exists() and killed_inside.exists()
    config = load_config(Path(__file__).with_name("tiny_hungry.yaml")).to_dict()
    prepare_output(config_from_dict({**config, "out": str(run)}))
    assert not killed_inside.exists() and writing.exists()
    assert capsys.readouterr().out == (f"removed 1 unfinished file(s) of an interrupted run in "
                                       f"{run}\n")


@pytest.mark.slow
def test_a_killed_process_leaves_resume_working(tmp_path):
    """The real thing: a process saving checkpoints in a loop is killed (SIGKILL) at some
    moment; the run folder resumes from a complete checkpoint."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parents[2])!r})
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_checkpoint import save, trained_network
        network = trained_network(5)
        for steps in range(1, 10_000):
            save({str(tmp_path)!r}, network, steps)
    """)
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(tmp_path.glob("checkpoints/step_*"))) < 3:
            time.sleep(0.05)
        time.sleep(0.013)  # somewhere inside a later save
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    network = trained_network(9)
    state = load_checkpoint(tmp_path, network, network.optimizer, tiny_metadata())
    newest = max(int(p.name[5:]) for p in tmp_path.glob("checkpoints/step_*"))
    assert state.steps == newest >= 3
    assert same(network.state_dict(), trained_network(5).state_dict())


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3), max_leaves=8)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(
    st.sampled_from(["format", "steps", "updates", "history", "config", "game", "league",
                     "other"]),
    JSON | st.lists(st.fixed_dictionaries({k: JSON for k in ROW}), max_size=2), max_size=3))
def test_fuzzed_state_files_load_or_are_a_value_error(run, changes):
    """Any state.json fields: the checkpoint loads, or a ValueError says what is wrong."""
    corrupt_state(run, 512, json.dumps({**good_record(run, 256), "steps": 512, **changes}))
    network = trained_network(9)
    try:
        load_checkpoint(checkpoint_folder(run, 512), network, network.optimizer,
                        tiny_metadata())
    except ValueError as error:
        assert "corrupt" in str(error)
