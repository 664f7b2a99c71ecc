"""Determinized Monte Carlo tree search for Hungry (single-observer information-set MCTS).

Each simulation deals the cards the searching player has not seen at random, consistently with
its view (:meth:`HungryView.sample_state`), walks one shared tree of plays with UCB1 restricted to
the plays legal in that deal (each child's "availability" counts the simulations where it could
have been chosen), adds one node, and finishes the deal with a fast rollout. Rewards are win
shares (H9), so a node's value is its mover's chance of winning. At the root the expert's
position values, as a softmax prior, steer simulations to promising plays (PUCT).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hunger_rl.envs.hungry.engine import (
    NUM_CARD_TYPES,
    NUM_STARS,
    HungryState,
    card_colour,
    card_stars,
    score_resorts,
)
from hunger_rl.envs.rewards import win_shares
from hunger_rl.policies.base import Observation, Policy, legal_actions
from hunger_rl.policies.hungry import ExpertHungryPolicy, _Outlook, view_of

# Home and hotel resort of each card type.
CARD_HOME = np.array([card_stars(c) - 1 for c in range(NUM_CARD_TYPES)])
CARD_HOTEL = np.array([NUM_STARS + card_colour(c) for c in range(NUM_CARD_TYPES)])


class _Node:
    __slots__ = ("children", "mover", "visits", "reward", "available")

    def __init__(self, mover: int):
        self.children: dict[int, _Node] = {}
        self.mover = mover  # the seat whose play leads to this node
        self.visits = 0
        self.reward = 0.0
        self.available = 0


class SearchHungryPolicy(Policy):
    """Determinized MCTS with ``simulations`` simulations per move.

    The rollout sends each card that a player still holds or will draw to its home or its hotel
    at random: the play order inside a rollout does not change who draws which card, only the
    destinations matter, so a whole rollout is one vectorised assignment plus one scoring.
    Returns the most visited play at the root.
    """

    EXPLORATION = 0.7
    PRIOR_WEIGHT = 1.0
    PRIOR_TEMPERATURE = 0.3

    def __init__(self, simulations: int = 200):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        self.simulations = simulations
        self.name = f"search:{simulations}"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        actions = legal_actions(observation)
        view = view_of(observation, view)
        prior = self._prior(view, actions)
        root_children = [_Node(mover=0) for _ in actions]
        for simulation in range(self.simulations):
            # PUCT at the root: the expert's judgement guides which plays get simulations.
            scores = [
                (c.reward / c.visits if c.visits else 0.0)
                + self.PRIOR_WEIGHT * p * math.sqrt(simulation + 1) / (1 + c.visits)
                for c, p in zip(root_children, prior, strict=True)
            ]
            pick = int(np.argmax(scores))
            state = view.sample_state(rng)
            state.apply_action(int(actions[pick]))
            child = root_children[pick]
            child.visits += 1
            child.reward += self._simulate(child, state, rng)[0]
        visits = np.array([c.visits for c in root_children])
        best = np.flatnonzero(visits == visits.max())
        return int(actions[best[rng.integers(best.size)]])

    def _prior(self, view, actions: np.ndarray) -> np.ndarray:
        values = _Outlook(view, ExpertHungryPolicy.OWN_DESTINATION_CHANCE,
                          ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE).values_after(
            actions, ExpertHungryPolicy.TIE_BREAK_WEIGHT)
        weights = np.exp((values - values.max()) / self.PRIOR_TEMPERATURE)
        return weights / weights.sum()

    def _simulate(self, root: _Node, state: HungryState, rng: np.random.Generator) -> list[float]:
        """One simulation below ``root`` from ``state``; returns every seat's reward."""
        node = root
        path = []
        while not state.is_over:
            mover = state.current_player
            cards = np.flatnonzero(state.hands[mover])
            legal = np.concatenate([2 * cards, 2 * cards + 1])
            untried = [a for a in legal.tolist() if a not in node.children]
            if untried:
                action = untried[rng.integers(len(untried))]
                node.children[action] = child = _Node(mover)
                state.apply_action(action)
                path.append(child)
                break
            children = [node.children[a] for a in legal.tolist()]
            for child in children:
                child.available += 1
            scores = [
                c.reward / c.visits + self.EXPLORATION * math.sqrt(math.log(c.available) / c.visits)
                for c in children
            ]
            choice = int(np.argmax(scores))
            state.apply_action(int(legal[choice]))
            node = children[choice]
            path.append(node)
        rewards = random_rollout(state, rng)
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.mover]
        return rewards


def random_rollout(state: HungryState, rng: np.random.Generator) -> list[float]:
    """Win shares after every remaining card goes to its home or hotel at random."""
    seats = state.num_players
    owners = [np.repeat(np.arange(seats), state.hands.sum(axis=1)).tolist()]
    cards = [np.nonzero(state.hands)[1].repeat(state.hands[state.hands > 0]).tolist()]
    # Play k from now is made by the player to move k places on, who then draws deck[k].
    owners.append([(state.current_player + k) % seats for k in range(len(state.deck))])
    cards.append(state.deck)
    owner = np.concatenate(owners).astype(np.int64)
    card = np.concatenate(cards).astype(np.int64)
    resort = np.where(rng.random(card.size) < 0.5, CARD_HOME[card], CARD_HOTEL[card])
    counts = np.array(state.resort_counts, dtype=np.int64)
    np.add.at(counts, (owner, resort), 1)
    score = score_resorts(counts.tolist(), state.tied_second)
    return win_shares(seats, score.winners)

