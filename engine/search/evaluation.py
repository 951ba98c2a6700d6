"""Static evaluation for the guided mode's search (search.md §2).

Material (pawn 100, knight 320, bishop 330, rook 500, queen 900) plus the piece-square
tables of Tomasz Michniewski's *Simplified Evaluation Function*, with its separate king
table for the endgame. The tables move a piece by at most 50 cp, so material dominates.

Each (colour, piece type) gets one 64-entry table holding material + square bonus, so the
evaluation is one table lookup per piece, found by scanning python-chess's bitboards. The
search keeps that sum up to date move by move (:func:`move_delta`), so a leaf costs only the
endgame test.
"""

from __future__ import annotations

import chess

PIECE_VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

# Written as a board diagram from White's side: first row is rank 8, last row rank 1.
_DIAGRAMS = {
    chess.PAWN: """
          0   0   0   0   0   0   0   0
         50  50  50  50  50  50  50  50
         10  10  20  30  30  20  10  10
          5   5  10  25  25  10   5   5
          0   0   0  20  20   0   0   0
          5  -5 -10   0   0 -10  -5   5
          5  10  10 -20 -20  10  10   5
          0   0   0   0   0   0   0   0""",
    chess.KNIGHT: """
        -50 -40 -30 -30 -30 -30 -40 -50
        -40 -20   0   0   0   0 -20 -40
        -30   0  10  15  15  10   0 -30
        -30   5  15  20  20  15   5 -30
        -30   0  15  20  20  15   0 -30
        -30   5  10  15  15  10   5 -30
        -40 -20   0   5   5   0 -20 -40
        -50 -40 -30 -30 -30 -30 -40 -50""",
    chess.BISHOP: """
        -20 -10 -10 -10 -10 -10 -10 -20
        -10   0   0   0   0   0   0 -10
        -10   0   5  10  10   5   0 -10
        -10   5   5  10  10   5   5 -10
        -10   0  10  10  10  10   0 -10
        -10  10  10  10  10  10  10 -10
        -10   5   0   0   0   0   5 -10
        -20 -10 -10 -10 -10 -10 -10 -20""",
    chess.ROOK: """
          0   0   0   0   0   0   0   0
          5  10  10  10  10  10  10   5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
         -5   0   0   0   0   0   0  -5
          0   0   0   5   5   0   0   0""",
    chess.QUEEN: """
        -20 -10 -10  -5  -5 -10 -10 -20
        -10   0   0   0   0   0   0 -10
        -10   0   5   5   5   5   0 -10
         -5   0   5   5   5   5   0  -5
          0   0   5   5   5   5   0  -5
        -10   5   5   5   5   5   0 -10
        -10   0   5   0   0   0   0 -10
        -20 -10 -10  -5  -5 -10 -10 -20""",
}
_KING_MIDDLEGAME = """
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -30 -40 -40 -50 -50 -40 -40 -30
        -20 -30 -30 -40 -40 -30 -30 -20
        -10 -20 -20 -20 -20 -20 -20 -10
         20  20   0   0   0   0  20  20
         20  30  10   0   0  10  30  20"""
_KING_ENDGAME = """
        -50 -40 -30 -20 -20 -30 -40 -50
        -30 -20 -10   0   0 -10 -20 -30
        -30 -10  20  30  30  20 -10 -30
        -30 -10  30  40  40  30 -10 -30
        -30 -10  30  40  40  30 -10 -30
        -30 -10  20  30  30  20 -10 -30
        -30 -30   0   0   0   0 -30 -30
        -50 -30 -30 -30 -30 -30 -30 -50"""

Table = tuple[int, ...]


def _tables(diagram: str, value: int) -> tuple[Table, Table]:
    """(White's, Black's) table indexed by square: material + bonus, Black's mirrored."""
    rows = [int(x) for x in diagram.split()]
    assert len(rows) == 64
    # Diagram index 0 is a8; a White piece on square s reads entry s ^ 56, Black's reads s.
    white = tuple(value + rows[square ^ 56] for square in chess.SQUARES)
    black = tuple(value + rows[square] for square in chess.SQUARES)
    return white, black


#: PIECE_SQUARE[colour][piece_type][square] = material + square bonus (king: middlegame).
PIECE_SQUARE: dict[bool, dict[int, Table]] = {chess.WHITE: {}, chess.BLACK: {}}
for _type, _diagram in [*_DIAGRAMS.items(), (chess.KING, _KING_MIDDLEGAME)]:
    (PIECE_SQUARE[chess.WHITE][_type], PIECE_SQUARE[chess.BLACK][_type]) = _tables(
        _diagram, PIECE_VALUES[_type]
    )
