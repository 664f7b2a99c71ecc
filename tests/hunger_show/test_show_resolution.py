"""One test per row of the resolution rules (S7-S13). The deck is just The End of the Show, so
the day stops before supper and holdings show exactly what the resolution did."""

from __future__ import annotations

from show_helpers import held, make_game, play, shrink_pile

from hunger_rl.engines.hunger_show.tokens import (
    BEACH,
    CAMPSITE,
    CHICKEN,
    FRUIT,
    GUARD,
    JUNGLE,
    RAFT,
    THIEF,
)

FRUIT_PILE = {"beach": {"fruit": [3, 2, 3], "chicken": [4, 1], "raft": ["rope2", "log1"]}}


# ------------------------------------------------------------------ gathering (S8, S9)
def test_lone_gatherer_draws_two_from_the_top():
    game = make_game(2, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT)})
    assert held(game, 0) == ["can1", "fruit2", "fruit3"]
    assert len(game.piles[BEACH][FRUIT]) == 4


def test_two_gatherers_take_one_each_in_playing_order():
    game = make_game(3, piles=FRUIT_PILE, leader=1)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, FRUIT)})
    assert held(game, 1) == ["can1", "fruit3"]  # the Leader draws first
    assert held(game, 0) == ["can1", "fruit2"]


def test_three_gatherers_cancel_each_other():
    game = make_game(3, piles=FRUIT_PILE)
    play(game, {p: (BEACH, FRUIT) for p in range(3)})
    assert all(held(game, p) == ["can1"] for p in range(3))
    assert len(game.piles[BEACH][FRUIT]) == 6


def test_different_actions_at_one_location_each_draw_two():
    game = make_game(3, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, CHICKEN), 2: (BEACH, RAFT)})
    assert held(game, 0) == ["can1", "fruit2", "fruit3"]
    assert held(game, 1) == ["can1", "chicken1", "chicken4"]
    assert held(game, 2) == ["can1", "log1", "rope2"]


def test_lone_gatherer_with_one_token_left_draws_one():
    game = make_game(2, piles=FRUIT_PILE)
    shrink_pile(game, BEACH, FRUIT, 1)
    play(game, {0: (BEACH, FRUIT)})
    assert held(game, 0) == ["can1", "fruit3"]
    assert game.piles[BEACH][FRUIT] == []


def test_second_of_two_gatherers_may_get_nothing():
    game = make_game(2, piles=FRUIT_PILE)
    shrink_pile(game, BEACH, FRUIT, 1)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, FRUIT)})
    assert held(game, 0) == ["can1", "fruit3"] and held(game, 1) == ["can1"]


def test_empty_pile_cancels_and_the_gatherer_counts_as_absent():
    game = make_game(3, piles=FRUIT_PILE)
    shrink_pile(game, BEACH, FRUIT, 0)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, GUARD)})
    # The thief is caught; the cancelled gatherer gives nothing to the guard (S8).
    assert held(game, 0) == ["can1"]
    assert held(game, 2) == ["can1", "can1"]  # only the thief's can
    assert held(game, 1) == []


# ------------------------------------------------------------------ thieves at a location (S10)
def test_lone_thief_takes_all_the_loot():
    game = make_game(3, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, CHICKEN), 2: (BEACH, THIEF)})
    assert held(game, 2) == ["can1", "chicken1", "chicken4", "fruit2", "fruit3"]
    assert held(game, 0) == ["can1"] and held(game, 1) == ["can1"]


def test_two_thieves_pick_the_loot_alternately():
    game = make_game(4, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, RAFT), 2: (BEACH, THIEF), 3: (BEACH, THIEF)})
    # S19 take order: raft first (unknown values: seeded random inside raft), then fruit.
    assert len(game.holdings[2]) == 3 and len(game.holdings[3]) == 3
    assert sorted(held(game, 2) + held(game, 3)) == sorted(
        ["can1", "can1", "fruit2", "fruit3", "log1", "rope2"])
    assert {game.category[t] for t in game.holdings[2]} >= {RAFT}
    assert {game.category[t] for t in game.holdings[3]} >= {RAFT}


def test_three_thieves_cancel_and_gatherers_keep_their_loot():
    game = make_game(4, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, THIEF), 3: (BEACH, THIEF)})
    assert held(game, 0) == ["can1", "fruit2", "fruit3"]
    assert all(held(game, p) == ["can1"] for p in (1, 2, 3))
    assert len(game.coconuts) == 30


def test_lone_thief_without_loot_draws_two_coconuts():
    game = make_game(2)
    play(game, {0: (BEACH, THIEF)})
    assert held(game, 0) == ["can1", "coconut1", "coconut2"]


