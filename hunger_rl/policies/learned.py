"""Policies trained by ``hunger-rl train``, stored without pickle, played with numpy alone.

A policy file is a ``safetensors`` file: the network's tensors plus, in its header, a JSON
string of :class:`PolicyMetadata` (game, player count, observation size, network). Loading one
reads numbers and JSON only, so no code from the file is ever run. The network is sb3-contrib's
``MaskableActorCriticPolicy`` (an MLP with policy and value heads), or with ``action_scorer`` its
``models.networks.ActionScorerPolicy`` form, or with ``critic_state_size`` its
``models.networks.PrivilegedCriticPolicy`` form (whose actor reads the observation alone). A
:class:`LearnedPolicy` plays it through the numpy forward pass of ``models.forward``, its weights
read by safetensors' numpy API, so that playing a policy file (a shipped agent too) needs
neither torch nor the train extra; training builds the torch module (:func:`build_network`,
:meth:`LearnedPolicy.torch_network`). As a :class:`Policy` it plays the masked argmax of its
logits (``temperature`` 0) or samples from their softmax at ``temperature`` T > 0 (the logits
divided by T), drawing from the caller's generator, so that a seeded game replays exactly.
Sampled play is the mixed strategy a simultaneous-move game needs: a player that always picks
alike is found out by any learner (docs/agents.md, "Mixed play").
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import load_file, save

from hunger_rl.envs import GAMES
from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.models.encoders import make_encoder, state_scale
from hunger_rl.policies.models.forward import (
    CARD_INPUT_SIZE,
    SHAPE_FIELDS,
    NetworkShape,
    PolicyNetwork,
    is_count,
    network_layout,
    short_repr,
)
from hunger_rl.policies.models.forward import INPUT_SIZE as ENDGAME_INPUT_SIZE

if TYPE_CHECKING:
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

FORMAT = "hunger-rl-policy/1"
POLICY_FILE = "policy.safetensors"
METADATA_KEY = "hunger_rl"
WEIGHT_DTYPE = "F32"  # safetensors' name for float32, the dtype of every saved weight
# From this many rows in one forward pass on, torch's matrix products outrun numpy's on the
# networks without an endgame head (HUNGER's action scorer, one thread: numpy 1.02 times
# torch's time at 128 rows, 1.19 at 512; 0.4 to 0.7 below 128, and 0.3 to 0.8 on one move;
# scripts/bench_numpy_forward.py), so a process that has torch loaded anyway (a training run's
# league) answers such batches with the torch copy of the network. Hungry's endgame-head
# networks are faster in numpy at every batch size measured (0.8 times torch's at 512 rows).
TORCH_BATCH_ROWS = 128
# ``PolicyMetadata.extra[VALUE_KEY] == WIN_SHARE_VALUE``: the value head was fitted to the
# player's win share (expert iteration), so a search may use it as one (``win_shares``).
VALUE_KEY = "value"
WIN_SHARE_VALUE = "win_share"
# The temporary file ``write_atomically`` writes before its rename: ``.NAME.PID.tmp``.
TEMPORARY_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)\.tmp")


@dataclass(frozen=True, init=False)
class PolicyMetadata:
    """What a policy file says of its network: the game and player count it plays, its input
    and action sizes, its shape (``network``, a :class:`NetworkShape`), the options it was
    trained with. The file holds the shape's fields flat beside the others (``as_file_fields``),
    so it is made from those fields too: ``PolicyMetadata(game, players, observation_size,
    num_actions, hidden, activation, action_scorer=True)``, or with ``network=`` a shape (and
    any of its fields to change in it); its shape's fields read as the file holds them
    (``metadata.hidden``, a list)."""

    game: str
    num_players: int
    observation_size: int
    num_actions: int
    network: NetworkShape
    game_options: dict[str, Any]
    # True: the network reads ``encoders.make_encoder``'s derived features; False: the scaled
    # observation only.
    features: bool
    steps: int
    extra: dict[str, Any]

    def __init__(self, game: str, num_players: int, observation_size: int, num_actions: int,
                 *shape: Any, network: NetworkShape | None = None,
                 game_options: dict[str, Any] | None = None, features: bool = False,
                 steps: int = 0, extra: dict[str, Any] | None = None, **shape_fields: Any):
        unknown = sorted(set(shape_fields) - set(SHAPE_FIELDS))
        if unknown:
            raise TypeError(f"PolicyMetadata got unexpected keyword arguments {unknown}")
        shape_fields.update(zip(SHAPE_FIELDS, shape, strict=False))
        if network is None:
            network = NetworkShape(**shape_fields)
        elif shape_fields:
            network = dataclasses.replace(network, **shape_fields)
        values = {"game": game, "num_players": num_players,
                  "observation_size": observation_size, "num_actions": num_actions,
                  "network": network, "game_options": {} if game_options is None else game_options,
                  "features": features, "steps": steps, "extra": {} if extra is None else extra}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        if name in SHAPE_FIELDS and "network" in self.__dict__:
            return self.network.file_fields()[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def as_file_fields(self) -> dict[str, Any]:
        """The metadata as a policy file's JSON holds it: the shape's fields flat, after
        ``hidden`` and ``activation`` the others' places in the format."""
        shape = self.network.file_fields()
        return {"game": self.game, "num_players": self.num_players,
                "observation_size": self.observation_size, "num_actions": self.num_actions,
                "hidden": shape.pop("hidden"), "activation": shape.pop("activation"),
                "game_options": self.game_options, "features": self.features, **shape,
                "steps": self.steps, "extra": self.extra}


