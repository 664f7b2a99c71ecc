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

Both recompute all their inputs from the encoded observation (``encoders.HungryEncoder``), so
the head adds nothing to the encoding and a policy file needs nothing beyond its weights. The
inputs, which need no gradient, are computed in numpy by ``forward.EndgameInputs``, the very
code the numpy forward pass of a policy file plays with; these torch modules are for training.

``training.endgame`` fits the head to play values measured by playouts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from hunger_rl.engines.hungry.engine import NUM_ACTIONS, NUM_STARS
from hunger_rl.policies.models.forward import (
    CARD_INPUT_SIZE,
    CARDS,
    DEFAULT_HIDDEN,
    DEFAULT_MODEL,
    INPUT_SIZE,
    PLAY_CARD,
    PLAYS,
    EndgameInputs,
)

__all__ = ["CARD_INPUT_SIZE", "DEFAULT_HIDDEN", "DEFAULT_MODEL", "ENDGAME_MODELS", "INPUT_SIZE",
           "CardGridHead", "EndgameHead", "endgame_head"]


class _EndgameInputs(torch.nn.Module):
    """What both endgame networks read of an encoded observation, computed by
    ``forward.EndgameInputs`` (the numpy forward pass's own; these inputs need no gradient)."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int):
        super().__init__()
        self.inputs = EndgameInputs(num_players, observation_scale, action_features,
                                    action_feature_size)
        self.num_players, self.hand = num_players, self.inputs.hand
        self.forecast, self.per_action = self.inputs.forecast, self.inputs.per_action
        self.register_buffer("scale", torch.tensor(observation_scale, dtype=torch.float32),
                             persistent=False)
        self.register_buffer("card", torch.as_tensor(PLAY_CARD), persistent=False)

    def _computed(self, compute, features: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(compute(features.detach().cpu().numpy()), device=features.device)

    def deck_empty(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 1) True where the deck is empty."""
        return self._computed(self.inputs.deck_empty, features)[:, None]


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
        inputs, legal = self.inputs.play_inputs(features.detach().cpu().numpy())
        return (torch.as_tensor(inputs, device=features.device),
                torch.as_tensor(legal, device=features.device))

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
        return self._computed(self.inputs.card_inputs, features)

    def _message_layer(self, linear: torch.nn.Linear, cards: torch.Tensor) -> torch.Tensor:
        """``linear`` of each card's vector beside the means of its row, its column and the
        whole grid. The layer's weight is cut into its four blocks, and each block multiplies
        the means before they are spread over the cards (5 rows, 5 columns and one grid, where
        the concatenated messages of the numpy forward pass repeat them over the 25 cards): a
        third of the multiplications, no concatenated copy, and spreading by broadcasting, whose
        gradient is a sum rather than a scatter."""
        own, row, column, grid = linear.weight.chunk(4, dim=1)
        # Card c sits at column c // 5, row c % 5 of the grid (forward.CARD_HOME and
        # COLUMN_OF_CARD; the numpy forward pass reads those, and the tests hold the two equal).
        by_column = cards.view(len(cards), NUM_STARS, NUM_STARS, cards.shape[2])
        rows = torch.nn.functional.linear(by_column.mean(dim=1, keepdim=True), row)
        columns = torch.nn.functional.linear(by_column.mean(dim=2, keepdim=True), column)
        whole = torch.nn.functional.linear(cards.mean(dim=1)[:, None, None, :], grid)
        own_part = torch.nn.functional.linear(by_column, own, linear.bias)
        return (own_part + rows + columns + whole).view(cards.shape[:2] + (linear.out_features,))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 50) scores; those of illegal plays are meaningless (the policy masks them)."""
        cards = self.embed(self.card_inputs(features))
        for layer in self.rounds:
            linear, activation = layer
            cards = cards + activation(self._message_layer(linear, cards))
        first, activation, last = self.score
        scores = last(activation(self._message_layer(first, cards)))
        return scores.reshape(len(features), NUM_ACTIONS)

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


ENDGAME_MODELS = {PLAYS: EndgameHead, CARDS: CardGridHead}
