"""End to end in a real headless browser (Debian's chromium): open the page, play a move by
clicking two squares, and see the engine's reply and its reasons. Skipped without chromium."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chess.engine
import pytest
from web_helpers import EXPERT, no_engines_left

from web import vendor

CHROMIUM = next(
    (p for p in ("/usr/bin/chromium", shutil.which("chromium") or "") if p and Path(p).is_file()),
    None,
)
pytestmark = [
    pytest.mark.slow,  # a browser plays through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
]


@pytest.fixture(scope="module")
def server(kosteniuk_casebase):
    """The app served by uvicorn on a free local port, in a thread."""
    # a closed page ends its game at once
    with served(kosteniuk_casebase.parent, grace_seconds=0) as url:
        yield url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(folder: Path, port: int | None = None, **options: Any) -> Iterator[str]:
    """The app offering ``folder``'s casebases with ``options``, every engine move at depth 1,
    served by uvicorn on ``port`` (default: a free local port) in a thread: its address."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("playwright")
    try:
        vendor.fetch(quiet=True)
    except vendor.VendorError as exc:
        pytest.skip(f"the board widget could not be fetched: {exc}")
    from web.app import create_app
    from web.config import Config
    from web.experts import Experts

    port = free_port() if port is None else port
    config = Config(
        Experts([("shipped", folder)]), limit=chess.engine.Limit(depth=1), port=port, **options
    )
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(10)


def _click(page, square: str) -> None:
    box = page.locator("#board cg-board").bounding_box()
    size = box["width"] / 8
    file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
    page.mouse.click(box["x"] + (file + 0.5) * size, box["y"] + (7 - rank + 0.5) * size)


YOUR_MOVE = "document.querySelector('#status').textContent.includes('Your move')"


def play_e4(page) -> list[str]:
    """A new game from the form as it stands, 1. e4 clicked on the board; the moves once the expert
    has replied."""
    page.click("#new-game button[type=submit]")
    page.wait_for_function(YOUR_MOVE, timeout=30_000)
    _click(page, "e2")
    _click(page, "e4")
    page.wait_for_function(
        f"document.querySelectorAll('#moves li').length === 2 && {YOUR_MOVE}", timeout=30_000
    )
    return page.locator("#moves li").all_inner_texts()


#: Playwright and its chromium, started by the first of the browser tests a worker runs in a row and
#: stopped after the last (conftest.py): a launch took a second or two of each test's time.
_CHROMIUM: list[Any] = []


def _browser() -> Any:
    """The worker's headless chromium (launched again if it went away)."""
    if _CHROMIUM and not _CHROMIUM[1].is_connected():
        close_browser()
    if not _CHROMIUM:
        from playwright.sync_api import sync_playwright

        playwright = sync_playwright().start()
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except BaseException:
            # else its event loop stays running in this thread, for every later test
            playwright.stop()
            raise
        _CHROMIUM.extend([playwright, browser])
    return _CHROMIUM[1]


def close_browser() -> None:
    """Stop the worker's chromium and Playwright, if started."""
    if _CHROMIUM:
        playwright, browser = _CHROMIUM
        _CHROMIUM.clear()
        try:
            browser.close()
        finally:
            playwright.stop()


@contextmanager
def _opened(server: str, expert: str = EXPERT) -> Iterator[tuple[Any, list[str]]]:
    """The page open in headless chromium (a context of its own: its own storage, as a new
    browser's), its experts listed (``expert`` among them), and the page's script errors (none, at
    the end)."""
    context = _browser().new_context(viewport={"width": 1300, "height": 950})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server)
        page.wait_for_selector(f"select[name=expert] option[value='{expert}']", state="attached")
        yield page, errors
        assert errors == []
    finally:
        context.close()


def test_a_move_clicked_on_the_board_gets_the_experts_reply_and_its_reasons(server):
    with _opened(server) as (page, errors):
        page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Your move')", timeout=30_000
        )
        _click(page, "e2")
        _click(page, "e4")
        page.wait_for_selector("#reasons article.reason", timeout=30_000)
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Your move')", timeout=30_000
        )
        moves = page.locator("#moves li").all_inner_texts()
        assert moves[0] == "1. e4" and len(moves) == 2
        card = page.locator("#reasons article.reason").first
        assert card.locator("h3").inner_text() == f"1… {moves[1]}"  # the list: "1. e4 e5"
        assert (
            card.locator("ul.plain li").count() >= 2
            and "also considered" in card.locator("ul.plain").inner_text()
        )
        # the numbers are one click away (issue #41 item 14)
        assert "Search:" not in card.inner_text()
        card.locator("details.numbers > summary").click()
        # the page's words
        assert card.locator(".played").inner_text().startswith(f"Played {moves[1]}")
        assert card.locator(".bar").count() >= 2 and "Search:" in card.inner_text()
        # the models' parameters, once
        page.locator("#reasons details.parameters > summary").click()
        assert page.locator("#reasons details.parameters").count() == 1
        assert "style model" in page.locator("#reasons details.parameters").inner_text()
        assert "undefined" not in card.inner_text() and "null" not in card.inner_text(), (
            card.inner_text()
        )
        # an illegal move is refused by the board itself (no destination), and the position stays
        _click(page, "e4")
        _click(page, "e6")
        page.wait_for_timeout(200)
        assert page.locator("#moves li").count() == 2 and errors == []
    assert no_engines_left()


