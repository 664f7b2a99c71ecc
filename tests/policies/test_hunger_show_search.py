"""``smmcts:N``: the simultaneous-move search for HUNGER: The Show, from observations alone."""

from __future__ import annotations

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.tokens import CAN, RAFT
from hunger_rl.engines.validation import InvalidValueError
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies.hunger_show_search import (
    RM_EXPLORATION,
    SMMCTSShowPolicy,
    add_sampled_regrets,
    draw_rows,
    matched_strategies,
    rollout_pick,
)
from hunger_rl.policies.registry import make_policy


def random_days(env, observations, rng, days):
    """``days`` days of uniformly random legal picks."""
    for _ in range(days):
        if not env.agents:
            break
        observations, *_ = env.step({agent: int(rng.choice(np.flatnonzero(
            observations[agent]["action_mask"]))) for agent in env.agents})
    return observations


@pytest.mark.parametrize(("players", "options"), [
    (2, {}), (3, {"characters": True}), (5, {"events": "hard"}), (6, {"eliminated": "stay"})])
def test_smmcts_plays_whole_shows_with_legal_picks_only(players, options):
    """Every seat searches, from the first day to the end; the env raises on a masked pick
    (``illegal_action="raise"``), and each pick is checked against its mask here too."""
    env = hunger_show_v0.parallel_env(num_players=players, illegal_action="raise", **options)
    observations, _ = env.reset(seed=players)
    policy = make_policy("smmcts:6", "hunger_show", players)
    rng = np.random.default_rng(players)
    days = 0
    while env.agents:
        actions = {agent: policy.act(observations[agent], rng) for agent in env.agents}
        for agent, action in actions.items():
            assert observations[agent]["action_mask"][action] == 1
        observations, *_ = env.step(actions)
        days += 1
    assert days >= 2


def test_the_same_seed_gives_the_same_picks_and_the_pick_depends_on_the_seed():
    env = hunger_show_v0.parallel_env(num_players=4)
    observations = random_days(env, env.reset(seed=11)[0], np.random.default_rng(1), 2)
    observation = observations[env.agents[0]]
    first, second = SMMCTSShowPolicy(12), SMMCTSShowPolicy(12)
    picks = [first.act(observation, np.random.default_rng(seed)) for seed in range(12)]
    assert picks == [second.act(observation, np.random.default_rng(seed)) for seed in range(12)]
    assert len(set(picks)) > 1  # 12 simulations over 15 picks: the seed decides which are tried


def swapped_unknown_values(game, observer: int) -> tuple[int, int]:
    """Two tokens of one category (and colour) with different values, neither known to
    ``observer`` and neither held by it; an error if the show has none."""
    held = set(game.holdings[observer])
    by_type: dict[tuple[int, int], dict[int, int]] = {}
    for token in range(len(game.category)):
        if token in held or game.knows(observer, token):
            continue
        key = (game.category[token], game.colour[token])
        by_type.setdefault(key, {}).setdefault(game.value[token], token)
    for values in by_type.values():
        if len(values) >= 2:
            first, second = list(values.values())[:2]
            return first, second
    raise AssertionError("no two unknown tokens of one type with different values")


