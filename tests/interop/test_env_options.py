"""The env options for other libraries: masks in infos, eliminated players that stay, illegal
actions that end the game (also through PettingZoo's TerminateIllegalWrapper), batchable infos.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from hunger_rl.envs import hunger_show_v0, hungry_v0
from hunger_rl.envs.hunger_show_v0 import NOOP_ACTION, IllegalActionError

# player_2 starts with a single can of 1: it starves on day 1; the show ends on day 3 in a draw
# between player_0 and player_1 (identical holdings).
STARVING_PLAYER_2 = {"holdings": {"player_2": ["can1"]}, "event_deck": ["calm", "calm", "end"]}
NOOP_MASK = np.eye(20, dtype=np.int8)[NOOP_ACTION]


@pytest.mark.parametrize("num_players", [2, 6])
@pytest.mark.parametrize("options", [{"eliminated": "stay"}, {"action_mask": "info"},
                                     {"eliminated": "stay", "action_mask": "info"}])
def test_hunger_show_options_pass_pettingzoo_api_tests(num_players, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # parallel_api_test samples without a mask unless the mask is in the observation; an
        # eliminated player that stays may only play the no-op.
        if options != {"eliminated": "stay", "action_mask": "info"}:
            parallel_api_test(hunger_show_v0.parallel_env(num_players=num_players, **options),
                              num_cycles=200)
        api_test(hunger_show_v0.env(num_players=num_players, **options), num_cycles=200)


@pytest.mark.parametrize("num_players", [2, 4])
def test_hungry_masks_in_infos_pass_the_api_test(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(hungry_v0.env(num_players=num_players, action_mask="info"), num_cycles=100)


def test_eliminated_player_stays_with_a_noop_and_no_more_reward():
    env = hunger_show_v0.parallel_env(num_players=3, eliminated="stay")
    observations, _ = env.reset(seed=0, options=STARVING_PLAYER_2)
    _, rewards, terminations, _, _ = env.step(dict.fromkeys(env.agents, 0))
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert not any(terminations.values())
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": pytest.approx(-0.5)}
    mask = env.observe("player_2")["action_mask"]
    np.testing.assert_array_equal(mask, NOOP_MASK)
    alive = hunger_show_v0.observation_layout(3)["alive"]
    assert env.observe("player_2")["observation"][alive].tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(IllegalActionError, match="player_2 is eliminated and its only legal"):
        env.step({"player_0": 0, "player_1": 0, "player_2": 1})
    _, rewards, terminations, _, _ = env.step(dict.fromkeys(env.agents, NOOP_ACTION))
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert not any(terminations.values())
    observations, rewards, terminations, _, infos = env.step(dict.fromkeys(env.agents, 0))
    assert env.agents == [] and all(terminations.values())
    assert rewards == {"player_0": pytest.approx(0.25), "player_1": pytest.approx(0.25),
                       "player_2": 0.0}
    assert [infos[a]["win_share"] for a in env.possible_agents] == [0.5, 0.5, 0.0]
    for observation in observations.values():  # never an empty masked distribution
        np.testing.assert_array_equal(observation["action_mask"], NOOP_MASK)


@pytest.mark.parametrize("seed", range(6))
def test_staying_changes_nothing_for_live_players(seed):
    """Same seed, same picks: live players see and earn the same in both modes; every game's
    returns sum to zero in both."""
    leave = hunger_show_v0.parallel_env(num_players=6)
    stay = hunger_show_v0.parallel_env(num_players=6, eliminated="stay")
    seen_leave, _ = leave.reset(seed=seed)
    seen_stay, _ = stay.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = {"leave": dict.fromkeys(leave.possible_agents, 0.0),
               "stay": dict.fromkeys(leave.possible_agents, 0.0)}
    while leave.agents:
        assert set(leave.agents) <= set(stay.agents) == set(stay.possible_agents)
        picks = {a: int(rng.integers(10)) for a in leave.agents}
        for agent in leave.agents:
            np.testing.assert_array_equal(seen_leave[agent]["observation"],
                                          seen_stay[agent]["observation"])
            np.testing.assert_array_equal(seen_leave[agent]["action_mask"],
                                          seen_stay[agent]["action_mask"])
        seen_leave, rewards_leave, *_ = leave.step(picks)
        seen_stay, rewards_stay, *_ = stay.step(
            {a: picks.get(a, NOOP_ACTION) for a in stay.agents})
        for agent, reward in rewards_leave.items():
            assert rewards_stay[agent] == reward
            returns["leave"][agent] += reward
        for agent, reward in rewards_stay.items():
            returns["stay"][agent] += reward
    assert stay.agents == []
    assert returns["leave"] == returns["stay"]
    assert sum(returns["stay"].values()) == pytest.approx(0.0, abs=1e-9)


def test_the_aec_view_keeps_eliminated_players_by_default():
    """What turn-based libraries need: the same day as in the Parallel test above, through the
    AEC view with no options; player_2 keeps its turns with the no-op, and leaves only with
    everybody at the end of the show."""
    env = hunger_show_v0.env(num_players=3)
    env.reset(seed=0, options=STARVING_PLAYER_2)
    for _ in range(3):
        env.step(0)
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": pytest.approx(-0.5)}
    assert not any(env.terminations.values())
    for _ in range(2):  # player_0, player_1 pick; player_2's turn: only the no-op
        env.step(0)
    np.testing.assert_array_equal(env.observe("player_2")["action_mask"], NOOP_MASK)
    with pytest.raises(IllegalActionError, match="player_2 is eliminated"):
        env.step(1)
    env.step(NOOP_ACTION)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    for _ in range(3):
        env.step(0)  # day 3: The End of the Show
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": pytest.approx(0.25), "player_1": pytest.approx(0.25),
                           "player_2": 0.0}
    assert hunger_show_v0.env(num_players=3, eliminated="leave").unwrapped.eliminated == "leave"


@pytest.mark.parametrize("options", [{}, {"eliminated": "leave", "characters": True}])
def test_aec_to_parallel_gives_back_the_native_parallel_env(options):
    aec = hunger_show_v0.env(num_players=4, **options)
    parallel = aec_to_parallel(aec)
    assert type(parallel) is hunger_show_v0.ShowParallelEnv
    assert parallel is aec.unwrapped.view.env  # the view's own env, its options with it
    assert parallel.eliminated == options.get("eliminated", "stay")
    assert parallel.config.characters == options.get("characters", False)
    observations, _ = parallel.reset(seed=2)
    while parallel.agents:
        observations, *_ = parallel.step(
            {a: int(np.flatnonzero(observations[a]["action_mask"])[-1]) for a in parallel.agents})
    assert parallel.winners and parallel.ranking_keys and parallel.last_log["day"] == \
        parallel.game.day


def test_hunger_show_parallel_terminates_on_a_masked_action():
    env = hunger_show_v0.parallel_env(num_players=2, illegal_action="terminate")
    env.reset(seed=1)
    observations, rewards, terminations, truncations, infos = env.step(
        {"player_0": 0, "player_1": 15})  # 15: the Mountains, not in play with 2 players
    assert rewards == {"player_0": 0.0, "player_1": -1.0}
    assert all(terminations.values()) and not any(truncations.values())
    assert env.agents == [] and env.game.day == 0  # nothing was played
    assert not any(o["action_mask"].any() for o in observations.values())
    assert infos["player_0"] == {"day": 0, "win_share": 0.0}
    with pytest.raises(IllegalActionError, match="over"):
        env.step({"player_0": 0, "player_1": 0})
    with pytest.raises(IllegalActionError, match="outside"):  # bad input still raises
        env.reset(seed=1)
        env.step({"player_0": 0, "player_1": 20})


def finish_with_none(env) -> dict[str, float]:
    """Step every finished agent with None; return each agent's reward at its last turn."""
    final = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination or truncation
        final[agent] = reward
        env.step(None)
    return final


