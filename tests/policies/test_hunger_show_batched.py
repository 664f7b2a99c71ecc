"""The compiled HUNGER players against the Python ones, on observations of random shows."""

from __future__ import annotations

import numpy as np
import pytest

from hunger_rl.engines.hunger_show.batched import BatchedShow
from hunger_rl.envs.hunger_show.env import legal_mask
from hunger_rl.policies import hunger_show
from hunger_rl.policies.hunger_show_batched import (
    BatchedShowPolicies,
    crowd_features,
    greedy_values,
    layout_offsets,
)
from hunger_rl.policies.models.encoders import SHOW_VALUE_SCALE, ShowEncoder


def observations_of_random_shows(num_players, days=40, batch_size=8, seed=0):
    """(observation, mask) of every living seat over ``days`` random days of a batch."""
    batch = BatchedShow(num_players, batch_size, characters=True)
    out = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(days):
        for show in range(batch_size):
            for seat in range(num_players):
                if out.action_masks[show, seat].any():
                    seen.append((out.observations[show, seat].copy(),
                                 out.action_masks[show, seat].copy()))
        out = batch.step(rng.integers(0, batch.num_legal, size=(batch_size, num_players)))
    return seen


def python_crowd_features(vector, num_players):
    """The encoder's crowd block from the Python valuation (``crowd_player_values``)."""
    view = hunger_show.ShowView.from_observation({"observation": vector})
    actions = np.flatnonzero(legal_mask(num_players))
    values, crowd = hunger_show.crowd_player_values(view, actions)
    best = values.max()
    locations = actions // 5
    per_action = np.zeros((20, 5))
    per_action[actions] = np.stack((
        (values - best) / SHOW_VALUE_SCALE, crowd.nobody[actions], crowd.exactly_one[actions],
        crowd.thief_risk[locations], crowd.guard_risk[locations]), axis=1)
    return np.append(per_action.ravel(), best / SHOW_VALUE_SCALE)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_compiled_crowd_features_equal_the_python_valuation(num_players):
    seen = observations_of_random_shows(num_players, days=15)
    vectors = np.stack([o for o, _ in seen])
    expected = np.stack([python_crowd_features(v, num_players) for v in vectors])
    np.testing.assert_allclose(crowd_features(vectors, num_players, SHOW_VALUE_SCALE),
                               expected, rtol=1e-5, atol=1e-5)
    encoder = ShowEncoder(num_players)
    np.testing.assert_allclose(encoder.batch(vectors)[:, encoder.action_features.start:],
                               expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("num_players", [3, 5])
def test_compiled_greedy_values_equal_the_python_players(num_players):
    offsets = layout_offsets(num_players)
    values = np.empty(20)
    for observation, mask in observations_of_random_shows(num_players, days=10):
        actions = np.flatnonzero(mask)
        greedy_values(observation, offsets, actions, actions.size, values)
        view = hunger_show.ShowView.from_observation({"observation": observation})
        python_values = []
        for action in actions:
            location, act = divmod(int(action), 5)
            if act >= 3:
                python_values.append(2 * hunger_show.MEAN_COCONUT
                                     * hunger_show._food_weight(view))
            elif location == 0:
                python_values.append(0.0)
            else:
                worth = (view.raft_token_value() if act == 2
                         else hunger_show.MEAN_FOOD[act] * hunger_show._food_weight(view))
                python_values.append(min(2, view.pile(location, act)) * worth)
        np.testing.assert_allclose(values[:actions.size], python_values, rtol=1e-9)


def test_batched_players_pick_legal_actions_and_leave_the_learner_alone():
    batch = BatchedShow(4, 6, characters=True)
    out = batch.reset(seed=3)
    kinds = [["expert", "crowd", "greedy", None]] * 3 + [["random"] * 4] * 3
    players = BatchedShowPolicies(kinds, 4, seed=1)
    for _ in range(30):
        actions = players.act(out.observations, out.action_masks).copy()
        living = out.action_masks.any(axis=2)
        legal = np.take_along_axis(out.action_masks, actions[..., None], axis=2)[..., 0]
        assert (legal[living] == 1).all()
        assert (actions[:3, 3] == 0).all()
        actions[:3, 3] = np.where(living[:3, 3], 5, 0)  # the learner forages at the Beach
        out = batch.step(actions)
    with pytest.raises(ValueError, match="not 'forecast'"):
        BatchedShowPolicies([["forecast"] * 4], 4)


def test_the_compiled_players_load_without_pettingzoo():
    """The compiled players and the batched engine they play take HUNGER's layouts and action
    encoding from the engine level, so loading them imports no PettingZoo (a fresh process:
    this one has imported it already)."""
    import subprocess
    import sys

    check = ("import sys, hunger_rl.policies.hunger_show_batched; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pettingzoo'))")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_crowd_features_compile_first_from_a_cold_cache(tmp_path):
    """The crowd values run without reference counts; an array method there that needs them
    compiles only where a counting caller compiled it first, so a fresh process with an empty
    cache, whose first call is the encoder's crowd block (as in a training run), must compile
    and give the features of this process."""
    import os
    import subprocess
    import sys

    vectors = np.stack([o for o, _ in observations_of_random_shows(2, days=5)])
    np.save(tmp_path / "vectors.npy", vectors)
    script = ("import numpy as np; "
              "from hunger_rl.policies.hunger_show_batched import crowd_features; "
              f"v = np.load({str(tmp_path / 'vectors.npy')!r}); "
              f"np.save({str(tmp_path / 'features.npy')!r}, crowd_features(v, 2, 3.0))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "features.npy"),
                                  crowd_features(vectors, 2, 3.0))
