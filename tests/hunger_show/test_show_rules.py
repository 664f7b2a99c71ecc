"""Events (S14), supper (S15), end conditions (S16), ranking (S17), characters (S20),
knowledge (S18) and state copies of the HUNGER: The Show engine."""

from __future__ import annotations

import json
import random

import pytest
from show_helpers import characters_for, held, make_game, play

from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame
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
from hunger_rl.envs import hunger_show_v0


# ------------------------------------------------------------------ events (S14)
@pytest.mark.parametrize(("card", "kind", "removed"), [
    ("typhoon-2", RAFT, 2), ("typhoon-1", RAFT, 1), ("bird_flu-1", CHICKEN, 1),
    ("bird_flu-2", CHICKEN, 2), ("flock_of_parrots-1", FRUIT, 1),
    ("flock_of_parrots-2", FRUIT, 2)])
def test_pile_events_remove_the_top_tokens_of_every_pile_unseen(card, kind, removed):
    game = make_game(3, holdings={0: ["can4"], 1: ["can4"], 2: ["can4"]}, deck=[card, "end"])
    tops = [game.piles[loc][kind][-removed:] for loc in (BEACH, JUNGLE)]
    sizes = [len(game.piles[loc][kind]) for loc in (BEACH, JUNGLE)]
    play(game, {})
    for loc, top, size in zip((BEACH, JUNGLE), tops, sizes, strict=True):
        assert len(game.piles[loc][kind]) == size - removed
        assert all(t in game.out and game.known[t] == 0 for t in top)


def test_rat_plague_goes_round_from_the_leader():
    holdings = {0: ["rope1", "can4", "can3"], 1: ["chicken4", "can2", "coconut1", "can4"],
                2: ["fruit3", "can1", "can2", "can4"]}
    game = make_game(3, holdings=holdings, deck=["rat_plague-2", "end"], leader=1)
    chicken = game.holdings[1][0]
    log = play(game, {})
    rat = [(c, s) for c, s, _, r in log["moves"] if r == "rat_plague"]
    assert rat == [("fruit", "player_2"), ("can", "player_2"), ("raft", "player_0"),
                   ("can", "player_0"), ("chicken", "player_1"), ("can", "player_1")]
    assert chicken in game.out and game.knows(0, chicken)  # the remover handled it


def test_calm_day_changes_nothing_and_end_of_show_skips_supper():
    game = make_game(2, holdings={0: ["can4"], 1: ["can1"]}, deck=["calm", "end"])
    log = play(game, {})
    assert log["event"] == "calm" and held(game, 0) == [] and not game.alive[1]
    game = make_game(3, holdings={0: ["can4"], 1: ["can1", "rope1", "log1"], 2: []})
    log = play(game, {})
    assert log["event"] == "end" and log["supper"] == {} and game.done
    assert game.end_condition == "A" and game.winners == [1]
    assert held(game, 0) == ["can4"]


def test_an_empty_deck_ends_the_show():
    game = make_game(2, deck=[])
    log = play(game, {})
    assert game.done and game.end_condition == "A" and log["event"] == "end"


# ------------------------------------------------------------------ supper (S15)
@pytest.mark.parametrize(("holding", "paid", "left"), [
    (["fruit2", "chicken2", "can3"], ["chicken2", "fruit2"], ["can3"]),  # exact 4 from 2+2
    (["chicken4", "can4", "coconut0"], ["can4"], ["chicken4", "coconut0"]),  # cans first
    (["fruit3", "fruit3"], ["fruit3", "fruit3"], []),  # forced overpay of 2
    (["can3", "coconut2", "rope2"], ["can3", "coconut2"], ["rope2"]),  # overpay 1
    (["coconut0", "coconut2", "coconut2"], ["coconut2", "coconut2"], ["coconut0"]),
    (["can1", "can1", "can2", "can3"], ["can1", "can3"], ["can1", "can2"]),  # 3+1 before 2+1+1
    (["can1", "can1", "coconut1", "fruit2"], ["can1", "can1", "fruit2"], ["coconut1"]),
])
def test_supper_default_payment(holding, paid, left):
    game = make_game(3, holdings={0: holding, 1: ["can4"], 2: ["can4"]}, deck=["calm", "end"])
    log = play(game, {})
    assert sorted(f"{c}{v}" for c, v in log["supper"]["player_0"]) == sorted(paid)
    assert held(game, 0) == sorted(left) and game.alive[0]


