"""MkDocs hooks of the documentation site (``mkdocs.yml``; ``make docs`` builds it).

- ``docs/index.md`` is the README: the site's front page shows README.md itself, its links
  rewritten to the site's pages, so the quick start is written once.
- A link to README.md goes to the front page, and a link to an environment's source file
  (``hunger_rl/envs/hungry_v0.py``) to that environment's card (``envs/hungry.md``, the module
  docstring rendered by mkdocstrings).
- ``<!-- policy specs -->`` in ``docs/policies.md`` becomes the table of every policy spec, from
  ``hunger_rl.policies.registry.describe_specs`` (what ``hunger-rl policies`` prints).

Any other link that leaves ``docs/`` stays as it is, and the strict build reports it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONT_PAGE = "index.md"
# Source files with a page of their own on the site (paths from the repository's root).
SOURCE_PAGES = {
    "README.md": FRONT_PAGE,
    "hunger_rl/envs/hungry_v0.py": "envs/hungry.md",
    "hunger_rl/envs/hunger_show_v0.py": "envs/hunger_show.md",
}
POLICY_MARKER = "<!-- policy specs -->"
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Each game's player counts, for the shipped agents among the specs.
GAME_PLAYERS = {"hungry": range(2, 5), "hunger_show": range(2, 7)}


def rewrite_links(markdown: str, source: str, page: str) -> str:
    """Links of ``markdown``, written relative to ``source`` (a path from the repository's
    root), made relative to the site page ``page`` (a path under ``docs/``)."""
    source_dir = posixpath.dirname(source)
    page_dir = posixpath.dirname("docs/" + page)

    def rewrite(match: re.Match) -> str:
        target = match.group(1)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return match.group(0)
        path, hash_, fragment = target.partition("#")
        from_root = posixpath.normpath(posixpath.join(source_dir, path))
        if from_root in SOURCE_PAGES:
            from_root = "docs/" + SOURCE_PAGES[from_root]
        if not from_root.startswith("docs/"):
            return match.group(0)
        return "](" + posixpath.relpath(from_root, page_dir) + hash_ + fragment + ")"

    return LINK.sub(rewrite, markdown)


def policy_spec_tables() -> str:
    """Every policy spec of each game, in the order ``hunger-rl policies`` lists them; a
    shipped agent appears once, with the player count it plays."""
    from hunger_rl.policies.registry import describe_specs

    parts = []
    for game, players in GAME_PLAYERS.items():
        rows: dict[str, str] = {}
        for num_players in players:
            for spec, description in describe_specs(game, num_players):
                rows.setdefault(spec, description)
        lines = [f"### `{game}`", "", "| spec | plays |", "|---|---|"]
        lines += [f"| `{spec}` | {description.replace('|', '/')} |"
                  for spec, description in rows.items()]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    path = page.file.src_uri
    if path == FRONT_PAGE:
        return rewrite_links((ROOT / "README.md").read_text(encoding="utf-8"), "README.md", path)
    if POLICY_MARKER in markdown:
        markdown = markdown.replace(POLICY_MARKER, policy_spec_tables())
    return rewrite_links(markdown, "docs/" + path, path)
