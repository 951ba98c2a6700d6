"""The page on a phone (issue #41 item 17): at 390 px wide nothing scrolls sideways and the board
scales to the screen and is played on. In headless chromium, as test_web_browser (its server)."""

from __future__ import annotations

import pytest
from test_web_browser import CHROMIUM, _click, _opened, server  # noqa: F401  (server: the fixture)

pytestmark = [
    pytest.mark.slow,  # a browser plays through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
]

PHONE = {"width": 390, "height": 844}
#: The widest thing on the page, and where the board lies.
MEASURE = (
    """() => { const b = document.querySelector('#board cg-board').getBoundingClientRect();
  return {scroll: document.documentElement.scrollWidth, left: b.left, right: b.right,"""
    """ width: b.width}; }"""
)

#: A long message shown above the board, as the page shows its errors: the board moves down three
#: lines.
SHIFT = (
    "const box = document.querySelector('#error'); box.textContent = 'a message, '.repeat(12);"
    " box.hidden = false"
)


def test_a_phone_plays_on_a_board_as_wide_as_its_screen_and_nothing_scrolls_sideways(server):  # noqa: F811
    with _opened(server) as (page, errors):
        page.set_viewport_size(PHONE)
        page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Your move')", timeout=30_000
        )
        page.evaluate(SHIFT)  # the board moves down: still played where it is drawn
        _click(page, "e2")
        _click(page, "e4")  # clicked where the scaled board draws the squares
        page.wait_for_selector("#reasons article.reason", timeout=30_000)
        page.wait_for_function(
            "document.querySelectorAll('#moves li').length === 2", timeout=30_000
        )
        seen = page.evaluate(MEASURE)
        assert seen["scroll"] <= PHONE["width"], seen
        assert (
            0 <= seen["left"]
            and seen["right"] <= PHONE["width"]
            and seen["width"] >= 0.9 * PHONE["width"] - 40
        ), seen
        for tab in ("ask", "expert"):  # the other tabs fit too
            page.click(f"nav button[data-tab={tab}]")
            page.wait_for_timeout(300)
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], tab
        assert errors == []
