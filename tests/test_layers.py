"""The package's imports go one way: engines <- envs <- policies <- training <- cli.

Every ``import`` of every module (at the top, inside functions, under ``TYPE_CHECKING``) is
read with ``ast`` and checked against the layer of the importing module. Engines also import
no framework: only the standard library, NumPy and numba, with llvmlite, the IR builder that
numba's ``@intrinsic`` code generation takes (docs/architecture.md).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hunger_rl"
LAYERS = ("engines", "envs", "policies", "training", "cli")
# Modules of envs/ that wrap an engine for a framework (PettingZoo, Gymnasium, Pillow) or
# register the games; the rest of envs/ is engine code.
ENV_WRAPPER_NAMES = {"env.py", "full_env.py", "render.py", "rendering.py", "wrappers.py",
                     "__init__.py"}
ENGINE_THIRD_PARTY = {"numpy", "numba", "llvmlite"}


def layer_of(path: Path) -> str:
    """The layer of a module file of the package."""
    parts = path.relative_to(PACKAGE).parts
    top = parts[0]
    if top == "envs":
        name = parts[-1]
        if (len(parts) == 2 and name.endswith("_v0.py")) or name in ENV_WRAPPER_NAMES:
            return "envs"
        return "engines"
    if top == "records.py":  # game records replay through the environments
        return "envs"
    if top == "openspiel":  # the games for OpenSpiel: the engines bound to another framework
        return "envs"
    if top == "interop.py":  # glue for other RL libraries, the single-agent views included
        return "training"
    if top in ("policies", "training"):
        return top
    if top == "pretrained":  # the shipped agents' policy files
        return "policies"
    if top in ("cli.py", "__main__.py", "__init__.py", "configs", "ui"):
        return "cli"
    raise AssertionError(
        f"{path.relative_to(PACKAGE.parent)} is in no layer: add it to tests/test_layers.py"
    )


def module_file(module: str) -> Path | None:
    """The file of a ``hunger_rl`` module (package ``__init__`` or plain module)."""
    relative = Path(*module.split(".")[1:])
    for candidate in (PACKAGE / relative / "__init__.py", PACKAGE / relative.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in a module's source; ``from a import b`` yields ``a.b``
    when that is a module, else ``a``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.append((node.lineno, full if module_file(full) else node.module))
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def layer_violations(path: Path, source: str) -> list[str]:
    """The imports of module ``path`` (its text ``source``) that go against the layers."""
    rank = LAYERS.index(layer_of(path))
    wrong = []
    for line, module in imported_modules(source):
        top = module.split(".")[0]
        if top == "hunger_rl":
            target = module_file(module)
            if target is None or target == PACKAGE / "__init__.py":
                continue
            target_layer = layer_of(target)
            if LAYERS.index(target_layer) > rank:
                wrong.append(f"line {line}: {module} ({target_layer})")
        elif rank == 0 and top not in sys.stdlib_module_names | ENGINE_THIRD_PARTY:
            wrong.append(f"line {line}: {module} (a framework, in an engine)")
    return wrong


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    wrong = layer_violations(path, path.read_text())
    assert not wrong, f"{path.relative_to(PACKAGE.parent)} ({layer_of(path)}): " + "; ".join(wrong)


def test_the_layer_check_sees_wrong_imports():
    """A policy importing training, an engine importing a wrapper or a framework: all caught."""
    policy = PACKAGE / "policies" / "base.py"
    engine = PACKAGE / "envs" / "hungry" / "engine.py"
    assert layer_violations(policy, "def f():\n    from hunger_rl.training import train\n") == [
        "line 2: hunger_rl.training.train (training)"]
    assert layer_violations(engine, "import torch\nfrom hunger_rl.envs.hungry.env import raw_env"
                            ) == ["line 1: torch (a framework, in an engine)",
                                  "line 2: hunger_rl.envs.hungry.env (envs)"]
    assert layer_violations(policy, "from hunger_rl.envs.hungry import engine\n") == []
