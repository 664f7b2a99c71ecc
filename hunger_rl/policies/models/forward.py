"""The forward pass of every policy network in numpy: what a policy file plays with.

Training builds the same networks as torch modules (``models.networks``,
``models.hungry_endgame``), for torch's gradients; a policy plays from its weights through this
module alone, so that playing a policy file (a shipped agent, a trained checkpoint, the search
it guides) needs numpy and safetensors, not torch. Both read the weights under the torch
modules' names (their ``state_dict``): :class:`NetworkWeights` refuses weights that lack a name
this module reads, or hold one it does not, so a layer added to a training network cannot be
left out of play unnoticed. What both forms share is computed here only and the torch modules
take it from here: the shape of a network (:class:`NetworkShape`, which the training config,
a policy file's metadata and the builders all hold), its layout (:func:`network_layout`: its
kind, which input columns feed which part), the sizes of the action scorer, the input gains
of ``ActionValueGain``, and the endgame heads' inputs (:class:`EndgameInputs`).

Every array is float32, as in torch; the logits agree with torch's to float32 rounding
(tests/policies/test_numpy_forward.py compares both over thousands of positions).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_STARS,
)
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.policies.hungry import RESORT_CARDS
from hunger_rl.policies.hungry_batched import CARD_HOME, CARD_HOTEL, FIRST_POINTS
from hunger_rl.policies.models.encoders import ACTION_TO_RESORT, HUNGRY_FEATURE_SCALE

# -- the kinds of network and their layout ---------------------------------------------------

# SB3's MLP (``MaskableActorCriticPolicy``); its privileged-critic form; the action scorer; the
# action scorer's full-decision form (``models.networks``).
MLP, PRIVILEGED_CRITIC, ACTION_SCORER, FULL_DECISIONS = (
    "mlp", "privileged_critic", "action_scorer", "full_decisions")
# The action scorer's state summary that each action's score sees, and its scorer's width.
SCORER_CONTEXT = 16
SCORER_HIDDEN = 64


def network_layout(shape: NetworkShape, encoder: Any) -> tuple[str, dict[str, Any]]:
    """The kind of network of ``shape`` over ``encoder``'s inputs (a plain MLP, its
    privileged-critic form, the action scorer with or without its endgame head, or, over a
    full-decision encoding, the full-decision action scorer) and the settings that kind takes
    beyond the MLP's widths and activation, or a ``ValueError`` for a shape the encoder's
    inputs have no such network for (the shape's own rules are :class:`NetworkShape`'s)."""
    full_decisions = getattr(encoder, "full_decisions", False)
    if shape.rule_prior and not full_decisions:
        raise ValueError("a rule prior belongs to an action scorer in the full-decision mode")
    if shape.critic_state_size:
        return PRIVILEGED_CRITIC, {"critic_state_size": shape.critic_state_size,
                                   **_value_gain(encoder, shape.action_value_gain)}
    if not shape.action_scorer:
        return MLP, _value_gain(encoder, shape.action_value_gain)
    if not hasattr(encoder, "action_features"):
        raise ValueError("an action scorer needs an encoder with per-action features (derived "
                         "features)")
    block = encoder.action_features
    settings: dict[str, Any] = {"action_features": (block.start, block.stop),
                                "action_feature_size": encoder.action_feature_size}
    if full_decisions:
        if shape.endgame_head:
            raise ValueError("an endgame head belongs to a default-mode action scorer")
        (start, stop), (crowd_start, crowd_stop) = encoder.default_input
        # The scores' block inside the default-mode input (the crowd block follows the scaled
        # default-mode observation there, as it does in the default-mode encoding).
        offset = block.start - crowd_start + stop
        return FULL_DECISIONS, {
            "default_input": encoder.default_input,
            "action_features": (offset, offset + block.stop - block.start),
            "action_feature_size": encoder.action_feature_size,
            "rule_actions": (encoder.rule_actions.start, encoder.rule_actions.stop),
            "rule_prior": shape.rule_prior}
    if shape.endgame_head:
        settings["endgame"] = {"num_players": encoder.num_players,
                               "observation_scale": encoder.observation_scale,
                               "hidden": shape.endgame_hidden, "model": shape.endgame_model}
    return ACTION_SCORER, settings


def _value_gain(encoder: Any, action_value_gain: float) -> dict[str, Any]:
    """A plain MLP's settings for ``action_value_gain``: none for 1, else ``value_gain``: the
    per-action values' columns (start, stop, step) and the gain."""
    if action_value_gain == 1.0:
        return {}
    if not hasattr(encoder, "action_features"):
        raise ValueError("an action value gain needs an encoder with per-action features "
                         "(derived features)")
    block = encoder.action_features
    return {"value_gain": {"values": (block.start, block.stop, encoder.action_feature_size),
                           "gain": action_value_gain}}


