"""The package's imports go one way: engines <- envs <- policies <- arena <- training <- cli.

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
LAYERS = ("engines", "envs", "policies", "arena", "training", "cli")
# The train extra's deep-learning modules, which the arena must run without.
TRAIN_FRAMEWORKS = {"torch", "stable_baselines3", "sb3_contrib"}
ENGINE_THIRD_PARTY = {"numpy", "numba", "llvmlite"}


def layer_of(path: Path) -> str:
    """The layer of a module file of the package."""
    parts = path.relative_to(PACKAGE).parts
    top = parts[0]
    if top in ("engines", "envs"):
        return top
    if top == "openspiel":  # the games for OpenSpiel: the engines bound to another framework
        return "envs"
    if top in ("policies", "arena", "training"):
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
        elif LAYERS[rank] == "arena" and top in TRAIN_FRAMEWORKS:
            wrong.append(f"line {line}: {module} (the train extra, in the arena)")
    return wrong


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    wrong = layer_violations(path, path.read_text())
    assert not wrong, f"{path.relative_to(PACKAGE.parent)} ({layer_of(path)}): " + "; ".join(wrong)


def test_the_layer_check_sees_wrong_imports():
    """A policy importing training, an engine importing a wrapper or a framework: all caught."""
    policy = PACKAGE / "policies" / "base.py"
    engine = PACKAGE / "engines" / "hungry" / "engine.py"
    assert layer_violations(policy, "def f():\n    from hunger_rl.training import train\n") == [
        "line 2: hunger_rl.training.train (training)"]
    assert layer_violations(engine, "import torch\nfrom hunger_rl.envs.hungry.env import raw_env"
                            ) == ["line 1: torch (a framework, in an engine)",
                                  "line 2: hunger_rl.envs.hungry.env (envs)"]
    assert layer_violations(policy, "from hunger_rl.engines.hungry import engine\n") == []
    arena = PACKAGE / "arena" / "evaluation.py"
    assert layer_violations(arena, "import torch\nfrom hunger_rl.training import train\n") == [
        "line 1: torch (the train extra, in the arena)",
        "line 2: hunger_rl.training.train (training)"]
    assert layer_violations(PACKAGE / "training" / "train.py",
                            "from hunger_rl.arena.evaluation import evaluate\n") == []


def runtime_source(source: str) -> str:
    """``source`` without its ``if TYPE_CHECKING:`` blocks: imports for annotations only, which
    never run and so cannot form a circle."""
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for line in range(node.lineno - 1, node.end_lineno):
                lines[line] = ""
    return "\n".join(lines)


def import_graph() -> dict[Path, set[Path]]:
    """Every package module to the package modules it imports when it runs (at the top or
    inside a function)."""
    graph: dict[Path, set[Path]] = {}
    for path in MODULES:
        source = runtime_source(path.read_text())
        targets = {module_file(module) for _, module in imported_modules(source)
                   if module.split(".")[0] == "hunger_rl"}
        graph[path] = {t for t in targets if t is not None and t != PACKAGE / "__init__.py"
                       and t != path}
    return graph


def import_cycles(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    cycles = []

    def visit(node: Path) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_modules_import_each_other():
    """The layer rule orders the layers; within one layer, modules must not import each other
    in a circle either (not even from inside a function)."""
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles: " + "; ".join(
        " <-> ".join(str(p.relative_to(PACKAGE)) for p in cycle) for cycle in cycles)


def test_the_cycle_check_finds_a_circle():
    a, b, c = (PACKAGE / name for name in ("a.py", "b.py", "c.py"))
    assert import_cycles({a: {b}, b: {c}, c: {a}}) == [[a, b, c]]
    assert import_cycles({a: {b}, b: {c}, c: set()}) == []
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hunger_rl.cli\n"
    assert "hunger_rl" not in runtime_source(typed)
