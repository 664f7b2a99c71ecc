"""Hungry search: legal, reproducible, honest about its budget, and its deals match the rules."""

import re
import signal
import time

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import (
    CURRENT,
    FIRST,
    HANDS,
    NUM_PLAYS,
    ORDER,
    SECOND,
    TOTALS,
    observation_size,
    play,
    write_observation,
)
from hunger_rl.engines.hungry.engine import DECK_SIZE, NUM_CARD_TYPES, NUM_RESORTS, TOTAL_PLAYS
from hunger_rl.engines.hungry.view import HungryView, public_view
from hunger_rl.envs import hungry_v0
from hunger_rl.policies import hungry_search
from hunger_rl.policies.hungry import ExpertHungryPolicy, Outlook
from hunger_rl.policies.hungry_batched import (
    forecast_action,
    forecast_scratch,
    forecast_values_of_observations,
)
from hunger_rl.policies.hungry_search import SearchHungryPolicy, load_deals, playout_win_shares
from hunger_rl.policies.registry import describe_specs, make_policy

# Least share of the expert's best plays that the forecast playout policy must repeat over three
# expert games (measured 0.80, 0.73 and 0.68 at 2, 3 and 4 players; greedy repeats 0.17 to 0.25).
AGREEMENT = 0.6


def views_along_a_game(num_players, seed):
    """(observation, view) of the mover at every turn of one expert game."""
    game_env = hungry_v0.raw_env(num_players=num_players)
    game_env.reset(seed=seed)
    expert, rng = ExpertHungryPolicy(), np.random.default_rng(seed)
    while not game_env.game.is_over:
        agent = game_env.agent_selection
        observation, view = game_env.observe(agent), public_view(game_env, agent)
        yield observation, view
        game_env.step(expert.act(observation, rng, view))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_search_plays_legal_actions_reproducibly(num_players):
    # A small budget: legality and reproducibility do not depend on its size (the budget test
    # below covers large ones).
    search = SearchHungryPolicy(simulations=40)
    for observation, view in views_along_a_game(num_players, seed=num_players):
        picks = {search.act(observation, np.random.default_rng(7), view) for _ in range(2)}
        assert len(picks) == 1
        assert observation["action_mask"][picks.pop()] == 1


def count_playouts(monkeypatch) -> list[int]:
    """A list to which every later call of the search's playouts appends its playout count."""
    spent = []
    playout_win_shares = hungry_search.playout_win_shares

    def counting(*args, **kwargs):
        rewards = playout_win_shares(*args, **kwargs)
        spent.append(rewards.size)
        return rewards

    monkeypatch.setattr(hungry_search, "playout_win_shares", counting)
    return spent


@pytest.mark.parametrize("simulations", [1, 3, 8, 200, 1000])
def test_search_spends_at_most_its_budget(simulations, monkeypatch):
    spent = count_playouts(monkeypatch)
    observation, view = next(views_along_a_game(2, seed=0))
    SearchHungryPolicy(simulations).act(observation, np.random.default_rng(0), view)
    assert sum(spent) <= simulations
    assert sum(spent) >= simulations - 2 * SearchHungryPolicy.CANDIDATES


@pytest.mark.parametrize("num_players", [2, 4])
def test_loaded_deals_are_consistent_with_the_view(num_players):
    rng = np.random.default_rng(0)
    for turn, (_, view) in enumerate(views_along_a_game(num_players, seed=5)):
        if turn % 7:
            continue
        games = load_deals(view, 6, rng)
        hands = games[:, HANDS : HANDS + num_players * NUM_CARD_TYPES].reshape(
            6, num_players, NUM_CARD_TYPES
        )
        assert (hands[:, 0] == view.hand).all()
        assert (hands.sum(axis=2) == view.hand_sizes).all()
        deck = games[:, ORDER + DECK_SIZE - view.deck_size : ORDER + DECK_SIZE]
        for b in range(6):
            # Other hands and deck come from the unseen cards, two at most are left out.
            dealt = hands[b, 1:].sum(axis=0) + np.bincount(deck[b], minlength=NUM_CARD_TYPES)
            assert (dealt <= view.unseen).all() and view.unseen.sum() - dealt.sum() == 2
        places = view.places()
        assert (games[:, TOTALS : TOTALS + num_players] == view.totals()).all()
        for resort in range(NUM_RESORTS):
            first, second = (-1 if p is None else p for p in places[resort])
            assert (games[:, FIRST + resort] == first).all()
            assert (games[:, SECOND + resort] == second).all()


