"""Training checkpoints: everything needed to resume, stored without pickle.

A checkpoint is a folder ``checkpoints/step_<steps>``:

- ``policy.safetensors``: the learner (a policy file, so evaluation accepts the folder too),
- ``optimizer.safetensors``: Adam's moment estimates and step counts,
- ``snapshots.safetensors``: the self-play pool's frozen snapshots,
- ``state.json``: game, player count, step and update counts, the evaluation history, the
  league's records of the learner's results (``training.league``; batched HUNGER), the config.

Its files are written into a hidden ``.step_<steps>.partial`` folder, each through a temporary
file and a rename, and the folder is renamed to ``step_<steps>`` last: a run killed at any
moment leaves every ``step_*`` folder complete. Resuming from a run folder takes its newest
checkpoint that reads back whole and says which (and why it skipped any newer one).

Resuming restores the weights, the optimizer, the pool, the league's records and the counters;
the environments are reseeded with ``seed + steps`` and deal afresh, as the trainer does after
every checkpoint it saves, so a run resumed from a checkpoint continues exactly as the run that
saved it did.
Everything is read and checked before the network or optimizer is touched.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save

from hunger_rl.policies.learned import (
    POLICY_FILE,
    PolicyMetadata,
    read_metadata,
    read_weights,
    remove_stale_temporaries,
    save_policy,
    write_atomically,
)
from hunger_rl.training.config import MAX_STEPS, excerpt

STATE_FILE = "state.json"
OPTIMIZER_FILE = "optimizer.safetensors"
SNAPSHOTS_FILE = "snapshots.safetensors"
CHECKPOINTS = "checkpoints"
STEP_PREFIX = "step_"
# A checkpoint folder being written: ``.step_<steps>.partial``, renamed when complete.
PARTIAL_SUFFIX = ".partial"
FORMAT = "hunger-rl-checkpoint/1"
MAX_STATE_BYTES = 64 << 20
# One evaluation row of the history: the learning curve's columns.
HISTORY_FIELDS = {"steps": int, "opponent": str, "games": int, "win_share": float,
                  "ci_low": float, "ci_high": float}


@dataclass
class TrainingState:
    """What the trainer carries across a resume, besides the network and optimizer."""

    steps: int = 0
    updates: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, np.ndarray]] = field(default_factory=list)
    # ``League.state()``: the learner's recorded results against each member; {} without one.
    league: dict[str, Any] = field(default_factory=dict)


def checkpoint_folder(out: str | Path, steps: int) -> Path:
    return Path(out) / CHECKPOINTS / f"{STEP_PREFIX}{steps:09d}"


def save_checkpoint(folder: str | Path, network: torch.nn.Module,
                    optimizer: torch.optim.Optimizer, metadata: PolicyMetadata,
                    state: TrainingState, config: dict[str, Any]) -> Path:
    """Write a checkpoint folder, completing it under a temporary name and renaming it last."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_partial_checkpoints(folder.parent)  # left by a run killed while saving
    partial = folder.with_name(f".{folder.name}{PARTIAL_SUFFIX}")
    partial.mkdir()
    save_policy(partial / POLICY_FILE, network, metadata)
    write_atomically(partial / OPTIMIZER_FILE, save(_flatten_optimizer_state(optimizer)))
    snapshots = {f"{i}.{name}": torch.from_numpy(np.ascontiguousarray(array))
                 for i, weights in enumerate(state.snapshots) for name, array in weights.items()}
    write_atomically(partial / SNAPSHOTS_FILE, save(snapshots))
    record = {"format": FORMAT, "game": metadata.game, "num_players": metadata.num_players,
              "steps": state.steps, "updates": state.updates, "history": state.history,
              "league": state.league, "config": config}
    write_atomically(partial / STATE_FILE, json.dumps(record, indent=1))
    if folder.exists():  # the same step saved before, e.g. by a run resumed at its end
        shutil.rmtree(folder)
    os.replace(partial, folder)
    return folder


