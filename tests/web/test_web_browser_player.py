"""The page as a player lives it, in headless chromium (issue #53): the expert's clock ticks through
its think, the engine's line and score (a hint for the player's next move) are not shown during a
game, a tab refused a game says so until the player acts, and the New game form and the page's words
(item 6). The engine holds each move a few seconds once chosen (tests/web_helpers.py's SLOW), as
HumanTime would."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from test_web_browser import CHROMIUM, YOUR_MOVE, _click, _opened, free_port, play_e4, served
from web_helpers import SLOW, no_engines_left, wrap_engine

pytestmark = [
    pytest.mark.slow,  # a browser plays through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
    pytest.mark.scenario,  # the longer browser journeys: make test-all
]

#: Seconds the expert holds its move: its clock shows at least three different times during one
#: think.
THINK = 3.5
#: Records, at every change on the play tab, the status, the engine's line box, the board's column
#: (all but the reasons of the moves played), the expert's clock and whether it is marked running.
WATCH = (
    """window.seen = [];
const record = () => window.seen.push({status: document.querySelector('#status').textContent,
  thinking: document.querySelector('#thinking').textContent,"""
    """ tab: document.querySelector('#tab-play .board-column').innerText,
  clock: document.querySelector('#clock-top').textContent,
  running: document.querySelector('#clock-top').classList.contains('running')});
