"""The training registry (``training.games``) covers every game, consistently."""

from __future__ import annotations

import pytest

from hunger_rl.envs import GAMES
from hunger_rl.policies import hunger_show_batched, hungry_batched
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
    assert TRAINING_GAMES["hunger_show"].batched_opponents == hunger_show_batched.POLICY_KINDS


def test_unregistered_games_and_apis_are_named_in_the_error():
    with pytest.raises(ValueError, match="game 'chess' has no training registration"):
        training_game("chess")
    with pytest.raises(ValueError, match="no single-agent view for 'parallel'"):
        training_game("hungry").single_agent_view("parallel")
    assert games_with("endgame_head") == "hungry"