def remove_partial_checkpoints(checkpoints: str | Path) -> list[Path]:
    """Remove the unfinished checkpoint folders in ``checkpoints`` (a run killed while saving;
    resuming never reads them). Returns the folders removed."""
    removed = []
    for partial in Path(checkpoints).glob(f".{STEP_PREFIX}*{PARTIAL_SUFFIX}"):
        if partial.is_dir():
            shutil.rmtree(partial)
            removed.append(partial)
    return removed


def remove_leftovers(out: str | Path) -> list[Path]:
    """Remove what writes killed midway left in a run folder: unfinished checkpoint folders
    and temporary files of dead processes. Returns what was removed."""
    out = Path(out)
    return [*remove_partial_checkpoints(out / CHECKPOINTS),
            *remove_stale_temporaries(out, recursive=True)]


def has_checkpoint(out: str | Path) -> bool:
    """Whether the run folder ``out`` holds a checkpoint to resume from."""
    return any((Path(out) / CHECKPOINTS).glob(f"{STEP_PREFIX}*"))


def load_checkpoint(path: str | Path, network: torch.nn.Module,
                    optimizer: torch.optim.Optimizer, expected: PolicyMetadata) -> TrainingState:
    """Restore ``network`` and ``optimizer`` in place and return the trainer's state.

    ``path`` is a checkpoint folder, or a run folder (or its ``checkpoints`` folder), whose
    newest checkpoint that reads back whole is taken; a line says which. A folder that is not
    a checkpoint, a corrupt file, or a checkpoint for another game, player count or network is
    a ``ValueError`` saying which; nothing is restored unless everything checks out.
    """
    path = Path(path)
    if (path / STATE_FILE).is_file():
        checkpoint = _read_checkpoint(path, network, optimizer, expected)
    else:
        checkpoint = _newest_complete_checkpoint(path, network, optimizer, expected)
    state, weights, optimizer_state = checkpoint
    network.load_state_dict(weights, strict=True)
    optimizer.load_state_dict({"state": optimizer_state,
                               "param_groups": optimizer.state_dict()["param_groups"]})
    return state


def _newest_complete_checkpoint(path: Path, network: torch.nn.Module,
                                optimizer: torch.optim.Optimizer, expected: PolicyMetadata):
    folder = path / CHECKPOINTS if (path / CHECKPOINTS).is_dir() else path
    candidates = sorted((p for p in folder.glob(f"{STEP_PREFIX}*")
                         if p.is_dir() and p.name[len(STEP_PREFIX):].isdigit()),
                        key=lambda p: int(p.name[len(STEP_PREFIX):]), reverse=True)
    if not candidates:
        raise ValueError(f"{path} is not a training checkpoint (no {STATE_FILE}) nor a run "
                         f"folder with checkpoints ({CHECKPOINTS}/{STEP_PREFIX}N)")
    skipped = []
    for candidate in candidates:
        try:
            checkpoint = _read_checkpoint(candidate, network, optimizer, expected)
        except ValueError as error:
            print(f"resume: skipping {candidate}: {error}")
            skipped.append(candidate.name)
            continue
        print(f"resume: from {candidate}, the newest complete checkpoint in {folder}")
        return checkpoint
    raise ValueError(f"no complete checkpoint in {folder} (tried {', '.join(skipped)})")