# Black to move, move 30
FEN_30 = "r1bqkbnr/pp1p1ppp/2n1p3/1Bp5/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 30"
#: Records, each time the status changes, the status and whether "Take back" is disabled.
WATCH = (
    """window.seen = [];
new MutationObserver(() => window.seen.push([document.querySelector('#status').textContent,
  document.querySelector('#takeback').disabled])).observe(document.querySelector('#status'),"""
    """ {childList: true})"""
)


def test_the_buttons_follow_the_game_and_a_fen_is_played_once_numbered_from_its_move(server):
    with _opened(server) as (page, _):
        # nothing to download, claim, take back or resign yet
        assert page.locator("#pgn").is_hidden()
        assert all(page.locator(b).is_disabled() for b in ("#draw", "#takeback", "#resign"))
        page.click("nav button[data-tab=ask]")
        # a typo: said to be a malformed FEN
        page.fill("#ask-text", FEN_30.replace("RNBQK2R", "RNBQK2X"))
        page.click("#ask-load")
        page.wait_for_function(
            "document.querySelector('#error').textContent.includes('malformed FEN')"
        )
        page.fill("#ask-text", FEN_30)
        with page.expect_response("**/api/position"):
            page.click("#ask-load")
        page.click("#ask-play")
        page.click("#new-game button[type=submit]")  # from the FEN: the engine, Black, moves first
        page.wait_for_function(
            "document.querySelectorAll('#moves li').length === 1"
            " && document.querySelector('#status').textContent.includes('Your move')",
            timeout=30_000,
        )
        moves = page.locator("#moves li").all_inner_texts()
        assert (
            moves[0].startswith("30… ")
            and page.locator("#reasons article.reason h3").first.inner_text() == moves[0]
        )
        assert page.locator("#pgn").is_visible() and page.locator("#start-from").inner_text() == ""
        assert (
            "for the side to move"
            in page.locator("#reasons article.reason .verdict").first.text_content()
        )  # folded (item 14)
        page.click("#new-game button[type=submit]")  # the next game starts from the start again
        page.wait_for_function(
            "document.querySelectorAll('#moves li').length === 0"
            " && document.querySelector('#status').textContent.includes('Your move')",
            timeout=30_000,
        )
        page.evaluate(WATCH)
        _click(page, "e2")
        _click(page, "e4")
        page.wait_for_function(
            "document.querySelectorAll('#moves li').length === 2"
            " && document.querySelector('#status').textContent.includes('Your move')",
            timeout=30_000,
        )
        assert page.locator("#moves li").all_inner_texts()[0] == "1. e4"
        thinking = [
            disabled for status, disabled in page.evaluate("window.seen") if "thinking" in status
        ]
        assert thinking and all(thinking)  # no take-back while the engine thinks
        assert page.locator("#takeback").is_enabled() and page.locator("#resign").is_enabled()
    assert no_engines_left()


def test_the_humans_flag_ends_the_game_on_the_page_at_once(server):
    with _opened(server) as (page, _):
        page.evaluate(
            """const f = document.querySelector('#new-game');  // 3 s for the whole game
            f.minutes.min = '0'; f.minutes.step = 'any'; f.minutes.value = '0.05';"""
            """ f.moves.value = '0'"""
        )
        page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Your move')", timeout=30_000
        )
        _click(page, "e2")
        _click(page, "e4")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Game over')", timeout=10_000
        )
        assert page.locator("#status").inner_text() == "Game over: 0-1 (time forfeit)"
        page.wait_for_timeout(600)  # the clocks do not run on after the end
        assert page.locator("#clock-bottom").inner_text().endswith("0:00")
        assert page.locator("#takeback").is_disabled() and page.locator("#resign").is_disabled()
    assert no_engines_left()


def test_the_experts_repertoire_shows_games_share_score_and_a_moves_position(server):
    with _opened(server) as (page, _):
        page.click("nav button[data-tab=expert]")
        first = page.locator("#expert-repertoire .move").first
        first.wait_for(timeout=30_000)
        # issue #41 item 16
        assert first.inner_text().startswith("e4 — 57 games (") and "scores" in first.inner_text()
        assert page.locator(".repertoire-board piece:not(.ghost)").count() == 0
        first.click()
        page.wait_for_function(
            "document.querySelectorAll('.repertoire-board piece:not(.ghost)').length === 32"
        )


def test_asking_two_experts_shows_what_differs(server):
    with _opened(server) as (page, _):
        page.click("nav button[data-tab=ask]")
        page.select_option("#ask-b", EXPERT)
        page.click("#ask-go")
        # issue #41 item 15
        page.locator("#ask-answers .differences li").first.wait_for(timeout=30_000)
        assert page.locator("#ask-answers .answer").count() == 3
        assert (
            "share one style model, the same network"
            in page.locator("#ask-answers .differences").inner_text()
        )
