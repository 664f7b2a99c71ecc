"""Bad input to hunger_show_v0 (issue 15, defects 1-6): each is refused with a clear error of a
documented type (``hunger_rl.engines.validation``) before anything changes, and the game goes on."""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from hunger_rl.engines.validation import (
    ActionTypeError,
    IllegalActionError,
    InvalidInputError,
    InvalidTypeError,
    InvalidValueError,
    NotResetError,
)
from hunger_rl.envs import hunger_show_v0
from hunger_rl.envs.hunger_show.env import ShowAECState


def snapshot(env):
    """Everything a refused input must leave alone: the game with its RNG, the agents, and
    the RNG that seeds unseeded resets."""
    base = env.unwrapped
    base = base.view.env if isinstance(base, ShowAECState) else base  # the AEC view's Parallel env
    return base.game.to_dict(), list(env.agents), base._seed_rng.getstate()


def aec_snapshot(env):
    pending = env.unwrapped.view._actions  # the day's picks so far
    return snapshot(env), env.agent_selection, dict(pending)


# ------------------------------------------------------------------ defect 1: AEC view sticks
def test_the_aec_view_refuses_none_for_a_live_agent_and_does_not_stick():
    env = hunger_show_v0.env(num_players=3)
    env.reset(seed=0)
    before = aec_snapshot(env)
    with pytest.raises(ActionTypeError, match="player_0: an action must be an integer"):
        env.step(None)
    assert aec_snapshot(env) == before
    for _ in range(3):
        env.step(0)
    assert env.unwrapped.game.day == 1


# ------------------------------------------------------------------ defect 2: eliminated agent
def test_the_aec_view_refuses_an_action_for_an_eliminated_agent_and_goes_on():
    env = hunger_show_v0.env(num_players=4, eliminated="leave")
    env.reset(seed=0, options={"holdings": {"player_0": ["can1"]}})  # starves on day 1
    for _ in range(4):
        env.step(0)
    assert env.agent_selection == "player_0" and env.terminations["player_0"]
    before = aec_snapshot(env)
    with pytest.raises(IllegalActionError, match="player_0 has left the game; step it with None"):
        env.step(3)
    assert aec_snapshot(env) == before
    env.step(None)
    for _ in range(3):
        env.step(0)  # another day: player_0 is no longer among that step's observations
    assert not env.observe("player_0")["action_mask"].any()
    while env.agents:
        env.step(None if env.terminations[env.agent_selection] else 0)
    assert env.unwrapped.game.done


@pytest.mark.parametrize("action", [None, 0])
def test_the_raw_aec_view_refuses_a_step_after_everyone_left(action):
    env = hunger_show_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"event_deck": ["end"]})
    env.step(0)
    env.step(0)
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(IllegalActionError, match="the show is over"):
        env.step(action)


# ------------------------------------------------------------------ defect 4: actions
NON_INTEGERS = [3.0, np.float32(3.0), np.array(3.0), True, np.bool_(True), Decimal("7"),
                Fraction(12, 1), float("inf"), float("nan"), "3", None, [3], np.array([3])]


@pytest.mark.parametrize("action", NON_INTEGERS, ids=repr)
def test_only_exact_integer_actions_are_accepted_in_both_apis(action):
    parallel = hunger_show_v0.parallel_env(num_players=3)
    parallel.reset(seed=0)
    before = snapshot(parallel)
    with pytest.raises(ActionTypeError, match="player_1: an action must be an integer in 0..19"):
        parallel.step({"player_0": 0, "player_1": action, "player_2": 0})
    assert snapshot(parallel) == before
    aec = hunger_show_v0.env(num_players=3)
    aec.reset(seed=0)
    before = aec_snapshot(aec)
    with pytest.raises(ActionTypeError):
        aec.step(action)
    assert aec_snapshot(aec) == before


@pytest.mark.parametrize("action", [np.int64(3), np.uint8(3), np.array(3), 3])
def test_integer_types_play_the_same_day(action):
    days = []
    for chosen in (action, 3):
        env = hunger_show_v0.parallel_env(num_players=3)
        env.reset(seed=0)
        env.step({"player_0": chosen, "player_1": 0, "player_2": 0})
        days.append(env.unwrapped.game.to_dict())
    assert days[0] == days[1]


@pytest.mark.parametrize("actions", [None, ["player_0"], "player_0", 3, {("player_0",): 0}])
def test_a_parallel_step_needs_a_dict_of_known_agents(actions):
    env = hunger_show_v0.parallel_env(num_players=2)
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="dict from agent name|unknown agent"):
        env.step(actions)
    assert snapshot(env) == before


