"""Policies trained by ``hunger-rl train``, stored without pickle.

A policy file is a ``safetensors`` file: the network's tensors plus, in its header, a JSON
string of :class:`PolicyMetadata` (game, player count, observation size, network). Loading one
reads numbers and JSON only, so no code from the file is ever run. The network is sb3-contrib's
``MaskableActorCriticPolicy`` (an MLP with policy and value heads), or with ``action_scorer`` its
:class:`ActionScorerPolicy` form; as a :class:`Policy` it plays the masked argmax of its logits,
or samples from them when ``deterministic=False``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import reprlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from safetensors import SafetensorError
from safetensors.torch import load_file, safe_open, save
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

from hunger_rl.envs import GAMES
from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.hungry_endgame import EndgameHead
from hunger_rl.training.features import make_encoder

FORMAT = "hunger-rl-policy/1"
POLICY_FILE = "policy.safetensors"
METADATA_KEY = "hunger_rl"
ACTIVATION_FUNCTIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
WEIGHT_DTYPE = "F32"  # safetensors' name for float32, the dtype of every saved weight


@dataclass(frozen=True)
class PolicyMetadata:
    game: str
    num_players: int
    observation_size: int
    num_actions: int
    hidden: list[int]
    activation: str
    game_options: dict[str, Any] = field(default_factory=dict)
    # True: the network reads ``features.make_encoder``'s derived features; False: the scaled
    # observation only.
    features: bool = False
    # True: an :class:`ActionScorerPolicy` over the encoder's ``action_features``.
    action_scorer: bool = False
    # True (with ``action_scorer``): the scorer has a ``policies.hungry_endgame.EndgameHead``.
    endgame_head: bool = False
    steps: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def build_network(metadata: PolicyMetadata) -> MaskableActorCriticPolicy:
    """The untrained network that ``metadata`` describes, as MaskablePPO builds it."""
    try:
        encoder = make_encoder(metadata.game, metadata.num_players, metadata.game_options,
                               metadata.features)
    except (TypeError, ValueError) as error:  # a player count or option the game refuses
        raise ValueError(f"no {metadata.game} encoder for this policy: {error}") from error
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


def policy_class_and_kwargs(action_scorer: bool, encoder: Any,
                            endgame_head: bool = False) -> tuple[type, dict[str, Any]]:
    """The network class for a policy (with or without the action scorer and its endgame head)
    and the arguments it needs beyond SB3's own."""
    if endgame_head and not action_scorer:
        raise ValueError("an endgame head belongs to an action scorer")
    if not action_scorer:
        return MaskableActorCriticPolicy, {}
    if not hasattr(encoder, "action_features"):
        raise ValueError("an action scorer needs an encoder with per-action features (derived "
                         "features)")
    block = encoder.action_features
    kwargs = {"action_features": (block.start, block.stop),
              "action_feature_size": encoder.action_feature_size}
    if endgame_head:
        kwargs["endgame"] = {"num_players": encoder.num_players,
                             "observation_scale": encoder.observation_scale}
    return ActionScorerPolicy, kwargs


