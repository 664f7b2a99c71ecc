"""BatchedShow against the reference: the same shows as hunger_show_v0 for the same seeds and
actions, every observation, mask, reward, elimination, end condition and ranking compared."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.batched import (
    END_CONDITIONS,
    MAX_PLAYERS,
    PREFETCH_FROM,
    BatchedShow,
    stream_seed,
)
from hunger_rl.engines.hunger_show.batched.decisions import supper
from hunger_rl.engines.hunger_show.batched.layout import HOLD, HOLD_N, MAX_TOKENS, ROW_SIZE
from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.tokens import EVENT_PRESETS, RAFT, token_table
from hunger_rl.engines.validation import IllegalActionError, InvalidValueError, NotResetError
from hunger_rl.envs.hunger_show.env import ShowParallelEnv

VARIANTS = [(characters, events) for characters in (False, True) for events in EVENT_PRESETS]


def random_actions(rng, focus, batch, num_players):
    """Each show draws its players' actions from its own subset of the legal actions, so that
    small subsets crowd players together (catches, gifts, shared loot, cancellations)."""
    actions = np.empty((batch.batch_size, num_players), np.int64)
    for show, subset in enumerate(focus):
        actions[show] = rng.choice(subset, size=num_players)
    return actions


def new_focus(rng, num_legal):
    return rng.choice(num_legal, size=int(rng.integers(1, num_legal + 1)), replace=False)


def assert_same_view(env, observations, masks, where):
    for agent in env.possible_agents:
        seat = env.agent_seats[agent]
        expected = env.observe(agent)
        np.testing.assert_array_equal(observations[seat], expected["observation"],
                                      err_msg=f"{where}: observation of {agent}")
        np.testing.assert_array_equal(masks[seat], expected["action_mask"],
                                      err_msg=f"{where}: mask of {agent}")


def replay(num_players, characters, events, num_shows, batch_size=16, seed=0):
    """Play random shows in a batch and the same shows in hunger_show_v0; return the number of
    shows compared to their end."""
    rng = np.random.default_rng(seed)
    batch = BatchedShow(num_players, batch_size, events=events, characters=characters)
    seeds = rng.integers(0, 2 ** 63, size=batch_size)
    out = batch.reset(seeds=seeds)
    envs = [ShowParallelEnv(num_players=num_players, events=events, characters=characters)
            for _ in range(batch_size)]
    for show, env in enumerate(envs):
        env.reset(seed=int(seeds[show]))
        assert_same_view(env, out.observations[show], out.action_masks[show], f"reset {show}")
    focus = [new_focus(rng, batch.num_legal) for _ in range(batch_size)]
    finished = 0
    while finished < num_shows:
        actions = random_actions(rng, focus, batch, num_players)
        results = [env.step({a: int(actions[show, env.agent_seats[a]]) for a in env.agents})
                   for show, env in enumerate(envs)]
        out = batch.step(actions)
        for show, env in enumerate(envs):
            where = f"show {show} (seed {batch.seeds[show]}, #{batch.shows_played[show]})"
            _, rewards, terminations, _, infos = results[show]
            game = env.game
            assert bool(out.done[show]) == game.done, where
            for agent, reward in rewards.items():
                seat = env.agent_seats[agent]
                assert out.rewards[show, seat] == pytest.approx(reward, abs=1e-12), where
                assert out.terminated[show, seat] == terminations[agent], where
            left = [env.agent_seats[a] for a in env.possible_agents if a not in rewards]
            assert not out.terminated[show, left].any() and not out.rewards[show, left].any()
            if not game.done:
                assert_same_view(env, out.observations[show], out.action_masks[show], where)
                continue
            assert_same_view(env, out.final_observations[show], out.final_masks[show], where)
            assert END_CONDITIONS[out.end_condition[show]] == game.end_condition, where
            assert list(np.flatnonzero(out.winners[show])) == game.winners, where
            keys = {seat: tuple(out.ranking_keys[show, seat]) for seat in range(num_players)
                    if out.ranking_keys[show, seat, 0] >= 0}
            assert keys == game.final_keys, where
            assert out.days[show] == game.day, where
            finished += 1
            env.reset(seed=stream_seed(int(batch.seeds[show]), int(batch.shows_played[show])))
            assert_same_view(env, out.observations[show], out.action_masks[show], where)
            focus[show] = new_focus(rng, batch.num_legal)
    return finished


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("characters,events", VARIANTS)
def test_batched_shows_match_the_reference(num_players, characters, events):
    assert replay(num_players, characters, events, num_shows=8, batch_size=4,
                  seed=num_players) >= 8


SHOWS_PER_VARIANT = -(-10_000 // len(VARIANTS))  # 10,000 shows per player count in all


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("characters,events", VARIANTS)
def test_ten_thousand_batched_shows_per_player_count_match_the_reference(num_players, characters,
                                                                         events):
    """One variant's share of 10,000 shows per player count; the (player count, variant) cases
    run in parallel under pytest-xdist."""
    assert replay(num_players, characters, events, SHOWS_PER_VARIANT, batch_size=64,
                  seed=100 + num_players) >= SHOWS_PER_VARIANT


def test_supper_is_the_default_decision_on_random_holdings():
    """Holdings crowded with low food and ties of value and kind, so that every S15 pattern
    and the S21d tie-breaks (3 + 1 against 2 + 2 by kinds, then ids) are met."""
    category, value, _, _ = token_table(MAX_PLAYERS)
    game = SimpleNamespace(category=category, value=value)
    rng = np.random.default_rng(0)
    row = np.zeros(ROW_SIZE, np.int16)
    meal = np.empty(MAX_TOKENS, np.int64)
    food = [t for t in range(MAX_TOKENS) if category[t] != RAFT]
    low = [t for t in food if value[t] <= 3]
    rafts = [t for t in range(MAX_TOKENS) if category[t] == RAFT]
    patterns = set()
    for trial in range(20_000):
        pool = low if trial % 2 else food
        holding = list(rng.choice(pool, size=int(rng.integers(0, 12)), replace=False))
        holding += list(rng.choice(rafts, size=int(rng.integers(0, 3)), replace=False))
        rng.shuffle(holding)
        seat = int(rng.integers(MAX_PLAYERS))
        row[HOLD + seat * MAX_TOKENS:HOLD + seat * MAX_TOKENS + len(holding)] = holding
        row[HOLD_N + seat] = len(holding)
        game.holdings = {seat: holding}
        eaten = supper(row, seat, meal)
        if sum(value[t] for t in holding if category[t] != RAFT) < 4:
            assert eaten == 0, holding
            continue
        expected = DefaultDecisions().supper(game, seat)
        assert list(meal[:eaten]) == expected, holding
        patterns.add(tuple(value[t] for t in expected))
    assert patterns == {(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1), (3, 2), (3, 3)}


def test_restart_deals_each_listed_show_its_next_seed_in_turn():
    batch = BatchedShow(3, 4, characters=True)
    batch.reset(seeds=[11, 2 ** 40, 7, 2 ** 63 - 1])
    out = batch.step(np.zeros((4, 3), np.int64))
    untouched = out.observations[2].copy()
    played = batch.shows_played.copy()
    out = batch.restart([1, 3, 1])  # show 1 listed twice: dealt with its next two seeds
    assert list(batch.shows_played - played) == [0, 2, 0, 1]
    np.testing.assert_array_equal(out.observations[2], untouched)
    for show in (1, 3):
        env = ShowParallelEnv(num_players=3, characters=True)
        env.reset(seed=stream_seed(int(batch.seeds[show]), int(batch.shows_played[show])))
        assert_same_view(env, out.observations[show], out.action_masks[show], f"show {show}")


def test_a_batch_large_enough_to_prefetch_plays_as_smaller_batches():
    """From PREFETCH_FROM shows the step prefetches the next shows' state; the shows must be
    those of the same seeds and actions in batches below that size."""
    rng = np.random.default_rng(3)
    size = PREFETCH_FROM + 3
    seeds = rng.integers(0, 2 ** 63, size=size)
    large = BatchedShow(4, size, characters=True)
    parts = [(BatchedShow(4, len(part), characters=True), part)
             for part in np.array_split(np.arange(size), 3)]
    large_out = large.reset(seeds=seeds)
    part_outs = [batch.reset(seeds=seeds[part]) for batch, part in parts]
    for day in range(40):
        actions = np.argmax(rng.random(large_out.action_masks.shape) * large_out.action_masks,
                            axis=-1)
        large_out = large.step(actions)
        part_outs = [batch.step(actions[part]) for batch, part in parts]
        for (batch, part), out in zip(parts, part_outs, strict=True):
            np.testing.assert_array_equal(large.games[part], batch.games, err_msg=f"day {day}")
            for field in ("observations", "action_masks", "rewards", "terminated", "done"):
                np.testing.assert_array_equal(getattr(large_out, field)[part],
                                              getattr(out, field), err_msg=f"{field}, day {day}")
    assert large.shows_played.sum() > 0  # the re-deal after a show's end was compared too


def test_slot_seed_stream_depends_on_slot_seed_only():
    assert stream_seed(5, 0) == 5
    assert len({stream_seed(5, e) for e in range(100)}) == 100
    assert all(0 <= stream_seed(2 ** 63 - 1, e) < 2 ** 63 for e in range(10))


def test_refused_inputs_name_the_problem_and_change_nothing():
    with pytest.raises(InvalidValueError, match="default decisions"):
        BatchedShow(4, 2, decisions=[DefaultDecisions()] * 4)
    with pytest.raises(InvalidValueError, match="decision_mode"):
        BatchedShow(4, 2, decision_mode="agents")
    batch = BatchedShow(2, 3)
    with pytest.raises(NotResetError, match="reset"):
        batch.step(np.zeros((3, 2), np.int64))
    batch.reset(seed=1)
    games, observations = batch.games.copy(), batch.outputs.observations.copy()
    actions = np.zeros((3, 2), np.int64)
    actions[1, 1] = 10  # the Jungle is not in play with 2 players
    with pytest.raises(IllegalActionError, match="show 1, player_1: action 10"):
        batch.step(actions)
    with pytest.raises(IllegalActionError, match="shape"):
        batch.step(np.zeros((3, 3), np.int64))
    with pytest.raises(IllegalActionError, match="ints"):
        batch.step(np.zeros((3, 2)))
    np.testing.assert_array_equal(batch.games, games)
    np.testing.assert_array_equal(batch.outputs.observations, observations)


def test_shaped_rewards_match_the_reference():
    batch = BatchedShow(3, 4, reward="shaped", characters=True)
    out = batch.reset(seeds=[10, 11, 12, 13])
    envs = [ShowParallelEnv(num_players=3, reward="shaped", characters=True) for _ in range(4)]
    for show, env in enumerate(envs):
        env.reset(seed=10 + show)
    rng = np.random.default_rng(3)
    for _ in range(12):
        actions = rng.integers(0, batch.num_legal, size=(4, 3))
        results = [env.step({a: int(actions[s, env.agent_seats[a]]) for a in env.agents})
                   for s, env in enumerate(envs)]
        out = batch.step(actions)
        for show, result in enumerate(results):
            for agent, reward in result[1].items():
                assert out.rewards[show, envs[show].agent_seats[agent]] == pytest.approx(reward)
            if out.done[show]:
                envs[show].reset(seed=stream_seed(10 + show, int(batch.shows_played[show])))
