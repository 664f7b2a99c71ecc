"""The endgame head of a Hungry action scorer: its own scores once the deck is empty.

After the last draw nothing is hidden but the other hands, which are the unseen cards less the
two removed ones, and every card left will be played: a nearly open contest for the
majorities, where the forecast's chance model plays badly (README, Training). So once the deck
is empty the policy's action scores come from this head instead of the forecast prior and its
corrections. The policy's ``endgame_model`` picks one of two networks.

``plays`` (:class:`EndgameHead`): each legal play is scored by one network shared by all
plays, from resort-level inputs for the play's resort and for the other resort its card could go
to: the observer's tourists there, the most any other seat has, how many of the observer's
cards and of the unseen cards fit it, whether the observer has it safe or out of reach, its
points, plus the play's forecast value, that of the card's other play, and the copies in hand.
A mean over the legal plays' hidden vectors gives every score the context of the others. The
per-play layers' widths are the policy's ``endgame_hidden``.

``cards`` (:class:`CardGridHead`): the 25 card types form a grid, a holiday home per row and a
hotel per column, each card joining the two resorts it fits. Each card type gets a vector from
the copies of it in hand and unseen, its two plays' forecast values and both of its resorts'
inputs; then each round of messages adds to every card's vector what its row, its column and
the whole grid hold (their means), so that a card's scores can depend on every other card that
competes for its resorts, and on theirs in turn: which cards go where, which the per-play
inputs leave to the one mean. One round per width of ``endgame_hidden``, all widths equal; two
scores per card type, its home play and its hotel play
(docs/experiments/endgame_head.md: it fits the play values where the per-play head stops).

Both recompute all their inputs here, in torch, from the encoded observation
(``encoders.HungryEncoder``), so the head adds nothing to the encoding and a policy file needs
nothing beyond its weights.

``training.endgame`` fits the head to play values measured by playouts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

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

_RESORT = np.array(ACTION_RESORT)
# The same card's other play (home <-> hotel) and its resort.
OTHER_PLAY = np.arange(NUM_ACTIONS) ^ 1
_OTHER_RESORT = _RESORT[OTHER_PLAY]
# Inputs per play: 13 for each of its two resorts, then 5 about the play itself.
PER_RESORT = 13
INPUT_SIZE = 2 * PER_RESORT + 5
# Inputs are counts of a few cards; this brings them near unit size.
INPUT_SCALE = 5.0
# Widths of the per-play layers (``network.endgame_hidden``); the context and the score layers
# take the last. A policy file that does not name them has these.
DEFAULT_HIDDEN = (128, 128)
# ``network.endgame_model``: the network each name builds. A policy file that does not name one
# has "plays".
DEFAULT_MODEL = "plays"
# Inputs per resort of the card grid, and per card type: its copies in hand and unseen, whether
# there are any, its two plays' forecast values, then both of its resorts' inputs.
GRID_RESORT_INPUTS = 9
CARD_INPUT_SIZE = 6 + 2 * GRID_RESORT_INPUTS
# The forecast's values (win share) are a few hundredths apart; this brings them near unit size.
GRID_FORECAST_SCALE = 10.0


class _EndgameInputs(torch.nn.Module):
    """What both endgame networks read of an encoded observation: the resorts' tourists, the
    hand, the unseen cards and the forecast's play values."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int):
        super().__init__()
        layout = observation_layout(num_players)
        self.num_players = num_players
        self.observation_size = observation_scale.size
        self.placed, self.hand, self.unseen = layout["placed"], layout["hand"], layout["unseen"]
        self.deck_size = layout["deck_size"].start
        self.forecast = action_features[0]
        self.per_action = action_feature_size
        self.register_buffer("scale", torch.tensor(observation_scale, dtype=torch.float32),
                             persistent=False)
        constants = {
            "action_to_resort": ACTION_TO_RESORT, "resort_cards": RESORT_CARDS.T,
            "resort": _RESORT, "other_resort": _OTHER_RESORT, "other_play": OTHER_PLAY,
            "card": np.arange(NUM_ACTIONS) // 2, "hotel": np.arange(NUM_ACTIONS) % 2,
        }
        for name, value in constants.items():
            self.register_buffer(name, torch.as_tensor(value), persistent=False)
        self.register_buffer("points", torch.as_tensor(FIRST_POINTS, dtype=torch.float32),
                             persistent=False)

    def deck_empty(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 1) True where the deck is empty."""
        return features[:, self.deck_size : self.deck_size + 1] * self.scale[self.deck_size] < 0.5

    def table(self, features: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(B, resorts) the observer's tourists and the most of any other seat, (B, cards) the
        hand and the unseen cards, (B, resorts) how many of each fit each resort, and the
        (B, 50) forecast values of the plays."""
        raw = features[:, : self.observation_size] * self.scale
        b = raw.shape[0]
        placed = raw[:, self.placed].reshape(b, self.num_players, NUM_ACTIONS)
        counts = placed @ self.action_to_resort.to(raw.dtype)  # (B, seats, resorts)
        own, best_other = counts[:, 0], counts[:, 1:].max(dim=1).values
        hand, unseen = raw[:, self.hand], raw[:, self.unseen]
        own_fit = hand @ self.resort_cards.to(raw.dtype)
        unseen_fit = unseen @ self.resort_cards.to(raw.dtype)
        block = features[:, self.forecast : self.forecast + NUM_ACTIONS * self.per_action]
        forecast = block.reshape(b, NUM_ACTIONS, self.per_action)[:, :, 0] * HUNGRY_FEATURE_SCALE
        return own, best_other, hand, unseen, own_fit, unseen_fit, forecast


