"""The documentation site (mkdocs.yml, ``make docs``) builds in strict mode from the checkout:
every link and anchor resolves, every ``:::`` reference names a module mkdocstrings finds, and
the pages carry what they are built from (the README, the docstrings, the policy registry).

Needs the ``docs`` extra (``make test`` installs it); the build fetches nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (make docs)")
pytest.importorskip("mkdocstrings", reason="the docs extra is not installed (make docs)")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    done = build(ROOT / "mkdocs.yml", folder)
    assert done.returncode == 0, done.stderr[-4000:]
    return folder


def slug(heading: str) -> str:
    """The id Python-Markdown's toc gives a heading (as GitHub does for these)."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def page(site: Path, name: str) -> str:
    return (site / name / "index.html" if name else site / "index.html").read_text("utf-8")


def test_front_page_is_the_readme_with_its_links_on_the_site(site):
    front = page(site, "")
    readme = (ROOT / "README.md").read_text()
    headings = re.findall(r"^## (.*)$", readme, re.M)
    assert "Quickstart: Hungry" in headings
    for heading in headings:
        assert f'id="{slug(heading)}"' in front, heading
    # README's docs/ links and its links to the env modules point to the site's pages.
    assert 'href="agents/' in front and 'href="docs/' not in front
    assert 'href="envs/hungry/"' in front and "hungry_v0.py" in readme


def test_api_reference_renders_the_docstrings(site):
    from hunger_rl.arena import evaluation
    from hunger_rl.policies import registry

    first_sentence = registry.__doc__.split(".")[0]  # "Policy specs: the strings ..."
    assert first_sentence in page(site, "api/policies")
    assert "wilson_interval" in page(site, "api/arena")
    summary = evaluation.wilson_interval.__doc__.split("`")[0].strip()  # up to its first code
    assert len(summary) > 20 and summary in page(site, "api/arena")
    card = page(site, "envs/hungry")
    assert "Version history" in card and "Discrete(50)" in card


def test_policy_page_lists_every_spec_of_the_registry(site):
    from hunger_rl.policies.pretrained import PREFIX, catalogue
    from hunger_rl.policies.registry import spec_names

    specs = page(site, "policies")
    for game in ("hungry", "hunger_show"):
        for name in spec_names(game):
            assert f"<code>{name}</code>" in specs, name
    for name in catalogue():
        assert f"<code>{PREFIX}{name}</code>" in specs, name


def test_every_experiments_page_is_built(site):
    pages = sorted((ROOT / "docs" / "experiments").glob("*.md"))
    assert len(pages) >= 8
    for source in pages:
        assert (site / "experiments" / source.stem / "index.html").is_file(), source.name


def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The check above is worth something: the same site with one link to a missing anchor
    does not build."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.png"))
    agents = docs / "agents.md"
    agents.write_text(agents.read_text() + "\n[gone](experiments.md#no-such-section)\n")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["docs_dir"] = str(docs)
    config["hooks"] = [str(ROOT / hook) for hook in config["hooks"]]
    config["plugins"][1]["mkdocstrings"]["handlers"]["python"]["paths"] = [str(ROOT)]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-section" in done.stderr
