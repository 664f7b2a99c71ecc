"""PettingZoo conformance of hunger_show_v0 for 2 to 6 players, and its error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test

from hunger_rl.envs import hunger_show_v0
from hunger_rl.envs.hunger_show_v0 import IllegalActionError, encode_action

PLAYER_COUNTS = [2, 3, 4, 5, 6]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_parallel_api(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(hunger_show_v0.parallel_env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_parallel_seed(num_players):
    parallel_seed_test(lambda: hunger_show_v0.parallel_env(num_players=num_players,
                                                          characters=True))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_aec_api(num_players):
    api_test(hunger_show_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_render(num_players):
    render_test(lambda render_mode: hunger_show_v0.env(num_players=num_players,
                                                       render_mode=render_mode))
    env = hunger_show_v0.parallel_env(num_players=num_players, render_mode="rgb_array")
    env.reset(seed=1)
    env.step(dict.fromkeys(env.agents, 0))
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_ansi_render_shows_island_and_log():
    env = hunger_show_v0.parallel_env(num_players=5, render_mode="ansi")
    env.reset(seed=3)
    env.step({a: encode_action(3, 2) for a in env.agents})  # everyone seeks raft, Mountains
    text = env.render()
    assert "Mountains" in text and "player_4" in text and "Day 1" in text
    assert "raft at the mountains" in text


def test_mask_and_spaces_follow_the_locations_in_play():
    for num_players, legal in ((2, 10), (3, 15), (4, 15), (5, 20), (6, 20)):
        env = hunger_show_v0.parallel_env(num_players=num_players)
        observations, _ = env.reset(seed=0)
        for agent in env.agents:
            assert observations[agent]["action_mask"].tolist() == [1] * legal + [0] * (20 - legal)
        assert env.action_space("player_0").n == 20


def test_encode_decode_round_trip():
    for action in range(20):
        assert encode_action(*hunger_show_v0.decode_action(action)) == action
    assert encode_action(1, 0) == 5 and hunger_show_v0.decode_action(19) == (3, 4)
    with pytest.raises(ValueError):
        hunger_show_v0.decode_action(20)


def test_layout_covers_the_vector():
    for num_players in PLAYER_COUNTS:
        layout = hunger_show_v0.observation_layout(num_players)
        slices = list(layout.values())
        assert slices[0].start == 0
        assert all(a.stop == b.start for a, b in zip(slices, slices[1:], strict=False))
        env = hunger_show_v0.parallel_env(num_players=num_players)
        observations, _ = env.reset(seed=0)
        assert observations["player_0"]["observation"].shape == (slices[-1].stop,)
        assert env.observation_layout == layout


def snapshot(env):
    return env.unwrapped.game.to_dict(), list(env.agents)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ({"player_0": 0, "player_1": 15}, "masked"),  # Mountains, 2 players
        ({"player_0": 0}, "no action for living agent"),
        ({"player_0": 0, "player_1": 0, "player_7": 0}, "unknown agent"),
        ({"player_0": 0, "player_1": 20}, "outside"),
        ({"player_0": 0, "player_1": "x"}, "must be an integer"),
    ],
)
def test_bad_action_dicts_leave_the_state_unchanged(actions, message):
    env = hunger_show_v0.parallel_env(num_players=2)
    env.reset(seed=4)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=message):
        env.step(actions)
    assert snapshot(env) == before


def test_masked_action_message_names_agent_and_legal_actions():
    env = hunger_show_v0.parallel_env(num_players=3)
    env.reset(seed=4)
    with pytest.raises(IllegalActionError) as error:
        env.step({"player_0": 0, "player_1": 0, "player_2": encode_action(3, 1)})
    assert "player_2" in str(error.value) and "chicken@mountains" in str(error.value)
    assert "0..14" in str(error.value)


def test_eliminated_agent_and_step_after_end():
    env = hunger_show_v0.parallel_env(num_players=3)
    # player_2 starts with a single can of 1: it starves on day 1.
    env.reset(seed=0, options={"holdings": {"player_2": ["can1"]},
                               "event_deck": ["calm", "calm", "end"]})
    _, rewards, terminations, _, _ = env.step(dict.fromkeys(env.agents, 0))
    assert env.agents == ["player_0", "player_1"]
    assert terminations["player_2"] and rewards["player_2"] == pytest.approx(-0.5)
    # An action for an agent that has left is ignored, as PettingZoo's wrappers ignore extras.
    _, rewards, _, _, _ = env.step({"player_0": 0, "player_1": 0, "player_2": "anything"})
    assert set(rewards) == {"player_0", "player_1"} and env.unwrapped.game.day == 2
    _, rewards, terminations, _, infos = env.step(dict.fromkeys(env.agents, 0))
    assert env.agents == [] and all(terminations.values())
    assert infos["player_0"]["winners"] == ["player_0", "player_1"]  # identical holdings: draw
    assert rewards == {"player_0": pytest.approx(0.25), "player_1": pytest.approx(0.25)}
    assert infos["player_0"]["ranking_key"] == (0, 0, 12)
    with pytest.raises(IllegalActionError, match="over"):
        env.step({"player_0": 0})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "2 to 6"),
        ({"num_players": 7}, "2 to 6"),
        ({"events": "brutal"}, "events must be"),
        ({"unpleasant": 13}, "unpleasant"),
        ({"deck_size": 20}, "Calm day"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "pixels"}, "render_mode"),
        ({"decisions": {"player_9": object()}}, "not a player"),
        ({"decisions": {"player_0": object()}}, "lack"),
    ],
)
def test_bad_kwargs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hunger_show_v0.parallel_env(**kwargs)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"leader": 5}, "not a player"),
        ({"piles": {"mountains": {"fruit": [3]}}}, "not a location"),
        ({"piles": {"beach": {"fruit": [3] * 11}}}, "at most 6"),
        ({"piles": {"beach": {"fruit": [4]}}}, "no such token"),
        ({"piles": {"beach": {"raft": ["rope2"] * 7}}}, "no rope2 token left"),
        ({"coconuts": [3]}, "no such token"),
        ({"event_deck": ["storm"]}, "unknown card"),
        ({"event_deck": ["typhoon-2", "typhoon-2"]}, "at most 1"),
        ({"characters": {"player_0": "ninja"}}, "variant is off"),
        ({"holdings": {"player_0": ["can4", "can4", "can4"]}}, "no can4 token left"),
    ],
)
def test_bad_reset_options(options, message):
    env = hunger_show_v0.parallel_env(num_players=4)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_unknown_reset_option_warns():
    env = hunger_show_v0.parallel_env(num_players=2)
    with pytest.warns(UserWarning, match="unknown reset options"):
        env.reset(seed=0, options={"leadr": 1})


def test_aec_view_rejects_a_masked_action_at_once():
    env = hunger_show_v0.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="masked"):
        env.step(encode_action(2, 0))


def test_unseeded_resets_follow_the_first_seed():
    first, second = (hunger_show_v0.parallel_env(num_players=4) for _ in range(2))
    for env in (first, second):
        env.reset(seed=11)
        env.reset()
    assert first.unwrapped.game.to_dict() == second.unwrapped.game.to_dict()


def test_demo_prints_a_whole_game(capsys):
    hunger_show_v0.demo(num_players=4, seed=2)
    text = capsys.readouterr().out
    assert "Day 1" in text and "The show ends" in text and "Rewards:" in text
