"""Scripted policies: legal actions only, no hidden information, the documented rules."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.engines.hungry.engine import FULL_DECK, NUM_STARS, action_resort
from hunger_rl.engines.hungry.view import HungryView, public_view
from hunger_rl.envs import hunger_show_v0, hungry_v0
from hunger_rl.policies.hunger_show import ShowView, crowd_values, recent_habits
from hunger_rl.policies.hungry import GreedyHungryPolicy
from hunger_rl.policies.hungry_batched import BatchedPolicy, greedy_actions
from hunger_rl.policies.registry import make_policy, policy_specs

HUNGRY_SPECS = ["random", "greedy", "expert", "forecast", "search:8"]
SHOW_SPECS = ["random", "greedy", "expert", "crowd"]


def play_hungry(num_players, specs, seed):
    """One game, asserting that every action is allowed by the mover's mask."""
    game_env = hungry_v0.raw_env(num_players=num_players)
    game_env.reset(seed=seed)
    policies = [make_policy(specs[s], "hungry", num_players) for s in range(num_players)]
    rng = np.random.default_rng(seed)
    while not game_env.game.is_over:
        agent = game_env.agent_selection
        seat = game_env.possible_agents.index(agent)
        observation = game_env.observe(agent)
        action = policies[seat].act(observation, rng, public_view(game_env, agent))
        assert observation["action_mask"][action] == 1
        game_env.step(action)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_hungry_policies_play_only_legal_actions(num_players):
    for seed in range(6):
        # Rotate the specs so that every policy meets every other in different seats.
        shift = seed % len(HUNGRY_SPECS)
        play_hungry(num_players, HUNGRY_SPECS[shift:] + HUNGRY_SPECS[:shift], seed)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_show_policies_play_only_legal_actions(num_players):
    for seed in range(15):
        game_env = hunger_show_v0.parallel_env(num_players=num_players)
        observations, _ = game_env.reset(seed=seed)
        policies = {
            agent: make_policy(SHOW_SPECS[(seed + i) % len(SHOW_SPECS)], "hunger_show", num_players)
            for i, agent in enumerate(game_env.agents)
        }
        rng = np.random.default_rng(seed)
        while game_env.agents:
            actions = {}
            for agent in game_env.agents:
                action = policies[agent].act(observations[agent], rng)
                assert observations[agent]["action_mask"][action] == 1
                actions[agent] = action
            observations, *_ = game_env.step(actions)


def test_hungry_view_holds_nothing_hidden():
    """Two deals that differ only in player_1's hand and the deck order give player_0 the same
    view, and every scripted policy the same action with the same random seed."""
    deck = list(FULL_DECK)
    other = list(deck)
    # Swap player_1's hand (cards 10-17) with the bottom of the deck, and reverse the deck.
    other[10:18], other[-8:] = deck[-8:], deck[10:18]
    other[18:] = other[18:][::-1]
    assert other[:10] == deck[:10] and other[10:18] != deck[10:18]
    views, actions = [], []
    for order in (deck, other):
        game_env = hungry_v0.raw_env(num_players=2)
        game_env.reset(options={"deck": order})
        observation = game_env.observe("player_0")
        view = public_view(game_env, "player_0")
        views.append(view)
        actions.append(
            [
                make_policy(spec, "hungry", 2).act(observation, np.random.default_rng(7), view)
                for spec in HUNGRY_SPECS
            ]
        )
    for field in ("hand", "placed", "hand_sizes", "unseen", "resort_counts"):
        np.testing.assert_array_equal(getattr(views[0], field), getattr(views[1], field))
    assert views[0].deck_size == views[1].deck_size and views[0].to_move == views[1].to_move
    assert actions[0] == actions[1]


def test_show_policies_see_no_hidden_values():
    """player_1's token values differ between the two games, its categories do not."""
    first = {"player_1": ["can4", "fruit3", "rope2", "coconut2"]}
    second = {"player_1": ["can1", "fruit2", "log1", "coconut0"]}
    actions = []
    for holdings in (first, second):
        game_env = hunger_show_v0.parallel_env(num_players=3)
        observations, _ = game_env.reset(seed=3, options={"holdings": holdings})
        actions.append(
            [
                make_policy(spec, "hunger_show", 3).act(
                    observations["player_0"], np.random.default_rng(5)
                )
                for spec in SHOW_SPECS
            ]
        )
    assert actions[0] == actions[1]


def test_view_sample_state_is_consistent():
    game_env = hungry_v0.raw_env(num_players=3)
    game_env.reset(seed=4)
    for _ in range(13):
        agent = game_env.agent_selection
        game_env.step(int(np.flatnonzero(game_env.observe(agent)["action_mask"])[0]))
    view = public_view(game_env, game_env.agent_selection)
    state = view.sample_state(np.random.default_rng(0))
    true = game_env.game
    np.testing.assert_array_equal(state.hands[0], true.hands[true.current_player])
    np.testing.assert_array_equal(state.hand_sizes, np.roll(true.hand_sizes, -true.current_player))
    assert len(state.deck) == len(true.deck) and len(state.removed) == 2
    assert state.num_plays == 13 and state.current_player == 0
    # Every card is somewhere exactly twice: the engine's own consistency check passes.
    type(state).from_dict(state.to_dict())
    assert view.totals() == list(np.roll(true.totals(), -true.current_player))
    np.testing.assert_array_equal(view.remaining_plays(), [12, 12, 11])


