"""The expert's repertoire as a Polyglot book (casebase/book.py), read back by python-chess."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from uci_helpers import ROOT

from casebase.book import replayed_games, write_book
from casebase.format import Casebase


def first_moves(pgn: Path, surname: str, white: bool) -> Counter[str]:
    """The expert's first move (as White) or first reply to 1.e4 (as Black), counted from the
    PGN."""
    found: Counter[str] = Counter()
    with open(pgn, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            moves = list(game.mainline_moves())
            if surname in game.headers["White" if white else "Black"]:
                if white and moves:
                    found[moves[0].uci()] += 1
                elif not white and len(moves) > 1 and moves[0].uci() == "e2e4":
                    found[moves[1].uci()] += 1
    return found


def entries(path: Path, board: chess.Board) -> dict[str, int]:
    with chess.polyglot.open_reader(path) as reader:
        return {e.move.uci(): e.weight for e in reader.find_all(board)}


def test_the_book_holds_the_experts_moves_weighted_by_games(tmp_path, kosteniuk_casebase, data_dir):
    path = tmp_path / "k.bin"
    book, count = write_book(path, Casebase.load(kosteniuk_casebase))
    assert count > 1000 and book.replayed == book.read == 121
    pgn = data_dir / "experts" / "kosteniuk-2200.pgn"
    as_white = first_moves(pgn, "Kosteniuk", white=True)
    start = entries(path, chess.Board())
    assert start == dict(as_white)
    # the book's first choice is her most played move
    with chess.polyglot.open_reader(path) as reader:
        assert reader.find(chess.Board()).move.uci() == as_white.most_common(1)[0][0] == "e2e4"
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    assert entries(path, after_e4) == dict(first_moves(pgn, "Kosteniuk", white=False))


def test_castling_and_the_games_cut_read_back_as_legal_moves(tmp_path, kosteniuk_casebase):
    casebase = Casebase.load(kosteniuk_casebase)
    path = tmp_path / "k.bin"
    write_book(path, casebase, min_games=3, max_ply=20)
    castled = 0
    with chess.polyglot.open_reader(path) as reader:
        # every entry's position is one the expert met: replay a few games to find them
        for entry in reader:
            assert entry.weight >= 3
        for board in _positions(casebase, plies=20):
            for entry in reader.find_all(board):
                assert entry.move in board.legal_moves
                # Polyglot writes castling as the king taking its rook
                if board.is_castling(entry.move):
                    castled += 1
                    assert entry.raw_move & 0x3F in (chess.H1, chess.A1, chess.H8, chess.A8)
    assert castled > 0


def _positions(casebase: Casebase, plies: int) -> list[chess.Board]:
    """Boards of the expert's first ``plies`` half-moves in the games the book came from."""
    return [board for _, moves in replayed_games(casebase, plies) for board, _ in moves]


@pytest.mark.slow
def test_by_results_and_the_command_line(tmp_path, kosteniuk_casebase):
    out = tmp_path / "r.bin"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "casebase",
            "book",
            str(kosteniuk_casebase),
            "-o",
            str(out),
            "--by-results",
            "--min-games",
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Alexandra Kosteniuk:" in done.stdout and "written to" in done.stdout
    plain = tmp_path / "p.bin"
    write_book(plain, Casebase.load(kosteniuk_casebase), min_games=2)
    by_games, by_points = entries(plain, chess.Board()), entries(out, chess.Board())
    assert set(by_points) <= set(by_games) and by_points != by_games  # points are not games
    with pytest.raises(ValueError, match="at least 1"):
        write_book(out, Casebase.load(kosteniuk_casebase), min_games=0)