#: KING_ENDGAME[colour][square]: the king's table once the endgame is reached.
KING_ENDGAME: dict[bool, Table] = dict(
    zip((chess.WHITE, chess.BLACK), _tables(_KING_ENDGAME, 0), strict=True)
)

_W_TABLES = tuple(PIECE_SQUARE[chess.WHITE][t] for t in chess.PIECE_TYPES)
_B_TABLES = tuple(PIECE_SQUARE[chess.BLACK][t] for t in chess.PIECE_TYPES)
_W_KING, _B_KING = PIECE_SQUARE[chess.WHITE][chess.KING], PIECE_SQUARE[chess.BLACK][chess.KING]
_W_KING_END, _B_KING_END = KING_ENDGAME[chess.WHITE], KING_ENDGAME[chess.BLACK]
_popcount = chess.popcount


def is_endgame(board: chess.BaseBoard) -> bool:
    """Michniewski's rule: no queens, or each side with a queen has at most one minor piece
    besides it (and nothing else)."""
    queens = board.queens
    minors = board.knights | board.bishops
    for side in board.occupied_co:
        own_queens = queens & side
        if own_queens and (
            own_queens & (own_queens - 1) or board.rooks & side or _popcount(minors & side) > 1
        ):
            return False
    return True


def material_white(board: chess.BaseBoard) -> int:
    """Material and square bonuses from White's point of view, every king on its middlegame
    table: the part of the evaluation the search updates move by move (:func:`move_delta`)."""
    black, white = board.occupied_co  # python-chess indexes colours False (Black), True
    score = 0
    for mask, w_table, b_table in zip(
        (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings),
        _W_TABLES,
        _B_TABLES,
    ):
        # Inline bit scans: a generator per bitboard would cost more than the lookups.
        bb = mask & white
        while bb:
            bit = bb & -bb
            score += w_table[bit.bit_length() - 1]
            bb ^= bit
        bb = mask & black
        while bb:
            bit = bb & -bb
            score -= b_table[bit.bit_length() - 1]
            bb ^= bit
    return score


def move_delta(board: chess.Board, move: chess.Move, piece: int, captured: int | None) -> int:
    """How ``move`` (of ``piece``, taking ``captured``; ``board`` before it) changes
    :func:`material_white`. En passant and castling are recognised from the board."""
    src, dst = move.from_square, move.to_square
    colour = board.turn
    own = PIECE_SQUARE[colour]
    delta = own[move.promotion or piece][dst] - own[piece][src]
    if captured:
        delta += PIECE_SQUARE[not colour][captured][dst]
    elif piece == chess.PAWN and dst == board.ep_square:
        delta += PIECE_SQUARE[not colour][chess.PAWN][dst - 8 if colour else dst + 8]
    elif piece == chess.KING and abs(dst - src) == 2:
        rook_from, rook_to = castling_rook(src, dst)
        delta += own[chess.ROOK][rook_to] - own[chess.ROOK][rook_from]
    return delta if colour else -delta


def evaluate_white(board: chess.BaseBoard, material: int | None = None) -> int:
    """The evaluation in centipawns from White's point of view; ``material`` is
    :func:`material_white` of ``board`` when the caller keeps it up to date."""
    score = material_white(board) if material is None else material
    kings = board.kings
    if kings and is_endgame(board):
        black, white = board.occupied_co
        if kings & white:
            square = (kings & white).bit_length() - 1
            score += _W_KING_END[square] - _W_KING[square]
        if kings & black:
            square = (kings & black).bit_length() - 1
            score -= _B_KING_END[square] - _B_KING[square]
    return score


def evaluate(board: chess.Board, material: int | None = None) -> int:
    """The evaluation in centipawns from the side to move's point of view (``material`` as in
    :func:`evaluate_white`)."""
    score = evaluate_white(board, material)
    return score if board.turn else -score


def castling_rook(
    king_from: chess.Square, king_to: chess.Square
) -> tuple[chess.Square, chess.Square]:
    """Where the rook goes from and to when the king castles from ``king_from`` to ``king_to``
    (standard chess: the king's two-square step); the hash and the material updates share it."""
    if king_to > king_from:
        return king_from + 3, king_from + 1
    return king_from - 4, king_from - 1