def test_two_thieves_without_loot_draw_one_coconut_each_in_playing_order():
    game = make_game(3, leader=2)
    play(game, {0: (BEACH, THIEF), 2: (BEACH, THIEF)})
    assert held(game, 2) == ["can1", "coconut2"] and held(game, 0) == ["can1", "coconut1"]


# ------------------------------------------------------------------ guards at a location (S11)
def test_guards_without_thief_draw_coconuts():
    lone = make_game(3)
    play(lone, {1: (BEACH, GUARD)})
    assert held(lone, 1) == ["can1", "coconut1", "coconut2"]
    pair = make_game(3)
    play(pair, {1: (BEACH, GUARD), 2: (BEACH, GUARD)})
    assert held(pair, 1) == ["can1", "coconut2"] and held(pair, 2) == ["can1", "coconut1"]
    crowd = make_game(3)
    play(crowd, {p: (BEACH, GUARD) for p in range(3)})
    assert all(held(crowd, p) == ["can1"] for p in range(3)) and len(crowd.coconuts) == 30


def test_one_guard_one_thief():
    holdings = {2: ["can3", "can4", "fruit2"], 1: ["can2", "coconut0"]}
    game = make_game(4, holdings=holdings, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, CHICKEN), 2: (BEACH, THIEF), 3: (BEACH, GUARD)})
    # The guard takes 2 from the thief (fruit first, then a can), the gatherers keep their loot
    # and each gives its cheapest food: player_0 a can 1, player_1 its rotten coconut.
    assert held(game, 2) == ["can3"] or held(game, 2) == ["can4"]
    assert held(game, 0) == ["fruit2", "fruit3"]
    assert held(game, 1) == ["can2", "chicken1", "chicken4"]
    assert len(held(game, 3)) == 5 and "coconut0" in held(game, 3)


def test_one_guard_two_thieves_takes_one_from_each():
    holdings = {1: ["can3", "can4"], 2: ["can2", "fruit3"]}
    game = make_game(4, holdings=holdings, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, THIEF), 3: (BEACH, GUARD)})
    assert len(game.holdings[1]) == 1 and held(game, 2) == ["can2"]
    assert held(game, 0) == ["fruit2", "fruit3"]  # gave its can 1
    assert len(game.holdings[3]) == 4


def test_two_guards_one_thief_and_gifts_go_to_the_guard_with_fewer_tokens():
    holdings = {1: ["can3", "can4", "can2"], 2: ["can1", "can1"], 3: ["can1"]}
    game = make_game(4, holdings=holdings, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, GUARD), 3: (BEACH, GUARD)})
    # Each guard takes one can from the thief; then player_0 gives to the guard with fewer
    # tokens: player_3 (2 against 3).
    assert len(game.holdings[1]) == 1
    assert len(game.holdings[2]) == 3 and len(game.holdings[3]) == 3
    assert "can1" in held(game, 3) and held(game, 3).count("can1") == 2
    assert held(game, 0) == ["fruit2", "fruit3"]


def test_two_guards_two_thieves_take_from_the_thief_in_the_same_position():
    holdings = {0: ["fruit3"], 1: ["chicken4"], 2: ["can1"], 3: ["can1"]}
    game = make_game(4, holdings=holdings)
    play(game, {0: (JUNGLE, THIEF), 1: (JUNGLE, THIEF), 2: (JUNGLE, GUARD), 3: (JUNGLE, GUARD)})
    assert held(game, 2) == ["can1", "fruit3"] and held(game, 3) == ["can1", "chicken4"]


def test_two_guards_two_thieves_fall_back_on_the_other_thief():
    holdings = {0: ["fruit3", "fruit2"], 1: [], 2: ["can1"], 3: ["can1"]}
    game = make_game(4, holdings=holdings)
    play(game, {0: (JUNGLE, THIEF), 1: (JUNGLE, THIEF), 2: (JUNGLE, GUARD), 3: (JUNGLE, GUARD)})
    assert held(game, 0) == [] and len(game.holdings[2]) == len(game.holdings[3]) == 2


def test_guards_facing_three_thieves_draw_coconuts_and_nobody_gives():
    game = make_game(5, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, THIEF), 3: (BEACH, THIEF),
                4: (BEACH, GUARD)})
    assert held(game, 4) == ["can1", "coconut1", "coconut2"]
    assert held(game, 0) == ["can1", "fruit2", "fruit3"]


def test_three_guards_leave_the_thief_free():
    game = make_game(5, piles=FRUIT_PILE)
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, GUARD), 3: (BEACH, GUARD),
                4: (BEACH, GUARD)})
    assert held(game, 1) == ["can1", "fruit2", "fruit3"]
    assert all(held(game, p) == ["can1"] for p in (0, 2, 3, 4))


