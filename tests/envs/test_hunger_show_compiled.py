"""hunger_show_v0's default path (shows played by the compiled day, ``CompiledShow``) against
the same env on ``ShowGame``: every output of random seeded shows compared, at 2 to 6 players
in every option the compiled day plays, and what the env gives when its game is read."""

from __future__ import annotations

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.tokens import EVENT_PRESETS
from hunger_rl.engines.validation import IllegalActionError
from hunger_rl.envs import hunger_show_v0

PLAYER_COUNTS = (2, 3, 4, 5, 6)
OPTIONS = [{"characters": characters, "events": events, "eliminated": eliminated,
            "action_mask": action_mask}
           for characters in (False, True) for events in EVENT_PRESETS
           for eliminated, action_mask in (("leave", "observation"), ("stay", "info"))]


def engine_env(**options):
    """The env with its compiled day switched off: every show on ``ShowGame``."""
    env = hunger_show_v0.parallel_env(**options)
    env._compiled = None
    return env


def assert_same(ours, expected, where):
    """Equal values of the same types, arrays with the same dtype and shape, dicts in the same
    key order."""
    assert type(ours) is type(expected), f"{where}: {type(ours)} against {type(expected)}"
    if isinstance(expected, dict):
        assert list(ours) == list(expected), where
        for key in expected:
            assert_same(ours[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, list | tuple):
        assert len(ours) == len(expected), where
        for i, (mine, theirs) in enumerate(zip(ours, expected, strict=True)):
            assert_same(mine, theirs, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert ours.dtype == expected.dtype and ours.shape == expected.shape, where
        np.testing.assert_array_equal(ours, expected, err_msg=where)
    else:
        assert ours == expected, f"{where}: {ours!r} against {expected!r}"


def masks_of(env, observations, infos):
    if env.action_mask_in == "info":
        return {agent: info["action_mask"] for agent, info in infos.items()}
    return {agent: observation["action_mask"] for agent, observation in observations.items()}


def play_both(num_players, options, seed, read_game_on_day=None):
    """One random show through both envs, every step's outputs compared; players draw from a
    few actions of the show (a small set crowds them: catches, gifts, shared loot). With
    ``read_game_on_day``, the compiled env's game is read after that day. Returns the days."""
    rng = np.random.default_rng(seed)
    ours = hunger_show_v0.parallel_env(num_players=num_players, **options)
    theirs = engine_env(num_players=num_players, **options)
    reset = ours.reset(seed=seed)
    assert ours._show is not None, "the compiled day plays this show"
    assert_same(reset, theirs.reset(seed=seed), f"seed {seed} reset")
    masks = masks_of(ours, *reset)
    focus = rng.choice(5 * ours.config.num_locations, size=int(rng.integers(1, 6)))
    day = 0
    while ours.agents:
        assert ours.agents == theirs.agents
        actions = {}
        for agent in ours.agents:
            legal = [a for a in focus if masks[agent][a]] or np.flatnonzero(masks[agent])
            actions[agent] = int(rng.choice(legal))
        outputs = ours.step(actions)
        day += 1
        where = f"seed {seed} day {day}"
        assert_same(outputs, theirs.step(actions), where)
        assert ours.winners == theirs.winners, where
        masks = masks_of(ours, outputs[0], outputs[4])
        if day == read_game_on_day:
            assert ours.game.to_dict() == theirs.game.to_dict(), where
            assert_same(ours.last_log, theirs.last_log, f"{where} log")
            assert ours._show is None, "the show goes on on ShowGame"
    assert ours.agents == theirs.agents == []
    assert_same(ours.ranking_keys, theirs.ranking_keys, f"seed {seed} ranking keys")
    assert ours.winners == theirs.winners
    assert (ours._show is None) == (read_game_on_day is not None and day >= read_game_on_day)
    assert_same(ours.state(), theirs.state(), f"seed {seed} state")
    assert ours.game.to_dict() == theirs.game.to_dict()
    assert_same(ours.last_log, theirs.last_log, f"seed {seed} log")
    for agent in ours.possible_agents:
        assert_same(ours.observe(agent), theirs.observe(agent), f"seed {seed} {agent}")
    return day


def play_many(num_players, shows_per_option):
    days = 0
    for i, options in enumerate(OPTIONS):
        for seed in range(shows_per_option):
            days += play_both(num_players, options, 10_000 * i + seed)
    assert days > 5 * shows_per_option * len(OPTIONS)  # shows last more than 5 days on average


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_random_shows_match_the_engine_path(num_players):
    play_many(num_players, 10)  # 120 shows, 700 to 1,100 days


@pytest.mark.slow
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_many_random_shows_match_the_engine_path(num_players):
    play_many(num_players, 100)  # 1,200 shows


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_reading_the_game_mid_show_hands_the_show_to_the_engine(num_players):
    """Read on any day, ``game`` is the engine's show at that day (replayed from the seed), and
    the show goes on there with the same outputs."""
    read = 0
    for seed in range(40):
        day = seed % 5 + 1
        read += play_both(num_players, OPTIONS[seed % len(OPTIONS)], seed, day) >= day
    assert read >= 30


def test_unseeded_resets_and_reset_options_follow_the_engine_path():
    """Unseeded resets draw the same seeds as the engine path; a setup (reset options), a seed
    beyond the compiled generator's and the shaped reward play on ShowGame."""
    ours, theirs = hunger_show_v0.parallel_env(), engine_env()
    ours.reset(seed=7)
    theirs.reset(seed=7)
    for _ in range(3):
        assert_same(ours.reset(), theirs.reset(), "unseeded reset")
        assert ours._show is not None
        assert ours.game.to_dict() == theirs.game.to_dict()
    ours.reset(seed=3, options={"leader": 1})
    assert ours._show is None and ours.game.leader == 1
    ours.reset(seed=2 ** 63)
    assert ours._show is None
    shaped = hunger_show_v0.parallel_env(reward="shaped")
    shaped.reset(seed=1)
    assert shaped._show is None


@pytest.mark.parametrize("eliminated", ["leave", "stay"])
def test_a_masked_action_raises_the_engine_paths_error_and_changes_nothing(eliminated):
    ours = hunger_show_v0.parallel_env(num_players=3, eliminated=eliminated)
    theirs = engine_env(num_players=3, eliminated=eliminated)
    ours.reset(seed=11)
    theirs.reset(seed=11)
    bad = {"player_0": 0, "player_1": 19, "player_2": 3}  # the Mountains: not with 3 players
    with pytest.raises(IllegalActionError) as error:
        ours.step(bad)
    with pytest.raises(IllegalActionError) as expected:
        theirs.step(bad)
    assert str(error.value) == str(expected.value)
    actions = {"player_0": 0, "player_1": 5, "player_2": 3}
    assert_same(ours.step(actions), theirs.step(actions), "after the refused step")


def test_an_illegal_action_that_terminates_matches_the_engine_path():
    ours = hunger_show_v0.parallel_env(num_players=4, illegal_action="terminate")
    theirs = engine_env(num_players=4, illegal_action="terminate")
    assert_same(ours.reset(seed=5), theirs.reset(seed=5), "reset")
    actions = {"player_0": 1, "player_1": 2, "player_2": 6, "player_3": 11}
    assert_same(ours.step(actions), theirs.step(actions), "day 1")
    actions["player_2"] = 17  # the Mountains are not in play with 4 players
    assert_same(ours.step(actions), theirs.step(actions), "illegal end")
    assert ours.agents == []


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_the_aec_view_matches_the_engine_path(num_players):
    for seed in range(30):
        ours = hunger_show_v0.env(num_players=num_players, characters=seed % 2 == 1)
        theirs = hunger_show_v0.env(num_players=num_players, characters=seed % 2 == 1)
        theirs.unwrapped.env._compiled = None
        rng = np.random.default_rng(seed)
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for agent in ours.agent_iter():
            assert agent == theirs.agent_selection
            last = ours.last()
            assert_same(last, theirs.last(), f"seed {seed} {agent}")
            action = None if last[2] or last[3] else int(
                rng.choice(np.flatnonzero(last[0]["action_mask"])))
            ours.step(action)
            theirs.step(action)
        assert ours.unwrapped.env._show is not None, "nothing read the game"
        assert ours.unwrapped.winners == theirs.unwrapped.winners
        assert_same(ours.unwrapped.ranking_keys, theirs.unwrapped.ranking_keys, f"seed {seed}")