@pytest.mark.parametrize("agent", ["player_9", "player_-1", 0, None, ("player_0",)])
def test_observe_names_an_unknown_agent(agent):
    for env in (hunger_show_v0.parallel_env(num_players=3), hunger_show_v0.env(num_players=3)):
        env.reset(seed=0)
        with pytest.raises(InvalidValueError, match="unknown agent"):
            env.observe(agent)


def test_calls_before_reset_say_so():
    env = hunger_show_v0.parallel_env(num_players=2)
    for call in (lambda: env.step({"player_0": 0, "player_1": 0}),
                 lambda: env.observe("player_0")):
        with pytest.raises(NotResetError, match="reset"):
            call()


# ------------------------------------------------------------------ departed agents (issue 14)
def test_the_parallel_env_ignores_actions_for_agents_that_left():
    env = hunger_show_v0.parallel_env(num_players=3)
    env.reset(seed=0, options={"holdings": {"player_2": ["can1"]},
                               "event_deck": ["calm", "calm", "end"]})
    env.step(dict.fromkeys(env.agents, 0))
    assert env.agents == ["player_0", "player_1"]
    twin = hunger_show_v0.parallel_env(num_players=3)
    twin.reset(seed=0, options={"holdings": {"player_2": ["can1"]},
                                "event_deck": ["calm", "calm", "end"]})
    twin.step(dict.fromkeys(twin.agents, 0))
    # Whatever is sent for player_2 (even junk) is ignored; the day equals one without it.
    env.step({"player_0": 5, "player_1": 0, "player_2": "junk"})
    twin.step({"player_0": 5, "player_1": 0})
    assert env.unwrapped.game.to_dict() == twin.unwrapped.game.to_dict()
    # Live agents are still checked, and so are unknown names.
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="no action for living agent"):
        env.step({"player_2": 0})
    with pytest.raises(IllegalActionError, match="unknown agent"):
        env.step({"player_0": 0, "player_1": 0, "player_7": 0})
    with pytest.raises(IllegalActionError, match="masked"):
        env.step({"player_0": 0, "player_1": 19})
    assert snapshot(env) == before


# ------------------------------------------------------------------ defect 5: reset options
BAD_OPTIONS = [
    ("abc", InvalidTypeError, r'options: expected a dict of reset options, got str'),
    ({"holdings": [["can4"], ["can1"]]}, InvalidTypeError,
     r'options\["holdings"\]: expected a dict of token lists, got list'),
    ({"piles": [["fruit3"]]}, InvalidTypeError, r'options\["piles"\]: expected a dict'),
    ({"holdings": {"player_0": None}}, InvalidTypeError,
     r'options\["holdings"\]\["player_0"\]: expected a list of token names, got NoneType None'),
    ({"holdings": {"player_0": "can4"}}, InvalidTypeError,
     r'options\["holdings"\]\["player_0"\]: expected a list of token names, got str \'can4\''),
    ({"holdings": {"player_0": [4]}}, InvalidTypeError,
     r'options\["holdings"\]\["player_0"\]\[0\]: expected a token name'),
    ({"piles": {"beach": None}}, InvalidTypeError, r'options\["piles"\]\["beach"\]: expected'),
    ({"piles": {"beach": {"fruit": None}}}, InvalidTypeError,
     r'options\["piles"\]\["beach"\]\["fruit"\]: expected a list of fruit tokens'),
    ({"piles": {"beach": {"raft": [2]}}}, InvalidTypeError,
     r'options\["piles"\]\["beach"\]\["raft"\]\[0\]: expected a token name such as \'rope2\''),
    ({"event_deck": 3}, InvalidTypeError, r'options\["event_deck"\]: expected a list'),
    ({"event_deck": {"calm": 1}}, InvalidTypeError, r'options\["event_deck"\]: expected a list'),
    ({"event_deck": ["calm", 3]}, InvalidValueError,
     r'options\["event_deck"\]\[1\]: unknown card int 3'),
    ({"coconuts": ["fruit3"]}, InvalidValueError, r"'fruit3' is not a coconut token"),
    ({"coconuts": [True]}, InvalidTypeError, r'options\["coconuts"\]\[0\]: expected a value'),
    ({"leader": True}, InvalidTypeError, r'options\["leader"\]: expected a player name'),
    ({"leader": 1.0}, InvalidTypeError, r'options\["leader"\]: expected a player name'),
    ({"holdings": {"player_0": ["can4"], 0: ["can3"]}}, InvalidValueError,
     r'options\["holdings"\]: player_0 is given twice'),
    ({"holdings": {(0,): ["can4"]}}, InvalidTypeError, r"key \(0,\): expected a player name"),
    ({"holdings": {"player_0": ["can4"] * 3}}, InvalidValueError,
     r'options\["holdings"\]\["player_0"\]\[2\]: no can4 token left'),
    ({"characters": ["ninja"]}, InvalidValueError, "characters variant is off"),
]


