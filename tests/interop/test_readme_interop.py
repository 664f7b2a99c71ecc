"""Every Python snippet of docs/interop.md ("Use with other libraries") runs."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
SECTION = "## Use with other libraries"
# Snippets that import one of these run only where the interop extra is installed.
OPTIONAL = ("torchrl", "tianshou", "supersuit")


def section_snippets() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return re.findall(r"```python\n(.*?)```", text[start:end if end > 0 else None], re.S)


def test_the_section_has_snippets():
    assert len(section_snippets()) >= 5


@pytest.mark.parametrize("snippet", section_snippets(),
                         ids=lambda s: s.split("\n", 1)[0][:40])
def test_snippet_runs(snippet):
    for module in OPTIONAL:
        if re.search(rf"^\s*(import|from) {module}\b", snippet, re.M):
            pytest.importorskip(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(snippet, str(README), "exec"), {"__name__": "readme_snippet"})
