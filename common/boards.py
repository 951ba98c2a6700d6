"""A board's pieces as eight bitboards: white, black, pawns, knights, bishops, rooks, queens,
kings (the casebase's order, :data:`casebase.checks.BITBOARDS`). The one reading of a board into
them: the casebase stores it, the style model's planes and lc0's repetition key are made from it."""

from __future__ import annotations

import chess


def bitboards(board: chess.BaseBoard) -> tuple[int, int, int, int, int, int, int, int]:
    """The eight bitboards of ``board``: white, black, pawns, knights, bishops, rooks, queens,
    kings."""
    occupied = board.occupied_co
    return (
        occupied[chess.WHITE],
        occupied[chess.BLACK],
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
    )