def test_player_who_cannot_pay_is_eliminated_with_all_tokens():
    holding = ["can3", "rope2", "log2", "coconut0"]
    game = make_game(3, holdings={0: holding, 1: ["can4"], 2: ["can4"]}, deck=["calm", "end"])
    log = play(game, {})
    assert log["eliminated"] == ["player_0"] and not game.alive[0] and game.holdings[0] == []
    assert sum(1 for *_, r in log["moves"] if r == "eliminated") == 4
    assert "player_0" not in log["supper"]


def test_supper_payments_are_public():
    game = make_game(2, holdings={0: ["can4"], 1: ["fruit3", "coconut1"]}, deck=["calm", "end"])
    eaten = list(game.holdings[1])
    play(game, {})
    assert all(game.knows(0, t) for t in eaten)


# ------------------------------------------------------------------ end conditions (S16)
def test_end_b_ranks_the_players_eliminated_that_day_on_their_pre_supper_holdings():
    holdings = {0: ["rope2", "log1", "can1"], 1: ["rope1", "log1", "can2"]}
    game = make_game(2, holdings=holdings, deck=["calm", "end"])
    log = play(game, {})
    assert game.end_condition == "B" and game.winners == [0]
    assert log["end"]["ranking"] == {"player_0": (1, 1, 1), "player_1": (1, 0, 2)}


def test_end_c_the_last_survivor_wins_whatever_the_raft():
    holdings = {0: ["can4"], 1: ["rope2", "log2"], 2: ["rope2", "log2", "can2"]}
    game = make_game(3, holdings=holdings, deck=["calm", "end"])
    play(game, {})
    assert game.end_condition == "C" and game.winners == [0]


def test_game_goes_on_and_the_leader_passes_to_the_next_living_player():
    holdings = {0: ["can4", "can4"], 1: ["can1"], 2: ["can4", "can4"]}
    game = make_game(3, holdings=holdings, deck=["calm", "calm", "end"], leader=0)
    play(game, {})
    assert not game.done and game.leader == 2  # player_1 starved


# ------------------------------------------------------------------ ranking (S17)
@pytest.mark.parametrize(("first", "second", "winners"), [
    (["rope2", "log2"], ["rope1", "log1", "can4"], [0]),  # more sets
    (["rope2", "log1"], ["rope1", "log1", "can4"], [0]),  # same sets, more leftover units
    (["can4", "rope1"], ["can3", "log1"], [0]),  # same raft, more food
    (["can4", "log1"], ["can4", "rope1"], [0, 1]),  # full tie: shared draw
])
def test_ranking_tie_breaks(first, second, winners):
    game = make_game(2, holdings={0: first, 1: second})
    play(game, {})
    assert game.winners == winners


def test_shared_draw_rewards_through_the_env():
    env = hunger_show_v0.parallel_env(num_players=3)
    env.reset(seed=0, options={"holdings": {0: ["can4"], 1: ["can4"], 2: ["can1"]},
                               "event_deck": ["end"]})
    _, rewards, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
    assert env.winners == ["player_0", "player_1"]
    assert [infos[a]["win_share"] for a in env.possible_agents] == [0.5, 0.5, 0.0]
    assert rewards == pytest.approx({"player_0": 0.25, "player_1": 0.25, "player_2": -0.5})


# ------------------------------------------------------------------ characters (S20)
def test_coconut_connoisseur_gets_one_more_coconut():
    game = make_game(3, characters=characters_for(3, p1="coconut_connoisseur"))
    play(game, {1: (BEACH, GUARD), 0: (JUNGLE, THIEF), 2: (JUNGLE, THIEF)})
    assert held(game, 1) == ["can1", "coconut0", "coconut1", "coconut2"]
    assert len(game.holdings[0]) == 2 and len(game.holdings[2]) == 2


def test_eagle_eye_draws_three_keeps_two_and_rejects_to_the_bottom():
    piles = {"beach": {"raft": ["rope1", "log1", "rope2"]}}
    game = make_game(2, piles=piles, holdings={0: []}, characters=characters_for(2, p0="eagle_eye"))
    play(game, {0: (BEACH, RAFT)})
    assert held(game, 0) == ["log1", "rope2"]
    bottom = game.piles[BEACH][RAFT][0]
    assert game.describe_token(bottom) == "rope1" and game.knows(0, bottom)
    assert len(game.piles[BEACH][RAFT]) == 6


