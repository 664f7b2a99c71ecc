"""The rulebook's worked example, days 1 and 2, replayed through the engine and the env.

Seats: Anne 0, Bonnie 1, Mike 2, Tom 3, Sergio 4, Kate 5; Anne is the first Leader. The
example's own sub-choices (Anne's Campsite theft, Bonnie's and Mike's rat-plague picks) are
scripted through decision objects; every other choice follows the S19 defaults, which reproduce
the rest of the example. On day 2 the rulebook says "Jungle" for Mike; he chose the Mountains.
"""

from __future__ import annotations

from collections import Counter

from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame
from hunger_rl.engines.hunger_show.tokens import (
    BEACH,
    CAMPSITE,
    CHICKEN,
    FRUIT,
    GUARD,
    JUNGLE,
    MOUNTAINS,
    RAFT,
    THIEF,
)
from hunger_rl.envs import hunger_show_v0

ANNE, BONNIE, MIKE, TOM, SERGIO, KATE = range(6)
SETUP = {
    "leader": "player_0",
    "piles": {
        "beach": {"fruit": [3, 3]},
        "jungle": {"chicken": [4, 2]},
        "mountains": {"raft": ["rope2", "log1"], "chicken": [4, 1, 2]},
    },
    "coconuts": [2, 0, 1, 1],
    "event_deck": ["bird_flu-1", "rat_plague-1", "calm", "end"],
}
DAY_1 = {ANNE: (BEACH, FRUIT), BONNIE: (JUNGLE, CHICKEN), MIKE: (JUNGLE, CHICKEN),
         TOM: (JUNGLE, GUARD), SERGIO: (BEACH, THIEF), KATE: (MOUNTAINS, RAFT)}
DAY_2 = {ANNE: (CAMPSITE, THIEF), BONNIE: (JUNGLE, THIEF), MIKE: (MOUNTAINS, CHICKEN),
         TOM: (CAMPSITE, GUARD), SERGIO: (CAMPSITE, GUARD), KATE: (CAMPSITE, GUARD)}
CANS_AFTER_DAY_1 = ["can1", "can1", "can2", "can2", "can3", "can3", "can4"]
CANS_AFTER_DAY_2 = ["can1", "can1", "can2", "can2", "can3", "can3"]


class AnneSteals(DefaultDecisions):
    """Anne robs Sergio of a fruit token and Kate of her double rope."""

    def campsite_theft(self, game, thief, amount):
        fruit = next(t for t in game.holdings[SERGIO] if game.category[t] == FRUIT)
        rope = next(t for t in game.holdings[KATE] if game.describe_token(t) == "rope2")
        return [fruit, rope]


class RemovesCan(DefaultDecisions):
    """Rat plague pick: a can of a given value (the example leaves the value open)."""

    def __init__(self, value):
        self.value = value

    def take(self, game, taker, candidates):
        return next(t for t in candidates if game.describe_token(t) == f"can{self.value}")


DECISIONS = {ANNE: AnneSteals(), BONNIE: RemovesCan(4), MIKE: RemovesCan(3)}


def holding(game, seat):
    return Counter(game.describe_token(t) for t in game.holdings[seat])


def new_game():
    return ShowGame(ShowConfig(6), seed=7, setup=SETUP, decisions=DECISIONS)


