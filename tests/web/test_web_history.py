"""Stepping through a game in the browser (issue #41 item 10, web/static/history.js): moves played
by mouse, then the arrow keys, a click on a move, Home, End and Escape show the board there and that
move's reasons; the board flips; moves sound unless switched off. And item 11 on the page: the
opening's name above the moves, each move's clock in its tooltip. Skipped without chromium."""

from __future__ import annotations

import re

import pytest
from test_web_browser import CHROMIUM, _click, _opened, server  # noqa: F401 (server: the fixture)
from web_helpers import no_engines_left

pytestmark = [
    pytest.mark.slow,  # a browser plays through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
]

#: An AudioContext that records the pitch of every sound the page starts (headless, nothing is
#: heard).
TONES = (
    """window.tones = [];
window.AudioContext = class { constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() { const o = { frequency: { value: 0 }, connect: (n) => n, stop() {},
    start: () => window.tones.push(o.frequency.value) }; return o; }
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },"""
    """ connect: (n) => n }; } };
true"""
)
#: The pieces the board shows, each on its square (chessground's own marks; a captured one fading
#: out left out).
PIECES = (
    "[...document.querySelectorAll('#board piece:not(.fading)')].map((p) =>"
    " `${p.cgPiece}@${p.cgKey}`).sort().join()"
)


def _settled(page, plies: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('#moves li').length === {plies}"
        " && document.querySelector('#status').textContent.includes('Your move')",
        timeout=30_000,
    )


def _shows(page, pieces: str, same: bool = True) -> None:
    """Wait until the board's pieces are (or are not) ``pieces`` (the board animates its moves)."""
    page.wait_for_function(
        f"({PIECES} === {pieces!r}) === {'true' if same else 'false'}", timeout=5_000
    )


def test_a_game_is_stepped_through_by_keys_and_clicks_and_the_board_flips_and_sounds(server):  # noqa: F811
    with _opened(server) as (page, _):
        page.evaluate(TONES)
        page.click("#new-game button[type=submit]")
        _settled(page, 0)
        start = page.evaluate(PIECES)
        _click(page, "e2")
        _click(page, "e4")
        _settled(page, 2)
        assert len(page.evaluate("window.tones")) == 2  # the human's move and the expert's reply
        page.uncheck("#sound")  # the switch keeps the focus: the keys below step all the same
        _click(page, "d2")
        _click(page, "d4")  # legal after any one reply to 1.e4
        _settled(page, 4)
        assert len(page.evaluate("window.tones")) == 2  # switched off
        live, moves = page.evaluate(PIECES), page.locator("#moves li").all_inner_texts()
        assert page.locator("#reasons article.reason").count() == 2

        page.keyboard.press("ArrowLeft")  # after 2.d4: the human's move, no reasons
        _shows(page, live, same=False)
        assert page.locator("#moves li.viewed").inner_text() == moves[2]
        assert (
            page.locator("#reasons article.reason").count() == 0
            and moves[2] in page.locator("#reasons .viewing").inner_text()
        )
        page.keyboard.press("ArrowLeft")  # after the expert's first reply: its reasons alone
        assert page.locator("#reasons article.reason").count() == 1
        assert page.locator("#reasons article.reason h3").inner_text() == f"1… {moves[1]}"
        page.keyboard.press("ArrowRight")
        assert page.locator("#moves li.viewed").inner_text() == moves[2]
        page.keyboard.press("End")  # back to the game, all its reasons
        _shows(page, live)
        assert (
            page.locator("#moves li.viewed").count() == 0
            and page.locator("#reasons article.reason").count() == 2
        )
        page.keyboard.press("Home")
        _shows(page, start)
        page.locator("#moves li").nth(3).click()  # the last move: the live position
        _shows(page, live)
        page.locator("#moves li").nth(1).click()
        assert page.locator("#reasons article.reason h3").inner_text() == f"1… {moves[1]}"
        page.keyboard.press("Escape")
        _shows(page, live)
        assert page.locator("#reasons article.reason").count() == 2

        assert page.locator("#board.orientation-white").count() == 1
        page.click("#flip")  # the expert's side at the bottom, and its clock below the board
        assert page.locator("#board.orientation-black").count() == 1
        y = {
            node: page.locator(node).bounding_box()["y"]
            for node in ("#clock-bottom", "#board", "#clock-top")
        }
        assert y["#clock-bottom"] < y["#board"] < y["#clock-top"]
        page.click("#flip")
        assert page.locator("#board.orientation-white").count() == 1

        # 1.e4 at least: B00
        assert re.fullmatch(r"[A-E]\d\d .+", page.locator("#opening").inner_text())
        titles = [page.locator("#moves li").nth(i).get_attribute("title") for i in range(4)]
        assert all(
            re.fullmatch(r"0:(1[0-5]|0\d):\d\d left after this move", t or "") for t in titles
        ), titles
    assert no_engines_left()