def _layout(metadata: PolicyMetadata) -> tuple[str, dict[str, Any]]:
    """The kind and settings of the network ``metadata`` describes (``forward.network_layout``),
    after checking its sizes against the game's encoder (and state, for a privileged critic)."""
    try:
        encoder = make_encoder(metadata.game, metadata.num_players, metadata.game_options,
                               metadata.features)
    except (TypeError, ValueError) as error:  # a player count or option the game refuses
        raise ValueError(f"no {metadata.game} encoder for this policy: {error}") from error
    if encoder.size != metadata.observation_size:
        raise ValueError(
            f"a {metadata.game} observation for {metadata.num_players} players encodes to "
            f"{encoder.size} numbers, the policy expects {metadata.observation_size}")
    critic_state_size = metadata.network.critic_state_size
    if critic_state_size:
        state_size = state_scale(metadata.game, metadata.num_players).size
        if critic_state_size != state_size:
            raise ValueError(
                f"the {metadata.game} state for {metadata.num_players} players has "
                f"{state_size} numbers, the policy's critic reads {critic_state_size}")
    return network_layout(metadata.network, encoder)


def _input_size(metadata: PolicyMetadata) -> int:
    return metadata.observation_size + metadata.network.critic_state_size


def build_network(metadata: PolicyMetadata) -> MaskableActorCriticPolicy:
    """The untrained torch network that ``metadata`` describes, as MaskablePPO builds it (the
    train extra; training only: play goes through :class:`LearnedPolicy`'s numpy network)."""
    from gymnasium import spaces

    from hunger_rl.policies.models.networks import mlp_kwargs, torch_policy_class

    policy_class, settings = torch_policy_class(*_layout(metadata))
    observation_space = spaces.Box(-np.inf, np.inf, (_input_size(metadata),), np.float32)
    return policy_class(
        observation_space,
        spaces.Discrete(metadata.num_actions),
        lr_schedule=lambda _: 0.0,
        ortho_init=False,  # the weights are loaded next; orthogonal init only costs time
        **mlp_kwargs(metadata.network),
        **settings,
    )


