"""The training configs shipped with the package, usable by name (``hunger-rl train hungry_2p``).

Each ``NAME.yaml`` here is one config; its leading comment says what it trains.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SUFFIX = ".yaml"
SUMMARY_LENGTH = 90


def config_names() -> list[str]:
    """The names of the shipped configs, sorted."""
    return sorted(entry.name[: -len(SUFFIX)] for entry in resources.files(__name__).iterdir()
                  if entry.name.endswith(SUFFIX))


def config_summary(name: str) -> str:
    """The first sentence of a shipped config's leading comment."""
    words = []
    for line in config_path(name).read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        words.append(line.lstrip("#").strip())
    sentence = " ".join(words).split(". ")[0].rstrip(".")
    return sentence if len(sentence) <= SUMMARY_LENGTH else sentence[: SUMMARY_LENGTH - 3] + "..."


def config_path(name: str) -> Path:
    """The file of the shipped config ``name`` (``hungry_2p`` or ``hungry_2p.yaml``)."""
    stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name
    if stem not in config_names():
        raise ValueError(f"no config named {name!r}; shipped configs: {', '.join(config_names())}"
                         " (or give the path of a config file)")
    return Path(str(resources.files(__name__) / (stem + SUFFIX)))


def resolve_config(name_or_path: str) -> Path:
    """A config file given by path, else the shipped config of that name."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    return config_path(name_or_path)