def test_greedy_first_play_takes_a_five_point_resort():
    """Alone on an empty table, a play scores its resort's first place: 5 at any hotel or the
    5-star home, less at other homes, so greedy always picks one of the 5-point plays."""
    for seed in range(20):
        game_env = hungry_v0.raw_env(num_players=2)
        game_env.reset(seed=seed)
        action = make_policy("greedy", "hungry", 2).act(
            game_env.observe("player_0"), np.random.default_rng(seed)
        )
        resort = action_resort(action)
        assert resort >= NUM_STARS or resort == NUM_STARS - 1


def test_greedy_show_gathers_food_when_hungry():
    """With 20 food and 10 suppers ahead, food is short: greedy gathers a full food pile."""
    game_env = hunger_show_v0.parallel_env(num_players=2)
    observations, _ = game_env.reset(seed=0)
    view = ShowView.from_observation(observations["player_0"])
    assert view.food == 20 and view.food_needed() > 20
    action = make_policy("greedy", "hunger_show", 2).act(
        observations["player_0"], np.random.default_rng(0)
    )
    location, act = hunger_show_v0.decode_action(action)
    assert location != 0 and act in (0, 1)


def test_view_from_observation_matches_the_env():
    game_env = hungry_v0.raw_env(num_players=4)
    game_env.reset(seed=1)
    view = HungryView.from_observation(game_env.observe("player_2"))
    assert view.num_players == 4 and view.to_move == 2 and view.deck_size == 16


def test_registry_specs_and_errors(tmp_path):
    assert policy_specs("hungry") == ["random", "greedy", "expert", "forecast", "search", "ismcts"]
    assert policy_specs("hunger_show") == ["random", "greedy", "expert", "crowd", "ismcts",
                                           "smmcts"]
    assert make_policy("search:50", "hungry", 2).simulations == 50
    assert make_policy("search", "hungry", 2).simulations == 200
    with pytest.raises(ValueError, match="random, greedy, expert, forecast, search:N"):
        make_policy("alphazero", "hungry", 2)
    with pytest.raises(ValueError, match="unknown policy spec 'search:4'.*random, greedy, expert"):
        make_policy("search:4", "hunger_show", 2)
    with pytest.raises(ValueError, match="positive integer"):
        make_policy("search:0", "hungry", 2)
    with pytest.raises(ValueError, match="unknown policy spec 'crowd' for hungry"):
        make_policy("crowd", "hungry", 2)
    with pytest.raises(ValueError, match="no checkpoint"):
        make_policy(str(tmp_path / "missing.safetensors"), "hungry", 2)
    with pytest.raises(ValueError, match="unknown game"):
        make_policy("random", "chess", 2)


def test_search_is_reproducible_with_its_seed():
    game_env = hungry_v0.raw_env(num_players=2)
    game_env.reset(seed=2)
    observation = game_env.observe("player_0")
    picks = {
        make_policy("search:30", "hungry", 2).act(observation, np.random.default_rng(1))
        for _ in range(3)
    }
    assert len(picks) == 1


def test_crowd_plays_a_best_crowd_value():
    """``crowd`` picks an action of the highest crowd value: the expert's valuation with one
    reply round against yesterday's picks (a position after three days of random play)."""
    game_env = hunger_show_v0.parallel_env(num_players=4)
    observations, _ = game_env.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(3):
        observations, *_ = game_env.step({
            agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
            for agent in game_env.agents})
    policy = make_policy("crowd", "hunger_show", 4)
    for agent in game_env.agents:
        view = ShowView.from_observation(observations[agent])
        actions = np.flatnonzero(observations[agent]["action_mask"])
        values, _ = crowd_values(view, actions, recent_habits(view, actions), reply_rounds=1)
        chosen = policy.act(observations[agent], np.random.default_rng(0))
        assert values[list(actions).index(chosen)] == pytest.approx(values.max())


@pytest.mark.parametrize("num_players", [2, 4])
def test_compiled_greedy_picks_are_the_python_greedy_values(num_players):
    """The batched engine's compiled greedy player and GreedyHungryPolicy, its Python twin,
    value the plays alike: the compiled pick is one of the Python player's best plays, in
    positions from random play."""
    batch = BatchedHungry(num_players, 48)
    out = batch.reset(seed=num_players)
    random_players = BatchedPolicy("random", 48, seed=1)
    for turn in range(40):
        picks = greedy_actions(batch, seed=turn)
        for game in range(48):
            observation = {"observation": out.observations[game],
                           "action_mask": out.action_masks[game]}
            actions, values = GreedyHungryPolicy.values(observation)
            best = set(actions[values >= values.max() - 1e-9].tolist())
            assert int(picks[game]) in best, (turn, game)
        out = batch.step(random_players.act(batch).copy())
