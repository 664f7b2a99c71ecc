"""The trained agents shipped inside the package: ``pretrained:NAME`` policy specs.

Each agent is a policy file (``hunger_rl/pretrained/NAME.safetensors``: weights plus JSON
metadata, loaded without pickle by ``policies.learned``); ``agents.json`` beside them says
what each one is, the config that trained it and its measured strength.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

PREFIX = "pretrained:"
CATALOGUE = "agents.json"


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """Every shipped agent by name: game, players, description, config, strength."""
    text = resources.files("hunger_rl.pretrained").joinpath(CATALOGUE).read_text("utf-8")
    return json.loads(text)


def pretrained_names(game: str, num_players: int | None = None) -> list[str]:
    """The shipped agents for ``game`` (and ``num_players``, if given)."""
    return [name for name, entry in catalogue().items()
            if entry["game"] == game and num_players in (None, entry["num_players"])]


def load_pretrained(name: str, game: str, num_players: int):
    """The shipped agent ``name`` as a policy; a clear error for an unknown or unfit one."""
    entry = catalogue().get(name)
    if entry is None:
        raise ValueError(f"unknown pretrained agent {name!r}; shipped: "
                         f"{', '.join(PREFIX + n for n in catalogue())}")
    if (entry["game"], entry["num_players"]) != (game, num_players):
        fitting = ", ".join(PREFIX + n for n in pretrained_names(game, num_players)) or "none"
        raise ValueError(f"{PREFIX}{name} plays {entry['game']} with {entry['num_players']} "
                         f"players, not {game} with {num_players}; for that: {fitting}")
    try:
        from hunger_rl.policies.learned import load_policy
    except ImportError as error:
        raise ValueError(f"{PREFIX}{name} needs the 'train' extra (torch, sb3-contrib, "
                         f"safetensors): {error}") from error
    weights = resources.files("hunger_rl.pretrained").joinpath(f"{name}.safetensors")
    with resources.as_file(weights) as path:
        policy = load_policy(path, game=game, num_players=num_players)
    policy.name = PREFIX + name
    return policy
