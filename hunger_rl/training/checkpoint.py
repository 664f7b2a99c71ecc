"""Training checkpoints: everything needed to resume, stored without pickle.

A checkpoint is a folder:

- ``policy.safetensors``: the learner (a policy file, so evaluation accepts the folder too),
- ``optimizer.safetensors``: Adam's moment estimates and step counts,
- ``snapshots.safetensors``: the self-play pool's frozen snapshots,
- ``state.json``: game, player count, step and update counts, the evaluation history, the config.

Resuming restores the weights, the optimizer, the pool and the counters; the environments are
reseeded with ``seed + steps`` so a resumed run does not replay the games it already saw.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from hunger_rl.policies.learned import (
    POLICY_FILE,
    PolicyMetadata,
    read_metadata,
    save_policy,
)

STATE_FILE = "state.json"
OPTIMIZER_FILE = "optimizer.safetensors"
SNAPSHOTS_FILE = "snapshots.safetensors"
FORMAT = "hunger-rl-checkpoint/1"


@dataclass
class TrainingState:
    """What the trainer carries across a resume, besides the network and optimizer."""

    steps: int = 0
    updates: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, np.ndarray]] = field(default_factory=list)


def save_checkpoint(folder: str | Path, network: torch.nn.Module,
                    optimizer: torch.optim.Optimizer, metadata: PolicyMetadata,
                    state: TrainingState, config: dict[str, Any]) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_policy(folder / POLICY_FILE, network, metadata)
    save_file(_flatten_optimizer_state(optimizer), str(folder / OPTIMIZER_FILE))
    snapshots = {f"{i}.{name}": torch.from_numpy(np.ascontiguousarray(array))
                 for i, weights in enumerate(state.snapshots) for name, array in weights.items()}
    save_file(snapshots, str(folder / SNAPSHOTS_FILE))
    record = {"format": FORMAT, "game": metadata.game, "num_players": metadata.num_players,
              "steps": state.steps, "updates": state.updates, "history": state.history,
              "config": config}
    (folder / STATE_FILE).write_text(json.dumps(record, indent=1))
    return folder


def load_checkpoint(folder: str | Path, network: torch.nn.Module,
                    optimizer: torch.optim.Optimizer, expected: PolicyMetadata) -> TrainingState:
    """Restore ``network`` and ``optimizer`` in place and return the trainer's state.

    A folder that is not a checkpoint, a corrupt file, or a checkpoint for another game,
    player count or network is a ``ValueError`` saying which.
    """
    folder = Path(folder)
    if not (folder / STATE_FILE).is_file():
        raise ValueError(f"{folder} is not a training checkpoint (no {STATE_FILE})")
    try:
        record = json.loads((folder / STATE_FILE).read_text())
        steps, updates, history = record["steps"], record["updates"], record["history"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"{folder}: corrupt {STATE_FILE}: {error}") from error
    metadata = read_metadata(folder / POLICY_FILE)
    for key in ("game", "num_players", "observation_size", "num_actions", "hidden",
                "activation"):
        if getattr(metadata, key) != getattr(expected, key):
            raise ValueError(
                f"checkpoint {folder} does not match the config: {key} is "
                f"{getattr(metadata, key)!r} there, {getattr(expected, key)!r} here")
    try:
        network.load_state_dict(load_file(str(folder / POLICY_FILE)), strict=True)
        _restore_optimizer_state(optimizer, load_file(str(folder / OPTIMIZER_FILE)))
        snapshot_tensors = load_file(str(folder / SNAPSHOTS_FILE))
    except (SafetensorError, OSError, RuntimeError, KeyError, ValueError) as error:
        raise ValueError(f"checkpoint {folder} is corrupt: {error}") from error
    snapshots: dict[int, dict[str, np.ndarray]] = defaultdict(dict)
    for key, tensor in snapshot_tensors.items():
        index, name = key.split(".", 1)
        snapshots[int(index)][name] = tensor.numpy()
    return TrainingState(steps=int(steps), updates=int(updates), history=list(history),
                         snapshots=[snapshots[i] for i in sorted(snapshots)])


def _flatten_optimizer_state(optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """``{"<param index>.<name>": tensor}``; the param groups come from the config on resume."""
    return {f"{index}.{name}": torch.as_tensor(value).contiguous()
            for index, entries in optimizer.state_dict()["state"].items()
            for name, value in entries.items()}


def _restore_optimizer_state(optimizer: torch.optim.Optimizer,
                             tensors: dict[str, torch.Tensor]) -> None:
    state: dict[int, dict[str, torch.Tensor]] = defaultdict(dict)
    for key, tensor in tensors.items():
        index, name = key.split(".", 1)
        state[int(index)][name] = tensor
    fresh = optimizer.state_dict()
    optimizer.load_state_dict({"state": dict(state), "param_groups": fresh["param_groups"]})
