"""The readings S21a-j of the binding rulings, one hand-computed scenario each. The deck is just
The End of the Show unless told, so the day stops before supper and holdings show exactly what
the resolution did; coconuts are 2, 1, 0, ... from the top."""

from __future__ import annotations

import pytest
from show_helpers import characters_for, held, make_game, play, shrink_pile

from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import DecisionError
from hunger_rl.engines.hunger_show.tokens import BEACH, CAMPSITE, FRUIT, GUARD, RAFT, THIEF
from hunger_rl.engines.validation import InvalidInputError
from hunger_rl.envs import hunger_show_v0


def test_s21a_a_campsite_guard_without_a_thief_draws_coconuts():
    lone = make_game(2)
    play(lone, {0: (CAMPSITE, GUARD)})
    assert held(lone, 0) == ["can1", "coconut1", "coconut2"]  # a lone guard draws 2
    pair = make_game(3, leader=0)
    play(pair, {0: (CAMPSITE, GUARD), 1: (CAMPSITE, GUARD)})
    assert held(pair, 0) == ["can1", "coconut2"] and held(pair, 1) == ["can1", "coconut1"]


def test_s21b_two_campsite_thieves_may_rob_each_other():
    # player_0 (Leader) robs first: player_1 and player_2 hold no raft and one token each, so
    # playing order picks player_1's can. Then player_1 robs the most raft tokens: player_0,
    # its fellow thief, loses its rope.
    game = make_game(3, holdings={0: ["rope2", "can2"], 1: ["can1"], 2: ["can3"]}, leader=0)
    play(game, {0: (CAMPSITE, THIEF), 1: (CAMPSITE, THIEF)})
    assert held(game, 0) == ["can1", "can2"]
    assert held(game, 1) == ["rope2"]
    assert held(game, 2) == ["can3"]


def test_s21c_a_deck_without_the_end_ends_when_an_event_is_due():
    game = make_game(2, holdings={0: ["can4", "can4"], 1: ["can4", "can4"]}, deck=["typhoon-1"])
    log = play(game, {})
    # The last real card still acts (one raft token off the Beach pile) and supper follows.
    assert log["event"] == "typhoon-1" and len(game.piles[BEACH][RAFT]) == 7
    assert log["supper"] == {"player_0": [("can", 4)], "player_1": [("can", 4)]}
    assert not game.done
    log = play(game, {})
    # The next event is due with an empty deck: the show ends there, before supper.
    assert log["event"] == "end" and log["supper"] == {} and game.end_condition == "A"
    assert held(game, 0) == ["can4"] and game.winners == [0, 1]


def test_s21d_supper_ties_prefer_high_values_then_low_token_ids():
    # can3+can1 and can2+can2 both pay exactly 4 with two cans: 3+1 comes first. Of the two
    # identical fruit sets, the lower token id is eaten (the first listed holds the lower id).
    game = make_game(2, holdings={0: ["can2", "can1", "can2", "can3"],
                                  1: ["fruit3", "fruit3", "coconut1"]}, deck=["calm", "end"])
    fruit = sorted(t for t in game.holdings[1] if game.describe_token(t) == "fruit3")
    log = play(game, {})
    assert log["supper"]["player_0"] == [("can", 3), ("can", 1)]
    assert held(game, 0) == ["can2", "can2"]
    assert sorted(log["supper"]["player_1"]) == [("coconut", 1), ("fruit", 3)]
    assert fruit[0] in game.out and fruit[1] in game.holdings[1]


def test_s21e_a_giver_with_only_raft_keeps_the_best_sets_and_units():
    # Caught at the Campsite, every other living player gives (S12). player_2 holds rope1,
    # rope2, log1: giving rope1 leaves (1 set, 1 unit), rope2 (1, 0), log1 (0, 3).
    game = make_game(3, holdings={0: ["can1"], 1: ["can2"], 2: ["rope1", "rope2", "log1"]})
    play(game, {0: (CAMPSITE, GUARD), 1: (CAMPSITE, THIEF)})
    assert held(game, 2) == ["log1", "rope2"]
    assert held(game, 0) == ["can1", "can2", "rope1"]  # the thief's can and the gift


class NeverReject(DefaultDecisions):
    def reject(self, game, player, drawn):
        raise AssertionError("nothing extra was drawn: there is nothing to return")


@pytest.mark.parametrize(("left", "kept"), [(2, 2), (1, 1)])
def test_s21f_a_specialist_draws_at_most_what_is_left_and_returns_nothing_extra(left, kept):
    game = make_game(2, holdings={0: []}, characters=characters_for(2, p0="eagle_eye"),
                     decisions={0: NeverReject()})
    shrink_pile(game, BEACH, RAFT, left)
    log = play(game, {0: (BEACH, RAFT)})
    assert len(game.holdings[0]) == kept and game.piles[BEACH][RAFT] == []
    assert not [move for move in log["moves"] if move[3] == "reject"]


def test_s21g_the_rat_plague_remover_learns_the_removed_value():
    game = make_game(2, holdings={0: ["can4", "can4"], 1: ["rope2"]},
                     deck=["rat_plague-1", "end"])
    rope = game.holdings[1][0]
    assert not game.knows(0, rope)
    play(game, {})
    assert rope in game.out and game.knows(0, rope)