def value_gains(size: int, values: tuple[int, int, int], gain: float) -> np.ndarray:
    """The factor of each of ``size`` inputs: ``gain`` on the columns ``values`` (start, stop,
    step), 1 elsewhere (``models.networks.ActionValueGain``)."""
    start, stop, step = values
    gains = np.ones(size, np.float32)
    gains[start:stop:step] = gain
    return gains


# -- the endgame heads' inputs (Hungry) -------------------------------------------------------

_RESORT = np.array(ACTION_RESORT)
# The same card's other play (home <-> hotel) and its resort.
OTHER_PLAY = np.arange(NUM_ACTIONS) ^ 1
_OTHER_RESORT = _RESORT[OTHER_PLAY]
# A play's card type and whether it is the hotel play (actions 2c and 2c + 1).
PLAY_CARD = np.arange(NUM_ACTIONS) // 2
PLAY_IS_HOTEL = np.arange(NUM_ACTIONS) % 2
# Inputs per play: 13 for each of its two resorts, then 5 about the play itself.
PER_RESORT = 13
INPUT_SIZE = 2 * PER_RESORT + 5
# Inputs are counts of a few cards; this brings them near unit size.
INPUT_SCALE = 5.0
# Widths of the per-play layers (``network.endgame_hidden``); the context and the score layers
# take the last. A policy file that does not name them has these.
DEFAULT_HIDDEN = (128, 128)
# ``network.endgame_model``: the two networks (``models.hungry_endgame``). A policy file that
# does not name one has "plays".
PLAYS, CARDS = "plays", "cards"
ENDGAME_MODEL_NAMES = (PLAYS, CARDS)
DEFAULT_MODEL = PLAYS
# Inputs per resort of the card grid, and per card type: its copies in hand and unseen, whether
# there are any, its two plays' forecast values, then both of its resorts' inputs.
GRID_RESORT_INPUTS = 9
CARD_INPUT_SIZE = 6 + 2 * GRID_RESORT_INPUTS
# The forecast's values (win share) are a few hundredths apart; this brings them near unit size.
GRID_FORECAST_SCALE = 10.0
# The card grid: a card type's row is its home, its column its hotel; these average a row's
# (a column's) cards, by card type and row (column).
CARD_ROW_MEANS = np.zeros((NUM_CARD_TYPES, NUM_STARS), np.float32)
CARD_ROW_MEANS[np.arange(NUM_CARD_TYPES), CARD_HOME] = 1 / NUM_STARS
COLUMN_OF_CARD = CARD_HOTEL - NUM_STARS
CARD_COLUMN_MEANS = np.zeros((NUM_CARD_TYPES, NUM_STARS), np.float32)
CARD_COLUMN_MEANS[np.arange(NUM_CARD_TYPES), COLUMN_OF_CARD] = 1 / NUM_STARS
RESORT_IS_HOME = np.arange(len(FIRST_POINTS)) < NUM_STARS


