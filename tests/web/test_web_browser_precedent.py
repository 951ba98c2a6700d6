"""In headless chromium (the app served as in tests/web/test_web_browser.py): the precedent of the
expert's move by the learned similarity (issue #61), in words and on a small board of its own
position with its move marked, beside the move's sentences where the casebase has embeddings;
nothing of it where it has none."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import chess
import pytest
from test_web_browser import _opened, play_e4, pytestmark, served  # noqa: F401  (pytestmark: slow, chromium, group)
from web_helpers import no_engines_left

from casebase.builder import build
from casebase.embeddings import make_embeddings
from casebase.format import Casebase
from casebase.games import GameFilter
from engine.style.loader import default_model


@pytest.fixture(scope="module")
def folder(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, expert_names: dict[str, str]
) -> Path:
    """Two casebases of Kosteniuk's first 12 games: ``embedded``, with its embeddings by the default
    network beside it (3 s to make), and ``bare``, the same without."""
    folder = tmp_path_factory.mktemp("precedents")
    build(
        [data_dir / "experts" / "kosteniuk-2200.pgn"],
        GameFilter(expert_names["kosteniuk-2200"], max_games=12),
        workers=1,
        progress=False,
    ).save(folder / "embedded.npz")
    shutil.copy(folder / "embedded.npz", folder / "bare.npz")
    make_embeddings(folder / "embedded.npz", default_model()[0], workers=1, progress=False)
    return folder


#: The precedent's small board as drawn: its pieces by square and the squares marked as the last
#: move.
DRAWN = (
    """box => ({pieces: Object.fromEntries([...box.querySelectorAll('cg-board piece')]"""
    """.map((p) => [p.cgKey, p.className])),
  marked: [...box.querySelectorAll('square.last-move')].map((s) => s.cgKey).sort()})"""
)


def test_the_precedent_is_said_and_drawn_beside_the_move_only_where_the_casebase_has_embeddings(
    folder,
):
    casebase = Casebase.load(folder / "embedded.npz")
    with served(folder, grace_seconds=0) as url, _opened(url, "embedded") as (page, _):
        page.select_option("select[name=expert]", "embedded")
        play_e4(page)
        card = page.locator("#reasons article.reason").first
        said = card.locator("ul.plain").inner_text()
        found = re.search(
            r"A position \d+ % alike by the learned similarity, from Alexandra Kosteniuk's game"
            r" (.+?), move (\d+), where Alexandra Kosteniuk played (\S+?)[.;]",
            said,
        )
        assert found, said
        box = card.locator(".case.precedent")
        # beside the sentences, not folded with the numbers
        assert box.locator(".mini").is_visible()
        caption = box.locator("p.small").inner_text()
        named = re.fullmatch(
            rf"the precedent: the expert played {re.escape(found[3])} \(case (\d+)\)", caption
        )
        assert named, caption
        row = int(named[1])
        source, board, move = casebase.source(row), casebase.board(row), casebase.move(row)
        assert (
            found[1].startswith(f"{source.white} – {source.black}, {source.event}")
            and int(found[2]) == source.move_number
        )
        page.wait_for_function(
            "document.querySelectorAll('.case.precedent .mini cg-board piece').length > 0"
        )
        drawn = box.evaluate(DRAWN)
        pieces = board.piece_map().items()
        assert drawn["pieces"] == {
            chess.square_name(
                square
            ): f"{chess.COLOR_NAMES[p.color]} {chess.piece_name(p.piece_type)}"
            for square, p in pieces
        }  # the case's own position
        assert drawn["marked"] == sorted(
            chess.square_name(s) for s in (move.from_square, move.to_square)
        )

        # no embeddings: no precedent, said or drawn
        page.select_option("select[name=expert]", "bare")
        play_e4(page)
        card = page.locator("#reasons article.reason").first
        page.wait_for_function("document.querySelectorAll('#reasons article.reason').length === 1")
        assert (
            card.locator("ul.plain li").count() >= 2
            and "learned similarity" not in card.inner_text()
        )
        assert card.locator(".case.precedent").count() == 0
    assert no_engines_left()
