"""The page finds its game again after a reload (web/static/store.js, web/keeper.py), in headless
chromium: its moves, the expert's reasons and the running clock; and a finished game is listed with
its PGN."""

from __future__ import annotations

import pytest
from test_web_browser import CHROMIUM, YOUR_MOVE, _click, _opened, play_e4, served
from web_helpers import EXPERT, no_engines_left

pytestmark = [
    pytest.mark.slow,  # a browser plays through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
]


def test_a_reloaded_page_finds_its_game_again_and_a_finished_one_is_listed(
    kosteniuk_casebase, tmp_path
):
    with served(
        kosteniuk_casebase.parent, grace_seconds=60, store=tmp_path / "games.sqlite3"
    ) as url:
        with _opened(url) as (page, errors):
            assert page.locator("#past").is_hidden()  # no finished game yet
            moves = play_e4(page)
            page.reload()
            page.wait_for_selector(
                f"select[name=expert] option[value='{EXPERT}']", state="attached"
            )
            page.wait_for_function(
                f"document.querySelectorAll('#moves li').length === 2 && {YOUR_MOVE}",
                timeout=30_000,
            )
            assert page.locator("#moves li").all_inner_texts() == moves
            assert page.locator("#reasons article.reason h3").first.inner_text() == f"1… {moves[1]}"
            # the human's time runs
            assert "running" in (page.locator("#clock-bottom").get_attribute("class") or "")
            _click(page, "d2")  # and the game goes on
            _click(page, "d4")
            page.wait_for_function(
                f"document.querySelectorAll('#moves li').length === 4 && {YOUR_MOVE}",
                timeout=30_000,
            )
            page.once("dialog", lambda dialog: dialog.accept())
            page.click("#resign")
            page.wait_for_selector("#games li a", timeout=10_000)
            assert (
                page.locator("#past").is_visible()
                and "0-1 (resignation), 2 moves" in page.locator("#games li").inner_text()
            )
            pgn = page.locator("#games li a").get_attribute("href")
            assert (
                '[Result "0-1"]' in page.request.get(url.rstrip("/") + pgn).text() and errors == []
            )
    assert no_engines_left()
