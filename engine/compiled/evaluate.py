"""The compiled search's evaluation: a tapered sum of piece-square values, from the side to move.

The values are Ronald Friederich's PeSTO tables (published on the Chess Programming Wiki, "PeSTO's
Evaluation Function"): a middlegame and an endgame value for every piece on every square, the
piece's own value included, blended by the game's phase (a knight or a bishop counts 1, a rook 2, a
queen 4; 24 is the opening's full phase and the most it counts). A piece-square evaluation is
enough for a fast search to play well, and it is the start: a tuning of our own may replace them.

Beside the tables, the terms a piece-square sum cannot see (common values, untuned): mobility by
piece, the attacks on the enemy king's zone, the king's pawn shield, passed, isolated and doubled
pawns, the bishop pair, rooks on open and half-open files. Together they measured +96 Elo (95 %:
+56 to +139) against the tables alone: 200 games, the same search, 20,000 nodes a move, from the
first 8 plies of 100 masters' games played with both colours.
"""

from __future__ import annotations

import numpy as np

from engine.compiled.board import (
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    bishop_attacks,
    lsb,
    rook_attacks,
)
from engine.compiled.jit import njit

#: The phase a piece adds (pawn, knight, bishop, rook, queen, king) and the opening's full phase.
PHASE_WEIGHTS = np.array([0, 1, 1, 2, 4, 0], dtype=np.int64)
FULL_PHASE = 24
#: What the side to move gains by moving: it damps the swing of the scores between odd and even
#: depths (the best score's mean change from one depth to the next, depths 4 to 9 of
#: bench.compiled's ten middlegames: 14 cp without it, 5 cp with it). Its strength is not measured.
TEMPO = 10

_MG_VALUES = (82, 337, 365, 477, 1025, 0)
_EG_VALUES = (94, 281, 297, 512, 936, 0)

# Each table as a diagram from White's side: rank 8 in the first row, a-file first (so a white
# piece on square s, a1 = 0, reads row 7 - s // 8, column s % 8; a black one reads its mirror).
_MG_TABLES = (
    # pawn
    (
        (0, 0, 0, 0, 0, 0, 0, 0),
        (98, 134, 61, 95, 68, 126, 34, -11),
        (-6, 7, 26, 31, 65, 56, 25, -20),
        (-14, 13, 6, 21, 23, 12, 17, -23),
        (-27, -2, -5, 12, 17, 6, 10, -25),
        (-26, -4, -4, -10, 3, 3, 33, -12),
        (-35, -1, -20, -23, -15, 24, 38, -22),
        (0, 0, 0, 0, 0, 0, 0, 0),
    ),
    # knight
    (
        (-167, -89, -34, -49, 61, -97, -15, -107),
        (-73, -41, 72, 36, 23, 62, 7, -17),
        (-47, 60, 37, 65, 84, 129, 73, 44),
        (-9, 17, 19, 53, 37, 69, 18, 22),
        (-13, 4, 16, 13, 28, 19, 21, -8),
        (-23, -9, 12, 10, 19, 17, 25, -16),
        (-29, -53, -12, -3, -1, 18, -14, -19),
        (-105, -21, -58, -33, -17, -28, -19, -23),
    ),
    # bishop
    (
        (-29, 4, -82, -37, -25, -42, 7, -8),
        (-26, 16, -18, -13, 30, 59, 18, -47),
        (-16, 37, 43, 40, 35, 50, 37, -2),
        (-4, 5, 19, 50, 37, 37, 7, -2),
        (-6, 13, 13, 26, 34, 12, 10, 4),
        (0, 15, 15, 15, 14, 27, 18, 10),
        (4, 15, 16, 0, 7, 21, 33, 1),
        (-33, -3, -14, -21, -13, -12, -39, -21),
    ),
    # rook
    (
        (32, 42, 32, 51, 63, 9, 31, 43),
        (27, 32, 58, 62, 80, 67, 26, 44),
        (-5, 19, 26, 36, 17, 45, 61, 16),
        (-24, -11, 7, 26, 24, 35, -8, -20),
        (-36, -26, -12, -1, 9, -7, 6, -23),
        (-45, -25, -16, -17, 3, 0, -5, -33),
        (-44, -16, -20, -9, -1, 11, -6, -71),
        (-19, -13, 1, 17, 16, 7, -37, -26),
    ),
    # queen
    (
        (-28, 0, 29, 12, 59, 44, 43, 45),
        (-24, -39, -5, 1, -16, 57, 28, 54),
        (-13, -17, 7, 8, 29, 56, 47, 57),
        (-27, -27, -16, -16, -1, 17, -2, 1),
        (-9, -26, -9, -10, -2, -4, 3, -3),
        (-14, 2, -11, -2, -5, 2, 14, 5),
        (-35, -8, 11, 2, 8, 15, -3, 1),
        (-1, -18, -9, 10, -15, -25, -31, -50),
    ),
    # king
    (
        (-65, 23, 16, -15, -56, -34, 2, 13),
        (29, -1, -20, -7, -8, -4, -38, -29),
        (-9, 24, 2, -16, -20, 6, 22, -22),
        (-17, -20, -12, -27, -30, -25, -14, -36),
        (-49, -1, -27, -39, -46, -44, -33, -51),
        (-14, -14, -22, -46, -44, -30, -15, -27),
        (1, 7, -8, -64, -43, -16, 9, 8),
        (-15, 36, 12, -54, 8, -28, 24, 14),
    ),
)

