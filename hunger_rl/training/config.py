"""Training configurations: YAML files checked against an explicit schema.

A config file is a mapping with the sections below; every key is optional except ``game`` and
``num_players``, and a key that is not in the schema, or a value of the wrong type or range, is a
``ValueError`` naming the key path (``ppo.learning_rate must be a positive number, got 'fast'``).

.. code-block:: yaml

    game: hungry                # hungry | hunger_show
    num_players: 2
    game_options: {}            # keyword arguments of the game's environment (its env card)
    seed: 0
    total_steps: 1500000        # learner decisions, summed over the parallel environments
    out: runs/hungry_2p         # output folder
    torch_threads: 1           # more threads stall on a busy 2-core machine
    env:
      n_envs: 8                 # parallel games
      vec_env: dummy            # dummy (one process) | subprocess (one process per game)
      margin_shaping: 0.0       # Hungry: reward share for the change in score margin
      batched: false            # Hungry: all games in one compiled batch (see below)
    ppo: {learning_rate: 3.0e-4, n_steps: 256, batch_size: 512, n_epochs: 4, gamma: 1.0,
          gae_lambda: 0.95, clip_range: 0.2, ent_coef: 0.01, vf_coef: 0.5, max_grad_norm: 0.5}
    network: {hidden: [256, 256], activation: tanh, action_scorer: false, endgame_head: false}
    opponents:
      weights: {self: 0.4, random: 0.1, greedy: 0.2, expert: 0.3}
      snapshot_every: 10        # PPO updates between frozen snapshots of the learner
      max_snapshots: 8          # the oldest snapshot leaves the pool first
    evaluation:
      every_steps: 100000
      games: 200                # per opponent, seat-rotated
      opponents: [random, greedy, expert]
      final_games: 2000
      workers: 1
    endgame:                    # Hungry: fit the endgame head to play values from playouts
      positions: 0              # positions after the last draw; 0: no fit
      deals: 8                  # playouts per legal play
      epochs: 8                 # at most; the epoch best on held-out games is kept
      batch_size: 256
      learning_rate: 1.0e-3
      workers: 2                # playout processes
    checkpoint_every_steps: 100000
    backend: sb3                # sb3 (this machine) | rllib (Ray RLlib, one machine or a cluster)
    rllib:                      # read only by the rllib backend, which ignores env, ppo.n_steps,
      num_env_runners: 2        # ppo.batch_size and checkpoint_every_steps
      address: null             # null starts a local Ray instance; "auto" or "HOST:6379" joins
      train_batch_size: 4000    # a running cluster
      minibatch_size: 500
      num_learners: 0           # 0: learn in the driver process

``env.batched: true`` (Hungry only) steps the ``env.n_envs`` games together on the compiled
batched engine (``BatchedHungryVecEnv``), many times faster per step than one Python game per
env. Its opponents are compiled as well, so ``opponents.weights`` may name only ``random``,
``greedy`` and ``forecast`` (not ``self``, ``expert``, ``search:N`` or a policy file); the games
are split between them in proportion to the weights, and each game keeps its opponent for the
whole run.

``network.action_scorer: true`` (sb3 backend) scores each action with one small network shared
by all actions, from that action's derived features, starting from its prior value
(``policies.models.networks.ActionScorerPolicy``): training begins from a soft player of the
prior and learns where to depart from it. The prior is, for Hungry, the forecast (the expert's
valuation, compiled); for HUNGER: The Show, the crowd values (the expert's valuation with one round
of replies, ``policies.models.encoders``).

``network.endgame_head: true`` (Hungry, with ``action_scorer``) gives the scorer a second head
that scores the plays once the deck is empty (``policies.models.hungry_endgame``);
``endgame.positions: N``
fits it before PPO to the values of the legal plays in N such positions, measured by playouts
(``training.endgame``).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hunger_rl.envs import GAMES
from hunger_rl.envs.hungry.engine import HAND_SIZE

SELF_PLAY = "self"
# The opponents the batched engine plays itself (hunger_rl.envs.hungry.batched.POLICY_KINDS).
BATCHED_OPPONENTS = ("random", "greedy", "forecast")
VEC_ENV_KINDS = ("dummy", "subprocess")
BACKENDS = ("sb3", "rllib")
ACTIVATIONS = ("tanh", "relu")


def _rule(check: Callable[[Any], bool], requirement: str) -> dict[str, Any]:
    """Field metadata: a value check beyond the type, and the words for the error."""
    return {"check": check, "requirement": requirement}


POSITIVE = _rule(lambda v: v > 0, "a positive number")
NON_NEGATIVE = _rule(lambda v: v >= 0, "a non-negative number")
UNIT_INTERVAL = _rule(lambda v: 0 <= v <= 1, "a number in [0, 1]")
# The endgame fit holds out every this-many-th game's positions to choose its epoch.
ENDGAME_VALIDATION_EVERY = 10


@dataclass(frozen=True)
class EnvConfig:
    n_envs: int = field(default=8, metadata=POSITIVE)
    vec_env: str = field(default="dummy", metadata=_rule(
        lambda v: v in VEC_ENV_KINDS, f"one of {list(VEC_ENV_KINDS)}"))
    # Hungry only: weight of the score-margin shaping (see HungrySingleAgentEnv); 0 is pure R1.
    margin_shaping: float = field(default=0.0, metadata=NON_NEGATIVE)
    # Hungry only: the n_envs games run on the compiled batched engine, whose opponents are
    # compiled too, so opponents.weights may name only BATCHED_OPPONENTS; vec_env is unused.
    batched: bool = False


@dataclass(frozen=True)
class PPOConfig:
    learning_rate: float = field(default=3e-4, metadata=POSITIVE)
    n_steps: int = field(default=256, metadata=POSITIVE)
    batch_size: int = field(default=512, metadata=POSITIVE)
    n_epochs: int = field(default=4, metadata=POSITIVE)
    # Rewards come only at the end of a game, so no discounting by default.
    gamma: float = field(default=1.0, metadata=UNIT_INTERVAL)
    gae_lambda: float = field(default=0.95, metadata=UNIT_INTERVAL)
    clip_range: float = field(default=0.2, metadata=POSITIVE)
    ent_coef: float = field(default=0.01, metadata=NON_NEGATIVE)
    vf_coef: float = field(default=0.5, metadata=NON_NEGATIVE)
    max_grad_norm: float = field(default=0.5, metadata=POSITIVE)


@dataclass(frozen=True)
class NetworkConfig:
    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata=_rule(
        lambda v: len(v) > 0 and all(h > 0 for h in v), "a non-empty list of positive integers"))
    activation: str = field(default="tanh", metadata=_rule(
        lambda v: v in ACTIVATIONS, f"one of {list(ACTIVATIONS)}"))
    action_scorer: bool = False
    endgame_head: bool = False


@dataclass(frozen=True)
class OpponentsConfig:
    """Who sits in the other seats. ``weights`` maps a policy spec (``random``, ``greedy``,
    ``expert``, ``forecast``, ``search:N``, a policy file) or ``self`` (a frozen snapshot of
    the learner) to its relative weight; each opponent seat draws one independently every
    episode."""

    weights: dict[str, float] = field(
        default_factory=lambda: {SELF_PLAY: 0.4, "random": 0.1, "greedy": 0.2, "expert": 0.3},
        metadata=_rule(lambda v: v and all(w >= 0 for w in v.values()) and sum(v.values()) > 0,
                       "a non-empty map of non-negative weights with a positive sum"))
    snapshot_every: int = field(default=10, metadata=POSITIVE)
    max_snapshots: int = field(default=8, metadata=POSITIVE)


@dataclass(frozen=True)
class EvaluationConfig:
    every_steps: int = field(default=100_000, metadata=POSITIVE)
    games: int = field(default=200, metadata=POSITIVE)
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"],
                                 metadata=_rule(lambda v: len(v) > 0, "a non-empty list"))
    final_games: int = field(default=2000, metadata=POSITIVE)
    workers: int = field(default=1, metadata=POSITIVE)


@dataclass(frozen=True)
class EndgameConfig:
    """Fit the network's endgame head (``network.endgame_head``) before PPO to the values of
    the legal plays in ``positions`` positions after the last draw, each play's value its mean
    win share over ``deals`` playouts (``training.endgame``); 0 positions, no fit. One game in
    ``ENDGAME_VALIDATION_EVERY`` is held out to choose the epoch."""

    positions: int = field(default=0, metadata=NON_NEGATIVE)
    deals: int = field(default=8, metadata=POSITIVE)
    epochs: int = field(default=8, metadata=POSITIVE)
    batch_size: int = field(default=256, metadata=POSITIVE)
    learning_rate: float = field(default=1e-3, metadata=POSITIVE)
    workers: int = field(default=2, metadata=POSITIVE)


@dataclass(frozen=True)
class RLlibConfig:
    num_env_runners: int = field(default=2, metadata=NON_NEGATIVE)
    address: str | None = None
    train_batch_size: int = field(default=4000, metadata=POSITIVE)
    minibatch_size: int = field(default=500, metadata=POSITIVE)
    num_learners: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class TrainConfig:
    game: str = field(metadata=_rule(lambda v: v in GAMES, f"one of {sorted(GAMES)}"))
    num_players: int = field(metadata=POSITIVE)
    game_options: dict[str, Any] = field(default_factory=dict)
    seed: int = field(default=0, metadata=NON_NEGATIVE)
    total_steps: int = field(default=1_000_000, metadata=POSITIVE)
    out: str = "runs/train"
    torch_threads: int = field(default=1, metadata=POSITIVE)
    checkpoint_every_steps: int = field(default=100_000, metadata=POSITIVE)
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    endgame: EndgameConfig = field(default_factory=EndgameConfig)
    backend: str = field(default="sb3", metadata=_rule(
        lambda v: v in BACKENDS, f"one of {list(BACKENDS)}"))
    rllib: RLlibConfig = field(default_factory=RLlibConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)


# -- parsing ----------------------------------------------------------------------------------


def load_config(path: str | Path) -> TrainConfig:
    """Read and check a YAML config file; every problem is a ``ValueError`` naming the key."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as error:
        raise ValueError(f"cannot read config {path}: {error}") from error
    except yaml.YAMLError as error:
        raise ValueError(f"config {path} is not valid YAML: {error}") from error
    try:
        return config_from_dict(raw)
    except ValueError as error:
        raise ValueError(f"config {path}: {error}") from error


