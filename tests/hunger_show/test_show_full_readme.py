"""docs/full_decision.md: its worked day runs and prints what the page shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).parents[2] / "docs" / "full_decision.md"


def test_the_worked_day_prints_what_the_page_shows():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## HUNGER full-decision mode"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    code, shown = re.findall(r"```(?:python|text)\n(.*?)```", section, re.S)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(PAGE), "exec"), {})
    assert printed.getvalue() == shown
