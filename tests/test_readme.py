"""Every command and snippet of the README runs, as a new user would run them, in order.

Fenced ``python`` blocks are executed and must print something; fenced ``sh`` blocks run line
by line in one scratch folder (so ``make run``'s output is there for the commands after it).
Commands too heavy for the default suite run in the cheap form ``CHEAP_FORMS`` gives them, and
``test_cheap_forms_stand_in_for_the_real_commands`` checks that each stands in for the real one;
``evaluate``, ``tournament`` and ``compare`` play in this process (``--workers 1``) instead of
spawning workers, which changes no result (``test_evaluation.py`` checks one and two workers agree).
Commands quoted inline (`` `hunger-rl ...` ``) are parsed and checked the same way.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from hunger_rl.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
TINY = ROOT / "tests" / "training" / "tiny_hungry.yaml"
PYPROJECT = (ROOT / "pyproject.toml").read_text()
PROJECT_NAME = re.search(r'^name = "([^"]+)"', PYPROJECT, re.M).group(1)
EXTRAS = re.findall(r"^([\w-]+) = \[", PYPROJECT.split("[project.optional-dependencies]")[1]
                    .split("\n[")[0], re.M)
README_LINE_LIMIT = 200

# README command -> the cheap command run instead. The Makefile's `run` target trains the
# default config into runs/make_run; its cheap form trains the tiny test config there.
CHEAP_FORMS = {
    "make run": f"hunger-rl train {TINY} --total-steps 128 --final-games 2 --out runs/make_run "
                "--no-progress",
    "make test": "make -n test",
    "hunger-rl train hungry_2p": f"hunger-rl train {TINY} --total-steps 128 --final-games 2 "
                                 "--out runs/tiny --no-progress",
}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def fenced_blocks(language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README) if lang == language]


def shell_commands() -> list[str]:
    """The commands of every ``sh`` block: comments dropped, continued lines joined."""
    commands = []
    for block in fenced_blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            command = line.split(" #")[0].strip()
            if command:
                commands.append(command)
    return commands


def inline_commands() -> list[str]:
    """Commands quoted in the prose: `hunger-rl ...`, `python ...`, `pip install ...`."""
    prose = FENCE.sub("", README)
    # A bare `hunger-rl train` names the command in a sentence; a command has arguments.
    return [code for code in re.findall(r"`([^`\n]+)`", prose)
            if code.startswith(("python ", "pip install ", "make "))
            or (code.startswith("hunger-rl ") and len(code.split()) > 2)]


def check_pip_install(command: str) -> None:
    """`pip install NAME[EXTRAS]` (or `-e '.[EXTRAS]'`): the project and its extras exist."""
    requirement = shlex.split(command)[-1]
    name, _, extras = requirement.partition("[")
    assert name in (PROJECT_NAME, "."), command
    for extra in filter(None, extras.rstrip("]").split(",")):
        assert extra in EXTRAS, command


def run_command(command: str, capsys) -> str:
    command = CHEAP_FORMS.get(command, command)
    if command.startswith("pip install"):
        check_pip_install(command)
        return ""
    words = shlex.split(command)
    if words[:2] in (["hunger-rl", "evaluate"], ["hunger-rl", "tournament"],
                     ["hunger-rl", "compare"]):
        words += [] if "--workers" in words else ["--workers", "1"]
    if words[0] == "hunger-rl":
        try:
            code = main(words[1:])
        except SystemExit as stop:  # --help
            code = stop.code
        output = capsys.readouterr()
        assert code == 0, (command, output.err[-2000:])
        return output.out
    # make runs the checkout's Makefile; anything else runs in the scratch folder.
    cwd = ROOT if words[0] == "make" else Path.cwd()
    done = subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (command, done.stderr[-2000:])
    return done.stdout


def run_and_check_printed(block: str) -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "README.md", "exec"), {})
    assert printed.getvalue().strip(), block


def needs_openspiel(block: str) -> bool:
    return "import pyspiel" in block


def test_readme_python_snippets_run_and_print():
    blocks = [block for block in fenced_blocks("python") if not needs_openspiel(block)]
    assert len(blocks) >= 2
    for block in blocks:
        run_and_check_printed(block)


def test_readme_openspiel_snippet_runs_and_prints():
    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    blocks = [block for block in fenced_blocks("python") if needs_openspiel(block)]
    assert len(blocks) == 1
    run_and_check_printed(blocks[0])


def test_readme_commands_run_in_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = shell_commands()
    assert "make run" in commands and "make test" in commands
    for command in commands:
        run_command(command, capsys)
    # The training example evaluates what `make run` wrote.
    assert (tmp_path / "runs" / "make_run" / "policy.safetensors").is_file()


def test_readme_fences_are_closed_and_labelled():
    assert README.count("```") % 2 == 0
    for opening in re.findall(r"^```(\w*)$", README, re.M)[::2]:
        assert opening in ("sh", "python"), opening


def test_inline_commands_are_valid():
    parser = build_parser()
    commands = inline_commands()
    assert any(c.startswith("hunger-rl train") for c in commands)
    for command in commands:
        words = shlex.split(command)
        if words[0] == "hunger-rl":
            args = parser.parse_args(words[1:])
            if args.command == "train":
                from hunger_rl.configs import resolve_config

                assert resolve_config(args.config).is_file()
        elif words[0] == "python":
            assert (ROOT / words[1]).is_file(), command
        elif words[0] == "pip":
            check_pip_install(command)
        else:
            assert words[:1] == ["make"] and f"\n{words[1]}:" in (ROOT / "Makefile").read_text()


def test_cheap_forms_stand_in_for_the_real_commands():
    """Each cheap form replaces a command the README shows, and does what that command does
    at a smaller size: `make run` trains the default config into runs/make_run, `make test`
    runs pytest, and the tiny config is a valid config of the same game."""
    for command in CHEAP_FORMS:
        assert command in shell_commands(), command
    dry_run = subprocess.run(["make", "-n", "run", "test"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    assert re.search(r"hunger-rl train quick_hungry_2p .*--out runs/make_run", dry_run)
    assert "-m pytest" in dry_run
    from hunger_rl.configs import resolve_config
    from hunger_rl.training.config import load_config

    assert load_config(TINY).game == load_config(resolve_config("hungry_2p")).game


def test_readme_stays_short():
    assert len(README.splitlines()) <= README_LINE_LIMIT


def shipped_agent_rows(text: str) -> dict[str, list[str]]:
    """The rows of a page's shipped-agents table (those whose first cell is a shipped agent's
    name), by agent, as lists of cells."""
    from hunger_rl.policies.pretrained import catalogue

    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in catalogue():
            rows.setdefault(cells[0].strip("`"), cells)
    return rows


def test_the_shipped_agents_figures_are_the_same_in_the_readme_and_the_agents_page():
    """docs/agents.md holds the shipped agents' table that the README shows (the README adds the
    exploiter's column), so that a figure changed in one place cannot disagree with the other."""
    from hunger_rl.policies.pretrained import catalogue

    readme = shipped_agent_rows(README)
    page = shipped_agent_rows((ROOT / "docs" / "agents.md").read_text())
    assert set(readme) == set(page) == set(catalogue())
    for name, cells in page.items():
        assert readme[name][:len(cells)] == cells, name
