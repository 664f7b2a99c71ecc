"""The batched engine plays exactly the reference engine's games (differential tests)."""

import numpy as np
import pytest

from hunger_rl.engines.hungry.batched import BatchedHungry, observation_size, stream_deck
from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    NUM_RESORTS,
    TOTAL_PLAYS,
    HungryState,
    IllegalActionError,
    score_resorts,
)
from hunger_rl.engines.rewards import r1_rewards
from hunger_rl.envs import hungry_v0
from hunger_rl.policies.hungry_batched import BatchedPolicy, greedy_actions

GAMES_PER_PLAYER_COUNT = 10_000
STEP_CHECKED_GAMES = 1_000  # of those, masks and running totals compared every turn
OBSERVED_GAMES = 300  # compared observation by observation against hungry_v0


def play_one_game_each(batch, policy):
    """Step every game of a fresh batch to its end; the actions, per-step totals and outputs."""
    actions, totals, masks = [], [], []
    for _ in range(TOTAL_PLAYS):
        masks.append(batch.outputs.action_masks.copy())
        chosen = policy.act(batch).copy()
        actions.append(chosen)
        out = batch.step(chosen)
        totals.append(out.final_totals.copy() if out.done.all() else batch.totals.copy())
    return np.array(actions).T, np.array(totals).transpose(1, 0, 2), np.array(masks)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_ten_thousand_games_match_the_reference_engine(num_players):
    """Deals, final scores, winners and rewards of 10,000 games; masks and totals every turn
    of the first 1,000 (the slow test compares every observation of all 10,000)."""
    seeds = np.arange(GAMES_PER_PLAYER_COUNT) + 1000 * num_players
    batch = BatchedHungry(num_players, GAMES_PER_PLAYER_COUNT)
    batch.reset(seeds=seeds)
    first_hands = batch.hands.copy()
    actions, totals, masks = play_one_game_each(batch, BatchedPolicy("random", len(seeds), 1))
    out = batch.outputs
    assert out.done.all()
    for game, seed in enumerate(seeds.tolist()):
        state = HungryState.new_game(num_players, np.random.default_rng(seed))
        np.testing.assert_array_equal(state.hands, first_hands[game])
        if game < STEP_CHECKED_GAMES:
            for turn, action in enumerate(actions[game].tolist()):
                assert masks[turn, game].tolist() == state.legal_mask().tolist()
                state.apply_action(action)
                assert state.totals() == totals[game, turn].tolist()
        else:
            for action in actions[game].tolist():
                state.apply_action(action)
        score = state.score()
        assert list(score.totals) == out.final_totals[game].tolist()
        assert np.flatnonzero(out.winners[game]).tolist() == list(score.winners)
        np.testing.assert_array_equal(
            out.rewards[game], np.float32(r1_rewards(num_players, score.winners))
        )


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize(
    "options",
    [{}, {"first_player": "random", "reward": "score", "tied_second": "void"}],
    ids=["default", "random-first-score-void"],
)
def test_observations_match_hungry_v0(num_players, options):
    """Every observation, mask and reward of a batch equals hungry_v0's for the same seeds."""
    compare_with_hungry_v0(num_players, OBSERVED_GAMES, options, policy_kind="random")


@pytest.mark.parametrize("num_players", [2, 4])
def test_greedy_games_match_hungry_v0(num_players):
    compare_with_hungry_v0(num_players, 100, {}, policy_kind="greedy")


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_ten_thousand_games_observation_by_observation(num_players):
    compare_with_hungry_v0(num_players, GAMES_PER_PLAYER_COUNT, {}, policy_kind="random")


def compare_with_hungry_v0(num_players, num_games, options, policy_kind):
    seeds = np.arange(num_games) + 7 * num_players
    batch = BatchedHungry(num_players, num_games, **options)
    out = batch.reset(seeds=seeds)
    envs = []
    for seed in seeds.tolist():
        env = hungry_v0.raw_env(num_players=num_players, **options)
        env.reset(seed=seed)
        envs.append(env)
    policy = BatchedPolicy(policy_kind, num_games, seed=num_players)
    for _ in range(TOTAL_PLAYS):
        for game, env in enumerate(envs):
            agent = env.agent_selection
            assert out.to_move[game] == env.possible_agents.index(agent)
            seen = env.observe(agent)
            np.testing.assert_array_equal(seen["observation"], out.observations[game])
            np.testing.assert_array_equal(seen["action_mask"], out.action_masks[game])
        actions = policy.act(batch).copy()
        out = batch.step(actions)
        for env, action in zip(envs, actions.tolist(), strict=True):
            env.step(action)
    assert out.done.all()
    for game, env in enumerate(envs):
        rewards = [env.rewards[a] for a in env.possible_agents]
        np.testing.assert_array_equal(out.rewards[game], np.float32(rewards))
        totals = [env.infos[a]["score"] for a in env.possible_agents]
        assert out.final_totals[game].tolist() == totals
        winners = [env.possible_agents.index(a) for a in env.winners]
        assert np.flatnonzero(out.winners[game]).tolist() == winners


