"""Screenshots of the viewer and the play page for the README (docs/*.png).

Needs the ``browser`` extra and Debian's ``chromium`` (``make test-browser`` installs both):
    python scripts/screenshots.py
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.ui.server import PlayApp
from hunger_rl.ui.session import PlaySession
from hunger_rl.ui.viewer import viewer_html

DOCS = Path(__file__).resolve().parent.parent / "docs"
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


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=FLAGS)
        viewer_shot(browser, "hungry", 3, ["pretrained:hungry_3p", "expert"], 30,
                    "viewer_hungry.png")
        viewer_shot(browser, "hunger_show", 4, ["pretrained:hunger_show_4p", "expert"], 5,
                    "viewer_hunger_show.png", characters=True)
        play_shot(browser, "play_hungry.png")
        browser.close()
    print(f"wrote screenshots to {DOCS}")


if __name__ == "__main__":
    main()
