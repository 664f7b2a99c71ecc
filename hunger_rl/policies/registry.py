"""Policy specs: the strings every command accepts to name a policy.

``random``, ``greedy``, ``expert``; for Hungry also ``forecast`` (the expert's valuation,
approximated and compiled) and ``search`` or ``search:N`` (determinized Monte Carlo search with N
playouts per move, 200 by default); for HUNGER: The Show also ``crowd`` (the argmax of the
crowd values, the expert's valuation with one round of replies); ``pretrained:NAME``, a trained
agent shipped with the package (``policies.pretrained``); or the path of a trained checkpoint.
"""

from __future__ import annotations

import os

from hunger_rl.envs import GAMES
from hunger_rl.policies.base import Policy, RandomPolicy

DEFAULT_SEARCH_SIMULATIONS = 200
CHECKPOINT_SUFFIXES = (".safetensors", ".zip", ".pt", ".pth", ".ckpt")


def policy_specs(game: str) -> list[str]:
    """The scripted policy names valid for ``game`` (a checkpoint path is valid too)."""
    _check_game(game)
    names = ["random", "greedy", "expert"]
    if game == "hungry":
        names += ["forecast", "search"]
    else:
        names += ["crowd"]
    return names


def make_policy(spec: str, game: str, num_players: int) -> Policy:
    """The policy named by ``spec`` for ``game`` with ``num_players`` players."""
    _check_game(game)
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a policy spec must be a non-empty string, got {spec!r}")
    name, _, argument = spec.partition(":")
    if name == "random" and not argument:
        return RandomPolicy()
    if name in ("greedy", "expert") and not argument:
        return _scripted(game, name)
    if name == "forecast" and game == "hungry" and not argument:
        from hunger_rl.policies.hungry import ForecastHungryPolicy

        return ForecastHungryPolicy()
    if name == "crowd" and game == "hunger_show" and not argument:
        from hunger_rl.policies.hunger_show import CrowdShowPolicy

        return CrowdShowPolicy()
    if name == "pretrained" and argument:
        from hunger_rl.policies.pretrained import load_pretrained

        return load_pretrained(argument, game, num_players)
    if name == "search" and game == "hungry":
        from hunger_rl.policies.hungry_search import SearchHungryPolicy

        return SearchHungryPolicy(simulations=_simulations(spec, argument))
    if _looks_like_path(spec):
        return _load_checkpoint(spec, game, num_players)
    raise ValueError(f"unknown policy spec {spec!r} for {game}; {_valid_specs_text(game)}")


SPEC_DESCRIPTIONS = {
    "random": "uniformly random over the legal actions",
    "greedy": "one-step greedy: the action with the best immediate gain",
    "expert": "hand-written expected-value player, the strongest quick scripted baseline",
    "forecast": "the expert's valuation, approximated and compiled (fast)",
    "search": f"determinized Monte Carlo search, N playouts per move ({DEFAULT_SEARCH_SIMULATIONS} "
              "by default; slow)",
    "crowd": "the argmax of the crowd values (the expert's valuation, one round of replies)",
}


def describe_specs(game: str, num_players: int) -> list[tuple[str, str]]:
    """Every policy spec for ``game`` with ``num_players``, each with a one-line description."""
    from hunger_rl.policies.pretrained import PREFIX, catalogue, pretrained_names

    rows = [("search:N" if n == "search" else n, SPEC_DESCRIPTIONS[n]) for n in policy_specs(game)]
    rows += [(PREFIX + n, catalogue()[n]["description"])
             for n in pretrained_names(game, num_players)]
    rows.append(("PATH", "a policy trained by `hunger-rl train` (its folder or policy file)"))
    return rows


def _scripted(game: str, name: str) -> Policy:
    if game == "hungry":
        from hunger_rl.policies.hungry import ExpertHungryPolicy, GreedyHungryPolicy

        return GreedyHungryPolicy() if name == "greedy" else ExpertHungryPolicy()
    from hunger_rl.policies.hunger_show import ExpertShowPolicy, GreedyShowPolicy

    return GreedyShowPolicy() if name == "greedy" else ExpertShowPolicy()


def _simulations(spec: str, argument: str) -> int:
    if not argument:
        return DEFAULT_SEARCH_SIMULATIONS
    if not argument.isdigit() or int(argument) < 1:
        raise ValueError(f"in {spec!r}, the simulation budget must be a positive integer")
    return int(argument)


def _looks_like_path(spec: str) -> bool:
    return os.path.exists(spec) or os.sep in spec or spec.endswith(CHECKPOINT_SUFFIXES)


def _load_checkpoint(path: str, game: str, num_players: int) -> Policy:
    if not os.path.exists(path):
        raise ValueError(f"no checkpoint at {path!r}; {_valid_specs_text(game)}")
    try:
        from hunger_rl.policies.learned import load_policy
    except ImportError as error:
        raise ValueError(
            f"cannot load checkpoint {path!r}: trained policies are not available ({error})"
        ) from error
    return load_policy(path, game=game, num_players=num_players)


def _valid_specs_text(game: str) -> str:
    names = [("search:N" if n == "search" else n) for n in policy_specs(game)]
    return (f"valid specs: {', '.join(names)}, pretrained:NAME (see `hunger-rl policies`), or "
            "the path of a checkpoint")


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {sorted(GAMES)}")
