"""The games, each a pure rules engine plus its PettingZoo wrappers.

``GAMES`` maps a game name to the import path of its versioned environment module, so that
commands can accept ``--game NAME`` without importing every game up front.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES = {
    "hungry": "hunger_rl.envs.hungry_v0",
    "hunger_show": "hunger_rl.envs.hunger_show_v0",
}


def load_game(name: str) -> ModuleType:
    """Import and return the environment module of the game called ``name``."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return importlib.import_module(GAMES[name])
