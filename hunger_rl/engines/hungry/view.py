"""What one Hungry player may know: the public table plus its own hand (ruling H5).

A :class:`HungryView` is built from nothing but that player's observation vector, so it cannot
hold hidden information (other hands, the deck order, the removed cards) by construction.
Seats are relative, as in the observation: seat 0 is the observer, seat k the player k turns
after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    OPTION_DEFAULTS,
    REMOVED_CARDS,
    TOTAL_PLAYS,
    HungryState,
    Score,
    resort_places,
    score_resorts,
    totals_from_places,
)
from hunger_rl.engines.hungry.observation import observation_layout

# OBS_BASE + OBS_PER_PLAYER * N is the observation length for N players.
OBS_BASE = 2 * NUM_CARD_TYPES + 1
OBS_PER_PLAYER = NUM_ACTIONS + 3


def observation_players(vector: np.ndarray) -> int:
    """The player count of a ``hungry_v0`` observation vector, from its length."""
    size = np.asarray(vector).size
    num_players, rest = divmod(size - OBS_BASE, OBS_PER_PLAYER)
    if rest:
        raise ValueError(f"a vector of length {size} is not a hungry_v0 observation")
    return num_players


@dataclass(frozen=True)
class HungryView:
    """Read-only public state of one game of Hungry from the observer's seat (seat 0).

    ``hand``: the observer's cards per card type; ``placed[s, a]``: tourists seat ``s`` placed by
    action ``a``; ``hand_sizes``, ``deck_size``; ``to_move``: the seat to move (None once the
    game is over); ``unseen``: per card type, copies the observer has not seen (other hands, the
    deck and the removed cards); ``resort_counts[s, r]``: tourists of seat ``s`` at resort ``r``.
    """

    num_players: int
    hand: np.ndarray
    placed: np.ndarray
    hand_sizes: np.ndarray
    deck_size: int
    to_move: int | None
    unseen: np.ndarray
    resort_counts: np.ndarray
    tied_second: str = OPTION_DEFAULTS["tied_second"]

    @classmethod
    def from_observation(cls, observation,
                         tied_second: str = OPTION_DEFAULTS["tied_second"]) -> HungryView:
        """The view encoded in a ``hungry_v0`` observation (the dict or its vector)."""
        vector = observation["observation"] if hasattr(observation, "keys") else observation
        vector = np.asarray(vector)
        num_players = observation_players(vector)
        layout = observation_layout(num_players)
        placed = vector[layout["placed"]].astype(np.int64).reshape(num_players, NUM_ACTIONS)
        resort_counts = np.zeros((num_players, NUM_RESORTS), dtype=np.int64)
        np.add.at(resort_counts, (slice(None), np.array(ACTION_RESORT)), placed)
        to_move = np.flatnonzero(vector[layout["to_move"]])
        return cls(
            num_players=num_players,
            hand=vector[layout["hand"]].astype(np.int64),
            placed=placed,
            hand_sizes=vector[layout["hand_sizes"]].astype(np.int64),
            deck_size=int(vector[layout["deck_size"]][0]),
            to_move=int(to_move[0]) if to_move.size else None,
            unseen=vector[layout["unseen"]].astype(np.int64),
            resort_counts=resort_counts,
            tied_second=tied_second,
        )

    @property
    def num_plays(self) -> int:
        return int(self.placed.sum())

    @property
    def played(self) -> np.ndarray:
        """Cards placed so far per card type, all players."""
        return self.placed.reshape(self.num_players, NUM_CARD_TYPES, 2).sum(axis=(0, 2))

    def remaining_plays(self) -> np.ndarray:
        """How many more cards each seat will play before the game ends."""
        left = TOTAL_PLAYS - self.num_plays
        if self.to_move is None:
            return np.zeros(self.num_players, dtype=np.int64)
        # Plays go round from the seat to move; seat s is (s - to_move) mod N turns away.
        offsets = (np.arange(self.num_players) - self.to_move) % self.num_players
        return np.maximum(0, (left - offsets + self.num_players - 1) // self.num_players)

    def places(self) -> list[tuple[int | None, int | None]]:
        """First and second place at each resort if the game ended now (H6)."""
        return [
            resort_places(self.resort_counts[:, r].tolist(), self.tied_second)
            for r in range(NUM_RESORTS)
        ]

    def totals(self) -> list[int]:
        """Each seat's total if the game ended now."""
        return totals_from_places(self.num_players, self.places())

    def score(self) -> Score:
        return score_resorts(self.resort_counts.tolist(), self.tied_second)

    def sample_state(self, rng: np.random.Generator) -> HungryState:
        """A full game state consistent with this view: a determinization.

        The unseen cards are shuffled and dealt to the other seats' hands (matching their hand
        sizes), then to the deck, and the last two are the removed cards. The history holds the
        placed cards in an arbitrary order; only its length matters to the engine.
        """
        if self.to_move is None:
            raise ValueError("the game is over; there is nothing hidden to sample")
        unseen = np.repeat(np.arange(NUM_CARD_TYPES), self.unseen)
        rng.shuffle(unseen)
        hands = np.zeros((self.num_players, NUM_CARD_TYPES), dtype=np.int64)
        hands[0] = self.hand
        start = 0
        for seat in range(1, self.num_players):
            size = int(self.hand_sizes[seat])
            np.add.at(hands[seat], unseen[start : start + size], 1)
            start += size
        deck = unseen[start : start + self.deck_size].tolist()
        removed = unseen[start + self.deck_size :].tolist()
        if len(removed) != REMOVED_CARDS:
            raise ValueError("the view's card counts do not add up to a game of Hungry")
        history = np.repeat(np.arange(NUM_ACTIONS), self.placed.sum(axis=0)).tolist()
        return HungryState(
            num_players=self.num_players,
            removed=removed,
            deck=deck,
            hands=hands,
            placed=self.placed.copy(),
            current_player=self.to_move,
            history=history,
            tied_second=self.tied_second,
        )


def public_view(game_env, agent: str) -> HungryView:
    """The view of ``agent`` in a ``hungry_v0`` environment (raw or wrapped)."""
    return HungryView.from_observation(
        game_env.observe(agent), tied_second=game_env.unwrapped.tied_second
    )


def view_from_observation(observation, env_kwargs) -> HungryView:
    """The view in ``observation`` of a ``hungry_v0`` built with ``env_kwargs``."""
    return HungryView.from_observation(
        observation, tied_second=env_kwargs.get("tied_second", OPTION_DEFAULTS["tied_second"])
    )
