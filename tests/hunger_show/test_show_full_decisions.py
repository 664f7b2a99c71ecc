"""The full-decision mode (``decision_mode="agents"``): games equal the default mode when every
step follows the S19 rules, masks are exactly the legal choices, no step leaks hidden values,
and PettingZoo's own API checks pass."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from hunger_rl.engines.hunger_show.engine import RuleError, ShowConfig, ShowGame, num_locations
from hunger_rl.engines.hunger_show.full_decisions import (
    NUM_FULL_ACTIONS,
    NUM_PICKS,
    PLACE_BASE,
    SEAT_BASE,
    STEP_KINDS,
    TOKEN_BASE,
    TOKEN_CLASSES,
    meal_is_valid,
    rule_action,
    token_class,
)
from hunger_rl.engines.hunger_show.tokens import CAMPSITE, GUARD, RAFT, THIEF
from hunger_rl.engines.validation import IllegalActionError
from hunger_rl.envs import hunger_show_v0
from hunger_rl.envs.hunger_show.full_env import full_observation_layout

PLAYER_COUNTS = [2, 3, 4, 5, 6]


def day_picks(game, rng):
    """Random picks, half the time thieves and guards only, so that caught thieves, two guards
    and Campsite thefts come up often."""
    locs = num_locations(game.num_players)
    crowd = rng.random() < 0.5
    return [None if not game.alive[p] else
            (rng.randrange(locs), rng.choice((THIEF, GUARD)) if crowd else rng.randrange(5))
            for p in range(game.num_players)]


def differential_games(num_players, characters, seeds, kinds):
    """Play each seed twice, with decision objects and with rule actions: equal day by day."""
    config = ShowConfig(num_players, characters=characters)
    for seed in seeds:
        by_objects, by_steps = ShowGame(config, seed=seed), ShowGame(config, seed=seed)
        rng = random.Random(seed)
        while not by_objects.done:
            picks = day_picks(by_objects, rng)
            expected = by_objects.play_day(picks)
            log = by_steps.start_day(picks)
            while log is None:
                kinds[by_steps.pending.kind] += 1
                log = by_steps.choose(rule_action(by_steps, by_steps.pending))
            assert log == expected, (seed, by_objects.day)
            assert by_steps.to_dict() == by_objects.to_dict(), (seed, by_objects.day)


def test_rule_actions_replay_the_default_games():
    kinds = Counter()
    for num_players in PLAYER_COUNTS:
        for characters in (False, True):
            differential_games(num_players, characters, range(12), kinds)
    assert set(kinds) == set(STEP_KINDS) - {"pick"}  # every kind of step came up


@pytest.mark.slow
@pytest.mark.parametrize("characters", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_rule_actions_replay_1000_default_games(num_players, characters):
    differential_games(num_players, characters, range(1000), Counter())


def env_days(game_env, policy_picks):
    """Day logs of one game of the full-decision AEC env: picks from ``policy_picks``, every
    other step by ``rule_action`` from the observation."""
    logs = []
    for agent in game_env.agent_iter():
        observation, _, terminated, truncated, _ = game_env.last()
        if terminated or truncated:
            game_env.step(None)
            continue
        before = game_env.unwrapped.last_log
        if observation["action_mask"][:NUM_PICKS].any():
            game_env.step(policy_picks(agent))
        else:
            game_env.step(int(np.flatnonzero(observation["rule_action"])[0]))
        if game_env.unwrapped.last_log is not before:
            logs.append(game_env.unwrapped.last_log)
    return logs


@pytest.mark.parametrize("characters", [False, True])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_aec_env_with_rule_actions_equals_the_parallel_env(num_players, characters):
    for seed in range(3):
        parallel = hunger_show_v0.parallel_env(num_players=num_players, characters=characters)
        parallel.reset(seed=seed)
        rng = random.Random(seed)
        planned, expected = [], []
        while parallel.agents:
            actions = {a: rng.randrange(5 * num_locations(num_players)) for a in parallel.agents}
            planned.append(actions)
            parallel.step(actions)
            expected.append(parallel.last_log)
        full = hunger_show_v0.env(num_players=num_players, characters=characters,
                                  decision_mode="agents")
        full.reset(seed=seed)
        game = full.unwrapped.game
        assert env_days(full, lambda agent, game=game, planned=planned:
                        planned[game.day][agent]) == expected


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_full_decision_aec_api(num_players):
    with pytest.warns(UserWarning):
        api_test(hunger_show_v0.env(num_players=num_players, decision_mode="agents",
                                    characters=True), num_cycles=300)


def expected_mask(game, seat):
    """The legal actions of a pending step, computed from the rules without the engine's step
    code: tokens by class as the chooser sees them, supper meals by brute force, seats."""
    pending = game.pending
    n = game.num_players
    if pending.kind == "reject_place":
        return {PLACE_BASE, PLACE_BASE + 1}
    if pending.kind in ("steal_from", "pick_thief", "pick_guard"):
        if pending.kind == "pick_thief":
            seats = set(pending.context["thieves"])
        elif pending.kind == "pick_guard":
            seats = set(pending.context["guards"])
        else:
            stolen = set(pending.chosen)
            seats = {p for p in game.living() if p != seat
                     and any(t not in stolen for t in game.holdings[p])}
        return {SEAT_BASE + (s - seat) % n - 1 for s in seats}
    if pending.kind == "supper":
        food = [t for t in game.holdings[seat] if game.category[t] != RAFT]
        legal = set()
        for size in range(1, 5):
            for meal in combinations(food, size):
                if set(pending.chosen) <= set(meal) and meal_is_valid(
                        [game.value[t] for t in meal]):
                    legal |= {token_class(game, seat, t) for t in meal
                              if t not in pending.chosen}
        return {TOKEN_BASE + c for c in legal}
    if pending.kind == "gift":
        offered = game.holdings[seat]
    elif pending.kind == "ninja_hide":
        offered = [t for t in game.holdings[seat] if t not in pending.chosen]
    else:
        offered = pending.offered
    return {TOKEN_BASE + token_class(game, seat, t) for t in offered}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_players=st.sampled_from(PLAYER_COUNTS), characters=st.booleans(),
       seed=st.integers(0, 2**20), choices=st.randoms(use_true_random=False))
def test_masks_are_exactly_the_legal_choices(num_players, characters, seed, choices):
    game_env = hunger_show_v0.env(num_players=num_players, characters=characters,
                                  decision_mode="agents")
    game_env.reset(seed=seed)
    game = game_env.unwrapped.game
    layout = full_observation_layout(num_players)
    for agent in game_env.agent_iter():
        observation, _, terminated, truncated, _ = game_env.last()
        mask = observation["action_mask"]
        for other in game_env.agents:  # nobody else may act now
            assert other == agent or not game_env.observe(other)["action_mask"].any()
        if terminated or truncated:
            assert not mask.any()
            game_env.step(None)
            continue
        seat = int(agent.split("_")[1])
        legal = set(np.flatnonzero(mask).tolist())
        kind = STEP_KINDS[int(np.argmax(observation["observation"][layout["decision_kind"]]))]
        if game.pending is None:
            assert kind == "pick"
            assert legal == set(range(5 * num_locations(num_players)))
        else:
            assert game.pending.player == seat and kind == game.pending.kind
            assert legal == expected_mask(game, seat)
            assert int(np.flatnonzero(observation["rule_action"])[0]) in legal
        illegal = [a for a in range(NUM_FULL_ACTIONS) if a not in legal]
        if illegal:
            vector = observation["observation"].copy()
            with pytest.raises(IllegalActionError, match="masked"):
                game_env.step(choices.choice(illegal))
            assert np.array_equal(game_env.observe(agent)["observation"], vector)
        game_env.step(choices.choice(sorted(legal)))
    assert game.done and game.winners


def observations_over_hidden_tokens(player_1_holds, player_0_act, player_1_act):
    """player_0's observations at its take and steal_from steps in a one-day 3-player game at
    the Campsite (the show ends that evening)."""
    game_env = hunger_show_v0.env(num_players=3, decision_mode="agents")
    game_env.reset(seed=7, options={"leader": 0, "event_deck": ["end"], "holdings": {
        "player_0": ["can4", "can4"], "player_1": player_1_holds,
        "player_2": ["can4", "can3", "can1"]}})
    picks = {"player_0": 5 * CAMPSITE + player_0_act, "player_1": 5 * CAMPSITE + player_1_act,
             "player_2": 5 * CAMPSITE}
    seen = []
    for agent in game_env.agent_iter():
        observation, _, terminated, _, _ = game_env.last()
        if terminated:
            game_env.step(None)
            continue
        pending = game_env.unwrapped.game.pending
        if pending is None:
            game_env.step(picks[agent])
            continue
        if agent == "player_0" and pending.kind in ("take", "steal_from"):
            seen.append((pending.kind, observation))
        game_env.step(int(np.flatnonzero(observation["rule_action"])[0]))
    return seen


@pytest.mark.parametrize("player_0_act, player_1_act", [(GUARD, THIEF), (THIEF, 0)])
def test_steps_leak_no_hidden_values(player_0_act, player_1_act):
    """player_1's token values differ between the two games, their categories do not: the
    guard's takes from it and the free thief's theft look the same to player_0 (after the first
    take player_0 holds a token it knows, so later steps compare what they offer)."""
    first = observations_over_hidden_tokens(
        ["can4", "fruit3", "rope2", "coconut2", "chicken4"], player_0_act, player_1_act)
    second = observations_over_hidden_tokens(
        ["can1", "fruit2", "log1", "coconut0", "chicken1"], player_0_act, player_1_act)
    kinds = [kind for kind, _ in first]
    assert kinds.count("take") == 2 and kinds == [kind for kind, _ in second]
    assert ("steal_from" in kinds) == (player_0_act == THIEF)
    assert np.array_equal(first[0][1]["observation"], second[0][1]["observation"])
    offered_slice = full_observation_layout(3)["offered"]
    for (kind, one), (_, other) in zip(first, second, strict=True):
        for key in ("action_mask", "rule_action"):
            assert np.array_equal(one[key], other[key])
        offered = one["observation"][offered_slice]
        assert np.array_equal(offered, other["observation"][offered_slice])
        if kind == "take":  # offered only by category: player_0 knows none of these values
            assert offered.sum() > 0 and not offered[:len(TOKEN_CLASSES)].any()


def test_an_illegal_choice_changes_nothing_in_the_engine():
    game = ShowGame(ShowConfig(2), seed=1)
    assert game.start_day([(CAMPSITE, THIEF), (CAMPSITE, 0)]) is None
    pending = game.pending
    with pytest.raises(RuleError, match="must be one of"):
        game.choose(NUM_FULL_ACTIONS)
    assert game.pending is pending
    with pytest.raises(RuleError, match="pending"):
        game.play_day([(CAMPSITE, 0), (CAMPSITE, 0)])
    with pytest.raises(RuleError, match="middle of a day"):
        game.to_dict()


def test_agents_mode_has_no_parallel_form_and_takes_no_decision_objects():
    with pytest.raises(ValueError, match="no Parallel form"):
        hunger_show_v0.parallel_env(decision_mode="agents")
    with pytest.raises(ValueError, match="decisions"):
        hunger_show_v0.env(decision_mode="agents", decisions={})
    with pytest.raises(ValueError, match="decision_mode"):
        hunger_show_v0.env(decision_mode="everyone")