def swap_places(game, first: int, second: int) -> None:
    """Exchange where two tokens lie (holdings, piles, the coconut stack, the box), each place
    keeping who remembers the value found there."""
    containers = [*game.holdings, *(pile for loc in game.piles for pile in loc), game.coconuts,
                  game.out]
    places = {token: (container, container.index(token)) for container in containers
              for token in (first, second) if token in container}
    (c1, i1), (c2, i2) = places[first], places[second]
    c1[i1], c2[i2] = second, first
    game.known[first], game.known[second] = game.known[second], game.known[first]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_values_the_player_does_not_know_do_not_change_its_choice_distribution(players):
    """Swap two tokens of a type whose values differ and that the searching player has not
    seen (a raft token in another player's hand against one in a pile, say): its observation and,
    seed by seed, its picks stay the same. The same swap of a token it holds changes its
    observation: the swap reaches what a player observes when the player knows the value."""
    env = hunger_show_v0.parallel_env(num_players=players)
    observations = random_days(env, env.reset(seed=20 + players)[0], np.random.default_rng(3), 2)
    agent = env.agents[-1]
    seat = env.agent_seats[agent]
    policy = SMMCTSShowPolicy(10)
    before = observations[agent]
    picks = [policy.act(before, np.random.default_rng(seed)) for seed in range(8)]
    original = env.game.clone()

    swap_places(env.game, *swapped_unknown_values(env.game, seat))
    after = env.observe(agent)
    np.testing.assert_array_equal(after["observation"], before["observation"])
    assert [policy.act(after, np.random.default_rng(seed)) for seed in range(8)] == picks

    env.game = original
    own = next(t for t in env.game.holdings[seat] if env.game.category[t] in (CAN, RAFT))
    other = next(t for t in range(len(env.game.category)) if t not in env.game.holdings[seat]
                 and env.game.category[t] == env.game.category[own]
                 and env.game.colour[t] == env.game.colour[own]
                 and env.game.value[t] != env.game.value[own])
    swap_places(env.game, own, other)
    changed = env.observe(agent)["observation"]
    assert not np.array_equal(changed, before["observation"])


def test_the_rollout_player_gathers_food_when_short_and_raft_tokens_otherwise():
    env = hunger_show_v0.parallel_env(num_players=4)
    env.reset(seed=5)
    game = env.game.clone()

    class NeverRandom:  # the rollout player's draws: never a random pick, the first pile
        @staticmethod
        def random():
            return 1.0

        @staticmethod
        def randrange(stop):
            return 0

    # 20 food points in cans at the start (S3): no food needed, the first raft pile.
    assert rollout_pick(game, 0, NeverRandom) == (1, RAFT)
    game.holdings[0] = [t for t in game.holdings[0] if game.category[t] != CAN]
    assert rollout_pick(game, 0, NeverRandom) == (1, 0)  # no food: the Beach's fruit


@pytest.mark.parametrize(("arguments", "message"), [
    ({"simulations": 0}, "simulations must be at least 1, got 0"),
    ({"simulations": 2.5}, "simulations must be an integer, got 2.5"),
    ({"simulations": True}, "simulations must be an integer, got True"),
    ({"simulations": 5, "exploration": -1.0}, r"exploration must be a finite number >= 0"),
    ({"simulations": 5, "exploration": float("nan")}, r"exploration must be a finite number"),
    ({"simulations": 5, "exploration": "1"}, r"exploration must be a finite number"),
])
def test_bad_parameters_are_refused_with_their_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        SMMCTSShowPolicy(**arguments)


@pytest.mark.parametrize(("spec", "message"), [
    ("smmcts:0", "the number after ':' must be a positive integer"),
    ("smmcts:many", "the number after ':' must be a positive integer"),
])
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, "hunger_show", 4)


def test_the_spec_builds_the_search_and_hungry_has_none():
    policy = make_policy("smmcts", "hunger_show", 3)
    assert isinstance(policy, SMMCTSShowPolicy) and policy.name == "smmcts:100"
    assert make_policy("smmcts:7", "hunger_show", 3).simulations == 7
    with pytest.raises(ValueError, match="unknown policy spec 'smmcts:7' for hungry"):
        make_policy("smmcts:7", "hungry", 2)


def test_observations_it_cannot_search_are_refused_clearly():
    policy = SMMCTSShowPolicy(3)
    rng = np.random.default_rng(0)
    full = hunger_show_v0.raw_env(num_players=3, decision_mode="agents")
    full.reset(seed=0)
    with pytest.raises(ValueError, match="full-decision mode .* is not supported"):
        policy.act(full.observe(full.agent_selection), rng)
    env = hunger_show_v0.parallel_env(num_players=3)
    observation = env.reset(seed=0)[0]["player_0"]
    with pytest.raises(InvalidValueError, match="not a hunger_show_v0 observation"):
        policy.act({**observation, "observation": observation["observation"][:-1]}, rng)
    with pytest.raises(ValueError, match="the action mask allows no action"):
        policy.act({**observation, "action_mask": np.zeros_like(observation["action_mask"])},
                   rng)
    mask = observation["action_mask"].copy()
    mask[3] = 0
    with pytest.raises(ValueError, match="a living player of a 3-player show may pick any"):
        policy.act({**observation, "action_mask": mask}, rng)


