"""Recipes that start from other recipes: ``network.start_recipe`` (sb3) and
``exploiter_league.start_recipe`` name the config whose policy starts the run.

:func:`train_recipe` reads top to bottom: follow the chain of start recipes (a recipe's start
recipe may name another, to any depth; each must train the same game, player count and
network), then train it from its deepest link up, each link into ``OUT/start`` of the one
above it (so ``OUT/start/start/...``), and last the config itself from the policy of the link
below. A link whose policy file is there is read back, one stopped midway resumes, so a killed
chain resumes where it stopped and a shipped agent's whole training reproduces from nothing.

The start recipes and the exploiter league's ``exploiter_recipe`` are config names or files:
``resolve`` turns one into its file (the command line resolves the shipped configs' names;
this layer knows files only).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hunger_rl.policies.learned import POLICY_FILE
from hunger_rl.training.checkpoint import has_checkpoint
from hunger_rl.training.config import TrainConfig, load_config
from hunger_rl.training.exploiter_league import MIXTURE, train_exploiter_league
from hunger_rl.training.train import train

Resolve = Callable[[str], Path]
STARTS = ("sb3", "exploiter_league")  # the backends that write one policy a run can start from


def train_recipe(config: TrainConfig, resolve: Resolve = Path,
                 resume: str | Path | None = None,
                 progress: bool = True) -> list[dict[str, Any]]:
    """Train ``config`` (an sb3 or exploiter_league config) after the chain of its start
    recipes, continuing ``resume`` as :func:`train` and :func:`train_exploiter_league` do;
    return the run's table (sb3) or curve (exploiter league)."""
    chain = start_chain(config, resolve)
    start = None
    for link in chain:  # the deepest first
        out = Path(link.out)
        if not (out / POLICY_FILE).is_file():
            run(link, resolve, resume=out if has_started(link) else None, progress=progress,
                start=start)
        start = str(out / POLICY_FILE)
    if (chain and resume is not None and Path(resume).resolve() == Path(config.out).resolve()
            and not has_started(config)):
        resume = None  # this run, stopped before its first checkpoint: it begins now
    return run(config, resolve, resume=resume, progress=progress, start=start)


def run(config: TrainConfig, resolve: Resolve, resume: str | Path | None, progress: bool,
        start: str | None) -> list[dict[str, Any]]:
    """One link: ``config`` trained from the policy ``start`` (None: its own network.start)."""
    if config.backend == "exploiter_league":
        recipe = resolve(config.exploiter_league.exploiter_recipe)
        return train_exploiter_league(config, recipe, resume=resume, progress=progress,
                                      start=start)
    return train(config, resume=resume, progress=progress, start=start)


def has_started(config: TrainConfig) -> bool:
    """Whether ``config``'s run folder holds a run to resume."""
    out = Path(config.out)
    if config.backend == "exploiter_league":
        return any(out.glob("generation_*"))
    return has_checkpoint(out)


def start_key(config: TrainConfig) -> tuple[str, str | None]:
    """The setting that names ``config``'s start recipe, and its value."""
    if config.backend == "exploiter_league":
        return "exploiter_league.start_recipe", config.exploiter_league.start_recipe
    return "network.start_recipe", config.network.start_recipe


def start_chain(config: TrainConfig, resolve: Resolve) -> list[TrainConfig]:
    """The configs that train ``config``'s start, its start's start and so on, the deepest
    first, each checked to fit the config it starts; nothing is trained."""
    chain: list[TrainConfig] = []
    seen: list[str] = []
    link = config
    while True:
        key, named = start_key(link)
        if named is None:
            return chain[::-1]
        try:
            file = resolve(named)
            start = load_config(file)
        except (OSError, ValueError) as error:
            raise ValueError(f"{key}: {error}") from error
        resolved = str(Path(file).resolve())
        if resolved in seen:
            raise ValueError(f"{key} {named!r}: the start recipes form a loop "
                             f"({' -> '.join(seen)} -> {resolved})")
        seen.append(resolved)
        check_start(link, key, Path(file).name, start)
        link = start.replace(out=str(Path(link.out) / "start"))
        chain.append(link)


def check_start(config: TrainConfig, key: str, name: str, start: TrainConfig) -> None:
    """A start recipe must train one policy file of ``config``'s game, player count and
    network."""
    network = config.network
    wanted = (config.game, config.num_players, network.hidden, network.activation,
              network.action_scorer)
    found = (start.game, start.num_players, start.network.hidden, start.network.activation,
             start.network.action_scorer)
    if start.backend not in STARTS or (start.backend == "exploiter_league"
                                       and start.exploiter_league.main == MIXTURE):
        raise ValueError(f"{key}: {name} trains with the {start.backend} backend"
                         f"{' (a mixture)' if start.backend == 'exploiter_league' else ''}; a "
                         "start recipe trains one policy with the sb3 or exploiter_league "
                         "backend")
    if found != wanted:
        raise ValueError(f"{key}: {name} trains {found[0]} at {found[1]} players, network "
                         f"{found[2]} {found[3]} (action scorer: {found[4]}); this run trains "
                         f"{wanted[0]} at {wanted[1]} players, network {wanted[2]} {wanted[3]} "
                         f"(action scorer: {wanted[4]})")