def test_raptor_and_sweet_keep_the_best_food():
    piles = {"beach": {"chicken": [1, 4, 2], "fruit": [2, 3, 3]}}
    game = make_game(2, piles=piles, holdings={0: [], 1: []},
                     characters=characters_for(2, p0="raptor", p1="sweet"))
    play(game, {0: (BEACH, CHICKEN), 1: (BEACH, FRUIT)})
    assert held(game, 0) == ["chicken2", "chicken4"]
    assert held(game, 1) == ["fruit3", "fruit3"]
    assert game.describe_token(game.piles[BEACH][CHICKEN][0]) == "chicken1"


def test_specialist_in_a_pair_draws_two_keeps_one_and_may_reject_to_the_top():
    class TopReject(DefaultDecisions):
        def reject(self, game, player, drawn):
            return min(drawn, key=game.value.__getitem__), False

    piles = {"beach": {"fruit": [2, 3, 3]}}
    game = make_game(3, piles=piles, holdings={0: [], 1: [], 2: []}, leader=1,
                     characters=characters_for(3, p1="sweet"), decisions={1: TopReject()})
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, FRUIT)})
    assert held(game, 1) == ["fruit3"]  # drew 2 and 3, kept 3, put the 2 back on top
    assert held(game, 0) == ["fruit2"]  # ... which player_0 then drew


def test_arnold_picks_the_gifts():
    holdings = {0: ["can1", "rope2"], 1: ["can2"], 2: ["can1"]}
    game = make_game(3, holdings=holdings, piles={"beach": {"fruit": [2, 3]}},
                     characters=characters_for(3, p2="arnold"))
    play(game, {0: (BEACH, FRUIT), 1: (BEACH, THIEF), 2: (BEACH, GUARD)})
    assert "rope2" in held(game, 2)  # a plain giver would have handed over its can 1
    assert held(game, 0) == ["can1", "fruit2", "fruit3"]


def test_ninja_hides_its_set_from_the_guard():
    holdings = {0: ["rope2", "log1", "can4", "fruit2"], 1: ["can1"]}
    game = make_game(2, holdings=holdings, characters=characters_for(2, p0="ninja"))
    play(game, {0: (BEACH, THIEF), 1: (BEACH, GUARD)})
    assert held(game, 0) == ["log1", "rope2"]
    assert held(game, 1) == ["can1", "can4", "fruit2"]


def test_characters_are_dealt_at_random_and_only_in_the_variant():
    game = ShowGame(ShowConfig(6, characters=True), seed=3)
    assert sorted(game.characters) == sorted(
        ["coconut_connoisseur", "eagle_eye", "raptor", "sweet", "arnold", "ninja"])
    assert ShowGame(ShowConfig(6), seed=3).characters == [None] * 6


# ------------------------------------------------------------------ knowledge (S18)
def test_a_thief_learns_what_it_steals_and_the_victim_remembers():
    game = make_game(2, holdings={0: ["can1"], 1: ["rope2"]})
    rope = game.holdings[1][0]
    assert not game.knows(0, rope)
    play(game, {0: (CAMPSITE, THIEF)})
    assert game.knows(0, rope) and game.knows(1, rope)


# ------------------------------------------------------------------ copies
def random_choices(game, rng):
    locs = game.config.num_locations
    return [(rng.randrange(locs), rng.randrange(5)) if game.alive[p] else None
            for p in range(game.num_players)]


def test_json_round_trip_continues_identically():
    game = ShowGame(ShowConfig(5, characters=True), seed=21)
    rng = random.Random(5)
    for _ in range(3):
        game.play_day(random_choices(game, rng))
    restored = ShowGame.from_dict(json.loads(json.dumps(game.to_dict())))
    assert restored.to_dict() == json.loads(json.dumps(game.to_dict()))
    while not game.done:
        choices = random_choices(game, rng)
        assert game.play_day(choices) == restored.play_day(choices)
    assert restored.to_dict() == game.to_dict()


def test_clone_is_independent():
    game = ShowGame(ShowConfig(4), seed=2)
    twin = game.clone()
    rng = random.Random(0)
    game.play_day(random_choices(game, rng))
    assert twin.day == 0 and twin.to_dict() != game.to_dict()
    assert twin.to_dict() == ShowGame(ShowConfig(4), seed=2).to_dict()
