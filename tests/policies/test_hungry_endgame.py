"""The exact 2-player endgame: its scoring is the engine's, its choices are brute-force
minimax's over every hand the other seat may hold, and its hands are the rules' chances."""

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    TOTAL_PLAYS,
    score_resorts,
)
from hunger_rl.engines.hungry.view import public_view
from hunger_rl.envs import hungry_v0
from hunger_rl.policies.hungry import ExpertHungryPolicy
from hunger_rl.policies.hungry_endgame import (
    DRAW,
    LOSS,
    WIN,
    EndgameSolver,
    final_result,
    other_hands,
)
from hunger_rl.policies.hungry_search import SearchHungryPolicy
from hunger_rl.policies.registry import make_policy


def share_of_seat_zero(counts) -> Fraction:
    """Seat 0's win share by the reference engine's scoring (H6-H9)."""
    winners = score_resorts([list(map(int, row)) for row in counts]).winners
    return Fraction(1, len(winners)) if 0 in winners else Fraction(0)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=2 * NUM_RESORTS, max_size=2 * NUM_RESORTS))
def test_the_final_result_is_the_engines_scoring(flat):
    counts = np.array(flat, dtype=np.int64).reshape(2, NUM_RESORTS)
    assert Fraction(int(final_result(counts)), WIN) == share_of_seat_zero(counts)


def test_the_final_result_by_hand():
    counts = np.zeros((2, NUM_RESORTS), np.int64)
    assert final_result(counts) == DRAW  # nobody scores: a shared draw
    counts[1, 0] = 1  # seat 1 takes the 1-star home: 1 point
    assert final_result(counts) == LOSS
    counts[0, 5] = 1  # seat 0 a hotel: 5 points
    assert final_result(counts) == WIN
    counts[1, 1], counts[1, 2] = 1, 1  # seat 1: homes 1-3 (6) and the bonus (5)
    assert final_result(counts) == LOSS
    # seat 0: two hotels and the 2-star home (12); seat 1: 1 + 3, second at 2 stars, bonus (10)
    counts[0, 6], counts[0, 1] = 1, 2
    assert final_result(counts) == WIN
    counts[1, 4] = 1  # seat 1 also the 5-star home: 15 against 12
    assert final_result(counts) == LOSS
    # seat 0 ties the 3-star home, which scores for nobody: 12 each, and the lowest home breaks
    # the tie (H9): seat 1's 1-star home
    counts[0, 2] = 1
    assert final_result(counts) == LOSS
    counts[1, 0] = 0  # without its 1-star home seat 1 has one home and no bonus: 6 against 12
    assert final_result(counts) == WIN


def endgame_positions(plays_left, games, seed):
    """(game env, view of the mover) when ``plays_left`` plays are left, in expert games."""
    expert = ExpertHungryPolicy()
    for game in range(games):
        game_env = hungry_v0.raw_env(num_players=2)
        game_env.reset(seed=seed + game)
        rng = np.random.default_rng(seed + game)
        while TOTAL_PLAYS - game_env.game.num_plays > plays_left:
            agent = game_env.agent_selection
            game_env.step(expert.act(game_env.observe(agent), rng,
                                     public_view(game_env, agent)))
        yield game_env, public_view(game_env, game_env.agent_selection)


def minimax(counts, hands, mover, left) -> Fraction:
    """Seat 0's win share under perfect play by both, by brute force over every play."""
    if left == 0:
        return share_of_seat_zero(counts)
    values = []
    for card in np.flatnonzero(hands[mover]):
        for action in (2 * card, 2 * card + 1):
            hands[mover, card] -= 1
            counts[mover, ACTION_RESORT[action]] += 1
            values.append(minimax(counts, hands, 1 - mover, left - 1))
            counts[mover, ACTION_RESORT[action]] -= 1
            hands[mover, card] += 1
    return max(values) if mover == 0 else min(values)


def brute_force_values(view) -> dict[int, Fraction]:
    """Each legal play's win share, averaged over the other seat's hands with their chances."""
    values = Counter()
    left = int(view.hand.sum() + view.hand_sizes[1])
    for hand, weight in zip(*other_hands(view), strict=True):
        hands = np.stack([view.hand, hand]).astype(np.int64)
        for card in np.flatnonzero(view.hand):
            for action in (2 * card, 2 * card + 1):
                counts = view.resort_counts.copy()
                hands[0, card] -= 1
                counts[0, ACTION_RESORT[action]] += 1
                values[action] += Fraction(weight).limit_denominator(10**6) * minimax(
                    counts, hands, 1, left - 1)
                hands[0, card] += 1
    return values


