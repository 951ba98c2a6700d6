"""Positions and moves as the style model sees them: piece planes and from-to indices.

Everything is from the side to move's point of view, so one network plays both colours:
with Black to move the board is mirrored rank for rank (square ``s`` becomes ``s ^ 56``)
and Black's pieces are "ours". A position is 12 planes of 8 x 8 (our pawns, knights,
bishops, rooks, queens, king, then theirs), rank 1 first; a move is ``from * 64 + to`` in
the same view, a promotion counted as its from-to step (under-promotions share the queen's
index). Casebases store no castling rights or en-passant squares, so the planes have none.
"""

from __future__ import annotations

import chess
import numpy as np

from casebase.encoding import encode_board as casebase_board

PLANES = 12
MOVES = 64 * 64
#: The id of this encoding, stored in every model file and checked at load: a model trained on
#: other planes would read these ones wrongly. (Its text dates from when this module was
#: ``engine/planes.py``; it names the encoding, not a path.) Change it with the encoding.
FORMAT_ID = "engine.planes v1"


def _flip(bitboards: np.ndarray) -> np.ndarray:
    """Bitboards mirrored rank for rank (a byte is a rank, so this swaps the bytes)."""
    return bitboards.byteswap()


def encode(boards: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """The planes (N x 12 x 8 x 8, float32) of N positions given as casebase bitboards
    (N x 8 uint64: white, black, pawns, knights, bishops, rooks, queens, kings) and the
    colours to move (N bools, True = White)."""
    boards = np.asarray(boards, dtype=np.uint64).reshape(-1, 8)
    turn = np.asarray(turn, dtype=bool).reshape(-1)
    white, black, pieces = boards[:, 0:1], boards[:, 1:2], boards[:, 2:8]
    ours = np.where(turn[:, None], white, black)
    theirs = np.where(turn[:, None], black, white)
    planes = np.concatenate([pieces & ours, pieces & theirs], axis=1)  # N x 12
    planes = np.where(turn[:, None], planes, _flip(planes))
    bits = np.unpackbits(planes.astype("<u8").view(np.uint8), bitorder="little")
    return bits.reshape(-1, PLANES, 8, 8).astype(np.float32)


def encode_board(board: chess.BaseBoard, turn: chess.Color) -> np.ndarray:
    """The planes (1 x 12 x 8 x 8) of one python-chess board with ``turn`` to move."""
    return encode(casebase_board(board)[None], np.array([turn]))


def move_index(
    from_square: np.ndarray | int, to_square: np.ndarray | int, turn: np.ndarray | bool
) -> np.ndarray:
    """The model's index of the moves ``from_square`` -> ``to_square`` (arrays or ints)
    made by the colours ``turn``."""
    flip = np.where(np.asarray(turn, dtype=bool), 0, 56)
    return (np.asarray(from_square, dtype=np.int64) ^ flip) * 64 + (
        np.asarray(to_square, dtype=np.int64) ^ flip
    )


def legal_indices(board: chess.Board, moves: list[chess.Move]) -> np.ndarray:
    """The model's index of each of ``moves`` on ``board`` (castling as the king's two-square
    step)."""
    steps = (
        [chess.Move.from_uci(board.uci(m, chess960=False)) for m in moves]
        if board.chess960
        else moves
    )
    return move_index(
        np.array([m.from_square for m in steps], dtype=np.int64),
        np.array([m.to_square for m in steps], dtype=np.int64),
        board.turn,
    )
