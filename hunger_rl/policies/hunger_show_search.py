"""``smmcts:N``: a simultaneous-move search for HUNGER: The Show (SM-MCTS, decoupled UCT).

A day's picks are simultaneous (S6), so the search keeps one bandit per living player over
its own choices of the day and lets each pick with UCB1 on its own statistics, blind to the
others' (decoupled UCT; Lanctot et al., "Monte Carlo Tree Search for Simultaneous Move Games:
A Case Study in the Game of Goofspiel", 2013, and Tak et al., 2014, find it strong on
simultaneous-move games). Each of the N simulations:

1. deals a show that the searching player cannot tell from the real one: the hidden values
   (tokens whose value it does not remember, the order of the event deck, the others'
   characters, the RNG of the default decisions) drawn afresh from its observation alone by
   ``show_from_observation``, the sampler behind OpenSpiel's ISMCTS on this game;
2. lets every living player pick by UCB1 on its own bandit, plays that day with the default
   decisions (S19), then plays the show to its end with the rollout player below;
3. pays each player its share of the win (1/k for a k-way draw), and credits it to the pick
   that player made.

It plays its most visited pick (ties: the best mean). The search reads nothing but the
observation; the seats are the observer's (it sits at seat 0, as in its observation).

``smmcts:N:SPEC`` lets a trained network guide the searcher's own bandit (expert iteration's
games, ``training.expert_iteration``): the softmax of its logits over the picks, the prior p,
adds a progressive bias ``PRIOR_WEIGHT * (p - 1/K) / (visits + 1)`` to each of the K picks'
scores (Chaslot et al. 2008), untried ones included, so the network orders the first tries and
its weight fades as a pick's own statistics grow. Centred on the uniform prior, the bias is
exactly 0 for a network that cannot tell the picks apart, and the search is then plain
``smmcts:N``. The other players' bandits stay unguided: the network reads the searcher's
observation only. ``explore`` adds Gumbel noise to the logits before the softmax (Gumbel
AlphaZero's exploration, as in the Hungry search). ``visit_policy`` is the policy target of
expert iteration: the searcher's visit counts of its last search, less the first try that every
pick gets whatever its worth (KataGo's pruning of forced playouts), normalised.

``smmcts:N:rm`` (``smmcts:N:rm:SPEC`` with a network) selects by regret matching instead
(Lanctot et al. 2013's SM-MCTS with regret matching; Diplomacy's SearchBot plays such a search's
average strategy): each living player keeps its regret for each pick and picks at random with
probability ``(1 - RM_EXPLORATION)`` times its positive regrets, normalised (uniform while it has
none), plus ``RM_EXPLORATION`` times the exploration distribution (uniform; with a network, the
searcher's prior). The sampled pick's outcome, divided by its probability, estimates every
pick's value (0 for the others), and each regret grows by that estimate less the outcome. The
search then plays a pick drawn from the searcher's average strategy (the mean of its regret
matching strategies over the simulations): a mixed strategy, so two calls on one observation
differ where the strategy does, reproducibly by the caller's generator. Regret matching's
average strategy goes to an equilibrium of the day's game where decoupled UCT's most visited
pick need not, which is what a player that an opponent studies needs.

The rollout player reads the dealt show directly (it is a sample, not the real game): a
living player short of food for the next suppers gathers fruit or chicken, else raft tokens,
at a random location whose pile still has some; with probability ``ROLLOUT_RANDOM`` it picks
any legal pick instead, so that rollouts also meet thieves, guards and crowding.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from hunger_rl.engines.hunger_show.determinisation import players_of, show_from_observation
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame
from hunger_rl.engines.hunger_show.observation import observation_layout
from hunger_rl.engines.hunger_show.tokens import CHICKEN, FRUIT, NUM_ACTIONS, RAFT
from hunger_rl.policies.base import Observation, Policy, legal_actions
from hunger_rl.policies.hunger_show import SUPPER_COST
from hunger_rl.policies.registry import DEFAULT_SMMCTS_SIMULATIONS

# UCB1's exploration constant for win shares in [0, 1] (sqrt(2) is UCB1's own; a smaller one
# suits the few simulations per pick that a move can afford).
EXPLORATION = 0.7
# A rollout player gathers food while it holds less than this many suppers' worth.
FOOD_SUPPERS = 2
# Chance that a rollout player picks any legal pick instead of gathering.
ROLLOUT_RANDOM = 0.25
# Scores of picks not yet tried (each is tried once before UCB1 compares), above any UCB1 value.
UNTRIED = 1e9
# Weight of a guiding network's progressive bias, in win shares: a pick the network is sure of
# gains about half a win share on its first visit, a tenth by its tenth.
PRIOR_WEIGHT = 1.0
# How each simulation picks for every living player: decoupled UCT, or regret matching.
SELECTIONS = ("ucb", "regret")
# Regret matching's share of exploration picks (Lanctot et al. 2013 use 0.1-0.3).
RM_EXPLORATION = 0.2


class SMMCTSShowPolicy(Policy):
    """Decoupled-UCT simultaneous-move search over the day's joint picks, ``simulations``
    determinised simulations per move; with a ``guide`` (a trained network's policy), its
    prior biases the searcher's own picks (see the module docstring)."""

    REGRET_MATCHING = "rm"  # the spec's word for selection="regret": smmcts:N:rm

    def __init__(self, simulations: int = DEFAULT_SMMCTS_SIMULATIONS,
                 exploration: float = EXPLORATION, guide: Any = None, explore: bool = False,
                 selection: str = "ucb"):
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)):
            raise ValueError(f"simulations must be an integer, got {simulations!r}")
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if (isinstance(exploration, bool) or not isinstance(exploration, (int, float))
                or not math.isfinite(exploration) or exploration < 0):
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
        if explore and guide is None:
            raise ValueError("explore adds Gumbel noise to a guide's logits: it needs a guide")
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {list(SELECTIONS)}, got {selection!r}")
        self.simulations = int(simulations)
        self.exploration = float(exploration)
        self.guide = guide
        self.explore = explore
        self.selection = selection
        # The searcher's visit counts at its last search (by regret matching, its average
        # strategy).
        self.last_visits: np.ndarray | None = None
        self.name = (f"smmcts:{self.simulations}"
                     + (f":{self.REGRET_MATCHING}" if selection == "regret" else "")
                     + ("" if guide is None else f":{guide.name}"))

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        if "rule_action" in observation:
            raise ValueError("smmcts searches the daily pick of the default decision mode; "
                             "the full-decision mode (decision_mode='agents') is not supported")
        vector = np.asarray(observation["observation"])
        n = players_of(vector)
        layout = observation_layout(n)
        config = ShowConfig(n, characters=bool(vector[layout["character"]][1:].any()))
        legal = legal_actions(observation)
        alive = vector[layout["alive"]]
        self.last_visits = None
        if not alive[0]:  # eliminated, staying in the env (eliminated="stay"): its no-op
            return int(legal[0])
        living = np.flatnonzero(alive)
        choices = NUM_ACTIONS * config.num_locations
        if legal.tolist() != list(range(choices)):
            raise ValueError(f"the action mask allows {legal.tolist()}; a living player of a "
                             f"{n}-player show may pick any of 0..{choices - 1} (S6)")
        if self.selection == "regret":
            return self._regret_matching(config, vector, living, choices, rng)
        visits = np.zeros((living.size, choices))
        wins = np.zeros((living.size, choices))
        # Breaks ties between equal scores at random, the same way for the whole search.
        tie_breaks = rng.random((living.size, choices)) * 1e-6
        rollout_rng = random.Random(int(rng.integers(2**63)))
        if self.guide is not None:  # the progressive bias of the searcher's own picks
            bias = np.zeros((living.size, choices))
            bias[0] = PRIOR_WEIGHT * (self._prior(vector, choices, rng) - 1.0 / choices)
        for simulation in range(self.simulations):
            show = show_from_observation(config, vector, rng)
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = np.where(visits > 0, wins / visits + self.exploration * np.sqrt(
                    math.log(max(simulation, 1)) / visits), UNTRIED)
            if self.guide is not None:
                scores += bias / (visits + 1)
            picks = (scores + tie_breaks).argmax(axis=1)
            rows = np.arange(living.size)
            visits[rows, picks] += 1
            wins[rows, picks] += simulated_shares(show, living, picks, rollout_rng)
        with np.errstate(invalid="ignore"):
            means = np.nan_to_num(wins[0] / visits[0])
        self.last_visits = visits[0]
        return int(np.lexsort((means, visits[0]))[-1])

    def _regret_matching(self, config: ShowConfig, vector: np.ndarray, living: np.ndarray,
                         choices: int, rng: np.random.Generator) -> int:
        """The search by regret matching (see the module docstring); a pick drawn from the
        searcher's average strategy."""
        regrets = np.zeros((living.size, choices))
        strategy_sums = np.zeros((living.size, choices))
        exploring = np.full((living.size, choices), 1.0 / choices)
        if self.guide is not None:
            exploring[0] = self._prior(vector, choices, rng)
        rollout_rng = random.Random(int(rng.integers(2**63)))
        for _ in range(self.simulations):
            show = show_from_observation(config, vector, rng)
            strategies = matched_strategies(regrets, exploring)
            strategy_sums += strategies
            chances = (1 - RM_EXPLORATION) * strategies + RM_EXPLORATION * exploring
            picks = draw_rows(chances, rng)
            add_sampled_regrets(regrets, picks, chances,
                                simulated_shares(show, living, picks, rollout_rng))
        average = strategy_sums[0] / strategy_sums[0].sum()
        self.last_visits = average
        return int(draw_rows(average[None], rng)[0])

    def visit_policy(self) -> np.ndarray | None:
        """The searcher's visit counts over its picks at its last search, less each pick's
        first try, normalised (with no more simulations than picks: the tries themselves); by
        regret matching, its average strategy; None if it did not search (an eliminated seat
        staying in the env)."""
        if self.last_visits is None:
            return None
        if self.selection == "regret":
            return self.last_visits
        chosen = np.maximum(self.last_visits - 1, 0)
        counts = chosen if chosen.any() else self.last_visits
        return counts / counts.sum()

    def _prior(self, vector: np.ndarray, choices: int, rng: np.random.Generator) -> np.ndarray:
        """The guide's softmax over the ``choices`` picks (after Gumbel noise with
        ``explore``)."""
        logits = self.guide.logits([vector])[0].astype(np.float64)
        if logits.size < choices:
            raise ValueError(f"the guide {self.guide.name} scores {logits.size} actions, the "
                             f"show has {choices} picks")
        # The picks are the first actions (the action space is as wide at every player count).
        logits = logits[:choices]
        if self.explore:
            logits = logits + rng.gumbel(size=choices)
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()


