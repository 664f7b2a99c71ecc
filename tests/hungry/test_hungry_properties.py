"""Property tests over thousands of random games, and a hand-checked scripted game.

The random games come in chunks of ``GAMES_PER_PLAYER_COUNT // CHUNKS``: the default suite plays
the first, the others are ``slow``."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    FULL_DECK,
    HOME,
    HOTEL,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    TOTAL_PLAYS,
    HungryState,
    card_stars,
    encode_action,
    score_resorts,
)
from hunger_rl.envs import hungry_v0

GAMES_PER_PLAYER_COUNT = 1000
CHUNKS = 4


def recomputed_resort_counts(history, num_players, first_player):
    counts = [[0] * NUM_RESORTS for _ in range(num_players)]
    for turn, action in enumerate(history):
        counts[(first_player + turn) % num_players][ACTION_RESORT[action]] += 1
    return counts


@pytest.mark.parametrize("chunk", [0, *(pytest.param(chunk, marks=pytest.mark.slow)
                                       for chunk in range(1, CHUNKS))])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games(num_players, chunk):
    env = hungry_v0.raw_env(num_players=num_players, first_player="random")
    rng = np.random.default_rng([num_players, chunk])
    size = GAMES_PER_PLAYER_COUNT // CHUNKS
    for game_index in range(chunk * size, (chunk + 1) * size):
        env.reset(seed=game_index)
        game = env.game
        first = game.current_player
        plays = 0
        while not game.is_over:
            agent = env.agent_selection
            player = game.current_player
            mask = env.observe(agent)["action_mask"]
            # The mask is exactly the playable actions: both resorts of every held card type.
            held = game.hands[player] > 0
            assert mask.tolist() == np.repeat(held, 2).astype(int).tolist()
            for other in env.possible_agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            env.step(int(rng.choice(np.flatnonzero(mask))))
            plays += 1
            # Every card is in exactly one place: removed, deck, a hand, or placed.
            in_places = np.bincount(game.removed + game.deck, minlength=NUM_CARD_TYPES)
            in_places = in_places + game.hands.sum(axis=0) + game.played
            assert (in_places == 2).all()
        assert plays == TOTAL_PLAYS
        assert game.hands.sum() == 0 and not game.deck
        score = game.score()
        expected = score_resorts(recomputed_resort_counts(game.history, num_players, first))
        assert score == expected
        assert list(score.totals) == game.totals()
        assert sum(env.rewards.values()) == pytest.approx(0.0)
        winners = set(score.winners)
        for player, agent in enumerate(env.possible_agents):
            assert (env.rewards[agent] > 0) == (player in winners and len(winners) < num_players)


def lowest_card_policy(game):
    """Play the lowest card type held; odd star counts go home, even ones to the hotel."""
    card = int(np.flatnonzero(game.hands[game.current_player])[0])
    return encode_action(card, HOME if card_stars(card) % 2 else HOTEL)


def test_scripted_game_reaches_the_hand_checked_score():
    # Deck in type order: red-1 x2 removed; player_0 holds red 2-5, player_1 blue 1-4, and each
    # then draws one copy of every type from blue-5 (9) to purple-5 (24). Worked out by hand:
    # home 1*: p0 3, p1 5 -> p1 first (1), p0 second (1); home 3*: 5-5 tie, nobody;
    # home 5*: p0 6, p1 4 -> p0 first (5), p1 second (1); red hotel: p0 4 -> 5;
    # blue hotel: p1 4 -> 5; green, yellow, purple hotels: 2-2 ties; homes 2* and 4*: empty.
    env = hungry_v0.raw_env(num_players=2)
    env.reset(options={"deck": list(FULL_DECK)})
    while not env.game.is_over:
        env.step(lowest_card_policy(env.game))
    p0, p1 = env.game.score().players
    assert p0.as_dict() == {
        "home_tiles": [5],
        "hotel_tiles": ["red"],
        "second_places": 1,
        "bonus": 0,
        "total": 11,
    }
    assert p1.as_dict() == {
        "home_tiles": [1],
        "hotel_tiles": ["blue"],
        "second_places": 1,
        "bonus": 0,
        "total": 7,
    }
    assert env.unwrapped.winners == ["player_0"]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def observation_from_parts(game, observer):
    """An observation rebuilt from the state's own arrays and its score, slice by slice."""
    num_players = game.num_players
    seats = [(observer + k) % num_players for k in range(num_players)]
    hand = game.hands[observer]
    to_move = np.zeros(num_players)
    if not game.is_over:
        to_move[(game.current_player - observer) % num_players] = 1
    return np.concatenate(
        (
            hand,
            game.placed[seats].ravel(),
            game.hands.sum(axis=1)[seats],
            [len(game.deck)],
            2 - hand - game.played,
            np.array(game.score().totals)[seats],
            to_move,
        )
    ).astype(np.float32)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("tied_second", ["next", "void"])
def test_counts_kept_up_to_date_match_a_rebuilt_state(num_players, tied_second):
    """After every play, the counts apply_action keeps up to date (hand sizes, deck size, unseen
    cards, scores, seat to move, masks, resort counts and places) equal those of a state rebuilt
    from its dict, and every seat's observation equals one assembled from the state's parts."""
    env = hungry_v0.raw_env(num_players=num_players, tied_second=tied_second)
    rng = np.random.default_rng(num_players)
    for game_index in range(20):
        env.reset(seed=game_index)
        game = env.game
        while True:
            rebuilt = HungryState.from_dict(game.to_dict())
            np.testing.assert_array_equal(game.table, rebuilt.table)
            np.testing.assert_array_equal(game.held_masks, rebuilt.held_masks)
            assert game.resort_tourists == rebuilt.resort_tourists
            assert game.places == rebuilt.places
            for observer, agent in enumerate(env.possible_agents):
                observed = env.observe(agent)["observation"]
                np.testing.assert_array_equal(observed, observation_from_parts(game, observer))
            if game.is_over:
                break
            env.step(int(rng.choice(game.legal_actions())))


def test_clones_keep_their_own_counts():
    game = HungryState.new_game(3, np.random.default_rng(5))
    clone = game.clone()
    before = game.table.copy()
    clone.apply_action(clone.legal_actions()[0])
    np.testing.assert_array_equal(game.table, before)
    assert clone.hands.base is clone.table and clone.unseen.base is clone.table
    np.testing.assert_array_equal(clone.table, HungryState.from_dict(clone.to_dict()).table)