_EG_TABLES = (
    # pawn
    (
        (0, 0, 0, 0, 0, 0, 0, 0),
        (178, 173, 158, 134, 147, 132, 165, 187),
        (94, 100, 85, 67, 56, 53, 82, 84),
        (32, 24, 13, 5, -2, 4, 17, 17),
        (13, 9, -3, -7, -7, -8, 3, -1),
        (4, 7, -6, 1, 0, -5, -1, -8),
        (13, 8, 8, 10, 13, 0, 2, -7),
        (0, 0, 0, 0, 0, 0, 0, 0),
    ),
    # knight
    (
        (-58, -38, -13, -28, -31, -27, -63, -99),
        (-25, -8, -25, -2, -9, -25, -24, -52),
        (-24, -20, 10, 9, -1, -9, -19, -41),
        (-17, 3, 22, 22, 22, 11, 8, -18),
        (-18, -6, 16, 25, 16, 17, 4, -18),
        (-23, -3, -1, 15, 10, -3, -20, -22),
        (-42, -20, -10, -5, -2, -20, -23, -44),
        (-29, -51, -23, -15, -22, -18, -50, -64),
    ),
    # bishop
    (
        (-14, -21, -11, -8, -7, -9, -17, -24),
        (-8, -4, 7, -12, -3, -13, -4, -14),
        (2, -8, 0, -1, -2, 6, 0, 4),
        (-3, 9, 12, 9, 14, 10, 3, 2),
        (-6, 3, 13, 19, 7, 10, -3, -9),
        (-12, -3, 8, 10, 13, 3, -7, -15),
        (-14, -18, -7, -1, 4, -9, -15, -27),
        (-23, -9, -23, -5, -9, -16, -5, -17),
    ),
    # rook
    (
        (13, 10, 18, 15, 12, 12, 8, 5),
        (11, 13, 13, 11, -3, 3, 8, 3),
        (7, 7, 7, 5, 4, -3, -5, -3),
        (4, 3, 13, 1, 2, 1, -1, 2),
        (3, 5, 8, 4, -5, -6, -8, -11),
        (-4, 0, -5, -1, -7, -12, -8, -16),
        (-6, -6, 0, 2, -9, -9, -11, -3),
        (-9, 2, 3, -1, -5, -13, 4, -20),
    ),
    # queen
    (
        (-9, 22, 22, 27, 27, 19, 10, 20),
        (-17, 20, 32, 41, 58, 25, 30, 0),
        (-20, 6, 9, 49, 47, 35, 19, 9),
        (3, 22, 24, 45, 57, 40, 57, 36),
        (-18, 28, 19, 47, 31, 34, 39, 23),
        (-16, -27, 15, 6, 9, 17, 10, 5),
        (-22, -23, -30, -16, -16, -23, -36, -32),
        (-33, -28, -22, -43, -5, -32, -20, -41),
    ),
    # king
    (
        (-74, -35, -18, -18, -11, 15, 4, -17),
        (-12, 17, 14, 17, 17, 38, 23, 11),
        (10, 17, 23, 15, 20, 45, 44, 13),
        (-8, 22, 24, 27, 26, 33, 26, 3),
        (-18, -4, 21, 24, 27, 23, 9, -11),
        (-19, -3, 11, 21, 23, 16, 7, -9),
        (-27, -11, 4, 13, 14, 4, -5, -17),
        (-53, -34, -21, -11, -28, -14, -24, -43),
    ),
)


