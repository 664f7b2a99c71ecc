"""The viewer and the play page in a real headless Chromium (Debian's ``chromium`` package)
driven by Playwright; ``make test-browser`` installs both. Skipped where either is missing."""

from __future__ import annotations

import shutil
import threading

import pytest

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.envs.records import replay_steps
from hunger_rl.ui.server import PlayApp
from hunger_rl.ui.session import PlaySession
from hunger_rl.ui.viewer import viewer_html

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.skip("no chromium executable (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    page.close()


def _record(game, players, **env_kwargs):
    result = evaluate(game, players, ["expert", "random"], players, seed=7, progress=False,
                      env_kwargs=env_kwargs or None, record=True)
    return result.game_records()[0]


def _open_viewer(page, record, tmp_path):
    path = tmp_path / "game.html"
    path.write_text(viewer_html(record), encoding="utf-8")
    page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:")
               else route.continue_())  # the page must need nothing from the network
    page.goto(path.as_uri())


def _step(page) -> int:
    return int(page.get_attribute("#board", "data-step"))


def test_hungry_viewer_steps_forward_and_back(page, tmp_path):
    record = _record("hungry", 2)
    states = [(env.game.totals(), env.game.hands.sum(axis=1).tolist(), env.game.num_plays)
              for env in replay_steps(record)]
    _open_viewer(page, record, tmp_path)
    assert _step(page) == 0
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert _step(page) == 4
    totals, hand_sizes, plays = states[4]
    assert f"Play {plays} of 48" in page.inner_text("#status")
    assert [int(t) for t in page.locator("#scores td.score").all_inner_texts()] == totals
    assert page.locator('td.hand[data-player="0"] .card').count() == hand_sizes[0]
    assert record.steps[3]["agent"] in page.inner_text("#step-label")
    page.click("#next")
    assert _step(page) == 5
    page.click("#last")
    assert _step(page) == 48
    winners = record.result["winners"]
    assert all(w in page.inner_text("#status") for w in winners)
    assert [int(t) for t in page.locator("#scores td.score").all_inner_texts()] == \
        list(record.result["scores"].values())
    page.select_option("#view-as", "1")  # player_1's view: player_0's hand is hidden
    page.keyboard.press("Home")
    assert _step(page) == 0
    assert "hidden" in page.inner_text('td.hand[data-player="0"]')
    assert page.locator('td.hand[data-player="1"] .card').count() == 8
    assert page.errors == []


def test_show_viewer_shows_days_events_and_the_ranking(page, tmp_path):
    record = _record("hunger_show", 4, characters=True)
    logs = [(env.last_log, [len(h) for h in env.game.holdings]) for env in replay_steps(record)]
    _open_viewer(page, record, tmp_path)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert _step(page) == 3
    log, sizes = logs[3]
    assert page.inner_text("#event") == log["event"]
    assert f"Day {log['day']}" in page.inner_text("#status")
    rows = page.locator("#holdings tr[data-player]")
    for seat, size in enumerate(sizes):
        assert rows.nth(seat).locator(".tok").count() == size
    page.keyboard.press("End")
    ranking = page.locator("#ranking li").all_inner_texts()
    assert len(ranking) == len(record.result["scores"])
    best = max(record.result["scores"].items(), key=lambda item: item[1])
    assert ranking[0].startswith(best[0])
    page.keyboard.press("ArrowLeft")
    assert _step(page) == len(record.steps) - 1
    assert page.errors == []


@pytest.fixture
def play_server(tmp_path):
    from werkzeug.serving import make_server

    session = PlaySession("hungry", 3, 0, ["expert", "greedy"], seed=2, record_dir=tmp_path)
    server = make_server("127.0.0.1", 0, PlayApp(session), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield session, f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    thread.join()


def test_play_page_applies_a_human_move_and_the_policies_answer(page, play_server):
    session, url = play_server
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    buttons = page.locator("#moves button")
    legal = sorted(int(b) for b in buttons.evaluate_all("bs => bs.map(b => b.dataset.action)"))
    assert legal == session.legal_actions()
    assert page.locator('td.hand[data-player="1"] .card').count() == 0  # others' hands hidden
    chosen = int(buttons.first.get_attribute("data-action"))
    buttons.first.click()
    page.wait_for_function("document.querySelectorAll('#recent li').length === 2")
    assert session.env.game.history[0] == chosen
    assert session.env.game.num_plays == 3 and session.human_to_move()
    assert "Play 3 of 48" in page.inner_text("#status")
    assert page.errors == []
    # A request for another seat is refused; the game is unchanged and the server still serves.
    status = page.evaluate("""async () => (await fetch('/api/move', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({seat: 1, action: 0})})).status""")
    assert status == 403 and session.env.game.num_plays == 3
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#moves button").count() == len(session.legal_actions())
    assert all("403" in error for error in page.errors)  # only the refused request