@pytest.mark.parametrize("plays_left", [3, 4, 5, 6])
def test_the_solver_plays_what_brute_force_minimax_finds_best(plays_left):
    checked = 0
    for _, view in endgame_positions(plays_left, games=6 if plays_left < 6 else 3,
                                     seed=10 * plays_left):
        values = brute_force_values(view)
        best = max(values.values())
        solver = EndgameSolver()
        for preferred in values:  # every play in turn as the one kept unless beaten
            solved = solver.best_play(view, preferred)
            if values[preferred] >= best:
                assert solved == preferred
            else:
                assert values[solved] == best
                # a later play only where strictly better: the first best in action order
                assert solved == min(a for a in values if values[a] == best)
            checked += 1
    assert checked >= 12


def test_the_other_hands_are_the_unseen_cards_less_every_removed_pair_by_its_chance():
    for game_env, view in endgame_positions(11, games=5, seed=3):
        hands, weights = other_hands(view)
        # Every way to draw 2 of the unseen copies, each copy a card of its own.
        copies = [card for card in range(NUM_CARD_TYPES) for _ in range(view.unseen[card])]
        pairs = list(itertools.combinations(range(len(copies)), 2))
        expected = Counter()
        for pair in pairs:
            hand = np.array(view.unseen)
            for copy in pair:
                hand[copies[copy]] -= 1
            expected[tuple(hand)] += Fraction(1, len(pairs))
        assert {tuple(h): Fraction(w).limit_denominator(10**6)
                for h, w in zip(hands, weights, strict=True)} == expected
        assert list(weights) == sorted(weights, reverse=True)
        real = game_env.game.hands[1 - int(game_env.agent_selection[-1])]
        assert tuple(real) in expected


def test_other_hands_want_two_players_and_an_empty_deck():
    _, view = next(endgame_positions(20, games=1, seed=0))
    with pytest.raises(ValueError, match="once the deck is empty"):
        other_hands(view)


def test_a_game_replays_whatever_the_games_before_it():
    positions = [view for _, view in endgame_positions(12, games=4, seed=5)]
    fresh = [EndgameSolver(), EndgameSolver()]
    used = EndgameSolver()
    for view in positions[:3]:  # another game's positions in the table first
        used.best_play(view, int(np.flatnonzero(np.repeat(view.hand > 0, 2))[0]))
    used.new_game()
    view = positions[3]
    preferred = int(np.flatnonzero(np.repeat(view.hand > 0, 2))[0])
    assert fresh[0].best_play(view, preferred) == used.best_play(view, preferred)
    assert fresh[0].nodes[0] == used.nodes[0]


def test_the_solver_gives_up_past_its_budget():
    _, view = next(endgame_positions(16, games=1, seed=1))
    preferred = int(np.flatnonzero(np.repeat(view.hand > 0, 2))[0])
    assert EndgameSolver(node_budget=100).best_play(view, preferred) is None
    with pytest.raises(ValueError, match="node_budget"):
        EndgameSolver(node_budget=0)
    with pytest.raises(ValueError, match="not a legal play"):
        EndgameSolver().best_play(view, int(np.flatnonzero(view.hand == 0)[0]) * 2)


def play_one_game(search, seed):
    """Seat 0's plays of one game of ``search`` against the expert."""
    game_env = hungry_v0.raw_env(num_players=2)
    game_env.reset(seed=seed)
    expert, rngs = ExpertHungryPolicy(), [np.random.default_rng(seed + seat) for seat in (0, 1)]
    search.reset()
    plays = []
    while not game_env.game.is_over:
        agent = game_env.agent_selection
        seat = int(agent[-1])
        observation, view = game_env.observe(agent), public_view(game_env, agent)
        action = (search if seat == 0 else expert).act(observation, rngs[seat], view)
        if seat == 0:
            plays.append((view.deck_size, action))
        game_env.step(action)
    return plays


def test_the_solving_search_is_the_search_until_the_deck_is_empty_or_past_its_budget():
    plain = play_one_game(SearchHungryPolicy(simulations=40), seed=4)
    solving = play_one_game(SearchHungryPolicy(simulations=40, solve=True), seed=4)
    drawing = sum(deck > 0 for deck, _ in plain)
    assert solving[:drawing] == plain[:drawing]
    assert solving != plain  # this game's endgame: the solver changes a play
    giving_up = SearchHungryPolicy(simulations=40, solve=True)
    giving_up.endgame.node_budget = 1
    assert play_one_game(giving_up, seed=4) == plain


def test_solve_by_spec():
    assert make_policy("search:200:solve", "hungry", 2).name == "search:200:solve"
    guided = make_policy("search:300:beliefs:solve:pretrained:hungry_2p", "hungry", 2)
    assert guided.endgame is not None and guided.record is not None
    assert guided.name == "search:300:beliefs:solve:pretrained:hungry_2p:network"


@pytest.mark.parametrize(("spec", "players", "message"), [
    ("search:200:solve", 3, "2-player endgame; this game has 3 players"),
    ("search:200:solve:", 2, "must follow search:N:solve:"),
    ("search::solve", 2, "must come before 'solve'"),
])
def test_a_bad_solve_spec_is_a_clear_error(spec, players, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, "hungry", players)
