"""What the trainers know of each game, registered by game name beside ``envs.GAMES``.

The env-level facts (environment module, native API, player counts, score) are the game's
``GameSpec``; the policy-level ones its ``POLICY_TABLES`` entry (``policies.registry``) and its
``ENCODINGS`` entry (``policies.models.encoders``). This table adds the training-level ones: the
single-agent view the SB3 trainer steps, the compiled opponents of its batched training env,
and which of the game-specific training features the game supports.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The opponent "self" (``opponents.weights``): frozen snapshots of the learner.
SELF_PLAY = "self"


@dataclass(frozen=True)
class TrainingGame:
    """One game as the trainers see it."""

    # "module:Class" of the single-agent view, by the native API of the environment it wraps
    # (``GameSpec.native_api``: HUNGER's full-decision mode is AEC).
    single_agent_views: Mapping[str, str]
    # The opponents the game's batched training env (``env.batched``) plays itself.
    batched_opponents: tuple[str, ...]
    # "module:function" building that env from a training config and the game's encoder.
    batched_vec_env: str
    # The endgame head (``network.endgame_head``, ``endgame.positions``), fitted on Hungry's
    # empty-deck positions.
    endgame_head: bool = False
    # Potential-based shaping by the public score margin (``env.margin_shaping``).
    margin_shaping: bool = False
    # The batched env deals each game to a group of slots alike and its games all last the
    # same number of learner steps (``ppo.group_baseline``).
    group_baseline: bool = False
    # The batched env keeps its learners' positions and plays branches of them on the same deal
    # (``ppo.branch_advantages``).
    branch_advantages: bool = False
    # The batched env holds a league (``training.league``): frozen snapshots (``self``) among its
    # opponents, drawn by prioritised fictitious self-play (``opponents.pfsp_exponent``).
    league: bool = False
    # "module:function" playing expert iteration's games (``backend: expert_iteration``): the
    # game's search guided by the network in every seat, its positions and policy targets.
    expert_iteration_games: str | None = None
    # Expert iteration's search may cut its playouts off at the network's value
    # (``expert_iteration.cutoff``); HUNGER's takes its network as a prior only.
    search_cutoff: bool = False
    # Expert iteration's games may be played by the compiled forecast players instead of the
    # search (``expert_iteration.players: forecast``, ``training.positions.forecast_games``).
    forecast_players: bool = False

    def single_agent_view(self, api: str) -> type:
        """The single-agent view class for an environment of native API ``api``."""
        if api not in self.single_agent_views:
            raise ValueError(f"no single-agent view for {api!r} environments of this game; "
                             f"views for: {sorted(self.single_agent_views)}")
        return _load(self.single_agent_views[api])

    def make_batched_vec_env(self, config: Any, encoder: Any) -> Any:
        """The batched training env (``env.batched``) of ``config``, observations encoded by
        ``encoder``."""
        return _load(self.batched_vec_env)(config, encoder)

    def expert_iteration_player(self) -> Any:
        """The function playing expert iteration's games of this game
        (``training.expert_iteration.play_games``)."""
        return _load(self.expert_iteration_games)


def _load(target: str) -> Any:
    """The object ``"module:name"`` names, its module imported on first use."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


_VIEWS = "hunger_rl.training.single_agent"
_EXPERT_ITERATION = "hunger_rl.training.expert_iteration"

TRAINING_GAMES: dict[str, TrainingGame] = {
    "hungry": TrainingGame(
        single_agent_views={"aec": f"{_VIEWS}:HungrySingleAgentEnv"},
        # hunger_rl.policies.hungry_batched.POLICY_KINDS
        batched_opponents=("random", "greedy", "forecast", "expert"),
        batched_vec_env="hunger_rl.training.batched_vec_env:batched_vec_env_from_config",
        endgame_head=True,
        margin_shaping=True,
        group_baseline=True,
        branch_advantages=True,
        expert_iteration_games=f"{_EXPERT_ITERATION}:play_hungry_games",
        search_cutoff=True,
        forecast_players=True,
    ),
    "hunger_show": TrainingGame(
        single_agent_views={"parallel": f"{_VIEWS}:ShowSingleAgentEnv",
                            "aec": f"{_VIEWS}:ShowFullDecisionSingleAgentEnv"},
        # hunger_rl.policies.hunger_show_batched.POLICY_KINDS, and snapshots of the learner
        batched_opponents=("random", "greedy", "crowd", "expert", "self"),
        batched_vec_env="hunger_rl.training.batched_show_vec_env:batched_vec_env_from_config",
        league=True,
        expert_iteration_games=f"{_EXPERT_ITERATION}:play_show_games",
    ),
}


def training_game(name: str) -> TrainingGame:
    """The training registration of game ``name``; a clear error for a game without one."""
    if name not in TRAINING_GAMES:
        raise ValueError(f"game {name!r} has no training registration "
                         f"(hunger_rl.training.games); games that train: "
                         f"{sorted(TRAINING_GAMES)}")
    return TRAINING_GAMES[name]


def games_with(feature: str) -> str:
    """The games that support a training feature (a flag of ``TrainingGame``), for messages:
    ``hungry``, ``hungry and hunger_show``."""
    names = [name for name, game in TRAINING_GAMES.items() if getattr(game, feature)]
    return " and ".join(names) if names else "no game"