class EndgameHead(_EndgameInputs):
    """The ``plays`` network: scores of all plays from encoded observations (module
    docstring)."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int,
                 hidden: Sequence[int] = DEFAULT_HIDDEN):
        super().__init__(num_players, observation_scale, action_features, action_feature_size)
        layers: list[torch.nn.Module] = []
        width = INPUT_SIZE
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
            width = size
        self.per_play = torch.nn.Sequential(*layers)
        self.context = torch.nn.Linear(width, width)
        self.score = torch.nn.Sequential(
            torch.nn.Linear(2 * width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def play_inputs(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 50, INPUT_SIZE) inputs of every play and the (B, 50) legal plays."""
        own, best_other, hand, unseen, own_fit, unseen_fit, forecast = self.table(features)
        b, dtype = own.shape[0], own.dtype
        columns = []
        for resort in (self.resort, self.other_resort):
            m, o = own[:, resort], best_other[:, resort]
            fit, rivals = own_fit[:, resort], unseen_fit[:, resort]
            safe = m - o - rivals
            columns += [safe, m + fit - o, safe + 1, (safe > 0).to(dtype),
                        (m + fit < o).to(dtype), (m == o).to(dtype), m, o, m - o, fit,
                        rivals, self.points[resort].expand(b, -1),
                        (resort < NUM_STARS).to(dtype).expand(b, -1)]
        copies = hand[:, self.card]
        columns += [forecast, forecast[:, self.other_play], copies,
                    hand.sum(dim=1, keepdim=True).expand(-1, NUM_ACTIONS),
                    self.hotel.to(dtype).expand(b, -1)]
        return torch.stack(columns, dim=2) / INPUT_SCALE, copies > 0.5

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 50) scores; those of illegal plays are meaningless (the policy masks them)."""
        inputs, legal = self.play_inputs(features)
        hidden = self.per_play(inputs)
        weights = legal.to(hidden.dtype)[:, :, None]
        pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
        context = self.context(pooled)[:, None, :].expand_as(hidden)
        return self.score(torch.cat((hidden, context), dim=2))[:, :, 0]

    def legal_scores(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 50) the scores of the legal plays, as :meth:`forward` gives them up to rounding,
        computed for those plays alone (about 8 of the 50 after the last draw, so the fit's
        passes cost a sixth); 0 for the illegal ones."""
        inputs, legal = self.play_inputs(features)
        rows, plays = legal.nonzero(as_tuple=True)
        hidden = self.per_play(inputs[rows, plays])
        pooled = hidden.new_zeros(len(features), hidden.shape[1]).index_add_(0, rows, hidden)
        pooled = pooled / legal.sum(dim=1, keepdim=True).clamp(min=1).to(hidden.dtype)
        played = self.score(torch.cat((hidden, self.context(pooled)[rows]), dim=1))[:, 0]
        return played.new_zeros(legal.shape).index_put((rows, plays), played)