def test_search_rejects_an_empty_budget():
    with pytest.raises(ValueError, match="at least 1"):
        SearchHungryPolicy(0)


def test_search_takes_a_winning_last_play():
    """On the last play every deal is the same, so search must pick a play that wins."""
    search, decided = SearchHungryPolicy(simulations=200), 0
    for seed in range(40):
        game_env = hungry_v0.raw_env(num_players=2)
        game_env.reset(seed=seed)
        expert, rng = ExpertHungryPolicy(), np.random.default_rng(seed)
        while game_env.game.num_plays < TOTAL_PLAYS - 1:
            agent = game_env.agent_selection
            game_env.step(expert.act(game_env.observe(agent), rng, public_view(game_env, agent)))
        state, agent = game_env.game, game_env.agent_selection
        winning = []
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(action)
            if after.score().winners == (state.current_player,):
                winning.append(action)
        if 0 < len(winning) < len(state.legal_actions()):
            decided += 1
            observation = game_env.observe(agent)
            pick = search.act(observation, rng, public_view(game_env, agent))
            assert pick in winning
    assert decided > 0


def expert_best(observation, view):
    """The expert's plays of best value (several when tied)."""
    actions = np.flatnonzero(observation["action_mask"])
    values = Outlook(
        view,
        ExpertHungryPolicy.OWN_DESTINATION_CHANCE,
        ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE,
    ).values_after(actions, ExpertHungryPolicy.TIE_BREAK_WEIGHT)
    return set(actions[values >= values.max() - 1e-9].tolist())


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_forecast_playouts_play_legally_and_mostly_as_the_expert(num_players):
    rng = np.random.default_rng(0)
    scratch = forecast_scratch()
    streams = np.zeros(1, np.uint64)
    agree = turns = 0
    for seed in range(3):
        for observation, view in views_along_a_game(num_players, seed=seed):
            # The mover's view as a row (the mover is seat 0 there); the other hands dealt to
            # it do not enter the forecast.
            row = load_deals(view, 1, rng)
            action = forecast_action(row, 0, num_players, streams, scratch)
            assert observation["action_mask"][action] == 1
            agree += action in expert_best(observation, view)
            turns += 1
    assert agree / turns > AGREEMENT


def only_best(actions, values):
    """The single play of best value, or None when several tie (each side breaks ties with its
    own random stream, so a tied playout is not comparable)."""
    best = actions[values >= values.max() - 1e-9]
    return int(best[0]) if best.size == 1 else None


def python_playout(row, candidate, num_players, opponent="expert"):
    """Seat 0's win share after ``candidate`` in the deal ``row`` (one batched-engine row), seat
    0 then playing the forecast and the other seats the Python ``ExpertHungryPolicy`` (or with
    ``opponent="forecast"`` the forecast too, its values read from observations); None if a
    choice on the way was tied."""
    row = row[None].copy()
    observation = np.zeros((1, observation_size(num_players)), np.float32)
    play(row, 0, candidate, num_players, False)
    while row[0, NUM_PLAYS] < TOTAL_PLAYS:
        mover = int(row[0, CURRENT])
        write_observation(row, 0, mover, num_players, observation, 0)
        hand = observation[0, :NUM_CARD_TYPES]
        actions = np.flatnonzero(np.repeat(hand > 0, 2))
        if mover == 0 or opponent == "forecast":
            values = forecast_values_of_observations(observation, num_players)[0, actions]
        else:
            expert = ExpertHungryPolicy()
            values = Outlook(HungryView.from_observation(observation[0]),
                             expert.OWN_DESTINATION_CHANCE,
                             expert.OPPONENT_DESTINATION_CHANCE).values_after(
                                 actions, expert.TIE_BREAK_WEIGHT)
        action = only_best(actions, values)
        if action is None:
            return None
        play(row, 0, action, num_players, False)
    return hungry_search._observer_win_share(row, 0, num_players)