class LearnedPolicy(Policy):
    """A trained network playing one seat, in numpy (``models.forward``); observations are
    encoded as in training."""

    def __init__(self, network: PolicyNetwork, metadata: PolicyMetadata,
                 temperature: float = 0.0, name: str = "learned"):
        self.network = network
        self.metadata = metadata
        self.temperature = checked_temperature(temperature)
        self.name = name
        self._encode = make_encoder(metadata.game, metadata.num_players, metadata.game_options,
                                    metadata.features)
        self._torch_copy: MaskableActorCriticPolicy | None = None  # built for a large batch

    @classmethod
    def from_weights(cls, metadata: PolicyMetadata, weights: Mapping[str, Any],
                     temperature: float = 0.0, name: str = "learned") -> LearnedPolicy:
        """The policy of ``metadata`` with ``weights`` (arrays or CPU tensors under the torch
        network's names, which must be exactly the network's)."""
        kind, settings = _layout(metadata)
        shape = metadata.network
        try:
            network = PolicyNetwork(kind, settings, _input_size(metadata), metadata.num_actions,
                                    shape.hidden, shape.activation, weights)
        except ValueError as error:
            raise ValueError(f"the weights do not fit the network {list(shape.hidden)}: "
                             f"{error}") from error
        return cls(network, metadata, temperature, name)

    def torch_network(self) -> MaskableActorCriticPolicy:
        """A torch copy of the network (``build_network`` holding these weights), for training
        from it or exporting it; playing never needs one (the train extra)."""
        import torch

        # Built inside a fork of torch's random state: the initial weights are overwritten
        # below, and drawing them must not move the caller's random stream (a training run that
        # loads snapshots or evaluates in its own process would otherwise train differently).
        with torch.random.fork_rng(devices=[]):
            network = build_network(self.metadata)
        network.load_state_dict({name: torch.as_tensor(array)
                                 for name, array in self.network.weights.items()}, strict=True)
        return network.eval()

    def logits(self, observations: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """Unmasked action logits for a batch of raw observation vectors: numpy's forward pass,
        or torch's for a large batch of a network without an endgame head in a process that
        has torch loaded (``TORCH_BATCH_ROWS``)."""
        inputs = self._encode.batch(np.stack(observations))
        if (len(inputs) >= TORCH_BATCH_ROWS and not self.metadata.network.endgame_head
                and sys.modules.get("torch") is not None):
            return self._torch_logits(inputs)
        return self.network.logits(inputs)

    def _torch_logits(self, inputs: np.ndarray) -> np.ndarray:
        import torch

        from hunger_rl.policies.models.networks import action_logits

        if self._torch_copy is None:
            self._torch_copy = self.torch_network()
        return action_logits(self._torch_copy, torch.as_tensor(inputs)).numpy()

    @property
    def predicts_win_share(self) -> bool:
        return self.metadata.extra.get(VALUE_KEY) == WIN_SHARE_VALUE

    def win_shares(self, observations: np.ndarray) -> np.ndarray:
        """The value head's estimates of the observer's win share, for a (B, size) batch of raw
        observation vectors; only for a network whose value head was fitted to win shares."""
        if not self.predicts_win_share:
            raise ValueError(f"the value head of {self.name} was not fitted to win shares "
                             "(expert iteration fits one), so it cannot value a position")
        inputs = self._encode.batch(np.asarray(observations, np.float32))
        return self.network.values(inputs).astype(np.float64)

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        return int(self.act_batch([observation], rng)[0])

    def act_batch(self, observations, rng, views=None) -> np.ndarray:
        return self.act_vectors(np.stack([self._encode.raw_input(o) for o in observations]),
                                np.stack([o["action_mask"] for o in observations]), rng)

    def act_vectors(self, observations: np.ndarray, masks: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
        """Actions for a (K, raw size) batch of the encoder's raw rows (``raw_input``: the
        observation vector, and in HUNGER's full-decision mode its ``rule_action`` after it) and
        their (K, actions) masks, in one forward pass (the batched engine's snapshot seats too)."""
        masks = np.asarray(masks).astype(bool)
        if not masks.any(axis=1).all():
            raise ValueError("an action mask allows no action: this player is not to move")
        return choose_actions(self.logits(observations), masks, self.temperature, rng)


def choose_actions(logits: np.ndarray, masks: np.ndarray, temperature: float,
                   rng: np.random.Generator) -> np.ndarray:
    """The actions a network with (K, actions) ``logits`` plays under boolean ``masks`` (each
    allowing some action): the masked argmax at ``temperature`` 0, else a sample from the masked
    softmax of logits / T, by Gumbel-max with one draw per (row, action) from ``rng``, so that a
    seeded game replays exactly."""
    logits = np.where(masks, logits, -np.inf)
    if not temperature:
        return logits.argmax(axis=1)
    return (logits / temperature + rng.gumbel(size=logits.shape)).argmax(axis=1)


# Above this a softmax is uniform over the legal actions to within float precision for any
# trained logits, so a larger temperature says nothing more (and may be a typo).
MAX_TEMPERATURE = 100.0


def checked_temperature(temperature: Any) -> float:
    """``temperature`` as a float in [0, ``MAX_TEMPERATURE``] (0: argmax play), else a
    ``ValueError`` naming it."""
    if (isinstance(temperature, bool) or not isinstance(temperature, int | float)
            or not 0 <= temperature <= MAX_TEMPERATURE):
        raise ValueError(f"a policy's temperature must be a number in [0, {MAX_TEMPERATURE:g}] "
                         f"(0 plays the argmax), got {temperature!r}")
    return float(temperature)


def network_weights(network: torch.nn.Module) -> dict[str, np.ndarray]:
    """A detached numpy copy of a network's parameters (a frozen snapshot)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in network.state_dict().items()}


def save_policy(path: str | Path, network: torch.nn.Module, metadata: PolicyMetadata) -> Path:
    """Write the network's weights and ``metadata`` to one safetensors file, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: np.ascontiguousarray(v) for k, v in network_weights(network).items()}
    header = {"format": FORMAT, METADATA_KEY: json.dumps(metadata.as_file_fields())}
    write_atomically(path, save(tensors, metadata=header))
    return path


def write_atomically(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so
    that a reader, or a run killed mid-write, finds the old file or the new one, never part.
    Temporary files that killed writers left in the folder are removed first."""
    path = Path(path)
    remove_stale_temporaries(path.parent)
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


def remove_stale_temporaries(folder: str | Path, recursive: bool = False) -> list[Path]:
    """Remove the temporary files of ``write_atomically`` (``.NAME.PID.tmp``) in ``folder`` (and
    below it, if ``recursive``) whose writing process no longer runs: it was killed mid-write.
    Returns the files removed."""
    removed = []
    for candidate in Path(folder).glob("**/.*.tmp" if recursive else ".*.tmp"):
        match = TEMPORARY_NAME.fullmatch(candidate.name)
        if match and candidate.is_file() and not _process_runs(int(match["pid"])):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def _process_runs(pid: int) -> bool:
    """Whether process ``pid`` exists; on systems without POSIX signals, always True (there,
    ``os.kill`` would end the process)."""
    if os.name != "posix" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only checks that the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except (OverflowError, ValueError):  # no such process id at all
        return False
    return True


def read_metadata(path: str | Path) -> PolicyMetadata:
    """The metadata of a policy file (or of a folder holding ``policy.safetensors``), checked
    field by field and against the shapes of the file's tensors (read from its header, without
    loading them), so that nothing is built from sizes the weights do not have."""
    path = _policy_file(path)
    try:
        with safe_open(str(path), framework="np") as handle:
            header = handle.metadata() or {}
            tensors = {name: (tuple(handle.get_slice(name).get_shape()),
                              handle.get_slice(name).get_dtype())
                       for name in handle.keys()}  # noqa: SIM118 (the handle is not iterable)
    except (SafetensorError, OSError, ValueError) as error:
        raise ValueError(f"{path} is not a readable policy file: {error}") from error
    if header.get("format") != FORMAT:
        raise ValueError(f"{path} is not a hunger-rl policy file (format "
                         f"{short_repr(header.get('format'))}, expected {FORMAT!r})")
    try:
        fields = json.loads(header[METADATA_KEY])
    except (KeyError, ValueError, RecursionError) as error:  # ValueError: JSON, a huge int
        raise ValueError(f"{path}: corrupt policy metadata: {short_repr(error)}") from error
    try:
        metadata = _checked_metadata(fields)
        _check_tensor_shapes(metadata, tensors)
    except ValueError as error:
        raise ValueError(f"{path}: corrupt policy metadata: {error}") from error
    return metadata


def _checked_metadata(fields: Any) -> PolicyMetadata:
    """The metadata of a file's JSON ``fields``, each checked (the shape's by
    :class:`NetworkShape`), else a ``ValueError`` naming the first that is wrong."""
    if not isinstance(fields, dict):
        raise ValueError(f"expected a JSON object, got {short_repr(fields)}")
    known = {f.name for f in dataclasses.fields(PolicyMetadata)} - {"network"} | set(SHAPE_FIELDS)
    unknown = sorted(str(key) for key in fields if key not in known)
    if unknown:
        raise ValueError(f"unknown keys {short_repr(unknown)}")
    missing = [name for name in ("game", "num_players", "observation_size", "num_actions",
                                 "hidden", "activation") if name not in fields]
    if missing:
        raise ValueError(f"missing required keys {missing}")

    def check(name: str, valid: bool, wanted: str) -> None:
        if not valid:
            raise ValueError(f"{name} must be {wanted}, got {short_repr(fields.get(name))}")

    check("game", isinstance(fields["game"], str) and fields["game"] in GAMES,
          f"one of {sorted(GAMES)}")
    for name in ("num_players", "observation_size", "num_actions"):
        check(name, is_count(fields[name]), "a positive integer")
    shape = NetworkShape(**{name: fields[name] for name in SHAPE_FIELDS if name in fields})
    options = fields.get("game_options", {})
    check("game_options", isinstance(options, dict)
          and all(isinstance(key, str) for key in options), "a mapping of option names")
    check("features", isinstance(fields.get("features", False), bool), "true or false")
    check("steps", is_count(fields.get("steps", 0), low=0), "a non-negative integer")
    check("extra", isinstance(fields.get("extra", {}), dict), "a mapping")
    metadata = PolicyMetadata(**{name: value for name, value in fields.items()
                                 if name not in SHAPE_FIELDS}, network=shape)
    # As in a training config: option names the env knows, values it takes, a player count the
    # game has; a bad option would otherwise fail, or be ignored, only when a game is played.
    GAMES[metadata.game].check_env_options(metadata.num_players, metadata.game_options)
    return metadata


def _check_tensor_shapes(metadata: PolicyMetadata,
                         tensors: Mapping[str, tuple[tuple[int, ...], str]]) -> None:
    """The sizes in the metadata are the ones the file's tensors have: the layers of both MLPs
    (``hidden``, from ``observation_size``, plus ``critic_state_size`` for the value MLP; a
    full-decision network's three MLPs) and the action head (``num_actions``). Every other
    part of the network has a size fixed by the game, so the network built from checked
    metadata is no larger than the file."""
    shape, hidden = metadata.network, list(metadata.network.hidden)
    expected = {"action_net.bias": (metadata.num_actions,)}
    mlps = (("policy_net", metadata.observation_size),
            ("value_net", metadata.observation_size + shape.critic_state_size))
    if shape.action_scorer and GAMES[metadata.game].full_decisions(metadata.game_options):
        # A FullDecisionPolicy: the decisions MLP reads the observation; the picks' scorer
        # reads its default-mode part, whose size the game fixes.
        prefix = "mlp_extractor.picks.mlp."
        default_size = make_encoder(metadata.game, metadata.num_players,
                                    {**metadata.game_options, "decision_mode": "objects"}).size
        mlps = (("decisions", metadata.observation_size), ("policy_net", default_size),
                ("value_net", default_size))
    else:
        prefix = "mlp_extractor.mlp." if shape.action_scorer else "mlp_extractor."
    for net, inputs in mlps:
        net_prefix = "mlp_extractor." if net == "decisions" else prefix
        _expect_layers(expected, tensors, f"{net_prefix}{net}.", hidden, inputs,
                       f"hidden {hidden}")
    _check_shapes(expected, tensors,
                  f"observation_size {metadata.observation_size}, critic_state_size "
                  f"{shape.critic_state_size}, hidden {short_repr(hidden)} and "
                  f"num_actions {metadata.num_actions} make")
    if shape.endgame_head:
        _check_endgame_shapes(shape.endgame_model, list(shape.endgame_hidden), tensors)
    others = sorted({dtype for _, dtype in tensors.values()} - {WEIGHT_DTYPE})
    if others:
        raise ValueError(f"weights must be {WEIGHT_DTYPE}, the file has {others}")


def _check_endgame_shapes(model: str, widths: list[int],
                          tensors: Mapping[str, tuple[tuple[int, ...], str]]) -> None:
    """The endgame head's layers have the ``endgame_hidden`` widths: the per-play model's
    per-play layers, from the play inputs whose size the game fixes, and its context layer; the
    cards model's card embedding (from the card inputs) and its rounds of messages, one per
    width."""
    head = "mlp_extractor.endgame."
    named = f"endgame_model {model!r} with endgame_hidden {short_repr(widths)}"
    expected: dict[str, tuple[int, ...]] = {}
    if model == "cards":
        width = widths[0]
        expected[f"{head}embed.0.weight"] = (width, CARD_INPUT_SIZE)
        for layer in range(len(widths)):
            expected[f"{head}rounds.{layer}.0.weight"] = (width, 4 * width)
        beyond = f"{head}rounds.{len(widths)}.0.weight"
        if beyond in tensors:
            raise ValueError(f"{named} has {len(widths)} rounds, the file has more ({beyond})")
        expected[f"{head}score.0.weight"] = (width, 4 * width)
    else:
        last = _expect_layers(expected, tensors, f"{head}per_play.", widths, ENDGAME_INPUT_SIZE,
                              named)
        expected[f"{head}context.weight"] = (last, last)
    _check_shapes(expected, tensors, f"{named} makes")


def _expect_layers(expected: dict[str, tuple[int, ...]],
                   tensors: Mapping[str, tuple[tuple[int, ...], str]], prefix: str,
                   widths: list[int], inputs: int, named: str) -> int:
    """Adds to ``expected`` the weight shapes of the linear layers ``prefix``0, 2, ... of
    ``widths`` fed ``inputs`` (activations sit between them), refuses a file with one layer
    more, and returns the last width."""
    for layer, width in enumerate(widths):
        expected[f"{prefix}{2 * layer}.weight"] = (width, inputs)
        inputs = width
    beyond = f"{prefix}{2 * len(widths)}.weight"
    if beyond in tensors:
        raise ValueError(f"{named} has {len(widths)} layers, the file has more ({beyond})")
    return inputs


def _check_shapes(expected: dict[str, tuple[int, ...]],
                  tensors: Mapping[str, tuple[tuple[int, ...], str]], made_by: str) -> None:
    """Every expected tensor is in the file with its shape, else an error naming what made the
    expectation."""
    for name, shape in expected.items():
        found = tensors.get(name, (None, None))[0]
        if found != shape:
            raise ValueError(f"{made_by} {name} of shape {shape}; the file's is {found}")


def read_weights(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a policy file whose metadata :func:`read_metadata` checked, as numpy
    arrays; all finite."""
    path = _policy_file(path)
    try:
        weights = load_file(str(path))
    except (SafetensorError, OSError) as error:
        raise ValueError(f"{path}: corrupt policy weights: {error}") from error
    for name, tensor in weights.items():
        if not np.isfinite(tensor).all():
            raise ValueError(f"{path}: tensor {name} holds NaN or infinite weights")
    return weights


def load_policy(path: str | Path, game: str, num_players: int,
                temperature: float = 0.0) -> LearnedPolicy:
    """Load a trained policy for ``game`` with ``num_players``; a clear error if it is for
    another game or player count, or if the file is not a policy file, its metadata does not
    describe its tensors, or a weight is not finite."""
    metadata = read_metadata(path)
    if (metadata.game, metadata.num_players) != (game, num_players):
        raise ValueError(
            f"{path} holds a policy for {metadata.game} with {metadata.num_players} players, "
            f"not for {game} with {num_players} players")
    return LearnedPolicy.from_weights(metadata, read_weights(path), temperature,
                                      name=str(path))


def _policy_file(path: str | Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / POLICY_FILE
    if not path.is_file():
        raise ValueError(f"no policy file at {path}")
    return path