def _read_checkpoint(folder: Path, network: torch.nn.Module,
                     optimizer: torch.optim.Optimizer, expected: PolicyMetadata):
    """Read and check every file of a checkpoint; change nothing."""
    if not (folder / STATE_FILE).is_file():
        raise ValueError(f"{folder} is not a training checkpoint (no {STATE_FILE})")
    state = _read_state(folder / STATE_FILE)
    metadata = read_metadata(folder / POLICY_FILE)
    differences = [(key, getattr(metadata, key), getattr(expected, key))
                   for key in ("game", "num_players", "observation_size", "num_actions")]
    differences.append(metadata.network.difference(expected.network))  # the shape, one value
    for key, there, here in filter(None, differences):
        if there != here:
            raise ValueError(f"checkpoint {folder} does not match the config: {key} is "
                             f"{there!r} there, {here!r} here")
    shapes = {name: tuple(value.shape) for name, value in network.state_dict().items()}
    weights = {name: torch.as_tensor(array)
               for name, array in read_weights(folder / POLICY_FILE).items()}
    _check_like(f"{folder / POLICY_FILE}", weights, shapes)
    try:
        optimizer_tensors = load_file(str(folder / OPTIMIZER_FILE))
        snapshot_tensors = load_file(str(folder / SNAPSHOTS_FILE))
    except (SafetensorError, OSError) as error:
        raise ValueError(f"checkpoint {folder} is corrupt: {error}") from error
    optimizer_state = _optimizer_state(folder / OPTIMIZER_FILE, optimizer, optimizer_tensors)
    snapshots: dict[int, dict[str, torch.Tensor]] = defaultdict(dict)
    for key, tensor in snapshot_tensors.items():
        index, name = _indexed(folder / SNAPSHOTS_FILE, key)
        snapshots[index][name] = tensor
    for index, snapshot in snapshots.items():
        _check_like(f"{folder / SNAPSHOTS_FILE}, snapshot {index}", snapshot, shapes)
    state.snapshots = [{name: tensor.numpy() for name, tensor in snapshots[i].items()}
                       for i in sorted(snapshots)]
    # A league without self-play keeps no snapshot records, while the checkpoint still holds
    # the learner's start (the pool's first snapshot when there is one); League.restore checks
    # the records against the pool it rebuilds.
    if state.league and state.league["snapshots"] and (
            len(state.league["snapshots"]) != len(state.snapshots)):
        raise ValueError(f"corrupt {folder / STATE_FILE}: league records for "
                         f"{len(state.league['snapshots'])} snapshots, the checkpoint holds "
                         f"{len(state.snapshots)}")
    return state, weights, optimizer_state


def _read_state(path: Path) -> TrainingState:
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            raise ValueError(f"larger than {MAX_STATE_BYTES} bytes")
        record = json.loads(path.read_bytes())
        if not isinstance(record, dict):
            raise ValueError(f"expected a JSON object, got {excerpt(record)}")
        if record.get("format") != FORMAT:
            raise ValueError(f"format {excerpt(record.get('format'))}, expected {FORMAT!r}")
        for key in ("steps", "updates"):
            if not _is_count(record.get(key)):
                raise ValueError(f"{key} must be an integer in [0, {MAX_STEPS}], got "
                                 f"{excerpt(record.get(key))}")
        history = record.get("history")
        if not isinstance(history, list):
            raise ValueError(f"history must be a list of evaluation rows, got "
                             f"{excerpt(history)}")
        for number, row in enumerate(history):
            _check_history_row(number, row)
        if not isinstance(record.get("config"), dict):
            raise ValueError(f"config must be a mapping, got {excerpt(record.get('config'))}")
        league = record.get("league", {})  # absent from checkpoints written before leagues
        _check_league(league)
    except (OSError, ValueError, RecursionError) as error:  # ValueError: also bad JSON, UTF-8
        raise ValueError(f"corrupt {path}: {str(error)[:300]}") from error
    return TrainingState(steps=record["steps"], updates=record["updates"], history=history,
                         league=league)


