"""A case's position and move as the casebase stores them: eight bitboards (order
:data:`casebase.checks.BITBOARDS`), and a move as one number (the error profile's)."""

from __future__ import annotations

import chess
import numpy as np

from common.boards import bitboards


def encode_board(board: chess.BaseBoard) -> np.ndarray:
    """The eight bitboards of ``board`` (order :data:`BITBOARDS`) as a uint64 array."""
    return np.array(bitboards(board), dtype=np.uint64)


def decode_board(bitboards: np.ndarray, turn: bool) -> chess.Board:
    """The board whose pieces are ``bitboards`` with ``turn`` to move.

    Castling rights and the en-passant square are not stored in a casebase (the
    similarity ignores them), so the board has none.
    """
    board = chess.Board(None)
    white, black = int(bitboards[0]), int(bitboards[1])
    for piece_type in chess.PIECE_TYPES:
        mask = int(bitboards[1 + piece_type])
        for square in chess.scan_forward(mask):
            colour = chess.WHITE if white >> square & 1 else chess.BLACK
            board.set_piece_at(square, chess.Piece(piece_type, colour))
    assert (white | black) == board.occupied
    board.turn = bool(turn)
    return board


def encode_move(move: chess.Move) -> int:
    """A move as the profile stores it: from | to << 6 | promotion << 12 (never 0: 0 is no move)."""
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode_move(code: int) -> chess.Move:
    """The move of :func:`encode_move`'s ``code``."""
    return chess.Move(code & 63, code >> 6 & 63, (code >> 12) or None)