class EndgameInputs:
    """What both endgame networks read of a batch of encoded observations
    (``encoders.HungryEncoder``): the resorts' tourists, the hand, the unseen cards and the
    forecast's play values, and from them each network's inputs; in the dtype of the
    features."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int):
        layout = observation_layout(num_players)
        self.num_players = num_players
        self.observation_size = observation_scale.size
        self.placed, self.hand, self.unseen = layout["placed"], layout["hand"], layout["unseen"]
        self.deck_size = layout["deck_size"].start
        self.forecast = action_features[0]
        self.per_action = action_feature_size
        self.scale = np.asarray(observation_scale, np.float32)

    def deck_empty(self, features: np.ndarray) -> np.ndarray:
        """(B,) True where the deck is empty."""
        return features[:, self.deck_size] * self.scale[self.deck_size] < 0.5

    def table(self, features: np.ndarray) -> tuple[np.ndarray, ...]:
        """(B, resorts) the observer's tourists and the most of any other seat, (B, cards) the
        hand and the unseen cards, (B, resorts) how many of each fit each resort, and the
        (B, 50) forecast values of the plays."""
        dtype = features.dtype
        raw = features[:, : self.observation_size] * self.scale.astype(dtype)
        b = raw.shape[0]
        placed = raw[:, self.placed].reshape(b, self.num_players, NUM_ACTIONS)
        counts = placed @ ACTION_TO_RESORT.astype(dtype)  # (B, seats, resorts)
        own, best_other = counts[:, 0], counts[:, 1:].max(axis=1)
        hand, unseen = raw[:, self.hand], raw[:, self.unseen]
        resort_cards = RESORT_CARDS.T.astype(dtype)
        block = features[:, self.forecast : self.forecast + NUM_ACTIONS * self.per_action]
        forecast = (block.reshape(b, NUM_ACTIONS, self.per_action)[:, :, 0]
                    * dtype.type(HUNGRY_FEATURE_SCALE))
        return own, best_other, hand, unseen, hand @ resort_cards, unseen @ resort_cards, forecast

    def play_inputs(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(B, 50, ``INPUT_SIZE``) inputs of every play of the ``plays`` network, and the
        (B, 50) legal plays."""
        own, best_other, hand, unseen, own_fit, unseen_fit, forecast = self.table(features)
        b, dtype = own.shape[0], own.dtype

        def rows(values: np.ndarray) -> np.ndarray:  # one value per play, the same every row
            return np.broadcast_to(values.astype(dtype), (b, NUM_ACTIONS))

        columns = []
        for resort in (_RESORT, _OTHER_RESORT):
            m, o = own[:, resort], best_other[:, resort]
            fit, rivals = own_fit[:, resort], unseen_fit[:, resort]
            safe = m - o - rivals
            columns += [safe, m + fit - o, safe + 1, (safe > 0).astype(dtype),
                        (m + fit < o).astype(dtype), (m == o).astype(dtype), m, o, m - o, fit,
                        rivals, rows(FIRST_POINTS[resort]), rows(resort < NUM_STARS)]
        copies = hand[:, PLAY_CARD]
        columns += [forecast, forecast[:, OTHER_PLAY], copies,
                    np.broadcast_to(hand.sum(axis=1, keepdims=True), (b, NUM_ACTIONS)),
                    rows(PLAY_IS_HOTEL)]
        return np.stack(columns, axis=2) / dtype.type(INPUT_SCALE), copies > 0.5

    def card_inputs(self, features: np.ndarray) -> np.ndarray:
        """(B, 25, ``CARD_INPUT_SIZE``) inputs of every card type of the ``cards`` network."""
        own, best_other, hand, unseen, own_fit, unseen_fit, forecast = self.table(features)
        b, dtype = own.shape[0], own.dtype
        resorts = np.stack(
            [own, best_other, own - best_other,
             np.broadcast_to(FIRST_POINTS.astype(dtype), own.shape),
             np.broadcast_to(RESORT_IS_HOME.astype(dtype), own.shape), own_fit, unseen_fit,
             own - best_other - unseen_fit, own + own_fit - best_other],
            axis=2) / dtype.type(INPUT_SCALE)
        plays = forecast.reshape(b, NUM_CARD_TYPES, 2) * dtype.type(GRID_FORECAST_SCALE)
        return np.concatenate([hand[..., None], unseen[..., None], plays,
                               (hand[..., None] > 0.5).astype(dtype),
                               (unseen[..., None] > 0.5).astype(dtype),
                               resorts[:, CARD_HOME], resorts[:, CARD_HOTEL]], axis=2)


