"""``ismcts:N``: OpenSpiel's ISMCTS bot as a policy of the suite, from observations alone."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from hunger_rl.engines.hungry.view import public_view
from hunger_rl.envs import hunger_show_v0, hungry_v0
from hunger_rl.policies.registry import make_policy


def test_ismcts_spec_without_openspiel_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "hunger_rl.policies.ismcts", raising=False)
    real_import = builtins.__import__

    def no_pyspiel(name, *args, **kwargs):
        if name.split(".")[0] in ("pyspiel", "open_spiel"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyspiel)
    with pytest.raises(ValueError, match="'ismcts:5' cannot be loaded.*openspiel extra"):
        make_policy("ismcts:5", "hungry", 2)


pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from hunger_rl.openspiel.hunger_show import state_from_observation  # noqa: E402
from hunger_rl.policies.ismcts import table_order  # noqa: E402


def test_table_order_replays_the_table():
    placed = np.zeros((3, 50), dtype=np.int64)
    placed[0, 4] = 1
    placed[1, [7, 9]] = 1
    placed[2, 30] = 2
    # Five plays from seat 1: seats 1, 2, 0, 1, 2, each taking its actions in increasing order.
    assert table_order(placed, first=1) == [7, 30, 4, 9, 30]


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_plays_legal_reproducible_moves_from_observations(players):
    policy = make_policy("ismcts:20", "hungry", players)
    assert policy.name == "ismcts:20"
    env = hungry_v0.raw_env(num_players=players, first_player="random", tied_second="void")
    env.reset(seed=players)
    rng = np.random.default_rng(0)
    for _ in range(7 * players + 1):  # into the game, past a few draws
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    observation = env.observe(env.agent_selection)
    view = public_view(env, env.agent_selection)
    picks = {policy.act(observation, np.random.default_rng(5), view) for _ in range(2)}
    assert len(picks) == 1
    assert observation["action_mask"][picks.pop()] == 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_show_dealt_from_an_observation_shows_the_observer_that_observation(players):
    """``state_from_observation``: player 0 of the dealt show sees exactly the observation it
    was dealt from, at every step of random shows, with and without characters."""
    for seed in range(4):
        env = hunger_show_v0.parallel_env(num_players=players, characters=seed % 2 == 1,
                                          events=("standard", "hard")[seed // 2])
        observations, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            for agent in env.agents:
                observed = observations[agent]["observation"]
                state = state_from_observation(observed, rng)
                assert state.current_player() == 0
                assert state.observation_tensor(0) == observed.tolist()
            observations, *_ = env.step({agent: int(rng.integers(5 * env.config.num_locations))
                                         for agent in env.agents})


def test_ismcts_plays_legal_reproducible_picks_in_the_show():
    policy = make_policy("ismcts:10", "hunger_show", 3)
    env = hunger_show_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    observations, *_ = env.step({agent: int(rng.integers(15)) for agent in env.agents})
    observation = observations["player_1"]
    picks = {policy.act(observation, np.random.default_rng(9)) for _ in range(2)}
    assert len(picks) == 1 and observation["action_mask"][picks.pop()] == 1