def _by_square(
    values: tuple[int, ...], tables: tuple[tuple[tuple[int, ...], ...], ...]
) -> np.ndarray:
    """The values of ``colour * 6 + piece`` on each square (a1 = 0), from White's view: White's
    pieces count plus, Black's minus, so that one sum over the board is White's score."""
    out = np.zeros((12, 64), dtype=np.int64)
    for piece in range(6):
        diagram = np.array(tables[piece], dtype=np.int64)
        for square in range(64):
            rank, file = divmod(square, 8)
            out[piece, square] = values[piece] + diagram[7 - rank, file]
            # Black's piece on a square is White's on the square mirrored across the middle rank
            out[6 + piece, square] = -(values[piece] + diagram[rank, file])
    return out


# Each table is 12 x 64 int64 (6 KiB): a global numba freezes into the compiled code.
MG = _by_square(_MG_VALUES, _MG_TABLES)
EG = _by_square(_EG_VALUES, _EG_TABLES)


def _masks() -> tuple[np.ndarray, ...]:
    """Files, their neighbours, and by colour and square: the squares a passed pawn needs free of
    enemy pawns (ahead, its file and the two beside), the pawn shield's two ranks ahead of a king,
    and the king's zone (its square, its neighbours, and the three squares two ranks ahead)."""
    files = np.zeros(8, dtype=np.uint64)
    for square in range(64):
        files[square % 8] |= np.uint64(1 << square)
    beside = np.zeros(8, dtype=np.uint64)
    for file in range(8):
        beside[file] = (files[file - 1] if file > 0 else 0) | (files[file + 1] if file < 7 else 0)
    passed = np.zeros((2, 64), dtype=np.uint64)
    near = np.zeros((2, 64), dtype=np.uint64)
    far = np.zeros((2, 64), dtype=np.uint64)
    zone = np.zeros((2, 64), dtype=np.uint64)
    for colour in range(2):
        ahead = 1 if colour == 0 else -1
        for square in range(64):
            rank, file = divmod(square, 8)
            zone[colour, square] = KING_ATTACKS[square] | np.uint64(1 << square)
            for other in range(64):
                o_rank, o_file = divmod(other, 8)
                if abs(o_file - file) > 1:
                    continue
                bit = np.uint64(1 << other)
                if (o_rank - rank) * ahead > 0:
                    passed[colour, square] |= bit
                if o_rank - rank == ahead:
                    near[colour, square] |= bit
                if o_rank - rank == 2 * ahead:
                    far[colour, square] |= bit
                    zone[colour, square] |= bit
    return files, beside, passed, near, far, zone


FILES, BESIDE, PASSED, SHIELD_NEAR, SHIELD_FAR, ZONE = _masks()
_NOT_A = ~FILES[0]
_NOT_H = ~FILES[7]