class EqualLogits:
    """A network that cannot tell the picks apart: equal logits over the whole action space."""

    name = "equal"

    def logits(self, observations):
        return np.zeros((len(observations), 20))


class Prefers:
    """A network sure of one pick."""

    def __init__(self, pick: int):
        self.pick = pick
        self.name = f"prefers{pick}"

    def logits(self, observations):
        logits = np.zeros((len(observations), 20))
        logits[:, self.pick] = 10.0
        return logits


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_guide_with_equal_logits_searches_as_plain_smmcts(players):
    """The progressive bias is centred on the uniform prior: exactly 0 for equal logits, so the
    picks and every visit count are plain ``smmcts:N``'s, seed by seed."""
    env = hunger_show_v0.parallel_env(num_players=players)
    observations = random_days(env, env.reset(seed=players)[0], np.random.default_rng(2), 1)
    plain, guided = SMMCTSShowPolicy(20), SMMCTSShowPolicy(20, guide=EqualLogits())
    for agent in env.agents:
        for seed in range(4):
            assert (plain.act(observations[agent], np.random.default_rng(seed))
                    == guided.act(observations[agent], np.random.default_rng(seed)))
            assert np.array_equal(plain.last_visits, guided.last_visits)


def test_a_guide_that_prefers_a_pick_sends_the_search_there():
    env = hunger_show_v0.parallel_env(num_players=4)
    observation = env.reset(seed=3)[0]["player_0"]
    plain, guided = SMMCTSShowPolicy(40), SMMCTSShowPolicy(40, guide=Prefers(7))
    plain_visits = guided_visits = 0
    for seed in range(6):
        plain.act(observation, np.random.default_rng(seed))
        plain_visits += plain.last_visits[7]
        guided.act(observation, np.random.default_rng(seed))
        guided_visits += guided.last_visits[7]
    assert guided_visits > 2 * plain_visits


def test_the_visit_policy_leaves_out_each_picks_first_try():
    policy = SMMCTSShowPolicy(5)
    assert policy.visit_policy() is None  # no search yet
    policy.last_visits = np.array([4.0, 1.0, 2.0, 1.0])
    assert policy.visit_policy().tolist() == [0.75, 0.0, 0.25, 0.0]
    policy.last_visits = np.array([1.0, 0.0, 1.0, 1.0])  # fewer simulations than picks
    assert np.allclose(policy.visit_policy(), [1 / 3, 0.0, 1 / 3, 1 / 3])
    env = hunger_show_v0.parallel_env(num_players=3)
    observation = env.reset(seed=0)[0]["player_0"]
    policy.act(observation, np.random.default_rng(0))
    assert policy.last_visits.sum() == 5 and policy.visit_policy().sum() == pytest.approx(1.0)


def test_the_guided_spec_builds_the_search_around_the_shipped_network():
    policy = make_policy("smmcts:6:pretrained:hunger_show_4p", "hunger_show", 4)
    assert isinstance(policy, SMMCTSShowPolicy) and policy.simulations == 6
    assert policy.name == "smmcts:6:pretrained:hunger_show_4p"
    env = hunger_show_v0.parallel_env(num_players=4)
    observations = env.reset(seed=1)[0]
    for agent in env.agents:
        action = policy.act(observations[agent], np.random.default_rng(0))
        assert observations[agent]["action_mask"][action] == 1


@pytest.mark.parametrize(("spec", "message"), [
    ("smmcts:6:2:pretrained:hunger_show_4p", "smmcts takes no cut-off"),
    ("smmcts::pretrained:hunger_show_4p", "the number of simulations N must come before"),
    ("smmcts:6:expert", "'expert' is not a trained network"),
    ("smmcts:6:pretrained:nobody", "the network 'pretrained:nobody'"),
])
def test_bad_guided_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, "hunger_show", 4)


