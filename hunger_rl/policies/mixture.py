"""A mixed strategy over whole games: ``mix:PATH`` plays one member of a mixture file per game.

A mixture file is JSON, ``{"members": [MEMBER, ...]}``, each member a weight and either a policy
spec or a policy file::

    {"members": [{"spec": "expert", "weight": 0.25},
                 {"file": "exploiter_1.safetensors", "weight": 0.75, "temperature": 0}]}

``file`` is read relative to the mixture file's folder and plays its argmax (``temperature`` T
> 0: it samples from its softmax at T). At the first move of each game the policy draws one
member by weight from the game's seeded generator and plays it to the end of that game, so the
mixture is a mixed strategy in the game-theoretic sense (Kuhn: a distribution over whole
policies), what a population-based trainer's meta-strategy is. The batched HUNGER league seats a
mixture as its members, each with its share of the weight (``training.league``), which draws the
same distribution per seat and show.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from hunger_rl.policies.base import Observation, Policy

MIX = "mix"
MEMBER_KEYS = {"spec", "file", "weight", "temperature"}


def read_mixture(path: str | Path) -> list[tuple[str, float]]:
    """The (policy spec, weight) of every member of the mixture file ``path``; a
    ``ValueError`` naming the file and the member for anything malformed."""
    path = Path(path)
    try:
        document = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"mixture file {path}: cannot be read as JSON: {error}") from error
    members = document.get("members") if isinstance(document, dict) else None
    if not isinstance(members, list) or not members:
        raise ValueError(f"mixture file {path}: needs {{\"members\": [...]}} with at least one "
                         "member")
    specs = []
    for index, member in enumerate(members):
        specs.append(_member_spec(path, index, member))
    if not sum(weight for _, weight in specs) > 0:
        raise ValueError(f"mixture file {path}: the members' weights sum to 0")
    return specs


def _member_spec(path: Path, index: int, member: Any) -> tuple[str, float]:
    where = f"mixture file {path}, member {index}"
    if not isinstance(member, dict) or set(member) - MEMBER_KEYS:
        raise ValueError(f"{where}: a member is an object of {sorted(MEMBER_KEYS)}, got "
                         f"{member!r}")
    weight = member.get("weight")
    if (isinstance(weight, bool) or not isinstance(weight, (int, float))
            or not math.isfinite(weight) or weight < 0):
        raise ValueError(f"{where}: weight must be a number >= 0, got {weight!r}")
    if ("spec" in member) == ("file" in member):
        raise ValueError(f"{where}: give exactly one of 'spec' and 'file'")
    if "spec" in member:
        if "temperature" in member:
            raise ValueError(f"{where}: a temperature goes with a 'file'; a spec says how it "
                             "plays itself (sample:T:SPEC)")
        if not isinstance(member["spec"], str) or not member["spec"]:
            raise ValueError(f"{where}: spec must be a non-empty string")
        return member["spec"], float(weight)
    file, temperature = member["file"], member.get("temperature", 0)
    if not isinstance(file, str) or not file:
        raise ValueError(f"{where}: file must be a non-empty string")
    if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
            or not math.isfinite(temperature) or temperature < 0):
        raise ValueError(f"{where}: temperature must be a number >= 0, got {temperature!r}")
    return played_at(str(path.parent / file), temperature), float(weight)


def played_at(network: str, temperature: float) -> str:
    """The spec of the trained network ``network`` (a policy file or spec) playing its argmax
    (``temperature`` 0) or sampling from its softmax at ``temperature``."""
    return f"sample:{temperature:g}:{network}" if temperature else f"argmax:{network}"


def write_mixture(path: str | Path, members: list[dict[str, Any]]) -> Path:
    """Write the mixture file ``path`` (members as :func:`read_mixture` reads them), checked by
    reading it back."""
    path = Path(path)
    path.write_text(json.dumps({"members": members}, indent=1) + "\n", encoding="utf-8")
    read_mixture(path)
    return path


class MixturePolicy(Policy):
    """Plays one of ``members``, drawn by ``weights`` at a game's first move, for that game."""

    def __init__(self, members: list[Policy], weights: list[float], name: str = MIX):
        weights = np.asarray(weights, float)
        if len(members) != len(weights) or not len(members):
            raise ValueError(f"a mixture needs one weight per member, got {len(members)} "
                             f"members and {len(weights)} weights")
        self.members = members
        self.chances = weights / weights.sum()
        self.name = name
        self.playing: Policy | None = None

    def reset(self) -> None:
        self.playing = None
        for member in self.members:
            member.reset()

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        if self.playing is None:
            self.playing = self.members[rng.choice(len(self.members), p=self.chances)]
        return self.playing.act(observation, rng, view)