new MutationObserver(record).observe(document.querySelector('#tab-play'),
  {childList: true, subtree: true, characterData: true, attributes: true,"""
    """ attributeFilter: ['class']})"""
)


@pytest.fixture(scope="module")
def server(kosteniuk_casebase):
    with served(kosteniuk_casebase.parent, grace_seconds=0) as url:
        yield url


def _one_think(page) -> list[dict[str, object]]:
    """Start a game as White, play 1. e4 by mouse, and what the page showed while the expert
    thought."""
    page.click("#new-game button[type=submit]")
    page.wait_for_function(YOUR_MOVE, timeout=30_000)
    page.evaluate(WATCH)
    _click(page, "e2")
    _click(page, "e4")
    page.wait_for_function(
        f"document.querySelectorAll('#moves li').length === 2 && {YOUR_MOVE}", timeout=60_000
    )
    return [seen for seen in page.evaluate("window.seen") if "thinking" in seen["status"]]


def test_the_experts_clock_ticks_on_the_page_all_through_its_think(server, monkeypatch):
    wrap_engine(monkeypatch, SLOW.format(seconds=THINK))
    with _opened(server) as (page, _):
        thinking = _one_think(page)
        clocks = [seen["clock"] for seen in thinking]
        shown = [clock for i, clock in enumerate(clocks) if i == 0 or clock != clocks[i - 1]]
        assert len(shown) >= 3, clocks  # it changed at least twice during one think
        assert all(seen["running"] for seen in thinking)  # and is marked as the running one
    assert no_engines_left()


def test_no_engine_line_or_score_is_shown_during_a_game(server, monkeypatch):
    wrap_engine(monkeypatch, SLOW.format(seconds=THINK))
    with _opened(server) as (page, _):
        thinking = _one_think(page)
        assert thinking
        # the line (1...e5 2. Nf3) and its score would be a hint for the next move
        for seen in thinking:
            assert " cp" not in seen["tab"] and "mate in" not in seen["tab"], seen["thinking"]
            assert "1…" not in seen["tab"] and "1..." not in seen["tab"], seen["tab"]
    assert no_engines_left()


def test_a_tab_refused_a_game_says_so_until_the_player_acts_and_can_try_again(kosteniuk_casebase):
    with (
        served(kosteniuk_casebase.parent, grace_seconds=0, max_games=1) as url,
        _opened(url) as (first, _),
    ):
        first.click("#new-game button[type=submit]")
        first.wait_for_function(YOUR_MOVE, timeout=30_000)
        second = first.context.browser.new_page()  # another tab, its own storage
        try:
            second.clock.install()  # the page's timers, which the test moves on where it would wait
            second.goto(url)
            second.wait_for_selector("select[name=expert] option:not([value=''])", state="attached")
            second.click("#new-game button[type=submit]")
            # the refusal comes at once: no engine starts
            second.wait_for_selector("#retry", timeout=15_000)
            second.clock.fast_forward(8000)  # the error banner's time on the page
            # the banner faded
            second.wait_for_function("document.querySelector('#error').hidden", timeout=15_000)
            assert (
                second.locator("#status")
                .inner_text()
                .startswith("No game: too many games at once (at most 1)")
            )
            first.close()  # its game ends at once (no grace): one may start now
            second.click("#retry")
            second.wait_for_function(YOUR_MOVE, timeout=30_000)
            assert second.locator("#retry").count() == 0
        finally:
            second.close()  # and its context: the browser outlives the test
    assert no_engines_left()


def test_the_form_shows_the_game_taken_up_and_the_page_words_moves_and_clocks_plainly(
    kosteniuk_casebase, tmp_path
):
    with (
        served(
            kosteniuk_casebase.parent, grace_seconds=60, store=tmp_path / "games.sqlite3"
        ) as url,
        _opened(url) as (page, _),
    ):
        assert page.evaluate("fetch('/favicon.ico').then((r) => r.status)") == 200
        assert page.locator("input[name=elo]").is_hidden()  # not 1800 beside "the expert's own"
        page.select_option("select[name=strength]", "elo")
        page.fill("input[name=elo]", "1500")
        page.select_option("select[name=preset]", "0 3 2")  # 3 min + 2 s: no "moves 0" to know of
        assert [
            page.input_value(f"input[name={box}]") for box in ("moves", "minutes", "increment")
        ] == ["0", "3", "2"]
        moves = play_e4(page)
        assert moves[0] == "1. e4" and "…" not in moves[1], moves  # "1. e4 e5", not "1. e4 1… e5"
        page.reload()  # the form shows the game on the board, not the defaults
        page.wait_for_function(
            f"document.querySelectorAll('#moves li').length === 2 && {YOUR_MOVE}", timeout=30_000
        )
        page.wait_for_function("document.querySelector('input[name=elo]').value === '1500'")
        assert (
            page.input_value("select[name=preset]") == "0 3 2"
            and page.input_value("select[name=strength]") == "elo"
        )
        assert page.locator("input[name=elo]").is_visible()
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#resign")
        page.wait_for_selector("#games li", timeout=10_000)
        assert " 1 move " in page.locator("#games li").first.inner_text()  # not "1 moves"
    assert no_engines_left()


def test_while_the_server_is_down_the_page_says_reconnecting_and_stops_the_clocks(
    kosteniuk_casebase, tmp_path
):
    port, kept = free_port(), {"grace_seconds": 60, "store": tmp_path / "games.sqlite3"}
    with ExitStack() as first:
        url = first.enter_context(served(kosteniuk_casebase.parent, port, **kept))
        with _opened(url) as (page, _):
            page.click("#new-game button[type=submit]")
            page.wait_for_function(YOUR_MOVE, timeout=30_000)
            first.close()  # the server stops
            page.wait_for_function(
                "document.querySelector('#status').textContent.startsWith('reconnecting')",
                timeout=20_000,
            )
            clock = page.inner_text("#clock-bottom")
            page.wait_for_timeout(1500)
            # the player's clock does not count on alone
            assert page.inner_text("#clock-bottom") == clock
            assert all(
                page.locator(b).is_disabled() for b in ("#resign", "#takeback", "#offer-draw")
            )
            # back: the game is taken up again
            with served(kosteniuk_casebase.parent, port, **kept):
                page.wait_for_function(YOUR_MOVE, timeout=30_000)
                assert page.locator("#resign").is_enabled()
                _click(page, "e2")
                _click(page, "e4")
                page.wait_for_function(
                    f"document.querySelectorAll('#moves li').length === 2 && {YOUR_MOVE}",
                    timeout=30_000,
                )
    assert no_engines_left()


def test_a_game_ended_for_idling_is_not_taken_up_again_by_reconnecting(kosteniuk_casebase):
    with (
        served(kosteniuk_casebase.parent, grace_seconds=60, idle_seconds=2) as url,
        _opened(url) as (page, _),
    ):
        page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('idle for')", timeout=30_000
        )
        page.wait_for_timeout(3000)  # a reconnection would have come in 2 s
        assert page.inner_text("#status").startswith("idle for 2 s: game ended")
    assert no_engines_left()