@pytest.mark.parametrize("random_first", [False, True])
def test_auto_reset_deals_the_slot_stream(random_first):
    """After a game ends, slot i plays game 1 of its stream, replayable in the reference engine."""
    num_players, num_games = 3, 200
    first_player = "random" if random_first else "player_0"
    batch = BatchedHungry(num_players, num_games, first_player=first_player)
    seeds = np.arange(num_games) * 31 + 5
    batch.reset(seeds=seeds)
    policy = BatchedPolicy("random", num_games, seed=3)
    for _ in range(TOTAL_PLAYS):
        out = batch.step(policy.act(batch).copy())
    assert out.done.all() and (batch.num_plays == 0).all()
    states = []
    for game, seed in enumerate(seeds.tolist()):
        order, first = stream_deck(seed, 1, num_players, random_first)
        assert batch.deck_order(game) == order
        state = HungryState.new_game(num_players, deck=order, first_player=first)
        np.testing.assert_array_equal(state.hands, batch.hands[game])
        assert batch.current_player[game] == first
        states.append(state)
    for _ in range(TOTAL_PLAYS):
        actions = policy.act(batch).copy()
        out = batch.step(actions)
        for state, action in zip(states, actions.tolist(), strict=True):
            state.apply_action(action)
    assert out.done.all()
    for game, state in enumerate(states):
        assert list(state.score().totals) == out.final_totals[game].tolist()
    if random_first:
        firsts = {stream_deck(int(s), e, num_players, True)[1] for s in seeds for e in (1, 2)}
        assert firsts == set(range(num_players))


def test_stream_deals_are_reproducible_and_distinct():
    order, first = stream_deck(12, 3)
    assert (order, first) == stream_deck(12, 3)
    assert sorted(order) == sorted(HungryState.new_game(2, deck=order).removed + order[2:])
    assert order != stream_deck(12, 4)[0] and order != stream_deck(13, 3)[0]
    assert np.bincount(order, minlength=25).tolist() == [2] * 25


def test_illegal_action_raises_and_changes_nothing():
    batch = BatchedHungry(2, 4)
    batch.reset(seeds=[0, 1, 2, 3])
    before = batch.games.copy()
    actions = BatchedPolicy("random", 4, 0).act(batch).copy()
    held = batch.hands[2, batch.current_player[2]]
    actions[2] = 2 * int(np.flatnonzero(held == 0)[0])
    with pytest.raises(IllegalActionError, match="game 2"):
        batch.step(actions)
    actions[2] = 50
    with pytest.raises(IllegalActionError, match="out of range"):
        batch.step(actions)
    np.testing.assert_array_equal(batch.games, before)


def test_step_games_steps_only_the_given_games():
    batch = BatchedHungry(4, 6)
    batch.reset(seed=0)
    policy = BatchedPolicy("random", 6, 0)
    games = np.array([1, 4])
    batch.step_games(games, policy.act(batch, games).copy())
    assert batch.num_plays.tolist() == [0, 1, 0, 0, 1, 0]


def test_reset_with_one_seed_is_reproducible():
    first, second = BatchedHungry(2, 8), BatchedHungry(2, 8)
    np.testing.assert_array_equal(
        first.reset(seed=5).observations.copy(), second.reset(seed=5).observations
    )
    assert first.outputs.observations.shape == (8, observation_size(2))


def test_masks_mark_both_destinations_of_held_cards():
    batch = BatchedHungry(3, 50)
    out = batch.reset(seed=1)
    np.testing.assert_array_equal(out.action_masks, batch.legal_masks())
    assert (out.action_masks[:, 0::2] == out.action_masks[:, 1::2]).all()
    assert (out.action_masks.reshape(50, 25, 2)[:, :, 0].sum(axis=1) >= 1).all()


def test_greedy_takes_the_best_margin():
    """Greedy's pick leaves a margin no other legal action beats (checked with the engine)."""
    batch = BatchedHungry(2, 64)
    batch.reset(seed=2)
    policy = BatchedPolicy("random", 64, 2)
    for _ in range(20):
        batch.step(policy.act(batch).copy())
    picks = greedy_actions(batch, seed=0)
    for game in range(64):
        player = int(batch.current_player[game])
        counts = [[0] * NUM_RESORTS for _ in range(2)]
        for p in range(2):
            for action, placed in enumerate(batch.placed[game, p].tolist()):
                counts[p][ACTION_RESORT[action]] += placed
        margins = {}
        for action in np.flatnonzero(batch.legal_masks()[game]).tolist():
            counts[player][ACTION_RESORT[action]] += 1
            totals = score_resorts(counts).totals
            counts[player][ACTION_RESORT[action]] -= 1
            margins[action] = totals[player] - totals[1 - player]
        assert margins[int(picks[game])] == max(margins.values())
