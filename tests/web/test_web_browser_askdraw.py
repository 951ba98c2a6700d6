"""In headless chromium (the app served as in tests/web/test_web_browser.py): Ask the expert's
candidates with their chances and the rating slider moving them, and a draw offered from the board's
buttons."""

from __future__ import annotations

import re

import pytest

# pytestmark: slow, skipped without chromium, the browsers' group; server: the served app (a
# fixture)
from test_web_browser import _opened, pytestmark, server  # noqa: F401
from web_helpers import no_engines_left

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.mark.scenario  # a browser journey of ten seconds: make test-all
def test_ask_lists_every_candidate_and_the_slider_shows_the_chances_by_rating(server):  # noqa: F811
    with _opened(server) as (page, _):
        page.click("nav button[data-tab=ask]")
        page.fill("#ask-text", AFTER_E4)
        with page.expect_response("**/api/position"):
            page.click("#ask-load")
        page.click("#ask-go")
        page.wait_for_selector(".answer table.candidates tr[data-san]", timeout=30_000)
        rows = page.locator(".answer table.candidates tr[data-san]")
        headline = page.locator(".answer h3").inner_text()
        # no judge: the likeliest sound move
        said = re.fullmatch(r"Alexandra Kosteniuk would play (\S+)", headline)
        assert said, headline
        assert rows.count() >= 2 and said[1] in [
            rows.nth(i).get_attribute("data-san") for i in range(rows.count())
        ]
        # in a player's words, the record's numbers folded (issue #53)
        shown = page.locator(".answer").inner_text()
        assert page.locator(".answer ul.plain li").count() >= 2 and "considered" in shown
        assert not re.search(r"chooser|prior|calibrated|Played", shown), shown
        page.click(".answer details.numbers > summary")
        assert "of the prior" in page.locator(".answer").inner_text()  # one click away
        page.click(".answer button.ask-ratings")
        slider = page.wait_for_selector(".by-rating input.rating", timeout=60_000)
        label = page.locator(".by-rating label span")
        assert label.inner_text().startswith("Elo 3000: ")
        top = page.locator(".by-rating tr[data-san] td:nth-child(2)").first.inner_text()
        slider.evaluate("s => { s.value = '0'; s.dispatchEvent(new Event('input')); }")
        assert label.inner_text().startswith("Elo 1000: ")
        # the chances moved
        assert page.locator(".by-rating tr[data-san] td:nth-child(2)").first.inner_text() != top
        assert "undefined" not in page.locator(".answer").inner_text()
    assert no_engines_left()


def test_a_draw_offered_before_the_experts_first_move_is_declined_with_why(server):  # noqa: F811
    with _opened(server) as (page, _):
        assert page.locator("#offer-draw").is_disabled()  # no game yet
        page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#status').textContent.includes('Your move')", timeout=30_000
        )
        page.click("#offer-draw")
        page.wait_for_selector("#draw-offer.declined", timeout=10_000)
        assert "the expert plays on" in page.locator("#draw-offer").inner_text()
    assert no_engines_left()
