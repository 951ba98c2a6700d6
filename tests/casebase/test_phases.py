"""The one phase definition (casebase/phases.py), as the fidelity bench's positions use it."""

from __future__ import annotations

import chess
import numpy as np

from casebase.format import encode_board
from casebase.phases import (
    ENDGAME_MATERIAL,
    OPENING_PLIES,
    PHASES,
    Phase,
    non_pawn_material,
    phase,
    phases_of,
)

BOARDS = [
    chess.Board(),
    # two rooks and a bishop each: 26
    chess.Board("r1b1k2r/pppp1ppp/8/8/8/8/PPPP1PPP/R1B1K2R w - - 0 30"),
    chess.Board("r1b1k2r/pppp1ppp/8/8/8/8/PPPP1PPP/R1B1K1NR w - - 0 30"),  # a knight more: 29
    chess.Board("r1bqk2r/pppp1ppp/8/8/8/8/PPPP1PPP/R1BQK2R w - - 0 30"),  # a queen more each: 44
    chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 5"),  # bare kings: 0
    chess.Board("1q2k3/8/8/8/8/8/8/BBNNK3 w - - 0 40"),  # 12 and 9, on one side and the other
]
VALUES = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def by_python_chess(board: chess.Board) -> int:
    return sum(
        value * len(board.pieces(piece, colour))
        for piece, value in VALUES.items()
        for colour in chess.COLORS
    )


def test_non_pawn_material_counts_as_python_chess_does():
    encoded = np.stack([encode_board(board) for board in BOARDS])
    assert (
        non_pawn_material(encoded).tolist()
        == [by_python_chess(board) for board in BOARDS]
        == [62, 26, 29, 44, 0, 21]
    )


def test_the_opening_is_the_first_24_plies_then_material_decides():
    assert (
        OPENING_PLIES == 24
        and ENDGAME_MATERIAL == 26
        and PHASES == ("opening", "middlegame", "endgame")
    )
    start, rooks, knight_more, queens, kings, _ = BOARDS
    assert phase(start, 23) == Phase.OPENING and phase(start, 24) == Phase.MIDDLEGAME
    assert phase(kings, 23) == Phase.OPENING  # the ply first, whatever the material
    assert phase(rooks, 24) == Phase.ENDGAME and phase(kings, 60) == Phase.ENDGAME
    assert phase(knight_more, 24) == phase(queens, 80) == Phase.MIDDLEGAME
    encoded = np.stack([encode_board(board) for board in BOARDS])
    assert phases_of(encoded, np.array([0, 24, 24, 24, 24, 100])).tolist() == [
        "opening",
        "endgame",
        "middlegame",
        "middlegame",
        "endgame",
        "endgame",
    ]
    assert isinstance(phase(start, 0), str) and phase(start, 0) == "opening"