@pytest.mark.parametrize("make", [
    lambda: hunger_show_v0.env(num_players=3, illegal_action="terminate"),
    lambda: TerminateIllegalWrapper(hunger_show_v0.raw_env(num_players=3), illegal_reward=-1),
    lambda: TerminateIllegalWrapper(hunger_show_v0.env(num_players=3, action_mask="info"),
                                    illegal_reward=-1),
])
def test_terminate_illegal_wrapper_on_the_hunger_show_aec_view(make):
    env = make()
    env.reset(seed=2)
    env.step(0)  # player_0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
        env.step(19)  # player_1: guard at the Mountains, not in play with 3 players
    assert finish_with_none(env) == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert env.unwrapped.game.day == 0


def test_hunger_show_aec_view_over_a_terminating_parallel_env():
    env = hunger_show_v0.raw_env(num_players=2, illegal_action="terminate")
    env.reset(seed=2)
    env.step(19)  # checked at the end of the day, as the Parallel env does
    env.step(0)
    assert finish_with_none(env) == {"player_0": -1.0, "player_1": 0.0}


def test_hungry_terminate_with_masks_in_infos():
    env = hungry_v0.env(num_players=2, illegal_action="terminate", action_mask="info")
    env.reset(seed=0)
    _, _, _, _, info = env.last()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert finish_with_none(env) == {"player_0": -1.0, "player_1": 0.0}


def assert_batchable(infos: dict[str, dict], keys: set[str]) -> None:
    for info in infos.values():
        assert set(info) == keys
        for key, value in info.items():
            if key == "action_mask":
                assert value.shape == (len(value),) and value.dtype == np.int8
            else:
                assert np.isscalar(value) and isinstance(value, int | float)


@pytest.mark.parametrize("options", [{}, {"action_mask": "info"}, {"eliminated": "stay"}])
@pytest.mark.parametrize("seed", range(3))
def test_hunger_show_infos_batch_at_every_step(options, seed):
    env = hunger_show_v0.parallel_env(num_players=5, **options)
    keys = {"day", "win_share"} | ({"action_mask"} if options.get("action_mask") else set())
    observations, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    assert_batchable(infos, keys)
    while env.agents:
        masks = {a: env.action_mask(a) for a in env.agents}
        _, _, _, _, infos = env.step(
            {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()})
        assert_batchable(infos, keys)
    assert sum(info["win_share"] for info in infos.values()) == pytest.approx(1.0)
    assert [a for a, info in infos.items() if info["win_share"]] == env.winners


@pytest.mark.parametrize("action_mask", ["observation", "info"])
def test_hungry_infos_batch_at_every_step(action_mask):
    env = hungry_v0.env(num_players=3, action_mask=action_mask)
    keys = {"score", "win_share"} | ({"action_mask"} if action_mask == "info" else set())
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    final = {}
    for agent in env.agent_iter():
        observation, _, termination, _, info = env.last()
        assert_batchable(env.infos, keys)
        if termination:
            final[agent] = info
            env.step(None)
            continue
        mask = info["action_mask"] if action_mask == "info" else observation["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    totals = env.unwrapped.game.totals()
    assert [final[a]["score"] for a in env.possible_agents] == totals
    shares = [final[a]["win_share"] for a in env.possible_agents]
    assert sum(shares) == pytest.approx(1.0)
    assert [a for a, s in zip(env.possible_agents, shares, strict=True) if s] == \
        env.unwrapped.winners