def _check_league(league: Any) -> None:
    """``{}`` or ``League.state()``: per scripted kind and per snapshot a faded (sum of
    results, count of results) pair, the sum between 0 and the count."""
    if league == {}:
        return
    if (not isinstance(league, dict) or set(league) != {"scripted", "snapshots"}
            or not isinstance(league["scripted"], dict)
            or not isinstance(league["snapshots"], list)):
        raise ValueError(f"league must be a mapping of scripted and snapshots records, got "
                         f"{excerpt(league)}")
    records = [(f"league.scripted[{excerpt(kind)}]", entry)
               for kind, entry in league["scripted"].items()]
    records += [(f"league.snapshots[{i}]", entry) for i, entry in enumerate(league["snapshots"])]
    for where, entry in records:
        valid = (isinstance(entry, list) and len(entry) == 2
                 and all(isinstance(v, int | float) and not isinstance(v, bool)
                         and math.isfinite(v) for v in entry)
                 and 0 <= entry[0] <= entry[1])
        if not valid:
            raise ValueError(f"{where} must be a [sum, count] pair with 0 <= sum <= count, got "
                             f"{excerpt(entry)}")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEPS


def _check_history_row(number: int, row: Any) -> None:
    if not isinstance(row, dict) or set(row) != set(HISTORY_FIELDS):
        raise ValueError(f"history[{number}] must be a mapping of {list(HISTORY_FIELDS)}, got "
                         f"{excerpt(row)}")
    for key, kind in HISTORY_FIELDS.items():
        value = row[key]
        if kind is str:
            valid = isinstance(value, str)
        elif kind is int:
            valid = _is_count(value)
        else:
            valid = (isinstance(value, int | float) and not isinstance(value, bool)
                     and math.isfinite(value) and 0 <= value <= 1)
        if not valid:
            raise ValueError(f"history[{number}].{key} is not valid: {excerpt(value)}")


def _indexed(path: Path, key: str) -> tuple[int, str]:
    """``"<index>.<name>"`` keys of the optimizer and snapshot files."""
    index, _, name = key.partition(".")
    if not index.isdigit() or not name or len(index) > 6:
        raise ValueError(f"checkpoint file {path} is corrupt: unexpected tensor {excerpt(key)}")
    return int(index), name


def _check_like(where: str, tensors: dict[str, torch.Tensor],
                shapes: dict[str, tuple[int, ...]]) -> None:
    """The tensors are exactly the network's, in name and shape, and finite."""
    if set(tensors) != set(shapes):
        missing, unexpected = sorted(set(shapes) - set(tensors)), sorted(set(tensors) - set(shapes))
        raise ValueError(f"{where} does not fit the network: missing {excerpt(missing)}, "
                         f"unexpected {excerpt(unexpected)}")
    for name, tensor in tensors.items():
        if tuple(tensor.shape) != shapes[name]:
            raise ValueError(f"{where} does not fit the network: {name} has shape "
                             f"{tuple(tensor.shape)}, the network {shapes[name]}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{where}: tensor {name} holds NaN or infinite values")


def _flatten_optimizer_state(optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """``{"<param index>.<name>": tensor}``; the param groups come from the config on resume."""
    return {f"{index}.{name}": torch.as_tensor(value).contiguous()
            for index, entries in optimizer.state_dict()["state"].items()
            for name, value in entries.items()}


def _optimizer_state(path: Path, optimizer: torch.optim.Optimizer,
                     tensors: dict[str, torch.Tensor]) -> dict[int, dict[str, torch.Tensor]]:
    """The optimizer's per-parameter state from its file, checked against the parameters: a
    step count, and moments shaped like their parameter."""
    parameters = [p for group in optimizer.param_groups for p in group["params"]]
    state: dict[int, dict[str, torch.Tensor]] = defaultdict(dict)
    for key, tensor in tensors.items():
        index, name = _indexed(path, key)
        if index >= len(parameters):
            raise ValueError(f"checkpoint file {path} is corrupt: state for parameter {index} "
                             f"of {len(parameters)}")
        wanted = () if name == "step" else tuple(parameters[index].shape)
        if tuple(tensor.shape) != wanted or not torch.isfinite(tensor).all():
            raise ValueError(f"checkpoint file {path} is corrupt: {excerpt(key)} has shape "
                             f"{tuple(tensor.shape)} (expected {wanted}) or is not finite")
        state[index][name] = tensor
    return dict(state)
