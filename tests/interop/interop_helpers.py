"""Shared checks of the interop tests: whole games, zero-sum returns, legal actions only."""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.hungry.engine import TOTAL_PLAYS

# Smallest and largest player counts of each game.
PLAYER_COUNTS = {"hungry": (2, 4), "hunger_show": (2, 6)}


def assert_zero_sum(returns: np.ndarray) -> None:
    """A whole game's returns (one per player) sum to zero and somebody won: a positive return,
    or all zero when every player shares the win (R1 gives an N-way tie 0 each)."""
    returns = np.asarray(returns, dtype=np.float64)
    assert abs(returns.sum()) < 1e-5, returns
    assert returns.max() > 0 or np.abs(returns).max() < 1e-5, returns


def expected_agent_steps(game_env) -> int:
    """Agent turns of a finished game: 48 plays of Hungry, or every player every day of HUNGER
    (eliminated players included, as the library saw them)."""
    game = game_env.unwrapped.game
    if hasattr(game, "day"):
        return game.day * game.num_players
    assert game.is_over
    return TOTAL_PLAYS