@pytest.mark.parametrize("num_players", [2, 3])
def test_expert_playouts_equal_python_playouts_of_the_expert(num_players):
    """Playouts with ``opponent="expert"`` on the deals they load: the same win shares as
    playing each deal out in Python, the observer's seat by the forecast and the others by
    ``ExpertHungryPolicy``, wherever no choice on the way was tied; and in some of them not the
    forecast playouts' shares, so the opponent makes a difference."""
    compared = differ = 0
    for turn, (observation, view) in enumerate(views_along_a_game(num_players, seed=11)):
        if view.num_plays < TOTAL_PLAYS - 12 or turn % 2:
            continue
        candidates = np.flatnonzero(observation["action_mask"])
        deals = 3
        expert = playout_win_shares(view, candidates, deals, np.random.default_rng(turn),
                                    opponent="expert")
        forecast = playout_win_shares(view, candidates, deals, np.random.default_rng(turn))
        rows = load_deals(view, deals, np.random.default_rng(turn))
        for d in range(deals):
            for c, candidate in enumerate(candidates):
                reference = python_playout(rows[d], candidate, num_players)
                if reference is None:
                    continue
                assert expert[d, c] == reference, (turn, d, candidate)
                compared += 1
                differ += forecast[d, c] != reference
    assert compared > 30 and differ > 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_forecast_playouts_equal_python_playouts_of_the_forecast(num_players):
    """The compiled playouts, built for each player count as a constant, play as the forecast's
    values from observations (built for any count): the same win shares as the Python loop on
    the deals they load, from every fourth position of an expert game, wherever no choice on
    the way was tied."""
    compared = 0
    for turn, (observation, view) in enumerate(views_along_a_game(num_players, seed=12)):
        if turn % 4:
            continue
        candidates = np.flatnonzero(observation["action_mask"])[:3]
        deals = 2
        shares = playout_win_shares(view, candidates, deals, np.random.default_rng(turn))
        rows = load_deals(view, deals, np.random.default_rng(turn))
        for d in range(deals):
            for c, candidate in enumerate(candidates):
                reference = python_playout(rows[d], candidate, num_players, "forecast")
                if reference is not None:
                    assert shares[d, c] == reference, (turn, d, candidate)
                    compared += 1
    assert compared > 30


def test_playouts_reject_an_unknown_opponent():
    _, view = next(views_along_a_game(2, seed=0))
    with pytest.raises(ValueError, match="playout opponent must be one of"):
        playout_win_shares(view, np.array([0]), 1, np.random.default_rng(0), opponent="greedy")


def test_a_budget_of_plays_makes_it_over_the_plays_left_playouts_a_move(monkeypatch):
    spent = count_playouts(monkeypatch)
    search = SearchHungryPolicy(plays=9600)
    # 9600 plays over the 48 plays of a whole game: 200 playouts; over 43: 223 (9600 / 43 =
    # 223.3); over the last 8: 1200; over the last 2: 4800; over 1: all 9600.
    expected = {0: 200, 5: 223, 40: 1200, 46: 4800, 47: 9600}
    seen = {}
    for observation, view in views_along_a_game(4, seed=3):
        if view.num_plays not in expected:
            continue
        assert search.playouts(view) == expected[view.num_plays]
        spent.clear()
        search.act(observation, np.random.default_rng(0), view)
        candidates = min(SearchHungryPolicy.CANDIDATES, int(observation["action_mask"].sum()))
        seen[view.num_plays] = sum(spent)
        # As search:N spends N (the budget test above): never more, at most a few fewer, none
        # with a single candidate.
        if candidates > 1:
            assert expected[view.num_plays] - 2 * candidates <= sum(spent)
        assert sum(spent) <= expected[view.num_plays]
    assert set(seen) == set(expected)
    assert seen[40] > 5 * seen[0]  # the endgame searched far harder than the first play


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_budget_of_plays_plays_as_search_n_where_it_gives_n(num_players):
    """At a game's first play 48 N plays are N playouts: the same move on the same random draws
    as search:N, and the same draws left (the same search)."""
    observation, view = next(views_along_a_game(num_players, seed=11))
    assert view.num_plays == 0
    budgeted, counted = SearchHungryPolicy(plays=150 * TOTAL_PLAYS), SearchHungryPolicy(150)
    for seed in range(6):
        budget_rng, count_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        assert (budgeted.act(observation, budget_rng, view)
                == counted.act(observation, count_rng, view))
        assert budget_rng.bit_generator.state == count_rng.bit_generator.state


