"""lc0's 1858 policy moves and its convolutional policy's map onto them, made from their rules.

A move is written from the side to move's point of view (Black's board flipped): every queen's and
knight's move from each square, ``a1b1`` ... ``h8g8`` (by from-square, then to-square), then the
promotions to a queen, rook and bishop ``a7a8q`` ... ``h7h8b`` (a knight's is the plain move). The
convolutional policy has 73 planes of 8 x 8 from-squares (lc0's ``kConvPolicyMap``): 8 directions
clockwise from north x 7 distances, then the 8 knight's jumps, then the under-promotions and the
queen's promotion, to the left, ahead and to the right.
"""

from __future__ import annotations

from functools import cache

import chess
import numpy as np

#: The size of lc0's policy.
POLICY_SIZE = 1858
#: The convolutional policy's planes that hold moves (of its 80).
CONV_PLANES = 73

_DIRECTIONS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
_KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
_PROMOTION_PIECES = "rbq"


def _name(square: int) -> str:
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def _reaches(df: int, dr: int) -> bool:
    return df == 0 or dr == 0 or abs(df) == abs(dr) or {abs(df), abs(dr)} == {1, 2}


@cache
def policy_moves() -> tuple[str, ...]:
    """lc0's 1858 moves in its policy's order (UCI from the side to move's point of view)."""
    moves = [
        _name(f) + _name(t)
        for f in range(64)
        for t in range(64)
        if t != f and _reaches(t % 8 - f % 8, t // 8 - f // 8)
    ]
    moves += [
        _name(f) + _name(t) + piece
        for f in range(48, 56)
        for t in range(56, 64)
        if abs(t % 8 - f % 8) <= 1
        for piece in "qrb"
    ]
    return tuple(moves)


@cache
def conv_policy_source() -> np.ndarray:
    """For each of the 1858 moves, its index in the convolutional policy flattened (plane * 64 +
    from-square)."""
    index = {move: i for i, move in enumerate(policy_moves())}
    source = np.full(POLICY_SIZE, -1, dtype=np.int64)
    for plane in range(CONV_PLANES):
        for square in range(64):
            move = _conv_move(plane, square)
            if move in index:
                source[index[move]] = plane * 64 + square
    assert (source >= 0).all()
    return source


def _conv_move(plane: int, square: int) -> str | None:
    """The move of the convolutional policy's ``plane`` from ``square`` (None: off the board)."""
    suffix = ""
    if plane < 56:
        (df, dr), distance = _DIRECTIONS[plane // 7], plane % 7 + 1
        df, dr = df * distance, dr * distance
    elif plane < 64:
        df, dr = _KNIGHT[plane - 56]
    else:
        # planes 64..72: to the left, ahead, to the right, each as rook, bishop, queen
        df, dr, suffix = (plane - 64) // 3 - 1, 1, _PROMOTION_PIECES[(plane - 64) % 3]
        if square // 8 != 6:
            return None
    f, r = square % 8 + df, square // 8 + dr
    if not (0 <= f < 8 and 0 <= r < 8):
        return None
    return _name(square) + _name(r * 8 + f) + suffix


@cache
def _table() -> tuple[list[int], list[int]]:
    """For White to move and for Black: each move's index among the 1858 by ``(from * 64 + to) * 4 +
    promotion`` (none or a knight 0, a bishop 1, a rook 2, a queen 3); -1 where lc0 has no such
    move."""
    index = {move: i for i, move in enumerate(policy_moves())}
    tables: list[list[int]] = []
    for flip in (False, True):
        table = [-1] * (64 * 64 * 4)
        for source in range(64):
            for target in range(64):
                seen = [chess.square_mirror(s) if flip else s for s in (source, target)]
                for code, suffix in enumerate(("", "b", "r", "q")):
                    name = chess.square_name(seen[0]) + chess.square_name(seen[1]) + suffix
                    table[(source * 64 + target) * 4 + code] = index.get(name, -1)
        tables.append(table)
    return tables[1], tables[0]  # indexed by the side to move: chess.BLACK is False


_PROMOTION_CODE = {None: 0, chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 3}


def move_index(board: chess.Board, move: chess.Move) -> int:
    """The index among the 1858 of ``move``, legal on ``board`` (a standard game's): seen from the
    side to move (Black's board flipped), castling as the king taking its rook (as lc0 holds it), a
    knight's promotion as the plain move."""
    source, target = move.from_square, move.to_square
    # python-chess writes Chess960's castling as the king taking its rook already
    if board.kings & chess.BB_SQUARES[source] and not board.chess960 and board.is_castling(move):
        target = chess.square(7 if target > source else 0, chess.square_rank(source))
    index = _table()[board.turn][(source * 64 + target) * 4 + _PROMOTION_CODE[move.promotion]]
    if index < 0:
        raise KeyError(move.uci())
    return index