def config_from_dict(raw: Any) -> TrainConfig:
    config = _build(TrainConfig, raw, "")
    _check_consistency(config)
    return config


def _build(cls: type, raw: Any, prefix: str) -> Any:
    if not isinstance(raw, Mapping):
        where = prefix.rstrip(".") or "the config"
        raise ValueError(f"{where} must be a mapping, got {raw!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [key for key in raw if key not in fields]
    if unknown:
        raise ValueError(f"unknown key {prefix}{unknown[0]}; known keys: {sorted(fields)}")
    hints = typing.get_type_hints(cls)
    values = {}
    for name, spec in fields.items():
        path = f"{prefix}{name}"
        if name not in raw:
            if spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
                raise ValueError(f"missing key {path}")
            continue
        kind = hints[name]
        if dataclasses.is_dataclass(kind):
            values[name] = _build(kind, raw[name], f"{path}.")
        else:
            values[name] = _check_value(path, raw[name], kind, spec.metadata)
    return cls(**values)


def _check_value(path: str, value: Any, kind: Any, rule: Mapping[str, Any]) -> Any:
    requirement = rule.get("requirement")
    if not _has_type(value, kind):
        wanted = f"{_type_name(kind)}" + (f", {requirement}" if requirement else "")
        raise ValueError(f"{path} must be {wanted}, got {value!r}")
    if rule and not rule["check"](value):
        raise ValueError(f"{path} must be {requirement}, got {value!r}")
    return float(value) if kind is float else value


def _has_type(value: Any, kind: Any) -> bool:
    origin = typing.get_origin(kind)
    if kind is Any:
        return True
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return (isinstance(value, int | float) and not isinstance(value, bool)
                and math.isfinite(value))
    if kind is str:
        return isinstance(value, str)
    if origin is list:
        (item,) = typing.get_args(kind)
        return isinstance(value, list) and all(_has_type(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(kind)
        return isinstance(value, dict) and all(
            _has_type(k, key) and _has_type(v, item) for k, v in value.items())
    if isinstance(kind, types.UnionType):
        return any(_has_type(value, k) for k in typing.get_args(kind))
    raise TypeError(f"no check for type {kind}")


def _type_name(kind: Any) -> str:
    if typing.get_origin(kind) is list:
        return f"a list of {_type_name(typing.get_args(kind)[0])}"
    if typing.get_origin(kind) is dict:
        return "a mapping"
    if isinstance(kind, types.UnionType):
        return " or ".join(_type_name(k) for k in typing.get_args(kind))
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string",
            type(None): "null"}.get(kind, str(kind))


def _check_consistency(config: TrainConfig) -> None:
    """Checks that need more than one key, or the game itself."""
    # Imported here: the game modules and the policy registry are heavier than the schema.
    from hunger_rl.envs import load_game
    from hunger_rl.policies.registry import make_policy

    game = load_game(config.game)
    try:
        game.parallel_env(num_players=config.num_players, **config.game_options) if hasattr(
            game, "parallel_env") else game.raw_env(
            num_players=config.num_players, **config.game_options)
    except (TypeError, ValueError) as error:
        raise ValueError(f"game_options or num_players rejected by {config.game}: {error}") \
            from error
    for section, specs in (("opponents.weights", list(config.opponents.weights)),
                           ("evaluation.opponents", config.evaluation.opponents)):
        for spec in specs:
            if section == "opponents.weights" and spec == SELF_PLAY:
                continue
            try:
                make_policy(spec, config.game, config.num_players)
            except (OSError, ValueError) as error:
                raise ValueError(f"{section}: unknown opponent {spec!r}: {error}") from error
    if config.network.action_scorer and config.backend != "sb3":
        raise ValueError("network.action_scorer applies to the sb3 backend only")
    if config.network.endgame_head and not config.network.action_scorer:
        raise ValueError("network.endgame_head needs network.action_scorer: true")
    if config.network.endgame_head and config.game != "hungry":
        raise ValueError("network.endgame_head applies to hungry only")
    if config.endgame.positions:
        if not config.network.endgame_head:
            raise ValueError("endgame.positions fits the endgame head: set "
                             "network.endgame_head: true")
        minimum = ENDGAME_VALIDATION_EVERY * HAND_SIZE * config.num_players
        if config.endgame.positions < minimum:
            raise ValueError(
                f"endgame.positions must be 0 or at least {minimum} (the positions of "
                f"{ENDGAME_VALIDATION_EVERY} games: one game in {ENDGAME_VALIDATION_EVERY} is "
                f"held out)")
    if config.backend == "rllib":
        if config.rllib.minibatch_size > config.rllib.train_batch_size:
            raise ValueError(
                f"rllib.minibatch_size ({config.rllib.minibatch_size}) must not exceed "
                f"rllib.train_batch_size ({config.rllib.train_batch_size})")
        return
    if config.env.batched:
        if config.game != "hungry":
            raise ValueError(f"env.batched applies to hungry only, not {config.game}")
        others = [spec for spec in config.opponents.weights if spec not in BATCHED_OPPONENTS]
        if others:
            raise ValueError(
                f"opponents.weights: env.batched plays only {list(BATCHED_OPPONENTS)} "
                f"opponents, not {others}")
    if config.env.margin_shaping and config.game != "hungry":
        raise ValueError("env.margin_shaping applies to hungry only; HUNGER: The Show has its "
                         "own game_options: {reward: shaped}")
    rollout = config.ppo.n_steps * config.env.n_envs
    if rollout % config.ppo.batch_size:
        raise ValueError(
            f"ppo.batch_size ({config.ppo.batch_size}) must divide ppo.n_steps x env.n_envs "
            f"({rollout}), so that no minibatch is truncated")
