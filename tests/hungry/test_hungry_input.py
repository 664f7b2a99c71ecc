"""Bad input to hungry_v0 (issue 15, defects 4-6): refused with a documented error type before
anything changes, the env's RNG included."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from hunger_rl.engines.hungry.engine import FULL_DECK
from hunger_rl.engines.validation import (
    ActionTypeError,
    IllegalActionError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    NotResetError,
)
from hunger_rl.envs import hungry_v0


def snapshot(env):
    base = env.unwrapped
    return (base.game.to_dict(), list(base.agents), base.agent_selection,
            base._rng.bit_generator.state)


@pytest.mark.parametrize(("options", "error", "message"), [
    ("abc", InvalidTypeError, "options: expected a dict of reset options, got str 'abc'"),
    ({"deck": "red"}, InvalidTypeError, r'options\["deck"\]: expected a list of card types'),
    ({"deck": {"a": 1}}, InvalidTypeError, r'options\["deck"\]: expected a list'),
    ({"deck": list(FULL_DECK)[:-1] + [1.0]}, InvalidTypeError, r'options\["deck"\]: entries'),
    ({"deck": list(FULL_DECK)[:-1]}, InvalidValueError, r'options\["deck"\] must hold exactly'),
])
def test_a_failed_reset_leaves_the_game_and_the_rng_as_before(options, error, message):
    env = hungry_v0.env(num_players=2)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    before = snapshot(env)
    with pytest.raises(error, match=message):
        env.reset(seed=5, options=options)
    assert snapshot(env) == before
    # The unseeded reset after it deals what it would have dealt without the failed call.
    twin = hungry_v0.env(num_players=2)
    twin.reset(seed=1)
    env.reset()
    twin.reset()
    assert env.unwrapped.game.to_dict() == twin.unwrapped.game.to_dict()


def test_unknown_option_keys_of_mixed_types_give_the_documented_warning():
    env = hungry_v0.env(num_players=2)
    with pytest.warns(UserWarning, match=r"ignoring unknown reset options \['x', 0\]"):
        env.reset(seed=0, options={0: 1, "x": 2})


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_a_bad_seed_is_refused_before_anything_changes(seed):
    env = hungry_v0.env(num_players=2)
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(InvalidInputError, match="seed"):
        env.reset(seed=seed)
    assert snapshot(env) == before


def test_numpy_integer_player_counts_are_plain_ints():
    env = hungry_v0.env(num_players=np.int64(3))
    assert env.unwrapped.num_players == 3 and type(env.unwrapped.num_players) is int
    with pytest.raises(InvalidTypeError, match="num_players: expected an integer"):
        hungry_v0.env(num_players=3.0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"reward": ["win"]}, "reward must be one of"),
    ({"first_player": 0}, "first_player must be one of"),
    ({"tied_second": None}, "tied_second must be one of"),
    ({"render_mode": {}}, "render_mode must be one of"),
    ({"illegal_action": 1}, "illegal_action must be one of"),
])
def test_bad_constructor_arguments_name_the_argument(kwargs, message):
    with pytest.raises(InvalidValueError, match=message):
        hungry_v0.env(**kwargs)


@pytest.mark.parametrize("agent", ["player_9", 0, None])
def test_observe_names_an_unknown_agent(agent):
    env = hungry_v0.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(InvalidValueError, match="unknown agent"):
        env.observe(agent)


def test_errors_are_the_shared_documented_types():
    env = hungry_v0.raw_env(num_players=2)
    with pytest.raises(NotResetError):
        env.step(0)
    with pytest.raises(NotResetError):
        env.observe("player_0")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError):
        env.step(np.float32(2.0))
    with pytest.raises(IllegalActionError, match="player_0: action 50 is outside"):
        env.step(50)
    assert hungry_v0.IllegalActionError is IllegalActionError


@pytest.mark.parametrize("action", [2.5, None, "x", True, np.array([1, 2]), 60, -1])
def test_terminate_mode_still_refuses_what_is_no_action(action):
    # Only a masked action ends the game; a wrong type or range raises and changes nothing.
    env = hungry_v0.env(num_players=2, illegal_action="terminate")
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="player_0: a"):
        env.step(action)
    assert snapshot(env) == before


@pytest.mark.parametrize("module", ["hungry_v0", "hunger_show_v0"])
def test_the_wrapped_envs_say_reset_first(module):
    # Imported by name: hunger_rl.envs does not import its env modules itself.
    env = importlib.import_module(f"hunger_rl.envs.{module}").env(num_players=2)
    with pytest.raises(NotResetError, match=r"call reset\(\) before step"):
        env.step(0)
    with pytest.raises(NotResetError, match=r"call reset\(\) before observe"):
        env.observe("player_0")