# -- the shape of a network ------------------------------------------------------------------


@dataclass(frozen=True)
class NetworkShape:
    """Everything that makes a policy network's layers and what they read, declared once: the
    training config builds one (``training.config.NetworkConfig.shape``), a policy file's
    metadata holds one (``policies.learned.PolicyMetadata.network``, stored as the file's flat
    fields), and the network builders take one (:func:`network_layout`, the torch networks of
    ``models.networks``). Two networks have the same layers and inputs exactly when their
    shapes are equal. A shape checks its own rules when made: a ``ValueError`` names the field,
    or the combination no network has."""

    hidden: tuple[int, ...]  # the MLPs' widths
    activation: str  # between their layers (``ACTIVATIONS``)
    # An :class:`ActionScorerPolicy` over the encoder's ``action_features``.
    action_scorer: bool = False
    # With ``action_scorer``: a ``models.hungry_endgame`` head for the plays once the deck is
    # empty, the network ``endgame_model`` (``ENDGAME_MODEL_NAMES``) of the widths
    # ``endgame_hidden`` (files from before these settings have the defaults).
    endgame_head: bool = False
    endgame_hidden: tuple[int, ...] = DEFAULT_HIDDEN
    endgame_model: str = DEFAULT_MODEL
    # > 0: a privileged critic (``models.networks.PrivilegedCriticPolicy``): in training the
    # value network also reads this many numbers of the game's ``state()`` after the encoded
    # observation. The actor never reads them, so the policy plays from the observation alone.
    critic_state_size: int = 0
    # With ``action_scorer`` in HUNGER's full-decision mode (a
    # ``models.networks.FullDecisionPolicy``): the logit its later choices start with on the
    # S19 rule's choice.
    rule_prior: float = 0.0
    # A plain MLP's gain on each action's value among its inputs
    # (``models.networks.ActionValueGain``; files from before the setting have 1).
    action_value_gain: float = 1.0

    def __post_init__(self) -> None:
        self._check_fields()
        for name in ("hidden", "endgame_hidden"):  # a list in a file or a config
            object.__setattr__(self, name, tuple(getattr(self, name)))
        self._check_combinations()

    def _check_fields(self) -> None:
        def check(name: str, valid: bool, wanted: str) -> None:
            if not valid:
                raise ValueError(f"{name} must be {wanted}, got {short_repr(getattr(self, name))}")

        for widths in ("hidden", "endgame_hidden"):
            value = getattr(self, widths)
            check(widths, isinstance(value, list | tuple) and len(value) > 0
                  and all(is_count(width) for width in value),
                  "a non-empty list of positive integers")
        check("activation", isinstance(self.activation, str)
              and self.activation in ACTIVATIONS, f"one of {sorted(ACTIVATIONS)}")
        check("endgame_model", isinstance(self.endgame_model, str)
              and self.endgame_model in ENDGAME_MODEL_NAMES,
              f"one of {sorted(ENDGAME_MODEL_NAMES)}")
        check("endgame_hidden", self.endgame_model != CARDS
              or len(set(self.endgame_hidden)) == 1, "equal widths for the cards endgame model")
        for flag in ("action_scorer", "endgame_head"):
            check(flag, isinstance(getattr(self, flag), bool), "true or false")
        check("critic_state_size", is_count(self.critic_state_size, low=0),
              "a non-negative integer")
        check("rule_prior", _number(self.rule_prior) and 0 <= self.rule_prior <= 1e6,
              "a number in [0, 1e6]")
        check("action_value_gain", _number(self.action_value_gain)
              and 0 < self.action_value_gain <= 1e6, "a number in (0, 1e6]")

    def _check_combinations(self) -> None:
        if self.endgame_head and not self.action_scorer:
            raise ValueError("an endgame head belongs to an action scorer")
        if self.action_value_gain != 1.0 and self.action_scorer:
            raise ValueError("an action value gain belongs to a plain MLP (an action scorer "
                             "reads the values PRIOR_WEIGHT times over)")
        if self.rule_prior and not self.action_scorer:
            raise ValueError("a rule prior belongs to an action scorer in the full-decision "
                             "mode")
        if self.critic_state_size and self.action_scorer:
            raise ValueError("a privileged critic goes with the plain MLP, not an action scorer")

    def file_fields(self) -> dict[str, Any]:
        """The fields as a policy file's JSON holds them (widths as lists)."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in dataclasses.asdict(self).items()}

    def difference(self, other: NetworkShape) -> tuple[str, Any, Any] | None:
        """The first field in which this shape differs from ``other`` (its name, this value
        and the other's, as a file holds them), or None if they are equal."""
        mine, theirs = self.file_fields(), other.file_fields()
        for name, value in mine.items():
            if theirs[name] != value:
                return name, value, theirs[name]
        return None


# The fields of a shape, in their order (a policy file's, after ``num_actions``).
SHAPE_FIELDS = tuple(spec.name for spec in dataclasses.fields(NetworkShape))


def is_count(value: Any, low: int = 1) -> bool:
    """Whether ``value`` is an integer (not a bool) of at least ``low``: a policy file's counts."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def short_repr(value: Any) -> str:
    """A bounded repr for an error message about a file's contents (an exception: its text)."""
    try:
        text = str(value) if isinstance(value, BaseException) else reprlib.repr(value)
    except ValueError:  # an int with too many digits for str()
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


# -- the numpy forward pass -------------------------------------------------------------------

def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"tanh": np.tanh, "relu": relu}


