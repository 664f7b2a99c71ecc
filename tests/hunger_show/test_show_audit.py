"""Audit of the engine against the binding rulings: one test per discrepancy found, each with a
hand-computed expectation. The deck is just The End of the Show unless told, so the day stops
before supper and holdings show exactly what the resolution did."""

from __future__ import annotations

import pytest
from show_helpers import make_game, play

from hunger_rl.engines.hunger_show.engine import RuleError
from hunger_rl.engines.hunger_show.tokens import BEACH, CAMPSITE, CHICKEN, FRUIT


def test_gatherers_of_different_kinds_draw_in_playing_order():
    # S7: gatherers draw in playing order. player_0 (the Leader) hunts, player_1 gathers
    # fruit; the Leader's two chickens come first in the public log, then player_1's fruit.
    piles = {"beach": {"fruit": [3, 2], "chicken": [4, 1]}}
    game = make_game(3, piles=piles, leader=0)
    log = play(game, {0: (BEACH, CHICKEN), 1: (BEACH, FRUIT)})
    gathers = [(category, target) for category, _, target, reason in log["moves"]
               if reason == "gather"]
    assert gathers == [("chicken", "player_0"), ("chicken", "player_0"),
                       ("fruit", "player_1"), ("fruit", "player_1")]


@pytest.mark.parametrize("bad", [5, ("beach", 1), (1.5, 0), (0, 0, 0), (2, 0)])
def test_a_malformed_pick_is_a_rule_error_and_changes_nothing(bad):
    # play_day promises a RuleError before anything changes, whatever the bad pick looks like.
    game = make_game(2)
    before = game.to_dict()
    with pytest.raises(RuleError, match="player_0 needs a"):
        game.play_day([bad, (CAMPSITE, FRUIT)])
    assert game.to_dict() == before
