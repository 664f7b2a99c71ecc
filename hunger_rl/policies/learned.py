"""Policies trained by ``hunger-rl train``, stored without pickle.

A policy file is a ``safetensors`` file: the network's tensors plus, in its header, a JSON
string of :class:`PolicyMetadata` (game, player count, observation size, network). Loading one
reads numbers and JSON only, so no code from the file is ever run. The network is sb3-contrib's
``MaskableActorCriticPolicy`` (an MLP with policy and value heads), or with ``action_scorer`` its
``models.networks.ActionScorerPolicy`` form; as a :class:`Policy` it plays the masked argmax of
its logits, or samples from them when ``deterministic=False``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from safetensors import SafetensorError
from safetensors.torch import load_file, safe_open, save_file
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.networks import (
    ACTIVATION_FUNCTIONS,
    action_logits,
    policy_class_and_kwargs,
)

FORMAT = "hunger-rl-policy/1"
POLICY_FILE = "policy.safetensors"
METADATA_KEY = "hunger_rl"


@dataclass(frozen=True)
class PolicyMetadata:
    game: str
    num_players: int
    observation_size: int
    num_actions: int
    hidden: list[int]
    activation: str
    game_options: dict[str, Any] = field(default_factory=dict)
    # True: the network reads ``encoders.make_encoder``'s derived features; False: the scaled
    # observation only.
    features: bool = False
    # True: an :class:`ActionScorerPolicy` over the encoder's ``action_features``.
    action_scorer: bool = False
    # True (with ``action_scorer``): the scorer has a ``models.hungry_endgame.EndgameHead``.
    endgame_head: bool = False
    steps: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def build_network(metadata: PolicyMetadata) -> MaskableActorCriticPolicy:
    """The untrained network that ``metadata`` describes, as MaskablePPO builds it."""
    encoder = make_encoder(metadata.game, metadata.num_players, metadata.game_options,
                           metadata.features)
    if encoder.size != metadata.observation_size:
        raise ValueError(
            f"a {metadata.game} observation for {metadata.num_players} players encodes to "
            f"{encoder.size} numbers, the policy expects {metadata.observation_size}")
    observation_space = spaces.Box(-np.inf, np.inf, (metadata.observation_size,), np.float32)
    policy_class, extra = policy_class_and_kwargs(metadata.action_scorer, encoder,
                                                  metadata.endgame_head)
    return policy_class(
        observation_space,
        spaces.Discrete(metadata.num_actions),
        lr_schedule=lambda _: 0.0,
        net_arch=list(metadata.hidden),
        activation_fn=ACTIVATION_FUNCTIONS[metadata.activation],
        ortho_init=False,  # the weights are loaded next; orthogonal init only costs time
        **extra,
    )


class LearnedPolicy(Policy):
    """A trained network playing one seat; observations are encoded as in training."""

    def __init__(self, network: MaskableActorCriticPolicy, metadata: PolicyMetadata,
                 deterministic: bool = True, name: str = "learned"):
        self.network = network.eval()
        self.metadata = metadata
        self.deterministic = deterministic
        self.name = name
        self._encode = make_encoder(metadata.game, metadata.num_players, metadata.game_options,
                           metadata.features)

    @classmethod
    def from_weights(cls, metadata: PolicyMetadata, weights: Mapping[str, Any],
                     deterministic: bool = True, name: str = "learned") -> LearnedPolicy:
        # Built inside a fork of torch's random state: the initial weights are overwritten
        # below, and drawing them must not move the caller's random stream (a training run that
        # loads snapshots or evaluates in its own process would otherwise train differently).
        with torch.random.fork_rng(devices=[]):
            network = build_network(metadata)
        tensors = {k: torch.as_tensor(np.asarray(v)) for k, v in weights.items()}
        try:
            network.load_state_dict(tensors, strict=True)
        except RuntimeError as error:
            raise ValueError(f"the weights do not fit the network {metadata.hidden}: "
                             f"{error}") from error
        return cls(network, metadata, deterministic, name)

    def logits(self, observations: list[np.ndarray]) -> np.ndarray:
        """Unmasked action logits for a batch of raw observation vectors."""
        inputs = torch.as_tensor(np.stack([self._encode(o) for o in observations]))
        return action_logits(self.network, inputs).numpy()

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        return int(self.act_batch([observation], rng)[0])

    def act_batch(self, observations, rng, views=None) -> np.ndarray:
        masks = np.stack([o["action_mask"] for o in observations]).astype(bool)
        if not masks.any(axis=1).all():
            raise ValueError("an action mask allows no action: this player is not to move")
        logits = self.logits([o["observation"] for o in observations])
        logits = np.where(masks, logits, -np.inf)
        if self.deterministic:
            return logits.argmax(axis=1)
        # Gumbel-max: a sample from the masked softmax, drawn from the caller's generator.
        return (logits + rng.gumbel(size=logits.shape)).argmax(axis=1)


def network_weights(network: torch.nn.Module) -> dict[str, np.ndarray]:
    """A detached numpy copy of a network's parameters (a frozen snapshot)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in network.state_dict().items()}


def save_policy(path: str | Path, network: torch.nn.Module, metadata: PolicyMetadata) -> Path:
    """Write the network's weights and ``metadata`` to one safetensors file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous() for k, v in network.state_dict().items()}
    header = {"format": FORMAT, METADATA_KEY: json.dumps(asdict(metadata))}
    save_file(tensors, str(path), metadata=header)
    return path


def read_metadata(path: str | Path) -> PolicyMetadata:
    """The metadata of a policy file (or of a folder holding ``policy.safetensors``)."""
    path = _policy_file(path)
    try:
        with safe_open(str(path), framework="pt") as handle:
            header = handle.metadata() or {}
    except (SafetensorError, OSError, ValueError) as error:
        raise ValueError(f"{path} is not a readable policy file: {error}") from error
    if header.get("format") != FORMAT:
        raise ValueError(f"{path} is not a hunger-rl policy file (format "
                         f"{header.get('format')!r}, expected {FORMAT!r})")
    try:
        return PolicyMetadata(**json.loads(header[METADATA_KEY]))
    except (KeyError, TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: corrupt policy metadata: {error}") from error


def load_policy(path: str | Path, game: str, num_players: int,
                deterministic: bool = True) -> LearnedPolicy:
    """Load a trained policy for ``game`` with ``num_players``; a clear error if it is for
    another game or player count, or if the file is not a policy file."""
    metadata = read_metadata(path)
    if (metadata.game, metadata.num_players) != (game, num_players):
        raise ValueError(
            f"{path} holds a policy for {metadata.game} with {metadata.num_players} players, "
            f"not for {game} with {num_players} players")
    try:
        weights = load_file(str(_policy_file(path)))
    except (SafetensorError, OSError) as error:
        raise ValueError(f"{path}: corrupt policy weights: {error}") from error
    return LearnedPolicy.from_weights(metadata, weights, deterministic, name=str(path))


def _policy_file(path: str | Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / POLICY_FILE
    if not path.is_file():
        raise ValueError(f"no policy file at {path}")
    return path
