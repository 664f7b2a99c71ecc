"""Network-guided search (``search:N:SPEC``): with a uniform prior and no value it is plain
search; its value cut-off, its training target and its specs behave as documented."""

import math

import numpy as np
import pytest
from test_hungry_search import views_along_a_game  # beside this file, on sys.path

from hunger_rl.engines.hungry.engine import NUM_ACTIONS, TOTAL_PLAYS
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.policies.hungry import ExpertHungryPolicy, Outlook
from hunger_rl.policies.hungry_search import (
    SearchHungryPolicy,
    SearchStatistics,
    playout_win_shares,
    sigma_scale,
)
from hunger_rl.policies.registry import make_policy

# The chi-square distribution's 0.999 quantiles by degrees of freedom: a test at this level
# rejects equal distributions once in a thousand runs.
CHI_SQUARE_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467}


class StubGuide:
    """A guide with given logits over the legal plays (``prior(view, actions)``) and a constant
    value; it records the observations it is asked to value."""

    name = "stub"

    def __init__(self, prior=None, value=0.5):
        self.prior, self.value, self.valued = prior, value, []

    def logits(self, observations):
        logits = np.full((len(observations), NUM_ACTIONS), -7.0)
        if self.prior is not None:
            logits[0] = self.prior(observations[0])
        return logits

    def win_shares(self, observations):
        self.valued.append(observations.copy())
        return np.full(len(observations), self.value)


def positions(num_players, games):
    return [pair for seed in range(games) for pair in views_along_a_game(num_players, seed)]


@pytest.mark.parametrize("num_players", [2, 4])
def test_uniform_prior_without_value_is_plain_search_move_for_move(num_players):
    # Equal logits (whatever their level) leave every ranking to the playouts and the expert's
    # order, and the guided search draws the same random numbers: the same move for each seed.
    plain = SearchHungryPolicy(40)
    guided = SearchHungryPolicy(40, StubGuide(prior=lambda o: np.full(NUM_ACTIONS, 3.25)))
    for index, (observation, view) in enumerate(positions(num_players, 2)):
        assert (guided.act(observation, np.random.default_rng(index), view)
                == plain.act(observation, np.random.default_rng(index), view))


def expert_rank_counts(policy, pairs, seeds):
    """How often the policy's move is the expert's best, second, third, fourth or a lower play,
    pooled over the positions, each searched once per seed."""
    counts = np.zeros(5, dtype=np.int64)
    for observation, view in pairs:
        actions = np.flatnonzero(observation["action_mask"])
        values = Outlook(view, ExpertHungryPolicy.OWN_DESTINATION_CHANCE,
                         ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE).values_after(
            actions, ExpertHungryPolicy.TIE_BREAK_WEIGHT)
        for seed in seeds:
            move = policy.act(observation, np.random.default_rng(seed), view)
            better = int((values > values[np.flatnonzero(actions == move)[0]] + 1e-9).sum())
            counts[min(better, 4)] += 1
    return counts


def test_uniform_prior_without_value_equals_plain_search_in_distribution():
    # Independent seeds on each side; a chi-square test of homogeneity of the expert ranks of
    # the moves. The same test tells plain search from a search guided by a prior that prefers
    # the expert's worst plays, so it can fail.
    pairs = positions(2, 1)[:24:3]
    plain = SearchHungryPolicy(24)
    uniform = SearchHungryPolicy(24, StubGuide(prior=lambda o: np.zeros(NUM_ACTIONS)))
    plain_counts = expert_rank_counts(plain, pairs, range(40))
    uniform_counts = expert_rank_counts(uniform, pairs, range(1000, 1040))
    assert not differ(plain_counts, uniform_counts)

    # Prefers low action numbers, whatever the expert thinks of them.
    biased = SearchHungryPolicy(24, StubGuide(prior=lambda o: -30.0 * np.arange(NUM_ACTIONS)))
    biased_counts = expert_rank_counts(biased, pairs, range(1000, 1040))
    assert differ(plain_counts, biased_counts)


def differ(*rows) -> bool:
    """Pearson's chi-square test of homogeneity of count rows, at the 0.001 level."""
    table = np.array(rows, dtype=float)
    table = table[:, table.sum(axis=0) > 0]  # categories neither side ever took carry no test
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    statistic = ((table - expected) ** 2 / expected).sum()
    return statistic > CHI_SQUARE_999[(table.shape[0] - 1) * (table.shape[1] - 1)]


def test_guided_search_is_reproducible_by_seed_also_when_exploring():
    guide = StubGuide(prior=lambda o: np.linspace(0, 1, NUM_ACTIONS))
    search = SearchHungryPolicy(30, guide, explore=True)
    for index, (observation, view) in enumerate(positions(2, 1)[::5]):
        moves = {search.act(observation, np.random.default_rng(index), view) for _ in range(2)}
        assert len(moves) == 1


