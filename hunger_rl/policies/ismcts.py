"""``ismcts:N``: OpenSpiel's information-set MCTS bot playing both games through
``python_hungry`` and ``python_hunger_show(turn_based=true)``.

The policy sees one observation, not the game's history, so each move starts the search from a
state of the OpenSpiel game that the player cannot tell from the real one. Hungry: its hand,
every card on the table, the hand sizes and the deck; ``replayed_world`` deals the cards it has
not seen and replays the plays in an order consistent with the table. HUNGER: everything its
observation holds; ``state_from_observation`` deals a show to match it. The seats are the
player's (it sits at seat 0), which the rules do not care about. OpenSpiel's ``ISMCTSBot``
then runs N simulations, each on a fresh determinisation (``resample_from_infostate``), with
its random rollout evaluator, and plays the most visited action. Needs the ``openspiel`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import hunger_rl.openspiel  # noqa: F401 - registers python_hungry
from hunger_rl.engines.hungry.engine import NUM_ACTIONS
from hunger_rl.openspiel.hunger_show import state_from_observation
from hunger_rl.openspiel.hungry import replayed_world
from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.hungry import view_of

# UCT exploration constant of the bot (OpenSpiel's ISMCTS examples use 2 with returns in
# [-1, 1], as R1's are).
UCT_C = 2.0


class SeededISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot`` with its random rollout evaluator, every random choice drawn
    from ``seed`` (its own resampling asks a new, unseeded sampler each time), and a
    ``restart_at`` (which ``evaluate_bots`` calls first): the bot keeps nothing between moves,
    each search starting afresh, so restarting only clears its tree."""

    def __init__(self, game: pyspiel.Game, simulations: int, seed: int):
        random_state = np.random.RandomState(seed)
        super().__init__(game, mcts.RandomRolloutEvaluator(1, random_state), UCT_C,
                         simulations, random_state=random_state)
        sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
        self.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))

    def restart_at(self, state: Any) -> None:
        self.reset()


class ISMCTSHungryPolicy(Policy):
    """OpenSpiel's ``ISMCTSBot`` with ``simulations`` simulations per move, on Hungry."""

    def __init__(self, simulations: int = 100):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        self.simulations = simulations
        self.name = f"ismcts:{simulations}"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        view = view_of(observation, view)
        n = view.num_players
        first = (view.to_move - view.num_plays) % n
        game = pyspiel.load_game("python_hungry", {
            "players": n, "first_player": f"player_{first}", "tied_second": view.tied_second})
        plays = table_order(view.placed, first)
        own_plays = [a // 2 for a in plays[(0 - first) % n :: n]]
        own_received = own_plays + np.repeat(np.arange(view.hand.size), view.hand).tolist()
        root = replayed_world(game, view, 0, first, plays, own_received, view.deck_size > 0, rng)
        bot = SeededISMCTSBot(game, self.simulations, int(rng.integers(2**31)))
        return int(bot.step(root))


class ISMCTSShowPolicy(ISMCTSHungryPolicy):
    """OpenSpiel's ``ISMCTSBot`` with ``simulations`` simulations per move, on HUNGER: The
    Show. ISMCTS needs sequential moves: the search runs on the turn-based game, from a show
    dealt consistently with the observation (``state_from_observation``; the event options
    are taken as the defaults)."""

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        root = state_from_observation(np.asarray(observation["observation"]), rng)
        bot = SeededISMCTSBot(root.get_game(), self.simulations, int(rng.integers(2**31)))
        return int(bot.step(root))


def table_order(placed: np.ndarray, first: int) -> list[int]:
    """A play order that leaves ``placed`` (tourists per seat and action) on the table: turns
    go round from seat ``first``, each seat playing its placed actions in increasing order."""
    n = placed.shape[0]
    own = [np.repeat(np.arange(NUM_ACTIONS), placed[seat]).tolist() for seat in range(n)]
    plays = []
    for turn in range(int(placed.sum())):
        plays.append(own[(first + turn) % n].pop(0))
    return plays