#: Mobility (the squares a piece attacks that hold no piece of its own nor an enemy pawn's
#: attack), per square above a typical count: knight, bishop, rook, queen; mg and eg.
MOBILITY_MG = np.array([0, 4, 5, 2, 1, 0], dtype=np.int64)
MOBILITY_EG = np.array([0, 4, 5, 4, 2, 0], dtype=np.int64)
MOBILITY_BASE = np.array([0, 4, 6, 7, 14, 0], dtype=np.int64)
#: Attack units a piece adds for each square of the enemy king's zone it attacks, and the
#: middlegame bonus of the units (counted from two attackers on): growing with their square.
ATTACK_WEIGHTS = np.array([0, 2, 2, 3, 5, 0], dtype=np.int64)
KING_DANGER = np.array([min(500, units * units // 6) for units in range(100)], dtype=np.int64)
#: A pawn one and two ranks ahead of its king, beside or in front (middlegame).
SHIELD = (12, 6)
#: A passed pawn by its rank from its own side (mg, eg).
PASSED_MG = np.array([0, 2, 5, 10, 20, 35, 55, 0], dtype=np.int64)
PASSED_EG = np.array([0, 8, 12, 20, 35, 60, 90, 0], dtype=np.int64)
ISOLATED = (-8, -12)
DOUBLED = (-8, -20)
BISHOP_PAIR = (30, 50)
ROOK_OPEN = (25, 10)
ROOK_HALF_OPEN = (10, 5)

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit
def popcount(bits: np.uint64) -> np.int64:
    """The set bits of a bitboard (the SWAR sum: LLVM turns it into one instruction)."""
    bits = bits - ((bits >> np.uint64(1)) & _M1)
    bits = (bits & _M2) + ((bits >> np.uint64(2)) & _M2)
    bits = (bits + (bits >> np.uint64(4))) & _M4
    return np.int64((bits * _H01) >> np.uint64(56))


@njit
def _pawn_attacks(pawns: np.uint64, colour: np.int64) -> np.uint64:
    if colour == 0:
        return ((pawns << np.uint64(7)) & _NOT_H) | ((pawns << np.uint64(9)) & _NOT_A)
    return ((pawns >> np.uint64(9)) & _NOT_H) | ((pawns >> np.uint64(7)) & _NOT_A)


@njit
def _side(state: np.ndarray, colour: np.int64) -> tuple[np.int64, np.int64]:
    """The terms beside the tables for ``colour``'s pieces (mg, eg), from its own view."""
    base = colour * 6
    enemy = 6 - base
    own_pawns = state[base]
    their_pawns = state[enemy]
    occupied = state[12] | state[13]
    area = ~state[12 + colour] & ~_pawn_attacks(their_pawns, 1 - colour)
    zone = ZONE[1 - colour, lsb(state[enemy + 5])]
    mg = np.int64(0)
    eg = np.int64(0)

    bits = own_pawns
    while bits:
        square = lsb(bits)
        bits &= bits - np.uint64(1)
        if not PASSED[colour, square] & their_pawns:
            rank = square >> 3 if colour == 0 else 7 - (square >> 3)
            mg += PASSED_MG[rank]
            eg += PASSED_EG[rank]
        if not BESIDE[square & 7] & own_pawns:
            mg += ISOLATED[0]
            eg += ISOLATED[1]
    files = own_pawns | (own_pawns >> np.uint64(8))
    files |= files >> np.uint64(16)
    files |= files >> np.uint64(32)
    doubled = popcount(own_pawns) - popcount(files & np.uint64(255))
    mg += DOUBLED[0] * doubled
    eg += DOUBLED[1] * doubled

    units = 0
    attackers = 0
    for piece in range(1, 5):
        bits = state[base + piece]
        while bits:
            square = lsb(bits)
            bits &= bits - np.uint64(1)
            if piece == 1:
                attacks = KNIGHT_ATTACKS[square]
            elif piece == 2:
                attacks = bishop_attacks(square, occupied)
            elif piece == 3:
                attacks = rook_attacks(square, occupied)
                file = FILES[square & 7]
                if not file & own_pawns:
                    if file & their_pawns:
                        mg += ROOK_HALF_OPEN[0]
                        eg += ROOK_HALF_OPEN[1]
                    else:
                        mg += ROOK_OPEN[0]
                        eg += ROOK_OPEN[1]
            else:
                attacks = bishop_attacks(square, occupied) | rook_attacks(square, occupied)
            mobility = popcount(attacks & area) - MOBILITY_BASE[piece]
            mg += MOBILITY_MG[piece] * mobility
            eg += MOBILITY_EG[piece] * mobility
            if attacks & zone:
                units += ATTACK_WEIGHTS[piece] * popcount(attacks & zone)
                attackers += 1
    if attackers >= 2:
        mg += KING_DANGER[min(units, 99)]
    bishops = state[base + 2]
    if bishops & (bishops - np.uint64(1)):
        mg += BISHOP_PAIR[0]
        eg += BISHOP_PAIR[1]
    king = lsb(state[base + 5])
    mg += SHIELD[0] * popcount(own_pawns & SHIELD_NEAR[colour, king])
    mg += SHIELD[1] * popcount(own_pawns & SHIELD_FAR[colour, king])
    return mg, eg


@njit
def evaluate(state: np.ndarray) -> int:
    """The position's value in centipawns for the side to move (``state``: a board row)."""
    mg = 0
    eg = 0
    phase = 0
    for index in range(12):
        bits = state[index]
        weight = PHASE_WEIGHTS[index % 6]
        while bits:
            square = lsb(bits)
            bits &= bits - np.uint64(1)
            mg += MG[index, square]
            eg += EG[index, square]
            phase += weight
    white_mg, white_eg = _side(state, np.int64(0))
    black_mg, black_eg = _side(state, np.int64(1))
    mg += white_mg - black_mg
    eg += white_eg - black_eg
    if phase > FULL_PHASE:  # promotions can add material beyond the opening's
        phase = FULL_PHASE
    if state[15] & np.uint64(1):  # Black to move; turned before the division rounds it
        mg = -mg
        eg = -eg
    return (mg * phase + eg * (FULL_PHASE - phase)) // FULL_PHASE + TEMPO
