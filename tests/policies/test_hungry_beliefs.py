"""Belief deals: the play record against the engine's true game, the likelihoods against the
Python expert's values, and the Metropolis deals against the exact posterior."""

import itertools
import math

import numpy as np
import pytest

from hunger_rl.engines.hungry.view import public_view
from hunger_rl.envs import hungry_v0
from hunger_rl.policies import hungry_search
from hunger_rl.policies.base import RandomPolicy
from hunger_rl.policies.hungry import ExpertHungryPolicy, Outlook
from hunger_rl.policies.hungry_beliefs import (
    PlayRecord,
    _take_plays,
    choice_log_likelihood,
    deal_log_likelihoods,
    posterior_deals,
)
from hunger_rl.policies.hungry_search import (
    SearchHungryPolicy,
    hands_view,
    load_deals,
    playout_win_shares,
)
from hunger_rl.policies.registry import make_policy


def test_choice_log_likelihood_by_hand():
    values = np.full(50, -np.inf)
    values[[4, 5, 9]] = [1.0, 0.0, 0.5]
    # softmax at temperature 0.5: weights e^2, e^0, e^1 over the three legal plays.
    total = math.exp(2) + 1 + math.exp(1)
    assert choice_log_likelihood(values, 4, 0.5) == pytest.approx(2 - math.log(total))
    assert choice_log_likelihood(values, 5, 0.5) == pytest.approx(-math.log(total))
    assert choice_log_likelihood(values, 9, 0.5) == pytest.approx(1 - math.log(total))