class CardGridHead(_EndgameInputs):
    """The ``cards`` network: scores of all plays from encoded observations by rounds of
    messages over the card grid (module docstring)."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int,
                 hidden: Sequence[int]):
        super().__init__(num_players, observation_scale, action_features, action_feature_size)
        if len(set(hidden)) != 1:
            raise ValueError(f"the cards endgame model updates each card's vector in place, so "
                             f"its widths must be equal, got {list(hidden)}")
        width = hidden[0]
        rows = np.zeros((NUM_CARD_TYPES, NUM_STARS), np.float32)
        # The grid: a card type's row is its home, its column its hotel.
        rows[np.arange(NUM_CARD_TYPES), CARD_HOME] = 1 / NUM_STARS
        columns = np.zeros((NUM_CARD_TYPES, NUM_STARS), np.float32)
        columns[np.arange(NUM_CARD_TYPES), CARD_HOTEL - NUM_STARS] = 1 / NUM_STARS
        # The homes are resorts 0-4, so a card's home is also its row.
        constants = {"card_home": CARD_HOME, "card_hotel": CARD_HOTEL,
                     "column_of_card": CARD_HOTEL - NUM_STARS,
                     "row_means": rows, "column_means": columns,
                     "is_home": np.arange(len(FIRST_POINTS)) < NUM_STARS}
        for name, value in constants.items():
            self.register_buffer(name, torch.as_tensor(value), persistent=False)
        self.embed = torch.nn.Sequential(torch.nn.Linear(CARD_INPUT_SIZE, width),
                                         torch.nn.ReLU())
        self.rounds = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(4 * width, width), torch.nn.ReLU())
            for _ in hidden)
        self.score = torch.nn.Sequential(torch.nn.Linear(4 * width, width), torch.nn.ReLU(),
                                         torch.nn.Linear(width, 2))

    def reset_parameters(self) -> None:
        """PyTorch's default initialisation of every layer. SB3 initialises an extractor's
        layers orthogonally with gain sqrt(2), under which the residual rounds grow each card's
        vector round by round and the fit starts from scores far too large (and fits worse)."""
        for module in self.modules():
            if isinstance(module, torch.nn.Linear):
                module.reset_parameters()

    def card_inputs(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 25, CARD_INPUT_SIZE) inputs of every card type."""
        own, best_other, hand, unseen, own_fit, unseen_fit, forecast = self.table(features)
        b = own.shape[0]
        resorts = torch.stack(
            [own, best_other, own - best_other, self.points.expand(b, -1),
             self.is_home.to(own.dtype).expand(b, -1), own_fit, unseen_fit,
             own - best_other - unseen_fit, own + own_fit - best_other], dim=2) / INPUT_SCALE
        # A card type's plays are its home play and its hotel play, actions 2c and 2c + 1.
        plays = forecast.reshape(b, NUM_CARD_TYPES, 2) * GRID_FORECAST_SCALE
        return torch.cat([hand[..., None], unseen[..., None], plays,
                          (hand[..., None] > 0.5).to(own.dtype),
                          (unseen[..., None] > 0.5).to(own.dtype),
                          resorts[:, self.card_home], resorts[:, self.card_hotel]], dim=2)

    def _messages(self, cards: torch.Tensor) -> torch.Tensor:
        """Each card's vector beside the means of its row, its column and the whole grid."""
        rows = torch.einsum("bcw,cr->brw", cards, self.row_means)
        columns = torch.einsum("bcw,cr->brw", cards, self.column_means)
        grid = cards.mean(dim=1, keepdim=True).expand_as(cards)
        return torch.cat([cards, rows[:, self.card_home], columns[:, self.column_of_card],
                          grid], dim=2)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 50) scores; those of illegal plays are meaningless (the policy masks them)."""
        cards = self.embed(self.card_inputs(features))
        for layer in self.rounds:
            cards = cards + layer(self._messages(cards))
        return self.score(self._messages(cards)).reshape(len(features), NUM_ACTIONS)

    def legal_scores(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 50) :meth:`forward`'s scores of the legal plays, 0 for the illegal ones (every
        card's vector goes into every play's score, so there is nothing to skip)."""
        hand = features[:, self.hand] * self.scale[self.hand]
        return self.forward(features) * (hand[:, self.card] > 0.5)


def endgame_head(model: str, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int,
                 hidden: Sequence[int]) -> EndgameHead | CardGridHead:
    """The endgame network named by ``model`` (``ENDGAME_MODELS``)."""
    if model not in ENDGAME_MODELS:
        raise ValueError(f"endgame model must be one of {sorted(ENDGAME_MODELS)}, got {model!r}")
    return ENDGAME_MODELS[model](num_players, observation_scale, action_features,
                                 action_feature_size, hidden)


ENDGAME_MODELS = {"plays": EndgameHead, "cards": CardGridHead}