def test_a_bad_budget_of_plays_is_a_clear_error():
    with pytest.raises(ValueError, match="a budget of plays must be at least 48, one playout of "
                                         "a whole game, got 47"):
        SearchHungryPolicy(plays=47)
    with pytest.raises(ValueError, match="playouts .* or simulated plays .*, not both: got 200 "
                                         "and 9600"):
        SearchHungryPolicy(200, plays=9600)
    with pytest.raises(ValueError, match=r"takes no cut-off \(got 3\)"):
        SearchHungryPolicy(plays=9600, cutoff=3)
    assert SearchHungryPolicy().simulations == SearchHungryPolicy.DEFAULT_SIMULATIONS
    assert SearchHungryPolicy(plays=9600).name == "search:9600plays"


def test_a_budget_of_plays_by_spec():
    search = make_policy("search:9600plays", "hungry", 4)
    assert (search.plays, search.simulations, search.guide) == (9600, None, None)
    assert search.name == "search:9600plays"
    assert "search:Bplays" in [spec for spec, _ in describe_specs("hungry", 3)]
    for spec, problem in [
        ("search:xplays", "in 'search:xplays', the budget before 'plays' must be a positive "
                          "integer"),
        ("search:plays", "in 'search:plays', the budget before 'plays' must be a positive"),
        ("search:47plays", "in 'search:47plays', a budget of plays must be at least 48"),
        ("search:9600play", "in 'search:9600play', the number after ':' must be a positive"),
        # Issue 50: '²' passes str.isdigit, and int() refused it with a bare message.
        ("search:\u00b2", "in 'search:\u00b2', the number after ':' must be a positive integer "
                          "in ASCII digits, at most 100,000"),
        ("search:\u0661\u0660", "the number after ':' must be a positive integer in ASCII"),
        ("search:\u00b2plays", "the budget before 'plays' must be a positive integer"),
        ("search:100001", "in 'search:100001', the number after ':' must be a positive integer "
                          "in ASCII digits, at most 100,000"),
        ("search:" + "9" * 5000, "the number after ':' must be a positive integer"),
        ("search:1000001plays", "the budget before 'plays' must be a positive integer of "
                                "simulated plays in ASCII digits, at most 1,000,000"),
        ("ismcts:100001", "in 'ismcts:100001', the number after ':' must be a positive"),
    ]:
        with pytest.raises(ValueError, match=re.escape(problem)):
            make_policy(spec, "hungry", 2)


ALARM_AFTER_SECONDS = 0.3


class Alarm(Exception):
    """Raised by the test's SIGALRM handler."""


def _raise_alarm(signum, frame):
    raise Alarm


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_a_signal_stops_the_playouts_at_the_next_chunk():
    """Python runs a signal's handler (Ctrl-C's, SIGTERM's) only between compiled calls, so the
    playouts run in chunks of PLAYOUT_CHUNK rows: a signal stops a search of any budget within
    one chunk, where one call of all its rows would hold it for seconds."""
    observation, view = next(views_along_a_game(2, seed=0))  # the first play: longest playouts
    candidates = np.flatnonzero(observation["action_mask"])[:2]
    playout_win_shares(view, candidates, 8, np.random.default_rng(0))  # compiled before timing
    deals = 50_000  # 100,000 whole games: seconds at the least, about 100 chunks
    previous = signal.signal(signal.SIGALRM, _raise_alarm)
    signal.setitimer(signal.ITIMER_REAL, ALARM_AFTER_SECONDS)
    started = time.monotonic()
    try:
        with pytest.raises(Alarm):
            playout_win_shares(view, candidates, deals, np.random.default_rng(0))
        stopped_after = time.monotonic() - started - ALARM_AFTER_SECONDS
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert stopped_after < 1.0, f"the playouts went on {stopped_after:.2f} s after the signal"
