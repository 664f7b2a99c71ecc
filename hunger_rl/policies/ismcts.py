"""``ismcts:N``: OpenSpiel's information-set MCTS bot playing Hungry through ``python_hungry``.

The policy sees one observation, not the game's history, so each move starts the search from a
state of the OpenSpiel game that the player cannot tell from the real one (its hand, every
card on the table, the hand sizes and the deck): ``replayed_world`` deals the cards it has not
seen and replays the plays in an order consistent with the table. The seats are the player's
(it sits at seat 0), which the rules do not care about. OpenSpiel's ``ISMCTSBot`` then runs N
simulations, each on a fresh determinisation (``resample_from_infostate``), with its random
rollout evaluator, and plays the most visited action. Needs the ``openspiel`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hunger_rl.envs.hungry.engine import NUM_ACTIONS
from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.hungry import view_of

# UCT exploration constant of the bot (OpenSpiel's ISMCTS examples use 2 with returns in
# [-1, 1], as R1's are).
UCT_C = 2.0


class ISMCTSHungryPolicy(Policy):
    """OpenSpiel's ``ISMCTSBot`` with ``simulations`` simulations per move."""

    def __init__(self, simulations: int = 100):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        # Imported here: the policy table names this class without importing OpenSpiel.
        import pyspiel

        import hunger_rl.openspiel  # noqa: F401 - registers python_hungry

        self.pyspiel = pyspiel
        self.simulations = simulations
        self.name = f"ismcts:{simulations}"

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        from open_spiel.python.algorithms import ismcts, mcts

        from hunger_rl.openspiel.hungry import replayed_world

        view = view_of(observation, view)
        n = view.num_players
        first = (view.to_move - view.num_plays) % n
        game = self.pyspiel.load_game("python_hungry", {
            "players": n, "first_player": f"player_{first}", "tied_second": view.tied_second})
        plays = table_order(view.placed, first)
        own_plays = [a // 2 for a in plays[(0 - first) % n :: n]]
        own_received = own_plays + np.repeat(np.arange(view.hand.size), view.hand).tolist()
        root = replayed_world(game, view, 0, first, plays, own_received, view.deck_size > 0, rng)
        random_state = np.random.RandomState(int(rng.integers(2**32)))
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state), UCT_C,
                               self.simulations, random_state=random_state)
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
