"""The README's full-decision section: its example runs and prints what the README shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def test_the_worked_day_prints_what_the_readme_shows():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## HUNGER full-decision mode"):]
    section = section[:section.index("\n## ", 1)]
    code, shown = re.findall(r"```(?:python|text)\n(.*?)```", section, re.S)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    assert printed.getvalue() == shown
