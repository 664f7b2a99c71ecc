"""The endgame head of a Hungry action scorer: its own scores once the deck is empty.

After the last draw nothing is hidden but the other hands, which are the unseen cards less the
two removed ones, and every card left will be played: a nearly open contest for the
majorities, where the forecast's chance model plays badly (README, Training). So once the deck
is empty the policy's action scores come from this head instead of the forecast prior and its
corrections.

Each legal play is scored by one network shared by all plays, from resort-level inputs for the
play's resort and for the other resort its card could go to: the observer's tourists there, the
most any other seat has, how many of the observer's cards and of the unseen cards fit it,
whether the observer has it safe or out of reach, its points, plus the play's forecast value,
that of the card's other play, and the copies in hand. A mean over the legal plays' hidden
vectors gives every score the context of the others. The per-play layers' widths are the
policy's ``endgame_hidden``. All inputs are recomputed here, in torch,
from the encoded observation (``encoders.HungryEncoder``), so the head adds nothing to
the encoding and a policy file needs nothing beyond its weights.

``training.endgame`` fits the head to play values measured by playouts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from hunger_rl.engines.hungry.engine import ACTION_RESORT, NUM_ACTIONS, NUM_STARS
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.policies.hungry import RESORT_CARDS
from hunger_rl.policies.hungry_batched import FIRST_POINTS
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


class EndgameHead(torch.nn.Module):
    """Scores of all plays from encoded observations (module docstring), and which rows are
    past the last draw."""

    def __init__(self, num_players: int, observation_scale: np.ndarray,
                 action_features: tuple[int, int], action_feature_size: int,
                 hidden: Sequence[int] = DEFAULT_HIDDEN):
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
        layers: list[torch.nn.Module] = []
        width = INPUT_SIZE
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
            width = size
        self.per_play = torch.nn.Sequential(*layers)
        self.context = torch.nn.Linear(width, width)
        self.score = torch.nn.Sequential(
            torch.nn.Linear(2 * width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def deck_empty(self, features: torch.Tensor) -> torch.Tensor:
        """(B, 1) True where the deck is empty."""
        return features[:, self.deck_size : self.deck_size + 1] * self.scale[self.deck_size] < 0.5

    def play_inputs(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 50, INPUT_SIZE) inputs of every play and the (B, 50) legal plays."""
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
        columns = []
        for resort in (self.resort, self.other_resort):
            m, o = own[:, resort], best_other[:, resort]
            fit, rivals = own_fit[:, resort], unseen_fit[:, resort]
            safe = m - o - rivals
            columns += [safe, m + fit - o, safe + 1, (safe > 0).to(raw.dtype),
                        (m + fit < o).to(raw.dtype), (m == o).to(raw.dtype), m, o, m - o, fit,
                        rivals, self.points[resort].expand(b, -1),
                        (resort < NUM_STARS).to(raw.dtype).expand(b, -1)]
        copies = hand[:, self.card]
        columns += [forecast, forecast[:, self.other_play], copies,
                    hand.sum(dim=1, keepdim=True).expand(-1, NUM_ACTIONS),
                    self.hotel.to(raw.dtype).expand(b, -1)]
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