def test_cutoff_values_the_position_where_the_observer_is_next_to_move():
    observation, view = positions(2, 1)[4]  # the fifth play of the game
    candidates = np.flatnonzero(observation["action_mask"])[:3]
    guide = StubGuide(value=0.375)
    shares = playout_win_shares(view, candidates, 5, np.random.default_rng(0), guide, cutoff=3)
    assert (shares == 0.375).all()
    layout = observation_layout(2)
    valued = np.concatenate(guide.valued)
    assert len(valued) == 15
    # Seat 0 (the observer) is to move, after the candidate and at least 3 more plays: in a
    # 2-player game, the candidate and exactly 3 more, as seats alternate.
    assert (valued[:, layout["to_move"]] == [1, 0]).all()
    placed = valued[:, layout["placed"]].sum(axis=1)
    assert (placed == view.num_plays + 4).all()


def test_cutoff_beyond_the_end_plays_the_game_out_as_plain_search():
    observation, view = positions(2, 1)[30]
    candidates = np.flatnonzero(observation["action_mask"])
    guide = StubGuide(value=-5.0)
    cut = playout_win_shares(view, candidates, 8, np.random.default_rng(3), guide,
                             cutoff=TOTAL_PLAYS)
    whole = playout_win_shares(view, candidates, 8, np.random.default_rng(3))
    assert np.array_equal(cut, whole)
    assert guide.valued == []


def test_improved_policy_by_hand():
    # Plays 3 and 7 searched 10 times each (means 0.6 and 0.4), play 9 not: its mean is
    # completed by the searched ones' playout-weighted mean, 0.5. sigma = (50 + 10) * 0.1 = 6.
    statistics = SearchStatistics(actions=np.array([3, 7, 9]), logits=np.array([0.0, -1, -2]),
                                  counts=np.array([10, 10, 0]), means=np.array([0.6, 0.4, 0]))
    assert sigma_scale(10) == pytest.approx(6.0)
    scores = [0 + 6 * 0.6, -1 + 6 * 0.4, -2 + 6 * 0.5]
    expected = [math.exp(s) / sum(math.exp(t) for t in scores) for s in scores]
    target = statistics.improved_policy()
    assert target[[3, 7, 9]] == pytest.approx(expected)
    assert target.sum() == pytest.approx(1.0)
    assert np.count_nonzero(target) == 3
    # Nothing searched (a single candidate): the softmax of the logits.
    unsearched = SearchStatistics(actions=np.array([3, 7]), logits=np.array([0.0, -1]),
                                  counts=np.array([0, 0]), means=np.array([0.0, 0]))
    assert unsearched.improved_policy()[[3, 7]] == pytest.approx(
        [1 / (1 + math.exp(-1)), math.exp(-1) / (1 + math.exp(-1))])


@pytest.mark.parametrize(("spec", "problem"), [
    ("search:x:pretrained:hungry_2p", "positive integer"),
    ("search::pretrained:hungry_2p", "number of playouts N must come before"),
    ("search:20:expert", "'expert' is not a trained network"),
    ("search:20:nonsense", "the network 'nonsense'"),
    ("search:20:4:pretrained:hungry_2p", "cut-off 4 needs a network whose value head"),
    ("search:20:pretrained:hungry_4p", "the network 'pretrained:hungry_4p'"),
])
def test_bad_guided_specs_say_what_is_wrong(spec, problem):
    with pytest.raises(ValueError, match=problem):
        make_policy(spec, "hungry", 2)


def test_pretrained_network_guides_the_search():
    search = make_policy("search:16:pretrained:hungry_2p:network", "hungry", 2)
    assert search.name == "search:16:pretrained:hungry_2p:network"
    observation, view = positions(2, 1)[0]
    move = search.act(observation, np.random.default_rng(0), view)
    assert observation["action_mask"][move] == 1
    statistics = search.last_search
    assert statistics.logits.max() == 0.0
    assert statistics.counts.sum() <= 16


def test_a_guided_budget_of_plays_searches_as_the_guided_search_n_where_it_gives_n():
    budgeted = make_policy("search:4800plays:pretrained:hungry_2p", "hungry", 2)
    counted = make_policy("search:100:pretrained:hungry_2p", "hungry", 2)
    assert (budgeted.plays, budgeted.guide.name) == (4800, "pretrained:hungry_2p:network")
    assert budgeted.name == "search:4800plays:pretrained:hungry_2p:network"
    observation, view = next(views_along_a_game(2, seed=2))
    assert view.num_plays == 0  # 48 plays left: 4800 plays are 100 playouts
    for seed in range(3):
        move = budgeted.act(observation, np.random.default_rng(seed), view)
        assert move == counted.act(observation, np.random.default_rng(seed), view)
        for field in ("actions", "logits", "counts", "means"):
            assert np.array_equal(getattr(budgeted.last_search, field),
                                  getattr(counted.last_search, field))
    with pytest.raises(ValueError, match="in 'search:40plays:pretrained:hungry_2p', a budget of "
                                         "plays must be at least 48"):
        make_policy("search:40plays:pretrained:hungry_2p", "hungry", 2)