# ------------------------------------------------------------------ the Campsite (S12)
def test_lone_campsite_thief_robs_the_player_with_most_raft():
    holdings = {1: ["rope2", "can4"], 2: ["log1", "can1", "can2"]}
    game = make_game(3, holdings=holdings)
    play(game, {0: (CAMPSITE, THIEF)})
    # Both hold 1 raft token; player_2 holds more tokens: it loses its log, then a can.
    assert sorted(held(game, 0)) in (["can1", "can1", "log1"], ["can1", "can2", "log1"])
    assert len(game.holdings[2]) == 1 and held(game, 1) == ["can4", "rope2"]
    assert len(game.coconuts) == 30  # no coconut fallback


def test_campsite_thief_moves_on_when_the_victim_runs_out():
    holdings = {1: ["rope2"], 2: ["can1", "can2"]}
    game = make_game(3, holdings=holdings)
    play(game, {0: (CAMPSITE, THIEF)})
    assert held(game, 1) == [] and len(game.holdings[2]) == 1 and len(game.holdings[0]) == 3


def test_two_campsite_thieves_steal_one_each():
    holdings = {0: ["rope1"], 1: ["can1"], 2: ["log2", "can1"]}
    game = make_game(3, holdings=holdings)
    play(game, {0: (CAMPSITE, THIEF), 1: (CAMPSITE, THIEF)})
    # player_0 robs player_2 (the only raft holder) of its log; then player_1 robs
    # player_0, who now holds two raft tokens.
    assert len(game.holdings[0]) == 1 and game.category[game.holdings[0][0]] == RAFT
    assert len(game.holdings[1]) == 2 and held(game, 2) == ["can1"]


def test_three_campsite_thieves_cancel():
    game = make_game(4, holdings={3: ["rope1"]})
    play(game, {p: (CAMPSITE, THIEF) for p in range(3)})
    assert held(game, 3) == ["rope1"] and all(held(game, p) == ["can1"] for p in range(3))


def test_caught_at_the_campsite_everyone_else_gives_wherever_they_are():
    holdings = {0: ["can2", "can3"], 1: ["fruit3", "can4"]}
    game = make_game(4, holdings=holdings)
    play(game, {0: (CAMPSITE, THIEF), 1: (CAMPSITE, GUARD), 2: (BEACH, THIEF), 3: (BEACH, RAFT)})
    assert held(game, 0) == []
    # Guard: its 2 tokens, the thief's 2 cans, a can 1 from each of player_2 and player_3.
    assert held(game, 1) == ["can1", "can1", "can2", "can3", "can4", "fruit3"]


def test_campsite_guard_without_thief_roams_for_coconuts():
    game = make_game(2)
    play(game, {1: (CAMPSITE, GUARD)})
    assert held(game, 1) == ["can1", "coconut1", "coconut2"]


def test_two_campsite_guards_two_thieves():
    holdings = {0: ["coconut2"], 1: ["can3"], 2: ["can1"], 3: ["can1"], 4: ["can4"]}
    game = make_game(5, holdings=holdings)
    play(game, {0: (CAMPSITE, THIEF), 1: (CAMPSITE, THIEF), 2: (CAMPSITE, GUARD),
                3: (CAMPSITE, GUARD)})
    # player_4's gift: both guards hold 2, so the first in playing order.
    assert held(game, 2) == ["can1", "can4", "coconut2"]
    assert held(game, 3) == ["can1", "can3"]


# ------------------------------------------------------------------ shortages (S13)
def test_short_thief_and_giver():
    holdings = {1: ["can3"], 0: []}
    game = make_game(3, holdings=holdings)
    play(game, {0: (JUNGLE, RAFT), 1: (JUNGLE, THIEF), 2: (JUNGLE, GUARD)})
    # The guard gets the thief's only token; the gatherer gives from its fresh raft tokens.
    assert held(game, 1) == [] and len(game.holdings[2]) == 3
    assert len(game.holdings[0]) == 1


def test_empty_handed_giver_gives_nothing():
    game = make_game(3, holdings={0: [], 1: ["can3"]})
    play(game, {0: (CAMPSITE, FRUIT), 1: (CAMPSITE, THIEF), 2: (CAMPSITE, GUARD)})
    assert held(game, 2) == ["can1", "can3"] and held(game, 0) == []


def test_short_coconut_stack_serves_in_playing_order():
    game = make_game(3, coconuts=(1,), leader=1)
    game.out.extend(game.coconuts[:-1])
    del game.coconuts[:-1]
    play(game, {0: (BEACH, GUARD), 1: (BEACH, GUARD)})
    assert held(game, 1) == ["can1", "coconut1"] and held(game, 0) == ["can1"]