@pytest.mark.parametrize(("options", "error", "message"), BAD_OPTIONS)
def test_bad_reset_options_are_refused_as_a_whole_with_their_key_path(options, error, message):
    env = hunger_show_v0.parallel_env(num_players=4)
    env.reset(seed=3)
    env.step(dict.fromkeys(env.agents, 0))
    before = snapshot(env)
    with pytest.raises(error, match=message):
        env.reset(seed=9, options=options)
    with pytest.raises(error, match=message):
        env.reset(options=options)  # unseeded: the seed RNG must not move either
    assert snapshot(env) == before


def test_characters_options_are_checked_in_the_variant():
    env = hunger_show_v0.parallel_env(num_players=2, characters=True)
    for characters, message in ((["ninja"], "different character"),
                                ({"player_0": "ninja", 1: "ninja"}, "different character"),
                                (["ninja", 7], "unknown character int 7")):
        with pytest.raises(InvalidValueError, match=message):
            env.reset(seed=0, options={"characters": characters})
    env.reset(seed=0, options={"characters": {"player_1": "ninja", 0: "arnold"}})
    assert env.unwrapped.game.characters == ["arnold", "ninja"]


def test_unknown_option_keys_of_mixed_types_give_the_documented_warning():
    env = hunger_show_v0.parallel_env(num_players=2)
    with pytest.warns(UserWarning, match=r"ignoring unknown reset options \['x', 0\]"):
        env.reset(seed=0, options={0: 1, "x": 2, "leader": 1})
    assert env.unwrapped.game.leader == 1


def test_none_options_count_as_absent():
    env, twin = hunger_show_v0.parallel_env(num_players=3), hunger_show_v0.parallel_env(
        num_players=3)
    env.reset(seed=4, options={"leader": None, "holdings": None})
    twin.reset(seed=4)
    assert env.unwrapped.game.to_dict() == twin.unwrapped.game.to_dict()


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, [1]])
def test_a_bad_seed_is_refused_before_anything_changes(seed):
    env = hunger_show_v0.parallel_env(num_players=2)
    env.reset(seed=1)
    before = snapshot(env)
    with pytest.raises(InvalidInputError, match="seed"):
        env.reset(seed=seed)
    assert snapshot(env) == before


# ------------------------------------------------------------------ defect 6: constructors
@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"deck_size": 9.5}, InvalidTypeError, "deck_size .*expected an integer, got float 9.5"),
    ({"end_window": 2.5}, InvalidTypeError, "end_window .*expected an integer, got float"),
    ({"end_window": 0}, InvalidValueError, "end_window .*at least 1"),
    ({"deck_size": -1}, InvalidValueError, "deck_size .*at least 0"),
    ({"unpleasant": 2.0}, InvalidTypeError, "unpleasant .*expected an integer"),
    ({"events": []}, InvalidValueError, r"events must be one of .*got list \[\]"),
    ({"characters": "no"}, InvalidTypeError, "characters: expected True or False, got str"),
    ({"characters": 1}, InvalidTypeError, "characters: expected True or False"),
    ({"num_players": 4.0}, InvalidTypeError, "num_players: expected an integer"),
    ({"num_players": True}, InvalidTypeError, "num_players: expected an integer"),
    ({"reward": ["r1"]}, InvalidValueError, "reward must be one of"),
    ({"render_mode": {}}, InvalidValueError, "render_mode must be one of"),
    ({"decisions": 5}, InvalidTypeError, "decisions: expected None, a list or a dict"),
    ({"decisions": {"player_0": hunger_show_v0.DefaultDecisions(),
                    0: hunger_show_v0.DefaultDecisions()}}, InvalidValueError, "given twice"),
])
def test_bad_constructor_arguments_are_refused_clearly(kwargs, error, message):
    with pytest.raises(error, match=message):
        hunger_show_v0.parallel_env(**kwargs)


def test_numpy_integers_are_accepted_as_plain_ints():
    env = hunger_show_v0.parallel_env(num_players=np.int64(4), deck_size=np.int32(8),
                                      characters=np.bool_(True))
    assert env.config.num_players == 4 and type(env.config.num_players) is int
    assert env.config.deck_size == 8 and env.config.characters is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]


def test_every_refusal_is_an_invalid_input_error():
    # The documented types are subclasses of the matching built-in errors too.
    assert issubclass(ActionTypeError, IllegalActionError)
    assert issubclass(ActionTypeError, TypeError) and issubclass(IllegalActionError, ValueError)
    assert issubclass(NotResetError, RuntimeError)
    assert hunger_show_v0.IllegalActionError is IllegalActionError
    for error in (ActionTypeError, IllegalActionError, InvalidTypeError, InvalidValueError,
                  NotResetError):
        assert issubclass(error, InvalidInputError)
