"""The trained agents shipped inside the package: ``pretrained:NAME`` policy specs.

Each agent is a policy file (``hunger_rl/pretrained/NAME.safetensors``: weights plus JSON
metadata, loaded without pickle by ``policies.learned``); ``agents.json`` beside them says
what each one is, the config that trained it, how it plays and its measured strength.

An entry with a ``search`` (``{"simulations": N}`` or ``{"plays": B}``, a budget of simulated
plays a move; and ``"cutoff": D`` for a network whose value head predicts win shares) plays
Hungry's network-guided search with its network as the prior,
``search:N:pretrained:NAME:network`` (``search:Bplays:...``, ``search:N:D:...``), under the
agent's own name; with ``"guided": false`` it plays the search without its network
(``search:N``, ``search:Bplays``), and with ``"beliefs": true`` it models the other seats as the
expert once the deck is empty (``search:N:beliefs``), with ``"solve": true`` it plays the
2-player endgame exactly (``search:N:solve``). An entry with a ``temperature`` T > 0 (and
no search) samples from its network's softmax at T, a mixed strategy (``policies.learned``);
without one it plays the argmax. ``pretrained:NAME:network`` is the network alone, playing its
argmax, for every agent.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hunger_rl.policies.registry import ScriptedPolicy

PREFIX = "pretrained:"
CATALOGUE = "agents.json"
# ``pretrained:NAME:NETWORK``: the agent's network alone, without the search it plays with.
NETWORK = "network"
SEARCH_KEYS = {"simulations", "plays", "cutoff", "guided", "beliefs", "solve"}
# Exactly one of these says a search's budget: playouts or simulated plays a move.
BUDGET_KEYS = {"simulations", "plays"}


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """Every shipped agent by name: game, players, description, config, search, strength."""
    text = resources.files("hunger_rl.pretrained").joinpath(CATALOGUE).read_text("utf-8")
    return json.loads(text)


def pretrained_names(game: str, num_players: int | None = None) -> list[str]:
    """The shipped agents for ``game`` (and ``num_players``, if given)."""
    return [name for name, entry in catalogue().items()
            if entry["game"] == game and num_players in (None, entry["num_players"])]


def load_pretrained(argument: str, game: str, num_players: int,
                    search_policy: ScriptedPolicy | None = None):
    """The shipped agent of ``pretrained:ARGUMENT`` (``NAME`` or ``NAME:network``) as a
    policy; a clear error for an unknown or unfit one. ``search_policy``: the game's scripted
    policy that an entry's ``search`` plays (``policies.registry.ScriptedPolicy`` with
    ``shipped_search``), or None where the game has none."""
    name, _, part = argument.partition(":")
    if part not in ("", NETWORK):
        raise ValueError(f"{PREFIX}{argument}: unknown part {part!r} after the agent's name; "
                         f"{PREFIX}{name} is the shipped agent (with its search, if it has "
                         f"one), {PREFIX}{name}:{NETWORK} its network alone")
    entry = catalogue().get(name)
    if entry is None:
        raise ValueError(f"unknown pretrained agent {name!r}; shipped: "
                         f"{', '.join(PREFIX + n for n in catalogue())}")
    if (entry["game"], entry["num_players"]) != (game, num_players):
        fitting = ", ".join(PREFIX + n for n in pretrained_names(game, num_players)) or "none"
        raise ValueError(f"{PREFIX}{name} plays {entry['game']} with {entry['num_players']} "
                         f"players, not {game} with {num_players}; for that: {fitting}")
    from hunger_rl.policies.learned import load_policy

    weights = resources.files("hunger_rl.pretrained").joinpath(f"{name}.safetensors")
    with resources.as_file(weights) as path:
        network = load_policy(path, game=game, num_players=num_players)
    search = entry.get("search")
    network.name = PREFIX + name + (f":{NETWORK}" if part or search else "")
    if part == NETWORK:
        return network
    if search is None:
        _play_at_temperature(name, entry, network)
        return network
    if "temperature" in entry:
        raise ValueError(f"{CATALOGUE}, agent {name!r}: a temperature is for an agent that plays "
                         "its network, not for one that searches")
    return _searching_agent(name, entry, network, search_policy)


def _play_at_temperature(name: str, entry: dict[str, Any], network) -> None:
    """Set the network's temperature to the entry's (argmax play without one)."""
    from hunger_rl.policies.learned import checked_temperature

    try:
        network.temperature = checked_temperature(entry.get("temperature", 0.0))
    except ValueError as error:
        raise ValueError(f"{CATALOGUE}, agent {name!r}: {error}") from error


def _searching_agent(name: str, entry: dict[str, Any], network,
                     policy: ScriptedPolicy | None):
    """The network-guided search an entry's ``search`` describes, named ``pretrained:NAME``:
    ``policy`` (the registry's entry of the game's search that shipped agents play)."""
    search = entry["search"]
    problem = None
    if policy is None:
        problem = (f"no search of {entry['game']} plays a shipped agent (its network-guided "
                   f"search takes {PREFIX}{name} as the network instead)")
    elif not (isinstance(search, dict) and len(BUDGET_KEYS & set(search)) == 1
              and set(search) <= SEARCH_KEYS):
        problem = (f"search must be {{'simulations': N}} or {{'plays': B}}, with 'cutoff': D, "
                   f"'guided': false, 'beliefs': true or 'solve': true if need be, got "
                   f"{search!r}")
    elif not isinstance(search.get("guided", True), bool):
        problem = f"search's 'guided' must be true or false, got {search['guided']!r}"
    elif not isinstance(search.get("beliefs", False), bool):
        problem = f"search's 'beliefs' must be true or false, got {search['beliefs']!r}"
    elif not isinstance(search.get("solve", False), bool):
        problem = f"search's 'solve' must be true or false, got {search['solve']!r}"
    elif search.get("solve") and entry["num_players"] != 2:
        problem = "'solve' solves the 2-player endgame only"
    elif search.get("cutoff") is not None and not search.get("guided", True):
        problem = "a cut-off takes the network's value, so it needs a guided search"
    elif search.get("cutoff") is not None and not network.predicts_win_share:
        problem = "a cut-off needs a value head fitted to win shares, which this network lacks"
    if problem:
        raise ValueError(f"{CATALOGUE}, agent {name!r}: {problem}")
    guide = network if search.get("guided", True) else None
    try:
        agent = policy.policy_class(PREFIX + name)(
            search.get("simulations"), guide, search.get("cutoff"), plays=search.get("plays"),
            beliefs=search.get("beliefs", False), solve=search.get("solve", False))
    except ValueError as error:
        raise ValueError(f"{CATALOGUE}, agent {name!r}: {error}") from error
    agent.name = PREFIX + name
    return agent