class Dense:
    """A torch ``Linear`` layer: ``x @ weight.T + bias``."""

    def __init__(self, weight: np.ndarray, bias: np.ndarray):
        self.weight_t = np.ascontiguousarray(weight.T)
        self.bias = bias
        self.outputs = bias.size

    def __call__(self, x: np.ndarray) -> np.ndarray:
        # One matrix product over all leading axes (numpy's matmul would run one per row of a
        # 3-d input, as many BLAS calls as there are positions).
        product = x.reshape(-1, x.shape[-1]) @ self.weight_t
        return (product + self.bias).reshape(*x.shape[:-1], self.outputs)


class Layers:
    """A torch ``Sequential`` of linear layers, each followed by the activation (the last one
    too, if ``activate_last``)."""

    def __init__(self, layers: list[Dense], activation: Callable[[np.ndarray], np.ndarray],
                 activate_last: bool):
        self.layers, self.activation, self.activate_last = layers, activation, activate_last
        self.outputs = layers[-1].outputs

    def __call__(self, x: np.ndarray) -> np.ndarray:
        last = len(self.layers) - 1
        for index, layer in enumerate(self.layers):
            x = layer(x)
            if index < last or self.activate_last:
                x = self.activation(x)
        return x


class NetworkWeights:
    """A network's weights under their torch names, as float32 arrays; each is taken once, with
    its shape checked, and :meth:`check_all_taken` refuses any left over."""

    def __init__(self, weights: Mapping[str, Any]):
        self.arrays = {name: np.asarray(value, dtype=np.float32)
                       for name, value in weights.items()}
        self._left = set(self.arrays)

    def take(self, name: str) -> np.ndarray:
        if name not in self.arrays:
            raise ValueError(f"the weights lack {name}")
        self._left.discard(name)
        return self.arrays[name]

    def dense(self, name: str, inputs: int, outputs: int | None = None) -> Dense:
        """The linear layer ``name`` reading ``inputs`` numbers (and giving ``outputs``)."""
        weight, bias = self.take(f"{name}.weight"), self.take(f"{name}.bias")
        rows = weight.shape[0] if weight.ndim == 2 else None
        if (weight.ndim != 2 or weight.shape[1] != inputs or bias.shape != (rows,)
                or outputs not in (None, rows)):
            wanted = f"({'*' if outputs is None else outputs}, {inputs})"
            raise ValueError(f"{name} has weight {weight.shape} and bias {bias.shape}, the "
                             f"network's layer reads {inputs} numbers: weight {wanted}")
        return Dense(weight, bias)

    def layers(self, prefix: str, widths: Sequence[int], inputs: int, activation: str,
               activate_last: bool = True) -> Layers:
        """The ``Sequential`` ``prefix`` of linear layers of ``widths`` fed ``inputs`` numbers,
        an activation after each (torch's indices 0, 2, 4, ...)."""
        layers = []
        for index, width in enumerate(widths):
            layers.append(self.dense(f"{prefix}.{2 * index}", inputs, width))
            inputs = width
        return Layers(layers, ACTIVATIONS[activation], activate_last)

    def check_all_taken(self) -> None:
        if self._left:
            left = sorted(self._left)
            raise ValueError(f"weights the network has no place for: {left[:3]}"
                             + (f" and {len(left) - 3} more" if len(left) > 3 else ""))