def matched_strategies(regrets: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Regret matching: each row's positive regrets, normalised; ``fallback``'s row where a row
    has none."""
    positive = np.maximum(regrets, 0.0)
    totals = positive.sum(axis=1, keepdims=True)
    return np.where(totals > 0, positive / np.where(totals > 0, totals, 1.0), fallback)


def add_sampled_regrets(regrets: np.ndarray, picks: np.ndarray, chances: np.ndarray,
                        outcomes: np.ndarray) -> None:
    """Outcome sampling: row r picked ``picks[r]`` with probability ``chances[r, picks[r]]`` and
    got ``outcomes[r]``; the unbiased estimate of each pick's value (the outcome over its
    probability for the pick made, 0 for the others) less the outcome is added to its regret."""
    rows = np.arange(len(picks))
    regrets -= outcomes[:, None]
    regrets[rows, picks] += outcomes / chances[rows, picks]


def draw_rows(chances: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row drawn with that row's probabilities."""
    draws = rng.random((len(chances), 1))
    return np.minimum((chances.cumsum(axis=1) <= draws).sum(axis=1), chances.shape[1] - 1)


def simulated_shares(show: ShowGame, living: np.ndarray, picks: np.ndarray,
                     rollout_rng: random.Random) -> np.ndarray:
    """Play the day of ``picks`` (the pick of each of the ``living`` seats) with the default
    decisions, then the show to its end with the rollout player; each living seat's share of
    the win (1/k for a k-way draw)."""
    day: list[tuple[int, int] | None] = [None] * show.config.num_players
    for seat, pick in zip(living.tolist(), picks.tolist(), strict=True):
        day[seat] = divmod(pick, NUM_ACTIONS)
    show.play_day(day)
    play_out(show, rollout_rng)
    shares = np.zeros(show.config.num_players)
    shares[show.winners] = 1.0 / len(show.winners)
    return shares[living]


def play_out(show: ShowGame, rng: random.Random) -> None:
    """Play ``show`` to its end, every living player picking by ``rollout_pick``."""
    while not show.done:
        show.play_day([rollout_pick(show, seat, rng) if alive else None
                       for seat, alive in enumerate(show.alive)])


def rollout_pick(show: ShowGame, seat: int, rng: random.Random) -> tuple[int, int]:
    """The rollout player's (location, action) for ``seat`` (see the module docstring)."""
    locations = show.config.num_locations
    if rng.random() >= ROLLOUT_RANDOM:
        short = show.food_value(show.holdings[seat]) < FOOD_SUPPERS * SUPPER_COST
        kinds = (FRUIT, CHICKEN) if short else (RAFT,)
        open_piles = [(location, kind) for location in range(1, locations) for kind in kinds
                      if show.piles[location][kind]]
        if open_piles:
            return open_piles[rng.randrange(len(open_piles))]
    return rng.randrange(locations), rng.randrange(NUM_ACTIONS)
