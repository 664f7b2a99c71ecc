"""The games' environments: PettingZoo wrappers over the rules engines of `hunger_rl.engines`.

``GAMES`` maps a game name to its :class:`GameSpec`, the env-level facts every command needs
(where its environment module is, its native API, its player counts, what its score means),
so that commands accept ``--game NAME`` without importing every game up front and without a
branch per game. Policy-level facts (scripted policies, encoders) are registered by game name
in ``hunger_rl.policies.registry``. A new game is a folder in ``hunger_rl.engines``, a folder
here and one entry below.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hunger_rl.engines import hunger_show, hungry


@dataclass(frozen=True)
class GameSpec:
    """One game as the commands see it."""

    name: str
    # Import path of the versioned environment module (``hungry_v0``): ``raw_env``, ``env``,
    # and for a Parallel game ``parallel_env``.
    module: str
    # The environment's native PettingZoo API: "aec" (turn-based) or "parallel".
    api: str
    min_players: int
    max_players: int
    default_players: int
    # The attribute of the unwrapped env that maps each ranked agent to its score at the end,
    # and what that score is.
    score_attribute: str
    score_label: str
    # The Gymnasium id of the game's single-agent view: ``training.interop`` registers it, and
    # the policies layer names it in its messages without importing the trainers.
    gymnasium_id: str
    # "module:function" giving a policy's public view of an observation from
    # ``(observation, env_kwargs)``, for games whose scripted policies read one; else None.
    public_view: str | None = None
    # The env option and value of a full-decision mode, where every choice (not only the
    # simultaneous picks of a Parallel game) is one agent's step, so the env is AEC; else None.
    full_decision_option: tuple[str, Any] | None = None
    # Whether the env takes ``decisions`` objects for the choices besides the actions (HUNGER's
    # S19); a game record notes their answers.
    decision_objects: bool = False

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def full_decisions(self, env_kwargs: dict[str, Any]) -> bool:
        """Whether ``env_kwargs`` select the full-decision mode (HUNGER's
        ``decision_mode="agents"``)."""
        if self.full_decision_option is None:
            return False
        option, value = self.full_decision_option
        return env_kwargs.get(option) == value

    def native_api(self, env_kwargs: dict[str, Any]) -> str:
        """The native API of the environment built with ``env_kwargs``: a full-decision mode is
        AEC, since its choices are one agent's steps."""
        return "aec" if self.full_decisions(env_kwargs) else self.api

    def make_env(self, num_players: int, **env_kwargs: Any):
        """The native environment, unwrapped: ``raw_env`` (AEC) or ``parallel_env``."""
        module = self.load()
        factory = module.raw_env if self.native_api(env_kwargs) == "aec" else module.parallel_env
        return factory(num_players=num_players, **env_kwargs)

    def check_env_options(self, num_players: int, env_kwargs: dict[str, Any]) -> None:
        """Build the env once, so that an unknown option name, a bad option value or a player
        count the game does not have raises ``ValueError`` here, naming the game."""
        try:
            self.make_env(num_players, **env_kwargs)
        except (TypeError, ValueError) as error:
            raise ValueError(f"game_options or num_players rejected by {self.name}: "
                             f"{error}") from error

    def view_of(self, observation: Any, env_kwargs: dict[str, Any]) -> Any:
        """The public view of ``observation`` for scripted policies, or None."""
        if self.public_view is None:
            return None
        module, _, name = self.public_view.partition(":")
        return getattr(importlib.import_module(module), name)(observation, env_kwargs)


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="hungry",
            module="hunger_rl.envs.hungry_v0",
            api="aec",
            min_players=hungry.MIN_PLAYERS,
            max_players=hungry.MAX_PLAYERS,
            default_players=hungry.DEFAULT_PLAYERS,
            score_attribute="totals",
            score_label="mean total",
            gymnasium_id="hunger_rl/Hungry-v0",
            public_view="hunger_rl.engines.hungry.view:view_from_observation",
        ),
        GameSpec(
            name="hunger_show",
            module="hunger_rl.envs.hunger_show_v0",
            api="parallel",
            min_players=hunger_show.MIN_PLAYERS,
            max_players=hunger_show.MAX_PLAYERS,
            default_players=hunger_show.DEFAULT_PLAYERS,
            score_attribute="ranking_keys",
            score_label="mean raft sets",
            gymnasium_id="hunger_rl/HungerShow-v0",
            full_decision_option=("decision_mode", "agents"),
            decision_objects=True,
        ),
    )
}


def player_counts_text() -> str:
    """Each game's player counts, for help texts: ``hungry 2-4, hunger_show 2-6``."""
    return ", ".join(f"{spec.name} {spec.min_players}-{spec.max_players}"
                     for spec in GAMES.values())


def game_spec(name: str) -> GameSpec:
    """The spec of the game called ``name``; a clear error naming the games for another."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return GAMES[name]


def load_game(name: str) -> ModuleType:
    """Import and return the environment module of the game called ``name``."""
    return game_spec(name).load()