def test_explore_needs_a_guide():
    with pytest.raises(ValueError, match="explore adds Gumbel noise to a guide's logits"):
        SMMCTSShowPolicy(5, explore=True)


def test_regret_matching_self_play_of_rock_paper_scissors_averages_to_the_equilibrium():
    """The search's regret matching, on a game whose equilibrium is known: two players of rock,
    paper, scissors (win 1, draw 0.5, loss 0), each updating by outcome sampling from its own
    pick's payoff, average to a third each, started from regrets for rock alone."""
    payoff = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])
    rng = np.random.default_rng(0)
    regrets = np.zeros((2, 3))
    regrets[:, 0] = 1.0
    sums = np.zeros((2, 3))
    uniform = np.full((2, 3), 1 / 3)
    for _ in range(30_000):
        strategies = matched_strategies(regrets, uniform)
        sums += strategies
        chances = (1 - RM_EXPLORATION) * strategies + RM_EXPLORATION * uniform
        picks = draw_rows(chances, rng)
        outcomes = np.array([payoff[picks[0], picks[1]], payoff[picks[1], picks[0]]])
        add_sampled_regrets(regrets, picks, chances, outcomes)
    np.testing.assert_allclose(sums / sums.sum(axis=1, keepdims=True), 1 / 3, atol=0.03)


def test_sampled_regrets_by_hand():
    regrets = np.zeros((1, 3))
    add_sampled_regrets(regrets, np.array([2]), np.array([[0.5, 0.25, 0.25]]), np.array([0.5]))
    # The pick made: 0.5 / 0.25 - 0.5; the others: 0 - 0.5.
    np.testing.assert_allclose(regrets, [[-0.5, -0.5, 1.5]])
    np.testing.assert_allclose(matched_strategies(regrets, np.full((1, 3), 1 / 3)), [[0, 0, 1]])
    np.testing.assert_allclose(matched_strategies(-regrets ** 2, np.full((1, 3), 1 / 3)),
                               [[1 / 3] * 3])


@pytest.mark.parametrize("spec", ["smmcts:12:rm", "smmcts:12:rm:pretrained:hunger_show_4p"])
def test_regret_matching_plays_a_pick_drawn_from_its_average_strategy(spec):
    """The same seed replays the same pick; over seeds the picks differ, each one the average
    strategy gives weight to; the strategy is a distribution over the picks."""
    env = hunger_show_v0.parallel_env(num_players=4)
    observations = random_days(env, env.reset(seed=11)[0], np.random.default_rng(1), 2)
    observation = observations[env.agents[0]]
    policy, again = make_policy(spec, "hunger_show", 4), make_policy(spec, "hunger_show", 4)
    assert policy.name == spec and policy.selection == "regret"
    picks = []
    for seed in range(10):
        pick = policy.act(observation, np.random.default_rng(seed))
        strategy = policy.visit_policy()
        assert strategy[pick] > 0 and abs(strategy.sum() - 1) < 1e-9
        assert again.act(observation, np.random.default_rng(seed)) == pick
        picks.append(pick)
    assert len(set(picks)) > 1


def test_regret_matching_plays_whole_shows_with_legal_picks_only():
    env = hunger_show_v0.parallel_env(num_players=3, illegal_action="raise")
    observations, _ = env.reset(seed=3)
    policy = make_policy("smmcts:6:rm", "hunger_show", 3)
    rng = np.random.default_rng(3)
    while env.agents:
        actions = {agent: policy.act(observations[agent], rng) for agent in env.agents}
        for agent, action in actions.items():
            assert observations[agent]["action_mask"][action] == 1
        observations, *_ = env.step(actions)
    with pytest.raises(ValueError, match=r"in 'smmcts:6:rm:expert', 'expert' is not a trained "
                                         r"network"):
        make_policy("smmcts:6:rm:expert", "hunger_show", 3)
    with pytest.raises(ValueError, match=r"selection must be one of \['ucb', 'regret'\]"):
        SMMCTSShowPolicy(6, selection="hedge")