class PlaysHead:
    """The ``plays`` endgame network (``models.hungry_endgame.EndgameHead``)."""

    def __init__(self, weights: NetworkWeights, prefix: str, inputs: EndgameInputs,
                 hidden: Sequence[int]):
        self.inputs = inputs
        self.per_play = weights.layers(f"{prefix}per_play", hidden, INPUT_SIZE, "relu")
        width = self.per_play.outputs
        self.context = weights.dense(f"{prefix}context", width, width)
        self.score = weights.layers(f"{prefix}score", (width, 1), 2 * width, "relu",
                                    activate_last=False)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """(B, 50) scores; those of illegal plays are meaningless (the policy masks them)."""
        inputs, legal = self.inputs.play_inputs(features)
        hidden = self.per_play(inputs)
        legal_weights = legal.astype(hidden.dtype)[:, :, None]
        pooled = (hidden * legal_weights).sum(axis=1) / np.maximum(legal_weights.sum(axis=1), 1)
        context = np.broadcast_to(self.context(pooled)[:, None, :], hidden.shape)
        return self.score(np.concatenate((hidden, context), axis=2))[:, :, 0]


class CardsHead:
    """The ``cards`` endgame network (``models.hungry_endgame.CardGridHead``)."""

    def __init__(self, weights: NetworkWeights, prefix: str, inputs: EndgameInputs,
                 hidden: Sequence[int]):
        if len(set(hidden)) != 1:
            raise ValueError(f"the cards endgame model updates each card's vector in place, so "
                             f"its widths must be equal, got {list(hidden)}")
        self.inputs = inputs
        width = hidden[0]
        self.embed = weights.layers(f"{prefix}embed", (width,), CARD_INPUT_SIZE, "relu")
        self.rounds = [weights.layers(f"{prefix}rounds.{index}", (width,), 4 * width, "relu")
                       for index in range(len(hidden))]
        self.score = weights.layers(f"{prefix}score", (width, 2), 4 * width, "relu",
                                    activate_last=False)

    @staticmethod
    def _messages(cards: np.ndarray) -> np.ndarray:
        """Each card's vector beside the means of its row, its column and the whole grid."""
        rows = CARD_ROW_MEANS.T @ cards  # (B, rows, width)
        columns = CARD_COLUMN_MEANS.T @ cards
        grid = np.broadcast_to(cards.mean(axis=1, keepdims=True), cards.shape)
        return np.concatenate([cards, rows[:, CARD_HOME], columns[:, COLUMN_OF_CARD], grid],
                              axis=2)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """(B, 50) scores; those of illegal plays are meaningless (the policy masks them)."""
        cards = self.embed(self.inputs.card_inputs(features))
        for layer in self.rounds:
            cards = cards + layer(self._messages(cards))
        return self.score(self._messages(cards)).reshape(len(features), NUM_ACTIONS)


