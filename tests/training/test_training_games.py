"""The training registry (``training.games``) covers every game, consistently."""

from __future__ import annotations

import numpy as np
import pytest

from hunger_rl.envs import GAMES
from hunger_rl.policies import hunger_show_batched, hungry_batched
from hunger_rl.training.config import SELF_PLAY
from hunger_rl.training.games import TRAINING_GAMES, games_with, training_game
from hunger_rl.training.single_agent import SingleAgentEnv


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_view_for_each_api_it_can_run_in(name):
    spec = GAMES[name]
    apis = {spec.api} | ({"aec"} if spec.full_decision_option else set())
    game = training_game(name)
    assert set(game.single_agent_views) == apis
    for api in apis:
        assert issubclass(game.single_agent_view(api), SingleAgentEnv)


def test_batched_opponents_are_the_compiled_policies():
    assert TRAINING_GAMES["hungry"].batched_opponents == hungry_batched.POLICY_KINDS
    # HUNGER's batched env holds a league: its compiled players, and snapshots of the learner.
    assert TRAINING_GAMES["hunger_show"].batched_opponents == (*hunger_show_batched.POLICY_KINDS,
                                                                SELF_PLAY)


def test_unregistered_games_and_apis_are_named_in_the_error():
    with pytest.raises(ValueError, match="game 'chess' has no training registration"):
        training_game("chess")
    with pytest.raises(ValueError, match="no single-agent view for 'parallel'"):
        training_game("hungry").single_agent_view("parallel")
    assert games_with("endgame_head") == "hungry"
    assert games_with("league") == "hunger_show"


@pytest.mark.parametrize(("name", "num_players"), [("hungry", 3), ("hunger_show", 5)])
def test_batched_vec_env_is_built_from_the_config(name, num_players):
    from hunger_rl.policies.models.encoders import make_encoder
    from hunger_rl.training.config import config_from_dict

    config = config_from_dict({"game": name, "num_players": num_players, "seed": 3,
                               "env": {"n_envs": 6, "batched": True},
                               "opponents": {"weights": {"greedy": 1.0}}})
    encoder = make_encoder(name, num_players, config.game_options)
    env = training_game(name).make_batched_vec_env(config, encoder)
    try:
        assert env.num_envs == 6
        observations = env.reset()
        assert observations.shape == (6, encoder.size)
        assert np.asarray(env.env_method("action_masks")).shape == (6, env.action_space.n)
    finally:
        env.close()
