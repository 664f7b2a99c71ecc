"""Training configurations: YAML files checked against one declarative schema.

A config file is a mapping of the sections below; every key is optional except ``game`` and
``num_players``. Each field of the dataclasses below is declared with :func:`setting`: its type,
default, bounds and meaning in one place, and what the key needs once it is set: the backends
that read it and the other keys, mode or game it goes with (:class:`Rule`, :class:`Needs`). The
validator reads them and makes its errors from them, and so does ``docs/config.md``, the
reference of every key, written by ``python -m hunger_rl.training.config`` (a test checks the
file matches); only the few rules that relate several keys beyond that are written out, each in
a function named for what it guards. A key that is not in the schema,
or a value of the wrong type or out of bounds, is a ``ValueError`` naming the key path and
showing a short excerpt of the value (``ppo.learning_rate must be a number in (0, 1], got
'fast'``); so is a file that is not UTF-8, not YAML, repeats a key, nests too deeply or holds
too many values (a YAML alias bomb).

``env.batched: true`` steps the ``env.n_envs`` games together on the compiled
batched engine (``BatchedHungryVecEnv``), many times faster per step than one Python game per
env. Its opponents are compiled as well (``TrainingGame.batched_opponents``), so for Hungry
``opponents.weights`` may name only ``random``, ``greedy``, ``forecast`` and ``expert`` (not
``self``, ``search:N`` or a policy file); the games are split between them in proportion to the
weights, and each game keeps its opponent for the whole run. For ``hunger_show`` it steps the
shows on ``BatchedShowVecEnv``, whose league (``training.league``) draws for every seat of every
show one of the compiled opponents ``random``, ``greedy``, ``crowd`` and ``expert``, for
``self`` a frozen snapshot of the learner, or a trained network or a mixture of those
(``league.check_seatable``), the networks answered by batched inference;
``opponents.pfsp_exponent`` > 0 draws them by prioritised fictitious self-play.

``network.action_scorer: true`` (sb3 and expert_iteration backends) scores each action with
one small network shared by all actions, from that action's derived features, starting from its
prior value (``policies.models.networks.ActionScorerPolicy``): training begins from a soft
player of the prior and learns where to depart from it. The prior is, for Hungry, the forecast
(the expert's valuation, compiled); for HUNGER: The Show, the crowd values (the expert's
valuation with one round of replies, ``policies.models.encoders``).

``network.endgame_head: true`` (Hungry, with ``action_scorer``) gives the scorer a second head
that scores the plays once the deck is empty (``policies.models.hungry_endgame``;
``network.endgame_hidden`` sets its layers' widths); ``endgame.positions: N``
fits it before PPO to the values of the legal plays in N such positions, measured by playouts
(``training.endgame``).

``network.privileged_critic: true`` (sb3 backend, without ``action_scorer`` and
``env.batched``) appends the game's ``state()`` to every training input; the value network
reads it, the policy network never does (``policies.models.networks.PrivilegedCriticPolicy``),
as in PerfectDou's perfect-information distillation.

``network.start: SPEC`` (sb3 and exploiter_league backends) loads a trained policy's weights
into the fresh network before PPO. In HUNGER's full-decision mode an action scorer is a
``policies.models.networks.FullDecisionPolicy``: its daily picks and value load from a
default-mode action scorer, and every later choice starts with the logit
``network.rule_prior`` on the S19 rule's choice, so that with both it plays the start agent's
games exactly.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import reprlib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hunger_rl.engines.hungry.engine import HAND_SIZE, TOTAL_PLAYS
from hunger_rl.engines.validation import LEGACY_NUMPY_SEED_LIMIT
from hunger_rl.envs import GAMES
from hunger_rl.policies.hungry_search import PLAYOUT_OPPONENTS
from hunger_rl.policies.models.forward import SHAPE_FIELDS, NetworkShape
from hunger_rl.policies.models.hungry_endgame import DEFAULT_HIDDEN as DEFAULT_ENDGAME_HIDDEN
from hunger_rl.policies.models.hungry_endgame import DEFAULT_MODEL as DEFAULT_ENDGAME_MODEL
from hunger_rl.policies.models.hungry_endgame import ENDGAME_MODELS
from hunger_rl.training.games import SELF_PLAY, games_with, training_game
from hunger_rl.training.ray_cluster import RAY_CONNECT_TIMEOUT_S

VEC_ENV_KINDS = ("dummy", "subprocess")
LEARNING_RATE_SCHEDULES = ("constant", "linear")
BACKENDS = ("sb3", "rllib", "expert_iteration", "exploiter_league")
# How the exploiter league splits its population's share of the seats
# (``ExploiterLeagueConfig.meta_solver``): uniform and pfsp for a trained main agent, uniform and
# nash for a mixture.
META_SOLVERS = ("uniform", "pfsp", "nash")
# What the exploiter league's main agent is (``ExploiterLeagueConfig.main``).
LEAGUE_MAINS = ("trained", "mixture")
# What expert iteration fits (``ExpertIterationConfig.fit``).
FITS = ("policy_and_value", "value")
# Who plays expert iteration's games (``ExpertIterationConfig.players``).
GAME_PLAYERS = ("search", "forecast")
ACTIVATIONS = ("tanh", "relu")
# The endgame fit holds out every this-many-th game's positions to choose its epoch.
ENDGAME_VALIDATION_EVERY = 10

# Training seeds NumPy's legacy generator (below LEGACY_NUMPY_SEED_LIMIT) with seed + steps and
# evaluations with seed + a fixed offset; half that range for the seed, the other half for
# the steps (MAX_STEPS) and the offset keep every such sum inside it.
MAX_TRAINING_SEED = LEGACY_NUMPY_SEED_LIMIT // 2 - 1
MAX_STEPS = 10**9
# Whole-file limits, checked before any value: a YAML alias bomb counts once per use of an alias.
MAX_FILE_BYTES = 1 << 20
MAX_VALUES = 10_000
MAX_DEPTH = 12
MAX_WORKERS = 256
WEIGHTS_ITEMS = 64  # opponents.weights' members at most
REQUIRED = dataclasses.MISSING


# The backend a backend trains as: exploiter_league's main agent is an sb3 run of the same config
# (``training.exploiter_league.main_config``), so it reads every key the sb3 backend reads.
TRAINS_AS = {"exploiter_league": "sb3"}


@dataclass(frozen=True)
class Needs:
    """What a setting needs whenever it is set (differs from its default): another key's
    ``value`` (``key``, a key path), HUNGER's full-decision or default-decision ``mode`` (an
    action scorer's), or a game with the training ``feature`` (a flag of
    ``training.games.TrainingGame``); each that is given must hold. ``message`` is the error
    after the key's path, with ``{needed}`` (``key: value``), ``{games}`` (the games with the
    feature) and ``{game}`` (the config's) filled in; without one it is ``needs {needed}``, or
    ``applies to {games} only``."""

    key: str | None = None
    value: Any = True
    mode: str | None = None  # "full_decisions" or "default_decisions"
    feature: str | None = None
    message: str = ""

    def text(self) -> str:
        """The need in words, for the config reference."""
        parts = [] if self.key is None else [f"`{self.key}: {_yaml(self.value)}`"]
        if self.mode is not None:
            parts.append(MODE_NAMES[self.mode])
        if self.feature is not None:
            parts.append(games_with(self.feature))
        return ", ".join(parts)


# The modes of ``Needs.mode``, in words.
MODE_NAMES = {"full_decisions": "the full-decision mode",
              "default_decisions": "the default-decision mode"}


@dataclass(frozen=True)
class Rule:
    """What a config field accepts beyond its type, and what it is for. Bounds apply to a
    number, or to each item of a list or each value of a mapping; ``items`` bounds the length
    of a list or mapping. A field set to other than its default must be read by the backend
    (``backends``, none: every backend; ``TRAINS_AS`` adds the backends that train as one of
    them) and have what it ``needs``; ``note`` follows the backends' error in brackets."""

    doc: str
    low: float | None = None  # inclusive unless low_open
    high: float | None = None  # inclusive
    low_open: bool = False
    choices: tuple[Any, ...] = ()
    items: tuple[int, int] | None = None
    backends: tuple[str, ...] = ()
    note: str = ""
    needs: tuple[Needs, ...] = ()


def setting(default: Any, doc: str, *, needs: str | Needs | tuple[Needs, ...] = (),
            **bounds: Any) -> Any:
    """A schema field: its default (``REQUIRED`` for none), its meaning, its bounds, the
    backends that read it and what it needs (a key path, for that key set to true)."""
    if isinstance(needs, str):
        needs = (Needs(needs),)
    elif isinstance(needs, Needs):
        needs = (needs,)
    metadata = {"rule": Rule(doc, needs=needs, **bounds)}
    if default is REQUIRED:
        return field(metadata=metadata)
    if isinstance(default, list | dict):
        return field(default_factory=lambda: copy.deepcopy(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def section(cls: type, doc: str, backends: tuple[str, ...] = ()) -> Any:
    """A schema section: its keys (the dataclass ``cls``), its meaning and the backends that
    read it (none: every backend); the others ignore the whole section, so its keys' needs are
    checked for those backends only."""
    return field(default_factory=cls, metadata={"rule": Rule(doc, backends=backends)})


@dataclass(frozen=True)
class EnvConfig:
    n_envs: int = setting(8, "parallel games", low=1, high=4096)
    vec_env: str = setting("dummy", "dummy (one process) or subprocess (one process per game)",
                           choices=VEC_ENV_KINDS)
    margin_shaping: float = setting(
        0.0, "weight of the score-margin shaping (see HungrySingleAgentEnv); 0 is pure R1",
        low=0, high=100, needs=Needs(feature="margin_shaping", message=(
            "applies to {games} only; HUNGER: The Show has its own game_options: "
            "{reward: shaped}")))
    batched: bool = setting(
        False, "the n_envs games run on the compiled batched engine, whose opponents are "
        "compiled too, so opponents.weights may name only random, greedy, forecast and expert "
        "(Hungry) or random, greedy, crowd, expert and self (HUNGER, training.league); vec_env "
        "is unused")


@dataclass(frozen=True)
class PPOConfig:
    learning_rate: float = setting(3e-4, "Adam's step size", low=0, low_open=True, high=1)
    learning_rate_schedule: str = setting(
        "constant", "constant, learning_rate throughout; linear, from "
        "learning_rate at step 0 down to 0 at total_steps, by the learner's steps (a resumed "
        "run continues the same line; a changed total_steps changes its slope from there)",
        choices=LEARNING_RATE_SCHEDULES, backends=("sb3",))
    n_steps: int = setting(256, "steps per env between updates", low=1, high=10**6)
    batch_size: int = setting(512, "minibatch size; must divide n_steps x env.n_envs",
                              low=1, high=10**7)
    n_epochs: int = setting(4, "passes over each rollout", low=1, high=1000)
    gamma: float = setting(1.0, "discount; rewards come only at the end of a game, so none",
                           low=0, high=1)
    gae_lambda: float = setting(0.95, "GAE's lambda", low=0, high=1)
    clip_range: float = setting(0.2, "PPO's ratio clip", low=0, low_open=True, high=10)
    ent_coef: float = setting(0.01, "entropy bonus weight", low=0, high=10)
    ent_coef_final: float | None = setting(
        None, "the entropy bonus falls linearly from ent_coef at step 0 to this at "
        "total_steps, by the learner's steps (a resumed run continues the same line): the "
        "regularised equilibrium an entropy bonus pulls toward moves toward the game's own as "
        "the bonus shrinks; null: ent_coef throughout", low=0, high=10, backends=("sb3",))
    magnet_coef: float = setting(
        0.0, "each of the learner's rewards less this times log(pi(a|s) / magnet(a|s)) of its "
        "action, where the magnet is the learner as it was at its last checkpoint (the start "
        "before the first; checkpoint_every_steps sets how often it moves): regularised Nash "
        "dynamics' reward transform, whose fixed point moves with the magnet toward the game's "
        "equilibrium where a uniform magnet (the entropy bonus) holds it at a regularised one "
        "(docs/experiments/exploiter_league.md); 0: none", low=0, high=10, backends=("sb3",))
    vf_coef: float = setting(0.5, "value loss weight", low=0, high=100)
    max_grad_norm: float = setting(0.5, "gradient norm clip", low=0, low_open=True, high=10**6)
    scorer_lr_scale: float = setting(
        1.0, "the learning rate of the layers that reach the logits only through the action "
        "scores (the scorer, its context and the endgame head) is learning_rate times this; the "
        "scores enter the logits 40 times over (ActionScorerPolicy.PRIOR_WEIGHT), so 0.025 "
        "gives those layers the logit step of any other layer", low=0, low_open=True, high=1,
        needs=(Needs("network.action_scorer", message="applies to {needed} only"),
               Needs(mode="default_decisions",
                     message="applies to a default-mode action scorer only")))
    target_kl: float | None = setting(
        None, "an update stops its passes over the rollout once the approximate KL between "
        "the policy before and after exceeds 1.5 x this; null: no limit", low=0,
        low_open=True, high=10, backends=("sb3",))
    critic_warmup_steps: int = setting(
        0, "the updates of the first this many steps train the value network alone (every "
        "parameter that reaches the policy's logits stays as it is), so that the policy's "
        "first steps follow advantages from a critic fitted to its start; 0: none",
        low=0, high=10**10, backends=("sb3",))
    group_baseline: int = setting(
        0, "K >= 2 deals every game to K slots of the batched engine alike (the "
        "same cards, learner seat and opponent), and the advantage of each step is its "
        "return minus the mean return of the other K - 1 copies at the same step (a "
        "leave-one-out baseline, in place of the critic's), so that the deal's luck cancels; "
        "needs one opponent, gamma and gae_lambda 1, env.n_envs a multiple of K and n_steps "
        "a multiple of a game's learner steps (48 / num_players); the critic still learns "
        "(docs/experiments/ppo_fixed_opponent.md: the deal explains about an eighth of the "
        "outcome's variance); 0: none", low=0, high=4096, backends=("sb3",),
        needs=(Needs(feature="group_baseline"), Needs("env.batched", message=(
            "deals each game to a group of slots of the batched engine: set {needed}"))))
    branch_advantages: bool = setting(
        False, "every decision's advantage is the outcome of its action minus that of a "
        "second action drawn from the same policy, both branches played on to the end of the "
        "game on the same deal (the same cards to draw, the opponents' same random numbers) "
        "by the policy's argmax, so that the luck of the deal cancels and each decision gets "
        "its own credit; needs the outcome alone as reward (env.margin_shaping 0) and no "
        "group_baseline; the critic still learns the returns "
        "(docs/experiments/ppo_fixed_opponent.md)", backends=("sb3",),
        needs=(Needs(feature="branch_advantages"), Needs("env.batched", message=(
            "plays its branches in the batched engine: set {needed}"))))
    branch_from_play: int = setting(
        0, "with branch_advantages, only the decisions made once this many plays of the game "
        "are made get branches; the earlier ones take advantage 0 (no step): one deal tells "
        "little about a decision while many cards are still to be drawn "
        "(docs/experiments/branch_advantages.md); 0: every decision",
        low=0, high=TOTAL_PLAYS - 1, needs=Needs("ppo.branch_advantages"))


@dataclass(frozen=True)
class NetworkConfig:
    hidden: list[int] = setting([256, 256], "widths of the hidden layers", low=1, high=4096,
                                items=(1, 16))
    activation: str = setting("tanh", "activation between layers", choices=ACTIVATIONS)
    action_scorer: bool = setting(
        False, "score each action with one small network shared by all actions, starting "
        "from its prior value", backends=("sb3", "expert_iteration"))
    endgame_head: bool = setting(
        False, "a second scorer head for the plays once the deck is empty",
        needs=(Needs("network.action_scorer"), Needs(feature="endgame_head")))
    endgame_hidden: list[int] = setting(
        list(DEFAULT_ENDGAME_HIDDEN), "widths of the endgame head's per-play layers (its "
        "context and score layers take the last width), or with endgame_model cards one round "
        "of messages per width, all equal; stored in the policy file", low=1, high=4096,
        items=(1, 8), needs=Needs("network.endgame_head",
                                  message="sizes the endgame head: set {needed}"))
    endgame_model: str = setting(
        DEFAULT_ENDGAME_MODEL, "the endgame head's network: plays scores each play from its "
        "two resorts' "
        "inputs and the mean over the legal plays; cards passes messages over the grid of the "
        "25 card types, each joining its home and its hotel, so a play's score sees every card "
        "competing for its resorts (docs/experiments/endgame_head.md: it fits the play values "
        "where plays stops); stored in the policy file", choices=tuple(ENDGAME_MODELS),
        needs=Needs("network.endgame_head",
                    message="picks the endgame head's network: set {needed}"))
    privileged_critic: bool = setting(
        False, "the value network also reads the game's state() (every hand or holding, the "
        "hidden cards or tokens), the policy network only the observation, so the trained "
        "policy plays from the observation alone", backends=("sb3",),
        needs=(Needs("network.action_scorer", False,
                     message="goes with the plain MLP; set {needed}"),
               Needs("env.batched", False,
                     message="reads state() of the reference games; set {needed}")))
    action_value_gain: float = setting(
        1.0, "each action's value among the inputs of the plain MLP (Hungry: the "
        "forecast's value relative to the best legal play, encoded in tens of points; HUNGER: "
        "the crowd value) is multiplied by this before the first layer, a constant kept in "
        "the policy file; an action scorer reads the values with its own weight "
        "(docs/experiments/ppo_fixed_opponent.md: 10 makes the Hungry MLP learn about twice as "
        "fast)",
        low=0.001, high=1000, backends=("sb3",),
        needs=Needs("network.action_scorer", False, message=(
            "goes with the plain MLP (an action scorer reads the values with its own weight); "
            "set {needed} or the gain to 1")))
    start: str | None = setting(
        None, "null, an untrained network; or a policy spec (a policy file, "
        "pretrained:NAME) whose weights start the run: one of this network, or, for an action "
        "scorer in HUNGER's full-decision mode, a default-mode action scorer of the same "
        "hidden and activation, which starts the daily picks and the value (the later choices "
        "keep the rule prior)", backends=("sb3", "exploiter_league"),
        note="expert_iteration has expert_iteration.start")
    start_recipe: str | None = setting(
        None, "null: network.start's network (or an untrained one); or a config (a shipped "
        "config's name or a file: the sb3 backend or a trained exploiter league, this game and "
        "player count, the same network) that is trained first, into OUT/start (after its own "
        "start recipe, to any depth), its policy the start, so that a run continuing a shipped "
        "agent's training reproduces from nothing", backends=("sb3",))
    rule_prior: float = setting(
        0.0, "every choice after the daily pick starts with this logit on the S19 rule's "
        "choice (rule_action) and 0 on the others, and the network learns corrections; > 0 "
        "makes the untrained policy's argmax the S19 rules' choice (FullDecisionPolicy)",
        low=0, high=100, needs=Needs("network.action_scorer", mode="full_decisions", message=(
            "applies to {needed} in the full-decision mode only (game_options: "
            "{decision_mode: agents})")))

    def shape(self, critic_state_size: int = 0) -> NetworkShape:
        """The network's shape: the section's keys of that name, and the privileged critic's
        ``critic_state_size`` (``TrainConfig.network_shape`` knows the game's)."""
        keys = {spec.name for spec in dataclasses.fields(self)}
        return NetworkShape(**{name: getattr(self, name) for name in SHAPE_FIELDS if name in keys},
                            critic_state_size=critic_state_size)


@dataclass(frozen=True)
class OpponentsConfig:
    """Who sits in the other seats."""

    weights: dict[str, float] = setting(
        {SELF_PLAY: 0.4, "random": 0.1, "greedy": 0.2, "expert": 0.3},
        "policy spec (random, greedy, expert, forecast, search:N, a policy file) or self (a "
        "frozen snapshot of the learner) to its relative weight; each opponent seat draws one "
        "every episode; the weights must have a positive sum", low=0, high=10**6,
        items=(1, WEIGHTS_ITEMS))
    pfsp_exponent: float = setting(
        0.0, "prioritised fictitious self-play in the batched engine's league, each opponent "
        "drawn with its weight times (1 - p) ** this, p the learner's recorded pairwise result "
        "against it (training.league); 0: by the weights alone", low=0, high=16,
        backends=("sb3",), needs=Needs("env.batched", feature="league", message=(
            "draws the league of the batched engine: set {needed} ({games} only)")))
    snapshot_every: int = setting(10, "PPO updates between frozen snapshots of the learner",
                                  low=1, high=10**6)
    max_snapshots: int = setting(8, "the oldest snapshot leaves the pool first",
                                 low=1, high=1000)


@dataclass(frozen=True)
class EvaluationConfig:
    every_steps: int = setting(100_000, "learner steps between evaluations", low=1,
                               high=MAX_STEPS)
    games: int = setting(200, "games per opponent, seat-rotated", low=1, high=10**7)
    opponents: list[str] = setting(["random", "greedy", "expert"], "policy specs to play",
                                   items=(1, 64))
    final_games: int = setting(2000, "games per opponent at the end", low=1, high=10**7)
    workers: int = setting(1, "evaluation processes", low=1, high=MAX_WORKERS)


@dataclass(frozen=True)
class EndgameConfig:
    """Fit the network's endgame head (``network.endgame_head``) before PPO to the values of
    the legal plays in ``positions`` positions after the last draw, each play's value its mean
    win share over ``deals`` playouts (``training.endgame``); 0 positions, no fit. One game in
    ``ENDGAME_VALIDATION_EVERY`` is held out to choose the epoch."""

    positions: int = setting(0, "positions after the last draw; 0: no fit", low=0, high=10**8,
                             needs=Needs("network.endgame_head",
                                         message="fits the endgame head: set {needed}"))
    deals: int = setting(8, "playouts per legal play", low=1, high=10**4)
    epochs: int = setting(8, "at most; the epoch best on held-out games is kept", low=1,
                          high=1000)
    batch_size: int = setting(256, "minibatch size", low=1, high=10**7)
    learning_rate: float = setting(1e-3, "Adam's step size", low=0, low_open=True, high=1)
    learning_rate_schedule: str = setting(
        "constant", "constant, learning_rate throughout; linear, from learning_rate in the "
        "first epoch down by learning_rate / epochs each epoch after it",
        choices=LEARNING_RATE_SCHEDULES)
    workers: int = setting(2, "playout processes", low=1, high=MAX_WORKERS)
    playout_opponent: str = setting(
        "forecast", "who plays the other seats: forecast (positions from forecast players' "
        "games, every seat playing the forecast in the playouts) or expert (positions from a "
        "forecast player's games against experts, the other seats playing the compiled expert "
        "in the playouts, the mover's the forecast)", choices=PLAYOUT_OPPONENTS)


@dataclass(frozen=True)
class RLlibConfig:
    num_env_runners: int = setting(2, "rollout processes (0: sample in the driver)", low=0,
                                   high=10**4)
    address: str | None = setting(
        None, "null starts a local Ray instance; \"auto\" or \"HOST:6379\" joins a running "
        f"cluster (a HOST:PORT that does not answer within {RAY_CONNECT_TIMEOUT_S:g} s is an "
        "error naming it)")
    train_batch_size: int = setting(4000, "steps per training iteration", low=1, high=10**8)
    minibatch_size: int = setting(500, "at most train_batch_size", low=1, high=10**8)
    num_learners: int = setting(0, "learner processes; 0: learn in the driver process", low=0,
                                high=1024)


@dataclass(frozen=True)
class ExpertIterationConfig:
    """Expert iteration (``training.expert_iteration``): Hungry's search or HUNGER's
    ``smmcts`` as the teacher."""

    iterations: int = setting(10, "rounds of games, fit and evaluation", low=1, high=10**6)
    games: int = setting(64, "games per iteration, every seat played by the search", low=1,
                         high=10**7)
    simulations: int = setting(64, "playouts per move of the search (search:N:SPEC for Hungry, "
                               "smmcts:N:SPEC for HUNGER, with the current network)", low=2,
                               high=10**5)
    cutoff: int | None = setting(
        None, "null: playouts to the end; D: the network's value once D plays followed a "
        "candidate (search:N:D:SPEC), from the second iteration on (HUNGER's search takes its "
        "network as a prior)", low=0, high=100, needs=Needs(
            feature="search_cutoff", message="applies to {games} only: the {game} search takes "
            "its network as a prior; set it to null"))
    explore: bool = setting(True, "Gumbel noise on the network's logits at every move of the "
                            "games (Gumbel AlphaZero's exploration; HUNGER: on the prior of the "
                            "searcher's picks)")
    start: str | None = setting(
        None, "null: the network section's untrained network (an action scorer starts as the "
        "forecast player); or a policy spec (a checkpoint, pretrained:NAME:network) with the same "
        "network, whose weights start the run")
    epochs: int = setting(4, "passes over each iteration's positions", low=1, high=1000)
    batch_size: int = setting(256, "minibatch size of the fit", low=1, high=10**7)
    learning_rate: float = setting(3e-4, "Adam's step size", low=0, low_open=True, high=1)
    value_weight: float = setting(1.0, "weight of the value loss (squared error to the win "
                                  "share) beside the policy loss (cross-entropy to the "
                                  "search's improved policy)", low=0, high=1000)
    players: str = setting(
        "search", "who plays the iteration's games: search (every seat the search guided by "
        "the network, above) or forecast (Hungry: compiled forecast players on the batched "
        "engine, thousands of games a second; outcomes without policy targets, so fit: value; "
        "simulations and explore are not read)", choices=GAME_PLAYERS)
    fit: str = setting(
        "policy_and_value", "policy_and_value: the network's policy and value; value: the value "
        "alone, every weight the policy reads frozen, so that the search's prior stays as it "
        "is (gives a start network's value head win shares for search:N:D:SPEC's cut-off)",
        choices=FITS)
    evaluate_every: int = setting(1, "iterations between evaluations of the network alone "
                                  "(evaluation.games against evaluation.opponents)", low=1,
                                  high=10**6)
    workers: int = setting(2, "local processes playing the games (without ray_address)",
                           low=1, high=MAX_WORKERS)
    ray_address: str | None = setting(
        None, "null: the games run in local processes; \"local\" starts a Ray instance on this "
        "machine, \"auto\" or \"HOST:6379\" joins a running cluster (the rllib extra; a "
        f"HOST:PORT that does not answer within {RAY_CONNECT_TIMEOUT_S:g} s is an error naming "
        "it)")


@dataclass(frozen=True)
class ExploiterLeagueConfig:
    """The exploiter league (``training.exploiter_league``): each generation trains a fresh
    exploiter against the main agent, adds it to the main agent's opponents and trains the main
    agent on against them, so that what a best response finds is trained away."""

    main: str = setting(
        "trained", "trained: the main agent trains by PPO against the population each "
        "generation; mixture (PSRO): the main agent is a mixture of the start and every "
        "exploiter so far, one drawn per game and seat by the meta_solver's weights, and nothing "
        "but the exploiters trains", choices=LEAGUE_MAINS)
    start_recipe: str | None = setting(
        None, "null: the first main agent is network.start's; or a config (a shipped config's "
        "name or a file: the sb3 backend or a trained exploiter league, this game and player "
        "count, the same network) that is trained first, into OUT/start (after its own start "
        "recipe, to any depth), its policy the first main agent, so that a run from nothing "
        "reproduces a league started from a shipped agent")
    generations: int = setting(8, "generations: an exploiter of the main agent, then the main "
                               "agent's training against the population", low=1, high=1000)
    main_steps: int = setting(100_000, "the main agent's PPO steps per generation (the sb3 "
                              "trainer, with env, ppo, network and opponents)", low=1,
                              high=MAX_STEPS)
    exploiter_steps: int = setting(50_000, "each exploiter's budget with exploiter_recipe",
                                   low=1, high=MAX_STEPS)
    exploiter_recipe: str = setting(
        "exploit_hunger_show", "the exploiters' recipe: a shipped config's name or a config "
        "file (an sb3 config of the game, as hunger-rl exploit --config takes)")
    exploiter_games: int = setting(400, "seat-rotated games measuring each exploiter against "
                                   "the main agent: its exploitability", low=1, high=10**7)
    population_share: float = setting(
        0.5, "the exploiters' share of the main agent's opponent seats; opponents.weights hold "
        "the rest", low=0, low_open=True, high=0.95)
    max_exploiters: int = setting(16, "the population's size; the oldest exploiter leaves "
                                  "first", low=1, high=48)
    meta_solver: str = setting(
        "pfsp", "how the population's share is split: uniform (equally, drawn by the weights "
        "alone: opponents.pfsp_exponent 0) or pfsp (equally, then reweighted with every other "
        "member by the league's prioritised fictitious self-play: opponents.pfsp_exponent > 0, "
        "the main agent meeting most the exploiters that beat it); for main: mixture, uniform "
        "(fictitious play) or nash (2 players: the equilibrium of the members' payoff matrix, "
        "payoff_games a pair)", choices=META_SOLVERS)
    payoff_games: int = setting(200, "meta_solver nash: seat-rotated games between each pair "
                                "of members", low=2, high=10**6)
    temperature: float = setting(
        1.0, "the main agent plays, is exploited and is measured sampling from its softmax at "
        "this temperature (sample:T:SPEC; 0: its argmax)", low=0, high=100)
    table: list[str] = setting(
        ["expert", "crowd", "greedy"], "the table of policy specs the main agent is measured at "
        "in each generation (evaluation.games seat-rotated games; the last fills the other "
        "seats)", items=(1, 5))


@dataclass(frozen=True)
class TrainConfig:
    game: str = setting(REQUIRED, "the game", choices=tuple(sorted(GAMES)))
    num_players: int = setting(REQUIRED, "players per game (the game's env card says which)",
                               low=1, high=64)
    game_options: dict[str, Any] = setting(
        {}, "keyword arguments of the game's environment (its env card)", items=(0, 64))
    seed: int = setting(0, "seeds the network, the games and the evaluations", low=0,
                        high=MAX_TRAINING_SEED)
    total_steps: int = setting(1_000_000, "learner decisions, summed over the parallel "
                               "environments", low=1, high=MAX_STEPS)
    out: str = setting("runs/train", "output folder")
    torch_threads: int = setting(1, "torch threads; more stall on a busy 2-core machine",
                                 low=1, high=MAX_WORKERS)
    checkpoint_every_steps: int = setting(100_000, "learner steps between checkpoints", low=1,
                                          high=MAX_STEPS)
    env: EnvConfig = section(EnvConfig, "the games the learner plays", backends=("sb3",))
    ppo: PPOConfig = section(PPOConfig, "MaskablePPO's hyperparameters")
    network: NetworkConfig = section(NetworkConfig, "the policy and value network")
    opponents: OpponentsConfig = section(OpponentsConfig, "who sits in the other seats",
                                         backends=("sb3", "rllib"))
    evaluation: EvaluationConfig = section(EvaluationConfig,
                                           "seat-rotated matches against baselines")
    endgame: EndgameConfig = section(EndgameConfig, "Hungry: fit the endgame head from playouts")
    backend: str = setting("sb3", "sb3 (this machine), rllib (Ray RLlib, one machine or a "
                           "cluster), expert_iteration (the search as the teacher) or "
                           "exploiter_league (sb3 against exploiters of itself)",
                           choices=BACKENDS)
    rllib: RLlibConfig = section(
        RLlibConfig, "it ignores env, ppo.n_steps, ppo.batch_size and checkpoint_every_steps",
        backends=("rllib",))
    expert_iteration: ExpertIterationConfig = section(
        ExpertIterationConfig, "it ignores total_steps, checkpoint_every_steps (it "
        "checkpoints every iteration), env, ppo, opponents, endgame, rllib and "
        "evaluation.every_steps. Shipped configs: "
        "expert_iteration_hungry_2p (Hungry, search:64 from pretrained:hungry_2p), "
        "expert_iteration_hungry_2p_value (its value alone, from forecast players' games) and "
        "expert_iteration_hunger_show_4p (HUNGER, smmcts:64 from pretrained:hunger_show_4p, "
        "its network a prior on the searcher's own picks; docs/agents.md)",
        backends=("expert_iteration",))
    exploiter_league: ExploiterLeagueConfig = section(
        ExploiterLeagueConfig, "HUNGER, env.batched; its main agent trains as the sb3 backend "
        "does, generation by generation, and reads every key the sb3 backend reads; it ignores "
        "total_steps (generations x main_steps). Shipped configs: exploiter_league_hunger_show_"
        "{2,4,6}p (docs/agents.md)", backends=("exploiter_league",))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def network_shape(self) -> NetworkShape:
        """The shape of the network this config trains (with a privileged critic, reading the
        game's state after the observation)."""
        from hunger_rl.policies.models.encoders import state_scale

        state_size = (state_scale(self.game, self.num_players).size
                      if self.network.privileged_critic else 0)
        return self.network.shape(state_size)

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)


# -- parsing ----------------------------------------------------------------------------------


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # merged keys may be overridden; that is what a merge is for
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, typing.Hashable):
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found duplicate key {excerpt(key)}", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)


def load_config(path: str | Path) -> TrainConfig:
    """Read and check a YAML config file; every problem is a ``ValueError`` naming the file
    and the key."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ValueError(f"cannot read config {path}: {error}") from error
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"config {path} is larger than {MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"config {path} is not UTF-8 text: {error}") from error
    try:
        _check_yaml_depth(text)
        raw = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as error:
        raise ValueError(f"config {path} is not valid YAML: {error}") from error
    except ValueError as error:  # too deep, or an integer too long for int()
        raise ValueError(f"config {path}: {_excerpt_text(str(error), MESSAGE_CHARS)}") \
            from error
    try:
        return config_from_dict(raw)
    except ValueError as error:
        raise ValueError(f"config {path}: {error}") from error


def _check_yaml_depth(text: str) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` from the parser's events, before PyYAML's
    recursive composer would reach Python's recursion limit."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"the config nests deeper than {MAX_DEPTH} levels (line "
                                 f"{event.start_mark.line + 1})")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def config_from_dict(raw: Any) -> TrainConfig:
    """Check a parsed config; every problem is a ``ValueError`` naming the key path."""
    _check_size(raw)
    config = _build(TrainConfig, raw, "")
    _check_consistency(config)
    return config


def _check_size(raw: Any) -> None:
    """Refuse a config with more than ``MAX_VALUES`` values or nested deeper than
    ``MAX_DEPTH``, before anything walks it recursively (aliases count once per use)."""
    stack = [(raw, "", 0)]
    count = 0
    while stack:
        value, path, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise ValueError(f"the config holds more than {MAX_VALUES} values (a YAML alias "
                             f"counts once per use)")
        if depth > MAX_DEPTH:
            raise ValueError(f"the config nests deeper than {MAX_DEPTH} levels, at "
                             f"{_excerpt_text(path)}")
        if isinstance(value, Mapping):
            children = [(v, f"{path}.{_key(k)}" if path else _key(k))
                        for k, v in value.items()]
        elif isinstance(value, list | tuple | set):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(value)]
        else:
            continue
        stack += [(child, child_path, depth + 1) for child, child_path in children]


def _build(cls: type, raw: Any, prefix: str) -> Any:
    if not isinstance(raw, Mapping):
        where = prefix.rstrip(".") or "the config"
        raise ValueError(f"{where} must be a mapping, got {excerpt(raw)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [key for key in raw if key not in fields]
    if unknown:
        raise ValueError(f"unknown key {prefix}{_key(unknown[0])}; known keys: {sorted(fields)}")
    hints = typing.get_type_hints(cls)
    values = {}
    for name, spec in fields.items():
        path = f"{prefix}{name}"
        if name not in raw:
            if spec.default is REQUIRED and spec.default_factory is REQUIRED:
                raise ValueError(f"missing key {path}")
            continue
        kind = hints[name]
        if dataclasses.is_dataclass(kind):
            values[name] = _build(kind, raw[name], f"{path}.")
        else:
            values[name] = _check_value(path, raw[name], kind, spec.metadata["rule"])
    return cls(**values)


def _check_value(path: str, value: Any, kind: Any, rule: Rule) -> Any:
    if not _has_type(value, kind):
        raise ValueError(f"{path} must be {requirement(kind, rule)}, got {excerpt(value)}")
    if rule.items is not None and not rule.items[0] <= len(value) <= rule.items[1]:
        raise ValueError(f"{path} must be {requirement(kind, rule)}, got {len(value)} items")
    origin = typing.get_origin(kind)
    if origin is list:
        members = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
    elif origin is dict:
        members = [(f"{path}[{excerpt(key)}]", item) for key, item in value.items()]
    else:
        members = [(path, value)]
    for where, item in members:
        if not _within(item, rule):
            wanted = requirement(kind, rule) if where == path else _bounds_text(rule)
            raise ValueError(f"{where} must be {wanted}, got {excerpt(item)}")
    if kind is float:
        return float(value)
    if origin is dict and typing.get_args(kind)[1] is float:
        return {key: float(item) for key, item in value.items()}
    return value


def _within(value: Any, rule: Rule) -> bool:
    if value is None:
        return True  # null where the type allows it ("off"); the bounds are for a value
    if rule.choices and value not in rule.choices:
        return False
    if rule.low is not None and (value < rule.low or (rule.low_open and value == rule.low)):
        return False
    return rule.high is None or value <= rule.high


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
        if isinstance(value, int) and not isinstance(value, bool):
            return abs(value) <= 1e300  # a float can hold it
        return isinstance(value, float) and math.isfinite(value)
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


def requirement(kind: Any, rule: Rule) -> str:
    """What a field accepts, in words: its type and its bounds."""
    origin = typing.get_origin(kind)
    if origin is list or origin is dict:
        length = ""
        if rule.items is not None:
            low, high = rule.items
            length = f"{low} to {high} " if low else f"at most {high} "
        if origin is list:
            item = _type_name(typing.get_args(kind)[0], plural=True)
            text = f"a list of {length}{item}"
        else:
            key, item = (_type_name(k, plural=True) for k in typing.get_args(kind))
            text = f"a mapping of {length}{key} to {item}"
        bounds = _bounds_text(rule)
        return f"{text}, each {bounds}" if bounds else text
    if rule.choices:
        return _bounds_text(rule)
    bounds = _bounds_text(rule)
    name = _type_name(kind)
    return f"{name} in {bounds.removeprefix('in ')}" if bounds else name


def _bounds_text(rule: Rule) -> str:
    if rule.choices:
        return f"one of {list(rule.choices)}"
    if rule.low is None and rule.high is None:
        return ""
    low = "(-inf" if rule.low is None else f"{'(' if rule.low_open else '['}{rule.low}"
    high = "inf)" if rule.high is None else f"{rule.high}]"
    return f"in {low}, {high}"


def _type_name(kind: Any, plural: bool = False) -> str:
    if isinstance(kind, types.UnionType):
        return " or ".join(_type_name(k, plural) for k in typing.get_args(kind))
    if typing.get_origin(kind) in (list, dict):
        return "lists" if plural else "a list"
    names = {bool: ("true or false", "true or false"), int: ("an integer", "integers"),
             float: ("a number", "numbers"), str: ("a string", "strings"),
             type(None): ("null", "null"), Any: ("any value", "any values")}
    return names[kind][plural]


_EXCERPT = reprlib.Repr()
_EXCERPT.maxlevel, _EXCERPT.maxlist, _EXCERPT.maxdict = 2, 4, 4
_EXCERPT.maxtuple, _EXCERPT.maxset, _EXCERPT.maxfrozenset = 4, 4, 4
_EXCERPT.maxstring, _EXCERPT.maxother, _EXCERPT.maxlong = 40, 40, 40
EXCERPT_CHARS = 80
MESSAGE_CHARS = 400  # another module's error message, quoted in ours


def excerpt(value: Any) -> str:
    """A short repr of a value for an error message: bounded whatever the value's size, depth
    or sharing (a YAML alias bomb), never the full repr."""
    try:
        text = _EXCERPT.repr(value)
    except (ValueError, RecursionError):  # an int with too many digits for str()
        text = f"<{type(value).__name__}>"
    return _excerpt_text(text)


def _excerpt_text(text: str, limit: int = EXCERPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key(key: Any) -> str:
    return key if isinstance(key, str) else excerpt(key)


def _yaml(value: Any) -> str:
    """A value as a config file writes it: ``true``, ``null``, ``[64, 64]``."""
    return json.dumps(value)


# -- documentation ----------------------------------------------------------------------------


def config_reference() -> str:
    """``docs/config.md``: every key of the schema with its default, what it accepts and what
    it is for."""
    lines = ["# Training config reference", "",
             "Generated from the schema in `hunger_rl/training/config.py` by `python -m "
             "hunger_rl.training.config > docs/config.md`; a test checks it is current.", "",
             "A config file is a YAML mapping of the keys below. `game` and `num_players` are "
             "required; every other key has the default shown. A key not listed, or a value "
             "of another type or out of bounds, is an error naming the key.", "",
             "The shipped configs (`hunger-rl configs` lists them, `hunger-rl train NAME` runs "
             "one) are worked examples whose comments explain their settings. PPO against one "
             "fixed opponent (Hungry 2p): `hungry_2p_vs_expert` starts from the forecast prior "
             "and bounds its steps (`ppo.scorer_lr_scale: 0.025`, `ppo.target_kl: 0.01`, "
             "rollouts of 8,192 decisions, `ppo.gamma` and `ppo.gae_lambda` 1, no entropy bonus, "
             "no shaping) against the compiled `expert`; `exploit_hungry`, the recipe of "
             "`hunger-rl exploit`, has the same settings; `hungry_2p_mlp_vs_expert` trains a "
             "plain MLP from scratch against the same `expert` with a large step, bounded "
             "(`ppo.target_kl: 0.03`, `ppo.learning_rate_schedule: linear`); what they reach: "
             "docs/experiments/ppo_fixed_opponent.md.", "",
             "The column *set only with* is the key's declaration of what it needs once it is "
             "set to other than its default: the backends that read it (the exploiter_league "
             "backend's main agent trains as the sb3 backend does and reads every key the sb3 "
             "backend reads), other keys' values, HUNGER's full-decision or default-decision "
             "mode, the games that have the feature; the validator's errors are made from "
             "these declarations. A section read only by some backends is ignored by the "
             "others, its keys unchecked.", ""]
    lines += _reference_table(TrainConfig, "")
    return "\n".join(lines) + "\n"


def _reference_table(cls: type, prefix: str) -> list[str]:
    hints = typing.get_type_hints(cls)
    rows = ["| key | default | accepts | meaning | set only with |",
            "| --- | --- | --- | --- | --- |"]
    sections = []
    for spec in dataclasses.fields(cls):
        rule, kind = spec.metadata["rule"], hints[spec.name]
        if dataclasses.is_dataclass(kind):
            sections.append((spec.name, kind, rule))
            continue
        if spec.default is not REQUIRED:
            default = f"`{json.dumps(spec.default)}`"
        elif spec.default_factory is not REQUIRED:
            default = f"`{json.dumps(spec.default_factory())}`"
        else:
            default = "required"
        rows.append(f"| `{prefix}{spec.name}` | {default} | {requirement(kind, rule)} | "
                    f"{rule.doc} | {_declared_needs_text(rule)} |")
    lines = [*rows, ""]
    for name, kind, rule in sections:
        doc = f"{rule.doc[0].upper()}{rule.doc[1:]}."
        if rule.backends:
            doc = f"Read only by the {_backends_text(rule.backends)}; {rule.doc}."
        lines += [f"## `{prefix}{name}`", "", doc, ""]
        lines += _reference_table(kind, f"{prefix}{name}.")
    return lines


def _backends_text(backends: tuple[str, ...]) -> str:
    """``sb3 backend``, ``sb3 and exploiter_league backends``."""
    return f"{_and(backends)} backend{'s' if len(backends) > 1 else ''}"


def _declared_needs_text(rule: Rule) -> str:
    """A key's declared needs in words (the reference's last column): its backends, then each
    of its needs."""
    parts = [f"the {_backends_text(rule.backends)}"] if rule.backends else []
    parts += [need.text() for need in rule.needs]
    return "; ".join(parts)


def _check_consistency(config: TrainConfig) -> None:
    """Checks that need more than one key, or the game itself: the game options, the
    opponents, the backend's own needs, what each set key needs by its declaration
    (:func:`_check_declared_needs`), then the few rules that relate keys beyond that, each in
    its own function."""
    _check_game_options(config)
    _check_opponent_specs(config)
    _check_group_size(config)
    if config.backend == "expert_iteration":
        _check_expert_iteration(config)
    elif config.backend == "exploiter_league":
        _check_exploiter_league(config)
    elif config.backend == "rllib":
        _check_rllib_batches(config)
    _check_declared_needs(config, TrainConfig, config, "")
    if config.network.start_recipe is not None and config.network.start is not None:
        raise ValueError("network.start_recipe trains the start network, network.start names "
                         "one: set one of them to null")
    if config.network.start is not None:
        _check_start_network("network.start", config.network.start, config,
                             default_decisions=_full_decisions(config)
                             and config.network.action_scorer)
    _check_critic_warmup(config)
    if config.ppo.group_baseline:
        _check_group_baseline(config)
    if config.ppo.branch_advantages:
        _check_branch_advantages(config)
    if config.ppo.magnet_coef and (config.ppo.branch_advantages or config.ppo.group_baseline):
        raise ValueError("ppo.magnet_coef changes the rewards that ppo.branch_advantages and "
                         "ppo.group_baseline replace with their own advantages: choose one")
    _check_endgame_widths(config)
    _check_endgame_positions(config)
    if config.backend in ("sb3", "exploiter_league"):  # the trainers that step env and ppo
        if config.env.batched:
            _check_batched_opponents(config)
        _check_rollout(config)


def _check_game_options(config: TrainConfig) -> None:
    """The game takes the player count and the options (its env's check)."""
    from hunger_rl.envs import game_spec

    try:
        game_spec(config.game).check_env_options(config.num_players, config.game_options)
    except ValueError as error:
        raise ValueError(_excerpt_text(str(error), MESSAGE_CHARS)) from error


def _check_opponent_specs(config: TrainConfig) -> None:
    """The opponents' weights have a positive sum, and every opponent and evaluation opponent
    is a policy the game has (``self``, among the weights, the learner's snapshots)."""
    from hunger_rl.policies.registry import make_policy

    if not sum(config.opponents.weights.values()) > 0:
        raise ValueError("opponents.weights must have a positive sum")
    for section, specs in (("opponents.weights", list(config.opponents.weights)),
                           ("evaluation.opponents", config.evaluation.opponents)):
        for spec in specs:
            if section == "opponents.weights" and spec == SELF_PLAY:
                continue
            try:
                make_policy(spec, config.game, config.num_players)
            except (OSError, ValueError) as error:
                raise ValueError(f"{section}: unknown opponent {excerpt(spec)}: "
                                 f"{_excerpt_text(str(error), MESSAGE_CHARS)}") from error


def _check_declared_needs(config: TrainConfig, cls: type, values: Any, prefix: str) -> None:
    """Every key of ``cls`` (the section at ``prefix``, ``values`` its values) set to other
    than its default is read by the config's backend and has what its rule ``needs``, else a
    ``ValueError`` made from the declaration; in the schema's order."""
    hints = typing.get_type_hints(cls)
    for spec in dataclasses.fields(cls):
        path, value = f"{prefix}{spec.name}", getattr(values, spec.name)
        rule = spec.metadata["rule"]
        if dataclasses.is_dataclass(hints[spec.name]):
            if not rule.backends or _reads(rule.backends, config.backend):
                _check_declared_needs(config, hints[spec.name], value, f"{path}.")
            continue
        if value == _default(spec):
            continue
        if rule.backends and not _reads(rule.backends, config.backend):
            note = f" ({rule.note})" if rule.note else ""
            raise ValueError(f"{path} applies to the {_backends_text(rule.backends)} only{note}")
        for need in rule.needs:
            if not _met(need, config):
                raise ValueError(f"{path} {_need_message(need, config)}")


def _default(spec: dataclasses.Field) -> Any:
    if spec.default_factory is not REQUIRED:
        return spec.default_factory()
    return spec.default


def _reads(backends: tuple[str, ...], backend: str) -> bool:
    """Whether ``backend`` reads a key that ``backends`` read (``TRAINS_AS``)."""
    return backend in backends or TRAINS_AS.get(backend) in backends


def _met(need: Needs, config: TrainConfig) -> bool:
    if need.key is not None and _value_at(config, need.key) != need.value:
        return False
    if need.mode is not None:
        full = _full_decisions(config)
        if full != (need.mode == "full_decisions"):
            return False
    return need.feature is None or bool(getattr(training_game(config.game), need.feature))


def _need_message(need: Needs, config: TrainConfig) -> str:
    default = "needs {needed}" if need.key is not None else "applies to {games} only"
    message = need.message or default
    if need.key is not None:
        message = message.replace("{needed}", f"{need.key}: {_yaml(need.value)}")
    if need.feature is not None:
        message = message.replace("{games}", games_with(need.feature))
    return message.replace("{game}", config.game)


def _value_at(config: TrainConfig, path: str) -> Any:
    value: Any = config
    for name in path.split("."):
        value = getattr(value, name)
    return value


def _full_decisions(config: TrainConfig) -> bool:
    """Whether the config plays HUNGER's full-decision mode (``game_options``)."""
    from hunger_rl.envs import game_spec

    return game_spec(config.game).full_decisions(config.game_options)


def _and(names: tuple[str, ...] | list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


def _check_critic_warmup(config: TrainConfig) -> None:
    """``ppo.critic_warmup_steps`` leaves the policy some of each run's steps (an exploiter
    league's main agent runs ``main_steps`` a generation)."""
    name, steps = "total_steps", config.total_steps
    if config.backend == "exploiter_league":
        name, steps = "exploiter_league.main_steps", config.exploiter_league.main_steps
    warmup = config.ppo.critic_warmup_steps
    if warmup and warmup >= steps:
        raise ValueError(f"ppo.critic_warmup_steps ({warmup}) leaves the policy no step of "
                         f"{name} ({steps})")


def _check_endgame_widths(config: TrainConfig) -> None:
    """The cards endgame model updates each card's vector in place: equal widths."""
    widths = config.network.endgame_hidden
    if config.network.endgame_model == "cards" and len(set(widths)) > 1:
        raise ValueError("network.endgame_hidden: the cards endgame model updates each card's "
                         "vector in place, one round per width, so the widths must be equal, "
                         f"got {widths}")


def _check_endgame_positions(config: TrainConfig) -> None:
    """The endgame fit holds out one game in ``ENDGAME_VALIDATION_EVERY``: at least that many
    games' positions."""
    minimum = ENDGAME_VALIDATION_EVERY * HAND_SIZE * config.num_players
    if config.endgame.positions and config.endgame.positions < minimum:
        raise ValueError(
            f"endgame.positions must be 0 or at least {minimum} (the positions of "
            f"{ENDGAME_VALIDATION_EVERY} games: one game in {ENDGAME_VALIDATION_EVERY} is "
            f"held out)")


def _check_rllib_batches(config: TrainConfig) -> None:
    if config.rllib.minibatch_size > config.rllib.train_batch_size:
        raise ValueError(
            f"rllib.minibatch_size ({config.rllib.minibatch_size}) must not exceed "
            f"rllib.train_batch_size ({config.rllib.train_batch_size})")


def _check_batched_opponents(config: TrainConfig) -> None:
    """The batched engine plays its compiled opponents (and, with a league, trained networks
    and mixtures) and the default decisions only."""
    trainer = training_game(config.game)
    others = [spec for spec in config.opponents.weights if spec not in trainer.batched_opponents]
    if others and trainer.league:  # the league seats trained networks and mixtures too
        from hunger_rl.training.league import check_seatable

        try:
            check_seatable(others, config.num_players)
        except ValueError as error:
            raise ValueError(f"opponents.weights: {error}") from error
    elif others:
        raise ValueError(
            f"opponents.weights: env.batched plays only {list(trainer.batched_opponents)} "
            f"opponents, not {others}")
    if config.game_options.get("decisions") is not None:
        raise ValueError("env.batched plays the default decisions (S19) only; custom "
                         "decision objects need env.batched: false")


def _check_rollout(config: TrainConfig) -> None:
    """PPO's minibatches cut each rollout into whole pieces."""
    rollout = config.ppo.n_steps * config.env.n_envs
    if rollout % config.ppo.batch_size:
        raise ValueError(
            f"ppo.batch_size ({config.ppo.batch_size}) must divide ppo.n_steps x env.n_envs "
            f"({rollout}), so that no minibatch is truncated")


def _check_group_size(config: TrainConfig) -> None:
    """A group baseline compares at least two copies of each deal."""
    group = config.ppo.group_baseline
    if group == 1:
        raise ValueError(f"ppo.group_baseline must be 0 (none) or at least 2 copies of each "
                         f"deal, got {group}")


def _check_group_baseline(config: TrainConfig) -> None:
    """``ppo.group_baseline`` compares whole games of the copies of one deal, so every rollout
    must hold whole games of copies that stay in step, against one opponent."""
    group = config.ppo.group_baseline
    if config.env.n_envs % group:
        raise ValueError(f"ppo.group_baseline ({group}) must divide env.n_envs "
                         f"({config.env.n_envs})")
    if len(config.opponents.weights) != 1:
        raise ValueError(f"ppo.group_baseline plays every copy of a deal against the same "
                         f"opponent: opponents.weights must name one, got "
                         f"{sorted(config.opponents.weights)}")
    if config.ppo.gamma != 1 or config.ppo.gae_lambda != 1:
        raise ValueError(f"ppo.group_baseline compares undiscounted returns: set ppo.gamma and "
                         f"ppo.gae_lambda to 1, got {config.ppo.gamma} and "
                         f"{config.ppo.gae_lambda}")
    game_steps = TOTAL_PLAYS // config.num_players
    if config.ppo.n_steps % game_steps:
        raise ValueError(f"ppo.group_baseline needs rollouts of whole games: ppo.n_steps "
                         f"({config.ppo.n_steps}) must be a multiple of a game's learner steps "
                         f"({game_steps} at {config.num_players} players)")


def _check_branch_advantages(config: TrainConfig) -> None:
    """``ppo.branch_advantages`` compares the outcomes of two branches: the outcome alone is
    the return, and no other baseline sets the advantages."""
    if config.env.margin_shaping:
        raise ValueError(f"ppo.branch_advantages compares the games' outcomes: set "
                         f"env.margin_shaping to 0, got {config.env.margin_shaping}")
    if config.ppo.group_baseline:
        raise ValueError("ppo.branch_advantages and ppo.group_baseline both set the "
                         "advantages: choose one")


def _check_expert_iteration(config: TrainConfig) -> None:
    from hunger_rl.envs import game_spec

    trainer = training_game(config.game)
    if trainer.expert_iteration_games is None:
        raise ValueError(f"backend expert_iteration applies to "
                         f"{games_with('expert_iteration_games')} only, not {config.game!r}")
    settings = config.expert_iteration
    if settings.players == "forecast":
        if not trainer.forecast_players:
            raise ValueError(f"expert_iteration.players: forecast applies to "
                             f"{games_with('forecast_players')} only, not {config.game!r}")
        if settings.fit != "value" or settings.cutoff is not None:
            raise ValueError("expert_iteration.players: forecast plays games without a search, "
                             "so without policy targets or a cut-off: set fit: value and "
                             "cutoff: null")
    game = game_spec(config.game)
    if game.full_decisions(config.game_options):
        option, value = game.full_decision_option
        raise ValueError(f"backend expert_iteration searches the daily picks only; use it "
                         f"without game_options.{option}: {value}")
    if config.expert_iteration.start is not None:
        _check_start_network("expert_iteration.start", config.expert_iteration.start, config)


def _check_exploiter_league(config: TrainConfig) -> None:
    """The exploiter league seats its exploiters in the batched engine's league, beside
    ``opponents.weights`` (its recipe, a file the command line finds, is checked by
    ``training.exploiter_league`` before the first generation)."""
    from hunger_rl.policies.registry import make_policy

    settings = config.exploiter_league
    if not training_game(config.game).league:
        raise ValueError(f"backend exploiter_league applies to {games_with('league')} only, not "
                         f"{config.game!r}")
    if not config.env.batched:
        raise ValueError("backend exploiter_league seats its exploiters in the batched "
                         "engine's league: set env.batched: true")
    if settings.start_recipe is not None and config.network.start is not None:
        raise ValueError("exploiter_league.start_recipe trains the first main agent, "
                         "network.start names one: set one of them to null")
    pfsp = config.opponents.pfsp_exponent > 0
    if settings.main == "mixture":
        if settings.meta_solver == "pfsp":
            raise ValueError("exploiter_league.meta_solver pfsp reweighs a trained main "
                             "agent's opponents; a mixture's is uniform or nash")
        if settings.meta_solver == "nash" and config.num_players != 2:
            raise ValueError(f"exploiter_league.meta_solver nash solves a 2-player game's "
                             f"payoff matrix; {config.num_players} players: use uniform")
    elif settings.meta_solver == "nash":
        raise ValueError("exploiter_league.meta_solver nash weighs a mixture's members: it "
                         "needs exploiter_league.main: mixture")
    elif (settings.meta_solver == "pfsp") != pfsp:
        raise ValueError(f"exploiter_league.meta_solver {settings.meta_solver} needs "
                         f"opponents.pfsp_exponent {'> 0' if not pfsp else '0'}, got "
                         f"{config.opponents.pfsp_exponent}")
    if len(config.opponents.weights) + settings.max_exploiters > WEIGHTS_ITEMS:
        raise ValueError(f"exploiter_league.max_exploiters ({settings.max_exploiters}) and the "
                         f"{len(config.opponents.weights)} opponents.weights make more than "
                         f"{WEIGHTS_ITEMS} members")
    if len(settings.table) >= config.num_players:
        raise ValueError(f"exploiter_league.table seats {len(settings.table)} policies beside "
                         f"the main agent; a game of {config.num_players} has "
                         f"{config.num_players - 1} other seats")
    for spec in settings.table:
        try:
            make_policy(spec, config.game, config.num_players)
        except (OSError, ValueError) as error:
            raise ValueError(f"exploiter_league.table: {excerpt(spec)}: "
                             f"{_excerpt_text(str(error), MESSAGE_CHARS)}") from error


def _check_start_network(key: str, start: str, config: TrainConfig,
                         default_decisions: bool = False) -> None:
    """The policy ``start`` (the value of ``key``) is a trained network that fits the config's:
    the same network and game options or, with ``default_decisions`` (a full-decision action
    scorer), a default-mode action scorer of the same game options otherwise."""
    from hunger_rl.envs import game_spec
    from hunger_rl.policies.registry import make_policy

    try:
        policy = make_policy(start, config.game, config.num_players)
    except (OSError, ValueError) as error:
        raise ValueError(f"{key}: {_excerpt_text(str(error), MESSAGE_CHARS)}") from error
    metadata = getattr(policy, "metadata", None)
    if metadata is None:
        raise ValueError(f"{key}: {excerpt(start)} is not a trained network (a policy file or "
                         "pretrained:NAME:network)")
    wanted, found = config.network_shape(), metadata.network
    game_options = dict(config.game_options)
    if default_decisions:  # the start's later choices are the rules', whatever the prior
        option, _ = game_spec(config.game).full_decision_option
        game_options.pop(option)
        wanted = dataclasses.replace(wanted, rule_prior=found.rule_prior)
    difference = found.difference(wanted)  # the shapes, compared as one value
    if difference is not None:
        name, there, here = difference
        if name == "critic_state_size":  # the config's key
            name, there, here = "privileged_critic", there > 0, here > 0
        raise ValueError(f"{key}: {excerpt(start)} has network.{name} {there!r}, the config "
                         f"{here!r}")
    if metadata.game_options != game_options:
        raise ValueError(f"{key}: {excerpt(start)} was trained with game_options "
                         f"{metadata.game_options!r}; this network starts from one trained with "
                         f"{game_options!r}")


if __name__ == "__main__":
    print(config_reference(), end="")
