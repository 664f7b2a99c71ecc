"""Screenshots of the viewer, the play page and the documentation site's front page (docs/*.png).

Needs the ``browser`` extra and Debian's ``chromium`` (``make test-browser`` installs both), and
for the site the ``docs`` extra (``make docs``):
    python scripts/screenshots.py               # all of them
    python scripts/screenshots.py site   # some of viewer_hungry, viewer_hunger_show, play, site
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.ui.server import PlayApp
from hunger_rl.ui.session import PlaySession
from hunger_rl.ui.viewer import viewer_html

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def viewer_shot(browser, game: str, players: int, lineup: list[str], steps: int, out: str,
                **env_kwargs) -> None:
    record = evaluate(game, players, lineup, players, seed=11, progress=False, record=True,
                      env_kwargs=env_kwargs or None).game_records()[0]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.html"
        path.write_text(viewer_html(record), encoding="utf-8")
        page = browser.new_page(viewport={"width": 1200, "height": 820})
        page.goto(path.as_uri())
        for _ in range(steps):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=DOCS / out, full_page=True)
        page.close()


def play_shot(browser, out: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        session = PlaySession("hungry", 3, 0, ["pretrained:hungry_3p", "expert"], seed=5,
                              record_dir=folder)
        server = make_server("127.0.0.1", 0, PlayApp(session), threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        page = browser.new_page(viewport={"width": 1200, "height": 820})
        page.goto(f"http://127.0.0.1:{server.server_port}/")
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(6):
            page.locator("#moves button").first.click()
            page.wait_for_timeout(300)
        page.screenshot(path=DOCS / out, full_page=True)
        page.close()
        server.shutdown()


def site_shot(browser, out: str) -> None:
    """The documentation site's front page, built in strict mode into a scratch folder (the
    site's pages need no network: no web fonts, no CDN)."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                        "--site-dir", folder], cwd=ROOT, check=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((Path(folder) / "index.html").as_uri())
        page.wait_for_selector("h1#hunger-rl")
        page.screenshot(path=DOCS / out)
        page.close()


SHOTS = {
    "viewer_hungry": lambda browser: viewer_shot(
        browser, "hungry", 3, ["pretrained:hungry_3p", "expert"], 30, "viewer_hungry.png"),
    "viewer_hunger_show": lambda browser: viewer_shot(
        browser, "hunger_show", 4, ["pretrained:hunger_show_4p", "expert"], 5,
        "viewer_hunger_show.png", characters=True),
    "play": lambda browser: play_shot(browser, "play_hungry.png"),
    "site": lambda browser: site_shot(browser, "site_front_page.png"),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shots", nargs="*", metavar="SHOT",
                        help=f"the screenshots to take (default: all): {', '.join(SHOTS)}")
    shots = parser.parse_args(argv).shots or list(SHOTS)
    unknown = sorted(set(shots) - set(SHOTS))
    if unknown:
        parser.error(f"unknown screenshots {unknown}; valid: {', '.join(SHOTS)}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=FLAGS)
        for name in shots:
            SHOTS[name](browser)
        browser.close()
    print(f"wrote screenshots to {DOCS}")


if __name__ == "__main__":
    main()
