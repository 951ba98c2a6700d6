"""One game on the page from start to end in headless chromium, by mouse (issue #41's "Done when"):
a short clock, moves clicked on the board, a reload that finds the game again, the human's flag, the
arrow keys stepping back through the game, and its PGN with `[%clk]` on every move and the
opening."""

from __future__ import annotations

import io
import json
import re

import chess.pgn
import pytest
from test_web_browser import CHROMIUM, YOUR_MOVE, _click, _opened, served
from web_helpers import EXPERT, no_engines_left

pytestmark = [
    pytest.mark.slow,  # a browser plays a whole game through the served app
    pytest.mark.skipif(
        CHROMIUM is None, reason="no chromium: apt-get install chromium runs this test"
    ),
    pytest.mark.xdist_group("web-browser"),
    pytest.mark.scenario,  # the longer browser journeys: make test-all
]

#: The board as drawn: each piece's kind and square, as chessground keeps them on its elements (not
#: those fading out).
BOARD = (
    "[...document.querySelectorAll('#board piece:not(.ghost)')].filter((p) => !p.cgFading)"
    ".map((p) => `${p.cgPiece}@${p.cgKey}`).sort().join()"
)
#: The whole game's clock, in minutes: 12 s, for two moves and a reload, then the flag falls.
MINUTES = 0.2


def _moved(page, frm: str, to: str, plies: int) -> None:
    """Click a move on the board and wait for the expert's reply."""
    _click(page, frm)
    _click(page, to)
    page.wait_for_function(
        f"document.querySelectorAll('#moves li').length === {plies} && {YOUR_MOVE}", timeout=30_000
    )


def test_a_game_by_mouse_survives_a_reload_ends_on_the_flag_steps_back_and_downloads_its_pgn(
    kosteniuk_casebase, tmp_path
):
    with served(
        kosteniuk_casebase.parent, grace_seconds=60, store=tmp_path / "games.sqlite3"
    ) as url:
        with _opened(url) as (page, errors):
            page.evaluate(
                f"""const f = document.querySelector('#new-game');
                f.minutes.min = '0'; f.minutes.step = 'any'; f.minutes.value = '{MINUTES}';"""
                """ f.moves.value = '0'"""
            )
            page.click("#new-game button[type=submit]")
            page.wait_for_function(YOUR_MOVE, timeout=30_000)
            _moved(page, "e2", "e4", 2)
            _moved(page, "g1", "f3", 4)
            moves = page.locator("#moves li").all_inner_texts()
            page.reload()  # the same game, found again by the store
            page.wait_for_selector(
                f"select[name=expert] option[value='{EXPERT}']", state="attached"
            )
            page.wait_for_function(
                f"document.querySelectorAll('#moves li').length === 4 && {YOUR_MOVE}",
                timeout=30_000,
            )
            assert page.locator("#moves li").all_inner_texts() == moves
            page.wait_for_function(
                "document.querySelector('#status').textContent.includes('Game over')",
                timeout=20_000,
            )
            assert page.locator("#status").inner_text() == "Game over: 0-1 (time forfeit)"
            # the opening's ECO code and name, above the moves
            assert page.locator("#opening").inner_text()
            seen = [page.evaluate(BOARD)]
            for key, after in (
                ("ArrowLeft", moves[2]),
                ("ArrowLeft", moves[1]),
                ("ArrowRight", moves[2]),
            ):
                page.keyboard.press(key)
                page.wait_for_function(
                    "document.querySelector('#reasons"
                    f" .viewing')?.textContent.includes('{after}: ')"
                )
                # chessground draws the step a frame or two after the reasons show: wait for the
                # board to change
                page.wait_for_function(f"({BOARD}) !== {json.dumps(seen[-1])}")
                seen.append(page.evaluate(BOARD))
            # each step shows its own position
            assert len(set(seen[:3])) == 3 and seen[3] == seen[1]
            page.keyboard.press("End")
            page.wait_for_function("!document.querySelector('#reasons .viewing')")
            # drawn a frame later too
            page.wait_for_function(f"({BOARD}) === {json.dumps(seen[0])}", timeout=5_000)
            assert page.evaluate(BOARD) == seen[0]
            pgn = page.request.get(
                url.rstrip("/") + page.locator("#pgn").get_attribute("href")
            ).text()
            assert errors == []
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert (
        game is not None
        and game.headers["Termination"] == "time forfeit"
        and game.headers["Result"] == "0-1"
    )
    assert re.fullmatch(r"[A-E]\d\d", game.headers["ECO"]) and game.headers["Opening"]
    nodes = list(game.mainline())
    assert [node.san() for node in nodes] == [m.split()[-1] for m in moves]
    assert all(node.clock() is not None for node in nodes), pgn  # [%clk] on every move
    assert no_engines_left()
