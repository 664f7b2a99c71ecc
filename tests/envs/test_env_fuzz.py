"""Fuzz tests of every environment entry point of both games (hypothesis).

Constructors, ``reset`` (seed and options), ``step`` of the HUNGER Parallel env, of its AEC
view and of Hungry, ``observe``, and HUNGER decision objects get random mixes of valid and
malformed input. Each call either succeeds or raises a documented ``InvalidInputError``; no
other exception type ever escapes, and after a refusal the game, its RNG and the env's seed RNG
are exactly as before. The default run is short; ``-m slow`` runs many more examples.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import DECISION_METHODS, DecisionError
from hunger_rl.engines.hunger_show.tokens import (
    CHARACTERS,
    EVENT_CARD_NAMES,
    LOCATION_NAMES,
    token_table,
)
from hunger_rl.engines.validation import IllegalActionError, InvalidInputError
from hunger_rl.envs import hunger_show_v0, hungry_v0
from hunger_rl.envs.hunger_show.env import ShowAECState

BUDGETS = [pytest.param(40, id="short"),
           pytest.param(1500, id="long", marks=pytest.mark.slow)]
PLAYERS = [f"player_{i}" for i in range(7)]
TOKEN_NAMES = ["can1", "can4", "fruit2", "fruit3", "chicken4", "rope1", "rope2", "log1", "log2",
               "coconut0", "coconut2", "raft1", "can5", "fruit", ""]

def hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True


# Leaves that look right (names, small ints) and leaves that are wrong in type or range.
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 25), st.integers(), st.floats(),
    st.text(max_size=8), st.sampled_from(PLAYERS + TOKEN_NAMES + list(EVENT_CARD_NAMES)
                                         + list(LOCATION_NAMES) + list(CHARACTERS)
                                         + ["fruit", "chicken", "raft", "standard", "r1"]),
    st.integers(-3, 25).map(np.int64), st.floats(width=32).map(np.float32),
    st.integers(0, 25).map(np.array),
)
junk = st.recursive(
    scalars,
    lambda inner: (st.lists(inner, max_size=5) | st.tuples(inner, inner)
                   | st.dictionaries(scalars.filter(hashable), inner,
                                     max_size=4)),
    max_leaves=12,
)
seats = st.sampled_from(PLAYERS[:6]) | st.integers(-1, 6) | junk
token_lists = st.lists(st.sampled_from(TOKEN_NAMES) | st.integers(0, 4) | junk, max_size=9)
show_options = st.one_of(
    junk,
    st.fixed_dictionaries({}, optional={
        "leader": seats,
        "holdings": st.dictionaries(seats.filter(hashable),
                                    token_lists, max_size=3) | junk,
        "piles": st.dictionaries(
            st.sampled_from(LOCATION_NAMES) | junk.filter(hashable),
            st.dictionaries(st.sampled_from(["fruit", "chicken", "raft", "can"]), token_lists,
                            max_size=3) | junk, max_size=3) | junk,
        "coconuts": token_lists,
        "event_deck": st.lists(st.sampled_from(EVENT_CARD_NAMES) | junk, max_size=12) | junk,
        "characters": st.lists(st.sampled_from(CHARACTERS), max_size=6, unique=True) | junk,
        "unknown": junk,
    }),
)
fuzz_settings = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


def show_snapshot(env):
    unwrapped = env.unwrapped
    aec = isinstance(unwrapped, ShowAECState)
    base = unwrapped.view.env if aec else unwrapped
    pending = dict(unwrapped.view._actions) if aec else None  # AEC: the day's picks
    return (base.game.to_dict() if base.game else None, list(env.agents),
            base._seed_rng.getstate(), getattr(env, "agent_selection", None), pending)


def hungry_snapshot(env):
    base = env.unwrapped
    return (base.game.to_dict() if base.game else None, list(base.agents),
            getattr(base, "agent_selection", None), base._rng.bit_generator.state)


def refused_or_done(call, snapshot, env):
    """Run ``call``; a refusal must be an InvalidInputError that changed nothing. Returns
    whether the call succeeded."""
    before = snapshot(env)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            call()
    except InvalidInputError as error:
        assert snapshot(env) == before
        event(f"refused: {type(error).__name__}")
        return False
    event("accepted")
    return True


def check_tokens(game):
    assert len(game.token_places()) == len(token_table(game.num_players)[0])


# ------------------------------------------------------------------ constructors
@pytest.mark.parametrize("budget", BUDGETS)
def test_constructors_succeed_or_refuse_clearly(budget):
    show_kwargs = st.fixed_dictionaries({}, optional={
        "num_players": st.integers(1, 7) | junk, "events": st.sampled_from(
            ["calm", "standard", "hard"]) | junk, "deck_size": st.integers(-1, 24) | junk,
        "unpleasant": st.integers(-1, 13) | junk, "end_window": st.integers(-1, 12) | junk,
        "characters": st.booleans() | junk, "reward": st.sampled_from(["r1", "shaped"]) | junk,
        "render_mode": st.sampled_from([None, "ansi", "human", "rgb_array"]) | junk,
        "decisions": st.none() | junk})
    hungry_kwargs = st.fixed_dictionaries({}, optional={
        "num_players": st.integers(1, 5) | junk, "reward": st.sampled_from(["win", "score"])
        | junk, "first_player": st.sampled_from(["random", *PLAYERS[:4]]) | junk,
        "tied_second": st.sampled_from(["next", "void"]) | junk,
        "illegal_action": st.sampled_from(["raise", "terminate"]) | junk,
        "render_mode": st.sampled_from([None, "ansi"]) | junk})

    @settings(max_examples=budget, **fuzz_settings)
    @given(show_kwargs, hungry_kwargs)
    def check(show, hungry):
        for make, kwargs in ((hunger_show_v0.parallel_env, show), (hunger_show_v0.env, show),
                             (hungry_v0.env, hungry)):
            try:
                env = make(**kwargs)
            except InvalidInputError:
                continue
            env.reset(seed=0)
            assert env.agents == env.possible_agents

    check()


# ------------------------------------------------------------------ reset
@pytest.mark.parametrize("budget", BUDGETS)
def test_show_reset_options_succeed_or_change_nothing(budget):
    @settings(max_examples=budget, **fuzz_settings)
    @given(st.integers(2, 6), show_options, st.none() | st.integers(0, 2**64) | junk,
           st.booleans())
    def check(num_players, options, seed, characters):
        env = hunger_show_v0.parallel_env(num_players=num_players, characters=characters)
        env.reset(seed=1)
        env.step(dict.fromkeys(env.agents, 0))
        if refused_or_done(lambda: env.reset(seed=seed, options=options), show_snapshot, env):
            check_tokens(env.unwrapped.game)
            assert env.agents == env.possible_agents

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_hungry_reset_succeeds_or_changes_nothing(budget):
    decks = st.permutations(list(range(25)) * 2).map(list)
    options = junk | st.fixed_dictionaries({}, optional={
        "deck": decks | junk | decks.map(lambda d: d[:-1] + [1.0]),
        "x": junk})

    @settings(max_examples=budget, **fuzz_settings)
    @given(options, st.none() | st.integers(0, 2**64) | junk)
    def check(options, seed):
        env = hungry_v0.env(num_players=3)
        env.reset(seed=1)
        if refused_or_done(lambda: env.reset(seed=seed, options=options), hungry_snapshot, env):
            assert env.unwrapped.game.num_plays == 0

    check()


# ------------------------------------------------------------------ step and observe
actions = st.integers(0, 19) | st.integers(-2, 40) | junk


@pytest.mark.parametrize("budget", BUDGETS)
def test_show_parallel_steps_succeed_or_change_nothing(budget):
    names = st.sampled_from(PLAYERS) | junk.filter(hashable)

    @settings(max_examples=budget, **fuzz_settings)
    @given(st.integers(2, 6), st.integers(0, 10**6), st.lists(
        st.dictionaries(names, actions, max_size=7) | junk, max_size=12))
    def check(num_players, seed, attempts):
        env = hunger_show_v0.parallel_env(num_players=num_players, characters=seed % 2 == 1)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for attempt in attempts:
            refused_or_done(lambda attempt=attempt: env.step(attempt), show_snapshot, env)
            refused_or_done(lambda attempt=attempt: env.observe(attempt), show_snapshot, env)
            if env.agents:  # a valid day in between, so that players leave and games end
                env.step({a: int(rng.integers(0, 5)) for a in env.agents})
            check_tokens(env.unwrapped.game)

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_show_aec_steps_succeed_or_change_nothing_and_never_stick(budget):
    @settings(max_examples=budget, **fuzz_settings)
    @given(st.sampled_from([hunger_show_v0.env, hunger_show_v0.raw_env]), st.integers(2, 6),
           st.integers(0, 10**6), st.lists(actions, max_size=80))
    def check(make, num_players, seed, attempts):
        env = make(num_players=num_players)
        env.reset(seed=seed)
        for action in attempts:
            refused_or_done(lambda action=action: env.step(action), show_snapshot, env)
            refused_or_done(lambda action=action: env.observe(action), show_snapshot, env)
            refused_or_done(lambda action=action: env.observe(f"player_{action}"),
                            show_snapshot, env)
        while env.agents:  # the game can always be finished with valid moves
            agent = env.agent_selection
            env.step(None if env.terminations[agent] else 0)
        assert env.unwrapped.game.done

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_hungry_steps_succeed_or_change_nothing(budget):
    @settings(max_examples=budget, **fuzz_settings)
    @given(st.integers(2, 4), st.integers(0, 10**6), st.sampled_from(["raise", "terminate"]),
           st.lists(st.integers(0, 49) | actions, max_size=80))
    def check(num_players, seed, illegal_action, attempts):
        env = hungry_v0.env(num_players=num_players, illegal_action=illegal_action)
        env.reset(seed=seed)
        for action in attempts:
            refused_or_done(lambda action=action: env.step(action), hungry_snapshot, env)
            refused_or_done(lambda action=action: env.observe(action), hungry_snapshot, env)
        while env.agents:
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            env.step(None if env.terminations[agent] else int(np.flatnonzero(mask)[0]))

    check()


# ------------------------------------------------------------------ decision objects
class Fuzzed(DefaultDecisions):
    """Answers each choice with the default, a plausible alternative, or junk."""

    def __init__(self, data):
        self.data = data


def answer_with(method):
    default = getattr(DefaultDecisions, method)

    def answer(self, game, player, *args):
        kind = self.data.draw(st.sampled_from(["default", "token", "tokens", "junk"]))
        if kind == "default":
            return default(self, game, player, *args)
        tokens = st.integers(-1, len(game.category))
        if kind == "token":
            return self.data.draw(tokens)
        if kind == "tokens":
            return self.data.draw(st.lists(tokens, max_size=4))
        return self.data.draw(junk)

    return answer


for _method in DECISION_METHODS:
    setattr(Fuzzed, _method, answer_with(_method))


@pytest.mark.parametrize("budget", BUDGETS)
def test_decision_objects_answers_are_used_or_undo_the_day(budget):
    @settings(max_examples=budget // 2, **fuzz_settings)
    @given(st.integers(2, 6), st.integers(0, 10**6), st.data())
    def check(num_players, seed, data):
        fuzzed = Fuzzed(data)
        env = hunger_show_v0.parallel_env(num_players=num_players, characters=True,
                                          decisions=[fuzzed] * num_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(12):
            if not env.agents:
                break
            day = {a: int(rng.integers(0, 5 * env.unwrapped.config.num_locations))
                   for a in env.agents}
            before = show_snapshot(env)
            try:
                env.step(day)
            except DecisionError:
                assert show_snapshot(env) == before
                event("refused: DecisionError")
            else:
                event("accepted")
            check_tokens(env.unwrapped.game)

    check()


# ------------------------------------------------------------------ after the end
AEC_FACTORIES = {
    "show-env": (hunger_show_v0.env, {}, show_snapshot),
    "show-env-terminate": (hunger_show_v0.env, {"illegal_action": "terminate"}, show_snapshot),
    "show-env-leave": (hunger_show_v0.env, {"eliminated": "leave"}, show_snapshot),
    "show-raw_env": (hunger_show_v0.raw_env, {}, show_snapshot),
    "hungry-env": (hungry_v0.env, {}, hungry_snapshot),
    "hungry-env-terminate": (hungry_v0.env, {"illegal_action": "terminate"}, hungry_snapshot),
    "hungry-raw_env": (hungry_v0.raw_env, {}, hungry_snapshot),
}


@pytest.mark.parametrize(("make", "kwargs", "snapshot"), AEC_FACTORIES.values(),
                         ids=AEC_FACTORIES.keys())
@pytest.mark.parametrize("action", [None, 0])
def test_a_step_after_the_end_raises_and_changes_nothing(make, kwargs, snapshot, action):
    env = make(num_players=2, **kwargs)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        mask = observation["action_mask"] if isinstance(observation, dict) else info["action_mask"]
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(mask))))
    assert env.agents == []
    before = snapshot(env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not PettingZoo's warning: the documented error
        with pytest.raises(IllegalActionError, match="over"):
            env.step(action)
    assert snapshot(env) == before
