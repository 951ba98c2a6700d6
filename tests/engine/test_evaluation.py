"""The guided mode's static evaluation (search.md §2)."""

from __future__ import annotations

import chess
import pytest
from search_helpers import random_positions

from engine.search.evaluation import (
    KING_ENDGAME,
    PIECE_SQUARE,
    PIECE_VALUES,
    evaluate,
    evaluate_white,
    is_endgame,
)


def _reference_white(board: chess.Board) -> int:
    """Material + table bonus summed square by square (no bit tricks)."""
    king_table = (
        KING_ENDGAME
        if is_endgame(board)
        else {c: PIECE_SQUARE[c][chess.KING] for c in chess.COLORS}
    )
    score = 0
    for square, piece in board.piece_map().items():
        if piece.piece_type == chess.KING:
            table = king_table[piece.color]
        else:
            table = PIECE_SQUARE[piece.color][piece.piece_type]
        score += table[square] if piece.color else -table[square]
    return score


def test_start_position_is_level() -> None:
    assert evaluate(chess.Board()) == 0


def test_side_to_move_point_of_view() -> None:
    white_to_move = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    black_to_move = chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
    assert evaluate(white_to_move) > 800
    assert evaluate(black_to_move) == -evaluate(white_to_move)


@pytest.mark.slow
def test_bit_scan_matches_square_by_square_sum() -> None:
    for board in random_positions(200, seed=1):
        assert evaluate_white(board) == _reference_white(board), board.fen()


@pytest.mark.slow
def test_colour_mirror_negates() -> None:
    for board in random_positions(200, seed=2):
        assert evaluate_white(board.mirror()) == -evaluate_white(board), board.fen()


def test_material_dominates_position() -> None:
    # Bonuses span at most 100 cp for any piece, less than a pawn's worth of difference.
    for colour in chess.COLORS:
        for piece_type, table in PIECE_SQUARE[colour].items():
            bonuses = [v - PIECE_VALUES[piece_type] for v in table]
            assert max(bonuses) - min(bonuses) <= 100
            assert max(map(abs, bonuses)) <= 50
    # A piece up, however badly placed, beats a piece down, however well placed.
    cornered = chess.Board("7k/8/8/8/8/8/8/NK6 w - - 0 1")
    assert evaluate(cornered) >= PIECE_VALUES[chess.KNIGHT] - 60


@pytest.mark.parametrize(
    ("fen", "endgame"),
    [
        (chess.STARTING_FEN, False),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
        ("4k3/pppp4/8/8/8/8/PPPP4/R3K3 w - - 0 1", True),  # no queens
        ("3qk3/8/8/8/8/8/8/3QKN2 w - - 0 1", True),  # queen and one minor each at most
        ("3qk3/8/8/8/8/8/8/3QKNB1 w - - 0 1", False),  # queen and two minors
        ("3qk3/8/8/8/8/8/8/3QK2R w - - 0 1", False),  # queen and a rook
        ("4k3/8/8/8/8/8/8/2QQK3 w - - 0 1", False),  # two queens
    ],
)
def test_endgame_rule(fen: str, endgame: bool) -> None:
    assert is_endgame(chess.Board(fen)) is endgame


def test_king_table_switches_in_the_endgame() -> None:
    # With queens and rooks on, the castled king gets the middlegame table's shelter bonus...
    castled = chess.Board("r2qk2r/8/8/8/8/8/8/R2Q1RK1 w - - 0 1")
    central = chess.Board("r2qk2r/8/8/8/8/8/8/R2QKR2 w - - 0 1")
    assert evaluate(castled) - evaluate(central) == 30 - 0
    # ...and with bare kings the endgame table pulls the king to the centre.
    centre = chess.Board("4k3/8/8/8/3K4/8/8/8 w - - 0 1")
    corner = chess.Board("4k3/8/8/8/8/8/8/7K w - - 0 1")
    assert evaluate(centre) - evaluate(corner) == 40 - (-50)
