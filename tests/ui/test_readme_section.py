"""Every command and snippet of docs/agents.md ("Shipped agents, replays and play") runs."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from hunger_rl.cli import main

README = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
TITLE = "## Shipped agents, replays and play"


def _section() -> str:
    text = README.read_text()
    start = text.index(TITLE)
    end = text.find("\n## ", start + len(TITLE))
    return text[start:] if end < 0 else text[start:end]


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", _section(), flags=re.S)


def _commands() -> list[str]:
    lines = [line.split("  #")[0].strip() for block in _blocks("sh") for line in block.splitlines()]
    return [line for line in lines if line]


def test_the_section_has_commands_and_a_snippet():
    commands = _commands()
    assert all(c.startswith("hunger-rl ") for c in commands)
    assert {shlex.split(c)[1] for c in commands} == {"policies", "evaluate", "view", "play"}
    assert len(_blocks("python")) == 1


@pytest.mark.slow  # four commands load trained policies in fresh processes: over a minute
def test_the_commands_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command in _commands():
        args = shlex.split(command)[1:]
        if args[0] == "play" and "--tui" not in args:
            _serve_once(args)
            continue
        if args[0] == "play":
            monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 60))
            args += ["--record-dir", str(tmp_path / "played")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(args) == 0, command
        if args[0] == "policies":
            assert "pretrained:hungry_2p" in out.getvalue()
    assert (tmp_path / "hungry.html").is_file()
    assert list((tmp_path / "played").glob("hunger_show_4p_*.jsonl"))


def _serve_once(args: list[str]) -> None:
    """Start the server as the README says (on a free port), load its page, stop it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "hunger_rl.cli", *args, "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0) + "api/state?seat=0", timeout=30) as response:
            assert b'"legal"' in response.read()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_python_snippet_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (snippet,) = _blocks("python")
    exec(compile(snippet, "README snippet", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 4


@pytest.mark.parametrize("picture", ["docs/viewer_hunger_show.png", "docs/viewer_hungry.png",
                                     "docs/play_hungry.png"])
def test_the_pictures_exist(picture):
    assert picture.removeprefix("docs/") in _section()
    assert (README.parent.parent / picture).stat().st_size > 10_000