ENDGAME_HEADS = {PLAYS: PlaysHead, CARDS: CardsHead}


class ScorerActor:
    """The actor of an action scorer (``models.networks.ActionScorerExtractor``): the MLP's
    latent, then each action's prior value plus the scorer's correction (the endgame head's
    scores where the deck is empty)."""

    def __init__(self, weights: NetworkWeights, prefix: str, inputs: int, hidden: Sequence[int],
                 activation: str, action_features: tuple[int, int], action_feature_size: int,
                 endgame: dict[str, Any] | None = None):
        self.mlp = weights.layers(f"{prefix}mlp.policy_net", hidden, inputs, activation)
        self.critic = weights.layers(f"{prefix}mlp.value_net", hidden, inputs, activation)
        self.start, self.stop = action_features
        self.per_action = action_feature_size
        self.num_actions = (self.stop - self.start) // self.per_action
        self.context = weights.dense(f"{prefix}context", self.mlp.outputs, SCORER_CONTEXT)
        self.scorer = weights.layers(f"{prefix}scorer", (SCORER_HIDDEN, SCORER_HIDDEN, 1),
                                     self.per_action + SCORER_CONTEXT, activation,
                                     activate_last=False)
        self.outputs = self.mlp.outputs + self.num_actions
        self.endgame = None
        if endgame is not None:
            endgame_inputs = EndgameInputs(endgame["num_players"], endgame["observation_scale"],
                                           action_features, action_feature_size)
            self.endgame = ENDGAME_HEADS[endgame["model"]](
                weights, f"{prefix}endgame.", endgame_inputs, endgame["hidden"])

    def __call__(self, features: np.ndarray) -> np.ndarray:
        latent = self.mlp(features)
        if self.endgame is None:
            return np.concatenate((latent, self._corrected_priors(features, latent)), axis=1)
        # Each row runs only the head whose scores it takes.
        empty = self.endgame.inputs.deck_empty(features)
        drawing = ~empty
        scores = np.zeros((len(features), self.num_actions), features.dtype)
        scores[drawing] = self._corrected_priors(features[drawing], latent[drawing])
        scores[empty] = self.endgame(features[empty])
        return np.concatenate((latent, scores), axis=1)

    def _corrected_priors(self, features: np.ndarray, latent: np.ndarray) -> np.ndarray:
        """(B, actions) each action's prior value plus the scorer's correction."""
        actions = features[:, self.start : self.stop].reshape(
            -1, self.num_actions, self.per_action)
        context = np.broadcast_to(self.context(latent)[:, None, :],
                                  (len(latent), self.num_actions, SCORER_CONTEXT))
        corrections = self.scorer(np.concatenate((actions, context), axis=2))[:, :, 0]
        return actions[:, :, 0] + corrections