def expert_log_likelihood(game_env, agent, action, temperature):
    """log softmax(Python expert values / temperature) of ``action`` for the mover."""
    observation, view = game_env.observe(agent), public_view(game_env, agent)
    legal = np.flatnonzero(observation["action_mask"])
    values = np.full(50, -np.inf)
    values[legal] = Outlook(view, ExpertHungryPolicy.OWN_DESTINATION_CHANCE,
                            ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE).values_after(
        legal, ExpertHungryPolicy.TIE_BREAK_WEIGHT)
    return choice_log_likelihood(values, action, temperature)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_record_rebuilds_the_opponents_past_hands_and_their_plays_likelihood(num_players):
    """Over whole expert games, at every move of one seat: the record holds exactly the other
    seats' deck-empty plays so far, each decision's hand rebuilt from the true hands now is the
    engine's hand then, and the likelihood of the true deal is the sum of the Python expert's
    log-softmax at those decisions."""
    temperature, checked = 0.7, 0
    for seed in range(3):
        game_env = hungry_v0.raw_env(num_players=num_players)
        game_env.reset(seed=seed)
        searcher, rng = seed % num_players, np.random.default_rng(seed)
        expert, record = ExpertHungryPolicy(), PlayRecord()
        hands_before, log_likelihoods = {}, {}
        while not game_env.game.is_over:
            game, agent = game_env.game, game_env.agent_selection
            mover, view = game.current_player, public_view(game_env, agent)
            hands_before[game.num_plays] = game.hands.copy()
            action = expert.act(game_env.observe(agent), rng, view)
            if mover != searcher and view.deck_size == 0:
                log_likelihoods[game.num_plays] = expert_log_likelihood(
                    game_env, agent, action, temperature)
            if mover == searcher:
                record.observe(view)
                assert [d.num_plays for d in record.decisions] == sorted(log_likelihoods)
                since = record.cards_since(view)
                for k, decision in enumerate(record.decisions):
                    seat = (searcher + decision.seat) % num_players
                    then = hands_before[decision.num_plays][seat]
                    np.testing.assert_array_equal(game.hands[seat] + since[k], then)
                    assert then[decision.action // 2] > 0
                    checked += 1
                rows = load_deals(view, 2, rng)
                for relative in range(1, num_players):
                    hands_view(rows, relative)[:] = game.hands[(searcher + relative) % num_players]
                expected = sum(log_likelihoods.values())
                np.testing.assert_allclose(
                    deal_log_likelihoods(rows, record, view, temperature), expected)
                record.own_play(view, action)
            game_env.step(action)
    assert checked > 0


def test_record_starts_again_on_a_view_that_does_not_follow():
    views = []
    for seed in (0, 1):
        game_env = hungry_v0.raw_env(num_players=2)
        game_env.reset(seed=seed)
        expert, rng = ExpertHungryPolicy(), np.random.default_rng(seed)
        while not game_env.game.is_over:
            agent = game_env.agent_selection
            view = public_view(game_env, agent)
            action = expert.act(game_env.observe(agent), rng, view)
            if agent == "player_0":
                views.append((view, action))
            game_env.step(action)
    record = PlayRecord()
    for view, action in views[:24]:  # player_0's 24 moves of the first game
        record.observe(view)
        record.own_play(view, action)
    # The deck (32 cards at 2 players) is empty from play 32: 8 plays of player_1, the last
    # after player_0's last move.
    assert len(record.decisions) == 7
    record.keep_chains(np.zeros((1, 2, 25), np.int64))
    record.observe(views[24][0])  # the next game's first view
    assert record.decisions == [] and record.chains is None and record.plays_since_chains == []


def test_belief_search_plays_plain_search_while_the_deck_lasts():
    plain, believing = SearchHungryPolicy(plays=2400), SearchHungryPolicy(plays=2400, beliefs=True)
    game_env = hungry_v0.raw_env(num_players=3)
    game_env.reset(seed=4)
    expert, rng = ExpertHungryPolicy(), np.random.default_rng(4)
    while not game_env.game.is_over:
        agent = game_env.agent_selection
        observation, view = game_env.observe(agent), public_view(game_env, agent)
        if agent == "player_0":
            same = plain.act(observation, np.random.default_rng(view.num_plays), view)
            believed = believing.act(observation, np.random.default_rng(view.num_plays), view)
            if view.deck_size:
                assert believed == same
            action = believed
        else:
            action = expert.act(observation, rng, view)
        game_env.step(action)
    assert believing.name == "search:2400plays:beliefs"


def play_searcher_in_seat_1(searcher, opponent, seed, monkeypatch):
    """One 4-player game of ``searcher`` in seat 1 against ``opponent`` in the others; every
    search round's (deck size, the move's pool, playout opponent, deals played)."""
    pools, played = [], []
    model = searcher._opponent_model

    def keep_pool(view, rng):
        pools.append(model(view, rng))
        return pools[-1]

    def keep_rows(view, candidates, deals, rng, guide, cutoff, opponent, rows):
        played.append((view.deck_size, pools[-1][0], opponent, rows))
        return playout_win_shares(view, candidates, deals, rng, guide, cutoff, opponent, rows)

    monkeypatch.setattr(searcher, "_opponent_model", keep_pool)
    monkeypatch.setattr(hungry_search, "playout_win_shares", keep_rows)
    game_env = hungry_v0.raw_env(num_players=4)
    game_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not game_env.game.is_over:
        agent = game_env.agent_selection
        observation, view = game_env.observe(agent), public_view(game_env, agent)
        policy = searcher if agent == "player_1" else opponent
        game_env.step(policy.act(observation, rng, view))
    return played


def test_belief_search_draws_its_deals_from_the_posterior_and_plays_out_against_experts(
        monkeypatch):
    """Against experts, once an opponent has played with the deck empty, every deal the
    playouts get is one of the move's posterior deals; from the deck's end on, the other seats
    play the expert in the playouts, before it the forecast."""
    searcher = SearchHungryPolicy(simulations=64, beliefs=True)
    searcher.BELIEF_TRUST = -math.inf  # the expert is always the model
    played = play_searcher_in_seat_1(searcher, ExpertHungryPolicy(), 2, monkeypatch)
    believed = [(pool, rows) for _, pool, _, rows in played if pool is not None]
    assert len(believed) >= 10
    for pool, rows in believed:
        assert pool.shape[0] == SearchHungryPolicy.BELIEF_CHAINS and rows.shape[0] > 0
        assert all((pool == row).all(axis=1).any() for row in rows)
    assert all(rows is None for _, pool, _, rows in played if pool is None)
    assert {(deck > 0, opponent) for deck, _, opponent, _ in played} == {
        (True, "forecast"), (False, "expert")}


def test_belief_search_drops_the_model_when_the_expert_explains_the_plays_badly(monkeypatch):
    """Against uniformly random opponents the expert explains the deck-empty plays badly: the
    search falls back to uniform deals and the forecast's playouts on most moves once they have
    played with the deck empty."""
    searcher = SearchHungryPolicy(simulations=64, beliefs=True)
    played = play_searcher_in_seat_1(searcher, RandomPolicy(), 5, monkeypatch)
    after_first = [(pool, opponent, rows) for deck, pool, opponent, rows in played if deck == 0]
    dropped = [(pool, rows) for pool, opponent, rows in after_first if opponent == "forecast"]
    kept = [pool for pool, opponent, _ in after_first if opponent == "expert" and pool is not None]
    assert len(dropped) > 2 * len(kept)
    assert all(pool is None and rows is None for pool, rows in dropped)


def seat_zero_moves(game_env, seed, plays=math.inf):
    """Experts play ``game_env`` (reset with ``seed``) until the game ends or ``plays`` plays
    are made; seat 0 keeps a play record: (view, record, rng) at each of its moves, after it has
    observed the view and before it plays."""
    game_env.reset(seed=seed)
    expert, rng, record = ExpertHungryPolicy(), np.random.default_rng(seed), PlayRecord()
    while not game_env.game.is_over and game_env.game.num_plays < plays:
        agent = game_env.agent_selection
        view = public_view(game_env, agent)
        action = expert.act(game_env.observe(agent), rng, view)
        if agent == "player_0":
            record.observe(view)
            yield view, record, rng
            record.own_play(view, action)
        game_env.step(action)


@pytest.mark.parametrize("continued", [False, True])
def test_posterior_deals_sample_the_exact_posterior(continued):
    """Late in a 2-player game (the opponent holds 2 cards, 2 more were removed) every split of
    the 4 unseen cards can be counted: the uniform deal's chance of each hand times the
    likelihood of the opponent's deck-empty plays. Thousands of short chains land on each hand
    as often as that posterior says, from uniform deals or ``continued`` from the chains of the
    searcher's move before; each deal keeps the cards the searcher has not seen."""
    temperature, chains = 1.0, 4000
    game_env = hungry_v0.raw_env(num_players=2)
    for view, record, rng in seat_zero_moves(game_env, 3, plays=44):
        if continued and view.num_plays == 42:
            posterior_deals(load_deals(view, chains, rng), view, record, rng, temperature, 25)
    view = public_view(game_env, "player_0")
    record.observe(view)
    assert len(record.decisions) == 6 and view.hand_sizes[1] == 2 and view.unseen.sum() == 4
    unseen = np.repeat(np.arange(view.unseen.size), view.unseen)
    # Each pair of the 4 unseen cards' places is equally likely to be the hand.
    prior = {}
    for pair in itertools.combinations(range(4), 2):
        hand = tuple(np.bincount(unseen[list(pair)], minlength=view.unseen.size))
        prior[hand] = prior.get(hand, 0) + 1
    rows = load_deals(view, len(prior), rng)
    hands_view(rows, 1)[:] = np.array(list(prior), dtype=np.int8)
    likelihoods = np.exp(deal_log_likelihoods(rows, record, view, temperature))
    posterior = np.array(list(prior.values())) * likelihoods
    posterior /= posterior.sum()
    assert posterior.max() < 0.9  # a posterior worth sampling

    start = record.continued_chains(view, chains, rng)
    assert (start is not None) == continued
    deals, log_likelihoods = posterior_deals(load_deals(view, chains, rng), view, record, rng,
                                             temperature, 10 if continued else 25, start)
    np.testing.assert_array_equal(log_likelihoods,
                                  deal_log_likelihoods(deals, record, view, temperature))
    hands = hands_view(deals, 1)
    assert (hands.sum(axis=1) == 2).all() and (hands <= view.unseen).all()
    frequencies = np.array([(hands == hand).all(axis=1).mean() for hand in prior])
    assert frequencies.sum() == 1
    # Binomial standard errors of 4,000 draws are at most 0.008.
    np.testing.assert_allclose(frequencies, posterior, atol=0.03)
    # Without steps the deals are the uniform ones.
    start = load_deals(view, 8, np.random.default_rng(0))
    np.testing.assert_array_equal(
        posterior_deals(start.copy(), view, record, rng, temperature, 0)[0], start)


def test_taking_a_play_from_a_hand_that_lacks_its_card_trades_it_in():
    """Hidden groups of one chain: two opponents' hands and the removed cards, by card type."""
    groups = np.zeros((1, 3, 25), np.int64)
    groups[0, 0, [2, 5]] = 1
    groups[0, 1, 7] = 1
    groups[0, 2, 3] = 1
    # The first opponent plays a 7, which the second holds in this deal: the second takes the
    # first's card at position 1 of its two (2 and 5, in type order), the 5.
    _take_plays(groups, np.array([0]), np.array([7]), np.array([[0.75]]))
    np.testing.assert_array_equal(np.flatnonzero(groups[0, 0]), [2])
    np.testing.assert_array_equal(np.flatnonzero(groups[0, 1]), [5])
    np.testing.assert_array_equal(np.flatnonzero(groups[0, 2]), [3])
    # A hand that holds its card just loses it.
    _take_plays(groups, np.array([1]), np.array([5]), np.array([[0.0]]))
    assert groups[0, 1].sum() == 0 and groups[0, 0, 2] == 1 and groups[0, 2, 3] == 1


@pytest.mark.parametrize("num_players", [3, 4])
def test_continued_chains_are_the_last_deals_less_the_plays_since(num_players):
    """Over whole expert games, at each deck-empty move of one seat: the chains go on from the
    last move's deals, each less the cards played since (unchanged where every hand held its
    seat's card), keep the cards the searcher has not seen and the hands' sizes, and explain
    every recorded play (a finite likelihood)."""
    continued = unchanged = 0
    for seed in range(2):
        game_env = hungry_v0.raw_env(num_players=num_players)
        for view, record, rng in seat_zero_moves(game_env, seed):
            last, plays = record.chains, list(record.plays_since_chains)
            start = record.continued_chains(view, 16, rng)
            assert (start is None) == (last is None)
            if start is not None:
                continued += 1
                assert (start >= 0).all() and (start.sum(axis=1) == view.unseen).all()
                assert (start[:, :-1].sum(axis=2) == view.hand_sizes[1:]).all()
                expected = last.copy()
                for seat, card in plays:
                    expected[:, seat - 1, card] -= 1
                held = (expected >= 0).all(axis=(1, 2))
                np.testing.assert_array_equal(start[held], expected[held])
                unchanged += held.sum()
            if record.decisions:
                rows, log_likelihoods = posterior_deals(
                    load_deals(view, 16, rng), view, record, rng, 0.5, 3, start)
                assert np.isfinite(log_likelihoods).all()
                np.testing.assert_allclose(
                    log_likelihoods, deal_log_likelihoods(rows, record, view, 0.5))
    assert continued >= 6 and 0 < unchanged < 16 * continued


def test_continued_chains_want_every_view_observed():
    game_env = hungry_v0.raw_env(num_players=2)
    for view, record, rng in seat_zero_moves(game_env, 0, plays=40):
        if record.decisions:
            posterior_deals(load_deals(view, 4, rng), view, record, rng, 0.5, 1)
    view = public_view(game_env, "player_0")  # the opponent's last play not observed
    with pytest.raises(ValueError, match="observe every view of the game"):
        record.continued_chains(view, 4, rng)
    record.reset()
    assert record.chains is None and record.continued_chains(view, 4, rng) is None


def test_posterior_deals_refuse_a_deck_and_negative_steps():
    game_env = hungry_v0.raw_env(num_players=2)
    game_env.reset(seed=0)
    view = public_view(game_env, "player_0")
    rows = load_deals(view, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="32 cards are in the deck"):
        posterior_deals(rows, view, PlayRecord(), np.random.default_rng(0), 0.1, 3)
    with pytest.raises(ValueError, match="cannot make -1 steps"):
        posterior_deals(rows, view, PlayRecord(), np.random.default_rng(0), 0.1, -1)


def test_playouts_on_given_rows_are_the_playouts_on_those_deals():
    game_env = hungry_v0.raw_env(num_players=3)
    game_env.reset(seed=1)
    view = public_view(game_env, game_env.agent_selection)
    candidates = np.flatnonzero(game_env.observe(game_env.agent_selection)["action_mask"])[:3]
    fresh = playout_win_shares(view, candidates, 6, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    given = playout_win_shares(view, candidates, 6, rng, rows=load_deals(view, 6, rng))
    # The same deals; the playouts' random streams are drawn after them either way.
    np.testing.assert_array_equal(fresh, given)
    with pytest.raises(ValueError, match="6 deals asked for, 5 rows given"):
        playout_win_shares(view, candidates, 6, rng, rows=load_deals(view, 5, rng))


def test_belief_spec():
    search = make_policy("search:7200plays:beliefs", "hungry", 4)
    assert search.record is not None and search.plays == 7200
    assert search.name == "search:7200plays:beliefs"
    assert make_policy("search:7200plays", "hungry", 4).record is None
    with pytest.raises(ValueError, match="the number of playouts N must come before 'beliefs'"):
        make_policy("search::beliefs", "hungry", 4)
    with pytest.raises(ValueError, match="a network's policy spec must follow search:N:beliefs:"):
        make_policy("search:200:beliefs:", "hungry", 4)