def test_s21h_supper_payments_are_public_with_their_values():
    game = make_game(3, holdings={0: ["can3", "can1"], 1: ["fruit2", "fruit2"], 2: ["can4"]},
                     deck=["calm", "end"])
    eaten = list(game.holdings[1])
    log = play(game, {})
    assert log["supper"]["player_1"] == [("fruit", 2), ("fruit", 2)]
    assert all(game.knows(p, t) for t in eaten for p in range(3))


def test_s21i_the_ninja_hides_a_rope_and_a_log_and_keeps_a_set():
    # A lone guard takes 2 from a lone caught thief. The Ninja hides the pair that is best
    # alone: rope1 + log1 make a set, two ropes do not.
    holdings = {0: ["rope1", "rope1", "log1", "log1"], 1: ["can1"]}
    game = make_game(2, holdings=holdings, characters=characters_for(2, p0="ninja"))
    ropes = sorted(t for t in game.holdings[0] if game.describe_token(t) == "rope1")
    logs = sorted(t for t in game.holdings[0] if game.describe_token(t) == "log1")
    assert DefaultDecisions().ninja_hide(game, 0) == [ropes[0], logs[0]]  # lowest ids
    play(game, {0: (BEACH, THIEF), 1: (BEACH, GUARD)})
    assert held(game, 0) == ["log1", "rope1"] and game.ranking_key(0)[0] == 1
    assert held(game, 1) == ["can1", "log1", "rope1"]


@pytest.mark.parametrize(("holding", "hidden"), [
    (["fruit3", "can4", "chicken4", "can1"], ["can4", "chicken4"]),  # no raft: most food
    # No set: raft units before food; chicken4 ties with can4 and has the lower id (the shared
    # supply comes before the cans).
    (["fruit3", "can4", "chicken4", "rope2"], ["chicken4", "rope2"]),
    (["rope2", "rope1", "can1"], ["rope1", "rope2"]),  # no set: most raft units first
    (["can2"], ["can2"]),
    ([], []),
])
def test_s21i_the_ninja_maximises_sets_then_units_then_food(holding, hidden):
    game = make_game(2, holdings={0: holding}, characters=characters_for(2, p0="ninja"))
    chosen = DefaultDecisions().ninja_hide(game, 0)
    assert sorted(game.describe_token(t) for t in chosen) == hidden


class GiveWhatItLacks(DefaultDecisions):
    def gift(self, game, giver, guard):
        return next(t for t in range(len(game.category)) if t not in game.holdings[giver])


class EatNothing(DefaultDecisions):
    def supper(self, game, player):
        return []


class Crash(DefaultDecisions):
    def supper(self, game, player):
        raise KeyError("a decision object's own bug")


@pytest.mark.parametrize(("decisions", "error", "message"), [
    ({0: GiveWhatItLacks()}, DecisionError, r"player_0's gift\(\) must return a token it holds"),
    ({1: EatNothing()}, DecisionError, r"player_1's supper\(\) must pay food worth at least 4"),
    ({0: Crash()}, DecisionError, r"player_0's supper\(\) raised KeyError: .*own bug"),
])
def test_s21j_a_bad_decision_changes_nothing_of_the_day(decisions, error, message):
    # player_0 gathers at the Beach, where player_1 catches player_2 and takes from it; then
    # player_0 gives to the guard, and everybody eats supper. The bad answer comes after
    # tokens moved, yet the game (RNG included) is exactly as before.
    holdings = {0: ["can4", "can2"], 1: ["can4", "rope1"], 2: ["can4", "can1"]}
    game = make_game(3, holdings=holdings, deck=["calm", "end"], decisions=decisions)
    before = game.to_dict()
    with pytest.raises(error, match=message):
        play(game, {0: (BEACH, FRUIT), 1: (BEACH, GUARD), 2: (BEACH, THIEF)})
    assert game.to_dict() == before
    assert issubclass(DecisionError, InvalidInputError)


class FailOnce(DefaultDecisions):
    failed = False

    def supper(self, game, player):
        if not FailOnce.failed:
            FailOnce.failed = True
            return []
        return super().supper(game, player)


@pytest.mark.parametrize("api", ["parallel", "aec"])
def test_s21j_both_env_apis_keep_the_game_after_a_bad_decision(api):
    FailOnce.failed = False
    make = hunger_show_v0.parallel_env if api == "parallel" else hunger_show_v0.env
    env = make(num_players=3, decisions={"player_1": FailOnce()})
    env.reset(seed=5, options={"event_deck": ["calm", "calm", "end"]})
    before = env.unwrapped.game.to_dict()
    if api == "parallel":
        with pytest.raises(DecisionError):
            env.step(dict.fromkeys(env.agents, 5))
        assert env.unwrapped.game.to_dict() == before
        env.step(dict.fromkeys(env.agents, 5))
    else:
        env.step(5)
        env.step(5)
        with pytest.raises(DecisionError):
            env.step(5)  # the last pick of the day triggers the resolution
        assert env.unwrapped.game.to_dict() == before
        assert env.agent_selection == "player_2"
        env.step(5)  # the same agent acts again and the day is played
    assert env.unwrapped.game.day == 1