class FullDecisionActor:
    """The actor of the full-decision network (``models.networks.FullDecisionExtractor``): the
    daily picks' scorer over the default-mode part of the input, the decisions MLP over all of
    it, and the ``rule_action`` one-hot of the later choices."""

    def __init__(self, weights: NetworkWeights, prefix: str, inputs: int, hidden: Sequence[int],
                 activation: str, default_input: tuple[tuple[int, int], ...],
                 action_features: tuple[int, int], action_feature_size: int,
                 rule_actions: tuple[int, int]):
        self.default_input = [tuple(columns) for columns in default_input]
        default_size = sum(stop - start for start, stop in self.default_input)
        self.picks = ScorerActor(weights, f"{prefix}picks.", default_size, hidden, activation,
                                 action_features, action_feature_size)
        self.decisions = weights.layers(f"{prefix}decisions", hidden, inputs, activation)
        self.rule_start, self.rule_stop = rule_actions
        self.num_picks = self.picks.num_actions
        self.outputs = (self.picks.outputs + self.decisions.outputs
                        + self.rule_stop - self.rule_start - self.num_picks)

    def default_features(self, features: np.ndarray) -> np.ndarray:
        return np.concatenate([features[:, start:stop] for start, stop in self.default_input],
                              axis=1)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        rule = features[:, self.rule_start + self.num_picks : self.rule_stop]
        return np.concatenate((self.picks(self.default_features(features)),
                               self.decisions(features), rule), axis=1)


class PolicyNetwork:
    """A policy network of kind ``kind`` with the ``settings`` of :func:`network_layout`, over
    inputs of ``input_size`` encoded numbers, in numpy: its action logits and its value.
    ``weights`` (arrays or CPU tensors, under the torch network's names) must be the network's
    exactly: a ``ValueError`` names a missing one, one of another shape, or one left over."""

    def __init__(self, kind: str, settings: Mapping[str, Any], input_size: int,
                 num_actions: int, hidden: Sequence[int], activation: str,
                 weights: Mapping[str, Any]):
        reader = NetworkWeights(weights)
        gain = settings.get("value_gain")
        self.gains = None if gain is None else value_gains(input_size, **gain)
        self.actor: Callable[[np.ndarray], np.ndarray]
        self.critic: Callable[[np.ndarray], np.ndarray]
        if kind in (MLP, PRIVILEGED_CRITIC):
            # The privileged critic's actor reads the observation, its first columns.
            observation_size = input_size - settings.get("critic_state_size", 0)
            policy_net = reader.layers("mlp_extractor.policy_net", hidden, observation_size,
                                       activation)
            self.actor = lambda features: policy_net(features[:, :observation_size])
            self.critic = reader.layers("mlp_extractor.value_net", hidden, input_size,
                                        activation)
            latent_size = policy_net.outputs
        elif kind == ACTION_SCORER:
            scorer = ScorerActor(reader, "mlp_extractor.", input_size, hidden, activation,
                                 settings["action_features"], settings["action_feature_size"],
                                 settings.get("endgame"))
            self.actor, self.critic, latent_size = scorer, scorer.critic, scorer.outputs
        elif kind == FULL_DECISIONS:
            full = FullDecisionActor(reader, "mlp_extractor.", input_size, hidden, activation,
                                     settings["default_input"], settings["action_features"],
                                     settings["action_feature_size"], settings["rule_actions"])
            self.actor, latent_size = full, full.outputs
            self.critic = lambda features: full.picks.critic(full.default_features(features))
        else:
            raise ValueError(f"unknown kind of network {kind!r}")
        self.action_net = reader.dense("action_net", latent_size, num_actions)
        self.value_net = reader.dense("value_net", hidden[-1], 1)
        reader.check_all_taken()
        self.weights = reader.arrays

    def _features(self, inputs: np.ndarray) -> np.ndarray:
        inputs = np.asarray(inputs, np.float32)
        return inputs if self.gains is None else inputs * self.gains

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        """(B, actions) unmasked action logits of a (B, input size) batch of encoded inputs."""
        return self.action_net(self.actor(self._features(inputs)))

    def values(self, inputs: np.ndarray) -> np.ndarray:
        """(B,) the value head's estimates for a batch of encoded inputs."""
        return self.value_net(self.critic(self._features(inputs)))[:, 0]