class ActionScorerExtractor(torch.nn.Module):
    """SB3's MLP extractor plus a scorer shared by all actions.

    The scorer reads one action's features (the input block ``action_features``, the first of
    each action being its prior value) and a small summary of the whole input, and returns a
    correction to that prior value. The actor latent is the MLP's latent followed by each
    action's prior value plus correction, so the action head can score every action by its own
    features: what the scorer learns about one play carries over to every other play. With an
    endgame head, rows whose deck is empty take that head's scores instead of prior value plus
    correction.
    """

    CONTEXT = 16  # size of the state summary each action's score sees
    HIDDEN = 64

    def __init__(self, features_dim: int, net_arch: list[int], activation_fn: type,
                 device: Any, action_features: tuple[int, int], action_feature_size: int,
                 endgame: dict[str, Any] | None = None):
        super().__init__()
        self.mlp = MlpExtractor(features_dim, net_arch, activation_fn, device)
        self.start, self.stop = action_features
        self.per_action = action_feature_size
        self.num_actions = (self.stop - self.start) // self.per_action
        self.context = torch.nn.Linear(self.mlp.latent_dim_pi, self.CONTEXT)
        self.scorer = torch.nn.Sequential(
            torch.nn.Linear(self.per_action + self.CONTEXT, self.HIDDEN), activation_fn(),
            torch.nn.Linear(self.HIDDEN, self.HIDDEN), activation_fn(),
            torch.nn.Linear(self.HIDDEN, 1))
        self.latent_dim_pi = self.mlp.latent_dim_pi + self.num_actions
        self.latent_dim_vf = self.mlp.latent_dim_vf
        self.endgame = None if endgame is None else EndgameHead(
            endgame["num_players"], endgame["observation_scale"], action_features,
            action_feature_size)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        latent = self.mlp.forward_actor(features)
        actions = features[:, self.start : self.stop].reshape(
            -1, self.num_actions, self.per_action)
        context = self.context(latent)[:, None, :].expand(-1, self.num_actions, -1)
        corrections = self.scorer(torch.cat((actions, context), dim=2))[:, :, 0]
        scores = actions[:, :, 0] + corrections
        if self.endgame is not None:
            scores = torch.where(self.endgame.deck_empty(features), self.endgame(features),
                                 scores)
        return torch.cat((latent, scores), dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic whose logits start as ``PRIOR_WEIGHT`` times each action's prior
    value (Hungry: its forecast value; HUNGER: The Show: its crowd value), corrected by an
    :class:`ActionScorerExtractor` whose last layer starts at zero: training begins from a soft
    player of the prior and learns where to depart from it, instead of rediscovering what the
    prior already knows."""

    # Logit per unit of the prior value: the forecast's values are encoded in tens of points,
    # so 40 makes one point worth 4 in logits (a play one point worse is ~50x less likely);
    # HUNGER's crowd values are scaled to match (``features.SHOW_VALUE_SCALE``).
    PRIOR_WEIGHT = 40.0

    def __init__(self, *args: Any, action_features: tuple[int, int], action_feature_size: int,
                 endgame: dict[str, Any] | None = None, **kwargs: Any):
        self.action_features = tuple(action_features)
        self.action_feature_size = action_feature_size
        self.endgame_settings = endgame
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActionScorerExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device,
            self.action_features, self.action_feature_size, self.endgame_settings)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        hidden = self.mlp_extractor.mlp.latent_dim_pi
        size = self.mlp_extractor.num_actions
        if size != self.action_net.out_features:
            raise ValueError(f"features of {size} actions for {self.action_net.out_features}")
        with torch.no_grad():
            self.action_net.weight[:, hidden:] = self.PRIOR_WEIGHT * torch.eye(size)
            last = self.mlp_extractor.scorer[-1]
            last.weight.zero_()
            last.bias.zero_()


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


def action_logits(network: MaskableActorCriticPolicy, inputs: torch.Tensor) -> torch.Tensor:
    """Unmasked action logits of a network for a batch of encoded inputs (no gradients)."""
    with torch.no_grad():
        latent = network.mlp_extractor.forward_actor(network.extract_features(inputs))
        return network.action_net(latent)


def agreement(network: MaskableActorCriticPolicy, inputs: np.ndarray, masks: np.ndarray,
              actions: np.ndarray, chunk_size: int = 16_384) -> float:
    """Share of rows where the network's masked argmax is ``actions[row]``, for encoded
    ``inputs`` (of any float dtype, converted a chunk at a time)."""
    picks = []
    for start in range(0, len(inputs), chunk_size):
        rows = slice(start, start + chunk_size)
        logits = action_logits(network, torch.as_tensor(inputs[rows], dtype=torch.float32))
        masked = logits.masked_fill(~torch.as_tensor(masks[rows], dtype=torch.bool), -torch.inf)
        picks.append(masked.argmax(dim=1).numpy())
    return float((np.concatenate(picks) == np.asarray(actions)).mean())


def network_weights(network: torch.nn.Module) -> dict[str, np.ndarray]:
    """A detached numpy copy of a network's parameters (a frozen snapshot)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in network.state_dict().items()}


def save_policy(path: str | Path, network: torch.nn.Module, metadata: PolicyMetadata) -> Path:
    """Write the network's weights and ``metadata`` to one safetensors file, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous() for k, v in network.state_dict().items()}
    header = {"format": FORMAT, METADATA_KEY: json.dumps(asdict(metadata))}
    write_atomically(path, save(tensors, metadata=header))
    return path


def write_atomically(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so
    that a reader, or a run killed mid-write, finds the old file or the new one, never part."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def read_metadata(path: str | Path) -> PolicyMetadata:
    """The metadata of a policy file (or of a folder holding ``policy.safetensors``), checked
    field by field and against the shapes of the file's tensors (read from its header, without
    loading them), so that nothing is built from sizes the weights do not have."""
    path = _policy_file(path)
    try:
        with safe_open(str(path), framework="pt") as handle:
            header = handle.metadata() or {}
            tensors = {name: (tuple(handle.get_slice(name).get_shape()),
                              handle.get_slice(name).get_dtype())
                       for name in handle.keys()}  # noqa: SIM118 (the handle is not iterable)
    except (SafetensorError, OSError, ValueError) as error:
        raise ValueError(f"{path} is not a readable policy file: {error}") from error
    if header.get("format") != FORMAT:
        raise ValueError(f"{path} is not a hunger-rl policy file (format "
                         f"{_short(header.get('format'))}, expected {FORMAT!r})")
    try:
        fields = json.loads(header[METADATA_KEY])
    except (KeyError, ValueError, RecursionError) as error:  # ValueError: JSON, a huge int
        raise ValueError(f"{path}: corrupt policy metadata: {_short(error)}") from error
    try:
        metadata = _checked_metadata(fields)
        _check_tensor_shapes(metadata, tensors)
    except ValueError as error:
        raise ValueError(f"{path}: corrupt policy metadata: {error}") from error
    return metadata


def _checked_metadata(fields: Any) -> PolicyMetadata:
    if not isinstance(fields, dict):
        raise ValueError(f"expected a JSON object, got {_short(fields)}")
    known = {f.name for f in dataclasses.fields(PolicyMetadata)}
    unknown = sorted(str(key) for key in fields if key not in known)
    if unknown:
        raise ValueError(f"unknown keys {_short(unknown)}")
    try:
        metadata = PolicyMetadata(**fields)
    except TypeError as error:  # a required key is missing
        raise ValueError(str(error)) from error

    def check(name: str, valid: bool, wanted: str) -> None:
        if not valid:
            raise ValueError(f"{name} must be {wanted}, got {_short(getattr(metadata, name))}")

    def count(value: Any, low: int = 1) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= low

    check("game", isinstance(metadata.game, str) and metadata.game in GAMES,
          f"one of {sorted(GAMES)}")
    check("num_players", count(metadata.num_players), "a positive integer")
    check("observation_size", count(metadata.observation_size), "a positive integer")
    check("num_actions", count(metadata.num_actions), "a positive integer")
    check("hidden", isinstance(metadata.hidden, list) and len(metadata.hidden) > 0
          and all(count(width) for width in metadata.hidden),
          "a non-empty list of positive integers")
    check("activation", isinstance(metadata.activation, str)
          and metadata.activation in ACTIVATION_FUNCTIONS,
          f"one of {sorted(ACTIVATION_FUNCTIONS)}")
    check("game_options", isinstance(metadata.game_options, dict)
          and all(isinstance(key, str) for key in metadata.game_options),
          "a mapping of option names")
    for flag in ("features", "action_scorer", "endgame_head"):
        check(flag, isinstance(getattr(metadata, flag), bool), "true or false")
    check("steps", count(metadata.steps, low=0), "a non-negative integer")
    check("extra", isinstance(metadata.extra, dict), "a mapping")
    return metadata


def _check_tensor_shapes(metadata: PolicyMetadata,
                         tensors: Mapping[str, tuple[tuple[int, ...], str]]) -> None:
    """The sizes in the metadata are the ones the file's tensors have: the layers of both MLPs
    (``hidden``, from ``observation_size``) and the action head (``num_actions``). Every other
    part of the network has a size fixed by the game, so the network built from checked
    metadata is no larger than the file."""
    prefix = "mlp_extractor.mlp." if metadata.action_scorer else "mlp_extractor."
    expected = {"action_net.bias": (metadata.num_actions,)}
    for net in ("policy_net", "value_net"):
        inputs = metadata.observation_size
        for layer, width in enumerate(metadata.hidden):
            expected[f"{prefix}{net}.{2 * layer}.weight"] = (width, inputs)
            inputs = width
        beyond = f"{prefix}{net}.{2 * len(metadata.hidden)}.weight"
        if beyond in tensors:
            raise ValueError(f"hidden {metadata.hidden} has {len(metadata.hidden)} layers, "
                             f"the file has more ({beyond})")
    for name, shape in expected.items():
        found = tensors.get(name, (None, None))[0]
        if found != shape:
            raise ValueError(
                f"observation_size {metadata.observation_size}, hidden {_short(metadata.hidden)}"
                f" and num_actions {metadata.num_actions} make {name} of shape {shape}; the "
                f"file's is {found}")
    others = sorted({dtype for _, dtype in tensors.values()} - {WEIGHT_DTYPE})
    if others:
        raise ValueError(f"weights must be {WEIGHT_DTYPE}, the file has {others}")


def read_weights(path: str | Path) -> dict[str, torch.Tensor]:
    """The tensors of a policy file whose metadata :func:`read_metadata` checked; all finite."""
    path = _policy_file(path)
    try:
        weights = load_file(str(path))
    except (SafetensorError, OSError) as error:
        raise ValueError(f"{path}: corrupt policy weights: {error}") from error
    for name, tensor in weights.items():
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{path}: tensor {name} holds NaN or infinite weights")
    return weights


def load_policy(path: str | Path, game: str, num_players: int,
                deterministic: bool = True) -> LearnedPolicy:
    """Load a trained policy for ``game`` with ``num_players``; a clear error if it is for
    another game or player count, or if the file is not a policy file, its metadata does not
    describe its tensors, or a weight is not finite."""
    metadata = read_metadata(path)
    if (metadata.game, metadata.num_players) != (game, num_players):
        raise ValueError(
            f"{path} holds a policy for {metadata.game} with {metadata.num_players} players, "
            f"not for {game} with {num_players} players")
    return LearnedPolicy.from_weights(metadata, read_weights(path), deterministic,
                                      name=str(path))


def _short(value: Any) -> str:
    """A bounded repr for an error message about a file's contents."""
    try:
        text = str(value) if isinstance(value, BaseException) else reprlib.repr(value)
    except ValueError:  # an int with too many digits for str()
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _policy_file(path: str | Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / POLICY_FILE
    if not path.is_file():
        raise ValueError(f"no policy file at {path}")
    return path