def test_day_1():
    game = new_game()
    log = game.play_day([DAY_1[p] for p in range(6)])
    assert holding(game, ANNE) == Counter(CANS_AFTER_DAY_1)  # robbed by Sergio, ate a 4
    assert holding(game, BONNIE) == Counter(CANS_AFTER_DAY_1 + ["chicken4"])
    assert holding(game, MIKE) == Counter(CANS_AFTER_DAY_1 + ["chicken2"])
    assert holding(game, TOM) == Counter(CANS_AFTER_DAY_1 + ["coconut2", "coconut0"])
    assert holding(game, SERGIO) == Counter(CANS_AFTER_DAY_1 + ["fruit3", "fruit3"])
    assert holding(game, KATE) == Counter(CANS_AFTER_DAY_1 + ["rope2", "log1"])
    # Bird flu -1 took the top chicken of every pile.
    assert [len(game.piles[loc][CHICKEN]) for loc in (BEACH, JUNGLE, MOUNTAINS)] == [5, 3, 5]
    assert len(game.piles[BEACH][FRUIT]) == 4 and len(game.piles[MOUNTAINS][RAFT]) == 6
    assert len(game.coconuts) == 28
    assert log["event"] == "bird_flu-1"
    assert log["supper"] == {f"player_{p}": [("can", 4)] for p in (0, 1, 2, 3, 4, 5)}
    assert game.leader == BONNIE
    # Anne drew the fruit, so she remembers the two 3s now in Sergio's holding (S18).
    sergio_fruit = [t for t in game.holdings[SERGIO] if game.category[t] == FRUIT]
    assert all(game.knows(ANNE, t) and game.knows(SERGIO, t) for t in sergio_fruit)
    assert not any(game.knows(BONNIE, t) for t in sergio_fruit)
    moves = [(c, s, d, r) for c, s, d, r in log["moves"] if r not in ("supper",)]
    assert moves[:2] == [("fruit", "beach:fruit", "player_0", "gather")] * 2
    assert moves[2:4] == [("fruit", "player_0", "player_4", "loot")] * 2


def test_day_2():
    game = new_game()
    game.play_day([DAY_1[p] for p in range(6)])
    log = game.play_day([DAY_2[p] for p in range(6)])
    assert log["order"] == ["player_1", "player_2", "player_3", "player_4", "player_5",
                            "player_0"]
    assert holding(game, ANNE) == Counter(CANS_AFTER_DAY_2 + ["fruit3"])  # rope lost to Kate
    assert holding(game, BONNIE) == Counter(CANS_AFTER_DAY_2 + ["coconut1", "coconut1"])
    # Mike lost his last 4 to Bonnie's rat, so he paid 3 + 1.
    assert holding(game, MIKE) == Counter(["can1", "can2", "can2", "can3", "chicken2",
                                           "chicken1", "chicken2"])
    assert log["supper"]["player_2"] == [("can", 3), ("can", 1)]
    assert holding(game, TOM) == Counter(["can1", "can1", "can2", "can2", "can3", "coconut2",
                                          "coconut0"])
    assert holding(game, SERGIO) == Counter(CANS_AFTER_DAY_2)
    assert holding(game, KATE) == Counter(CANS_AFTER_DAY_2)
    assert [len(game.piles[MOUNTAINS][k]) for k in (FRUIT, CHICKEN, RAFT)] == [6, 3, 6]
    assert len(game.coconuts) == 26
    assert log["event"] == "rat_plague-1"
    rat = [(c, s) for c, s, d, r in log["moves"] if r == "rat_plague"]
    assert rat == [("can", "player_2"), ("can", "player_3"), ("fruit", "player_4"),
                   ("raft", "player_5"), ("raft", "player_0"), ("chicken", "player_1")]
    steals = [(c, s, d) for c, s, d, r in log["moves"] if r == "steal"]
    assert steals == [("fruit", "player_4", "player_0"), ("raft", "player_5", "player_0")]
    assert game.leader == MIKE and not game.done and all(game.alive)


def test_example_through_the_env():
    env = hunger_show_v0.parallel_env(num_players=6, decisions=DECISIONS)
    env.reset(seed=7, options=SETUP)
    encode = hunger_show_v0.encode_action
    env.step({f"player_{p}": encode(*DAY_1[p]) for p in range(6)})
    observations, rewards, *_ , infos = env.step(
        {f"player_{p}": encode(*DAY_2[p]) for p in range(6)})
    game = env.unwrapped.game
    assert holding(game, ANNE) == Counter(CANS_AFTER_DAY_2 + ["fruit3"])
    assert env.last_log["event"] == "rat_plague-1"
    layout = hunger_show_v0.observation_layout(6)
    own_fruit = observations["player_0"]["observation"][layout["own_fruit"]]
    assert list(own_fruit) == [0, 1]  # no fruit 2, one fruit 3
    assert rewards == dict.fromkeys(env.agents, 0.0)
