"""The compiled search's board: the state layout (one row of ``np.uint64``), the move's encoding,
the attack tables and sliding attacks, the Zobrist keys (polyglot's, so that a state's hash is
``chess.polyglot.zobrist_hash`` of its board), and the conversions from and to python-chess.

Every bitboard expression in the compiled functions stays ``np.uint64``: numba makes a float64 of a
uint64 mixed with a signed integer. Squares are python-chess's (a1 = 0, h8 = 63) and int64.
"""

from __future__ import annotations

import chess
import chess.polyglot
import numpy as np

from engine.compiled.jit import leading_zeros, njit, trailing_zeros

STATE = 16  # the length of a state's row
MAX_MOVES = 256  # more than any position's legal moves (218 at most)

# The state's words.
WHITE_PIECES = 12
BLACK_PIECES = 13
HASH = 14
FLAGS = 15

# Colours and pieces: a piece bitboard's index is colour * 6 + piece.
WHITE, BLACK = 0, 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5

# Word FLAGS: bit 0 the side to move, bits 1..4 the castling rights, bits 5..11 the en-passant
# square (NO_SQUARE: none), bits 12..19 the halfmove clock, bits 20..35 the fullmove number.
CASTLE_WK, CASTLE_WQ, CASTLE_BK, CASTLE_BQ = 1, 2, 4, 8
CASTLING_SHIFT = 1
EP_SHIFT = 5
HALFMOVE_SHIFT = 12
FULLMOVE_SHIFT = 20
NO_SQUARE = 64
HALFMOVE_MAX = 255
FULLMOVE_MAX = 0xFFFF

# A move's int32: bits 0..5 from, 6..11 to, 12..14 promotion (0 none, then KNIGHT..QUEEN as
# 1..4), then the flags, the captured piece (19..21) and the moving piece (22..24). 0: no move.
TO_SHIFT = 6
PROMOTION_SHIFT = 12
CAPTURE = 1 << 15
EN_PASSANT = 1 << 16
CASTLING = 1 << 17
DOUBLE_PUSH = 1 << 18
CAPTURED_SHIFT = 19
MOVER_SHIFT = 22


class Unsupported(ValueError):
    """A board the compiled search cannot hold: chess960 castling, a variant, or a board
    python-chess says is not valid."""


def _u64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.uint64)


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _leaper_table(steps: list[tuple[int, int]]) -> np.ndarray:
    table = []
    for square in range(64):
        file, rank = square % 8, square // 8
        bits = 0
        for df, dr in steps:
            if _on_board(file + df, rank + dr):
                bits |= 1 << (8 * (rank + dr) + file + df)
        table.append(bits)
    return _u64(table)


KNIGHT_ATTACKS = _leaper_table(
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
)
KING_ATTACKS = _leaper_table([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
# PAWN_ATTACKS[colour, square]: the squares a pawn of that colour on that square attacks.
PAWN_ATTACKS = np.stack([_leaper_table([(-1, 1), (1, 1)]), _leaper_table([(-1, -1), (1, -1)])])

# The eight directions: the first four go up the square numbers (the nearest blocker is the lowest
# bit), the last four down (the highest bit). Rooks move along 0, 1, 4, 5; bishops along 2, 3, 6, 7.
_DIRECTIONS = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)]


def _rays() -> np.ndarray:
    rays = np.zeros((8, 64), dtype=np.uint64)
    for d, (df, dr) in enumerate(_DIRECTIONS):
        for square in range(64):
            file, rank = square % 8 + df, square // 8 + dr
            bits = 0
            while _on_board(file, rank):
                bits |= 1 << (8 * rank + file)
                file, rank = file + df, rank + dr
            rays[d, square] = bits
    return rays


RAYS = _rays()


def _between_and_lines() -> tuple[np.ndarray, np.ndarray]:
    """BETWEEN[a, b]: the squares strictly between two squares on a line (0 if none); LINE[a, b]:
    the whole line through both, edge to edge (0 if they share none)."""
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for a in range(64):
        for d in range(8):
            ray = int(RAYS[d, a])
            opposite = int(RAYS[(d + 4) % 8, a])
            for b in range(64):
                if ray >> b & 1:
                    line[a, b] = ray | opposite | 1 << a
                    between[a, b] = ray & ~int(RAYS[d, b]) & ~(1 << b)
    return between, line


BETWEEN, LINE = _between_and_lines()

# CASTLING_KEPT[square]: the castling rights kept when a move leaves or reaches the square.
CASTLING_KEPT = np.full(64, 15, dtype=np.uint64)
CASTLING_KEPT[chess.E1] = 15 & ~(CASTLE_WK | CASTLE_WQ)
CASTLING_KEPT[chess.H1] = 15 & ~CASTLE_WK
CASTLING_KEPT[chess.A1] = 15 & ~CASTLE_WQ
CASTLING_KEPT[chess.E8] = 15 & ~(CASTLE_BK | CASTLE_BQ)
CASTLING_KEPT[chess.H8] = 15 & ~CASTLE_BK
CASTLING_KEPT[chess.A8] = 15 & ~CASTLE_BQ


def _zobrist() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.uint64]:
    """Polyglot's keys, indexed our way: pieces [colour * 6 + piece, square], castling by the four
    rights' bits (the xor of each right's key), en passant by file, and the key of white to move."""
    random = chess.polyglot.POLYGLOT_RANDOM_ARRAY
    pieces = np.zeros((12, 64), dtype=np.uint64)
    for colour in (WHITE, BLACK):
        for piece in range(6):
            kind = 2 * piece + (1 if colour == WHITE else 0)  # polyglot: black pawn 0, white 1
            pieces[colour * 6 + piece] = random[64 * kind : 64 * kind + 64]
    castling = np.zeros(16, dtype=np.uint64)
    for rights in range(16):
        key = 0
        for bit in range(4):  # polyglot's order K, Q, k, q is our bits' order
            if rights >> bit & 1:
                key ^= random[768 + bit]
        castling[rights] = key
    return pieces, castling, _u64(random[772:780]), np.uint64(random[780])


PIECE_KEYS, CASTLING_KEYS, EP_KEYS, WHITE_TO_MOVE_KEY = _zobrist()


@njit
def lsb(bits: np.uint64) -> np.int64:
    """The lowest set square of a non-empty bitboard."""
    return np.int64(trailing_zeros(bits))


@njit
def msb(bits: np.uint64) -> np.int64:
    """The highest set square of a non-empty bitboard."""
    return np.int64(63) - np.int64(leading_zeros(bits))


@njit
def bit(square: np.int64) -> np.uint64:
    """The bitboard of one square."""
    return np.uint64(1) << np.uint64(square)


@njit
def _ray_up(d: np.int64, square: np.int64, occupied: np.uint64) -> np.uint64:
    attacks = RAYS[d, square]
    blockers = attacks & occupied
    if blockers:
        attacks ^= RAYS[d, lsb(blockers)]
    return attacks


@njit
def _ray_down(d: np.int64, square: np.int64, occupied: np.uint64) -> np.uint64:
    attacks = RAYS[d, square]
    blockers = attacks & occupied
    if blockers:
        attacks ^= RAYS[d, msb(blockers)]
    return attacks


@njit
def rook_attacks(square: np.int64, occupied: np.uint64) -> np.uint64:
    """The squares a rook on ``square`` attacks, the first blocker on each line included."""
    return (
        _ray_up(0, square, occupied)
        | _ray_up(1, square, occupied)
        | _ray_down(4, square, occupied)
        | _ray_down(5, square, occupied)
    )


@njit
def bishop_attacks(square: np.int64, occupied: np.uint64) -> np.uint64:
    """The squares a bishop on ``square`` attacks, the first blocker on each diagonal included."""
    return (
        _ray_up(2, square, occupied)
        | _ray_up(3, square, occupied)
        | _ray_down(6, square, occupied)
        | _ray_down(7, square, occupied)
    )


@njit
def attackers(state: np.ndarray, square: np.int64, occupied: np.uint64, by: np.int64) -> np.uint64:
    """The pieces of colour ``by`` that attack ``square`` when ``occupied`` are the occupied
    squares (sliders see through the squares it leaves out)."""
    base = by * 6
    queens = state[base + QUEEN]
    return (
        (PAWN_ATTACKS[1 - by, square] & state[base + PAWN])
        | (KNIGHT_ATTACKS[square] & state[base + KNIGHT])
        | (KING_ATTACKS[square] & state[base + KING])
        | (rook_attacks(square, occupied) & (state[base + ROOK] | queens))
        | (bishop_attacks(square, occupied) & (state[base + BISHOP] | queens))
    )


@njit
def side_to_move(state: np.ndarray) -> np.int64:
    """0 white, 1 black."""
    return np.int64(state[FLAGS] & np.uint64(1))


@njit
def ep_square(state: np.ndarray) -> np.int64:
    """The en-passant square, or NO_SQUARE."""
    return np.int64((state[FLAGS] >> np.uint64(EP_SHIFT)) & np.uint64(127))


@njit
def halfmove_clock(state: np.ndarray) -> np.int64:
    """Plies since the last capture or pawn move (capped at HALFMOVE_MAX)."""
    return np.int64((state[FLAGS] >> np.uint64(HALFMOVE_SHIFT)) & np.uint64(HALFMOVE_MAX))


@njit
def piece_on(state: np.ndarray, square: np.int64, colour: np.int64) -> np.int64:
    """The piece of ``colour`` on ``square`` (PAWN..KING), or -1."""
    b = bit(square)
    base = colour * 6
    for piece in range(6):
        if state[base + piece] & b:
            return np.int64(piece)
    return np.int64(-1)


@njit
def hash_of(state: np.ndarray) -> np.uint64:
    """The Zobrist hash computed from scratch (``make`` keeps word HASH equal to it)."""
    key = np.uint64(0)
    for index in range(12):
        bits = state[index]
        while bits:
            key ^= PIECE_KEYS[index, lsb(bits)]
            bits &= bits - np.uint64(1)
    flags = state[FLAGS]
    key ^= CASTLING_KEYS[np.int64((flags >> np.uint64(CASTLING_SHIFT)) & np.uint64(15))]
    ep = ep_square(state)
    if ep != NO_SQUARE:
        key ^= EP_KEYS[ep & 7]
    if side_to_move(state) == WHITE:
        key ^= WHITE_TO_MOVE_KEY
    return key


def _ep_kept(board: chess.Board) -> int:
    """The board's en-passant square where a pawn of the side to move stands beside the pawn that
    was pushed (polyglot's convention), else NO_SQUARE."""
    ep = board.ep_square
    if ep is None:
        return NO_SQUARE
    pushed = ep - 8 if board.turn == chess.WHITE else ep + 8
    beside = chess.BB_SQUARES[pushed]
    beside = ((beside & ~chess.BB_FILE_A) >> 1) | ((beside & ~chess.BB_FILE_H) << 1)
    return ep if beside & board.pawns & board.occupied_co[board.turn] else NO_SQUARE


def state_of(board: chess.Board) -> np.ndarray:
    """The state of a board; raises Unsupported for one the compiled search cannot hold."""
    if type(board) is not chess.Board:
        raise Unsupported(f"a variant ({type(board).__name__}) is not supported")
    if board.chess960:
        raise Unsupported("chess960 is not supported")
    if not board.is_valid():
        raise Unsupported(f"the board is not valid ({board.status()!r})")
    # A valid standard board's castling rights are the corner rooks' with the kings on e1, e8.
    state = np.zeros(STATE, dtype=np.uint64)
    for colour, side in ((WHITE, chess.WHITE), (BLACK, chess.BLACK)):
        for piece in range(6):
            state[colour * 6 + piece] = board.pieces_mask(piece + 1, side)
        state[WHITE_PIECES + colour] = board.occupied_co[side]
    rights = 0
    for right, square in ((CASTLE_WK, chess.H1), (CASTLE_WQ, chess.A1)):
        if board.castling_rights & chess.BB_SQUARES[square]:
            rights |= right
    for right, square in ((CASTLE_BK, chess.H8), (CASTLE_BQ, chess.A8)):
        if board.castling_rights & chess.BB_SQUARES[square]:
            rights |= right
    flags = (
        (0 if board.turn == chess.WHITE else 1)
        | rights << CASTLING_SHIFT
        | _ep_kept(board) << EP_SHIFT
        | min(board.halfmove_clock, HALFMOVE_MAX) << HALFMOVE_SHIFT
        | min(max(board.fullmove_number, 1), FULLMOVE_MAX) << FULLMOVE_SHIFT
    )
    state[FLAGS] = flags
    state[HASH] = hash_of(state)
    return state


def history_of(board: chess.Board) -> np.ndarray:
    """The Zobrist hashes of the positions before this one back to the last capture or pawn move
    (the first position after it included, the board's own position not), oldest first: the
    positions a repetition can return to."""
    back = min(board.halfmove_clock, len(board.move_stack))
    earlier = board.copy(stack=back)
    hashes = []
    for _ in range(back):
        earlier.pop()
        hashes.append(chess.polyglot.zobrist_hash(earlier))
    return np.array(hashes[::-1], dtype=np.uint64)


def move_of(code: int, board: chess.Board) -> chess.Move:
    """The python-chess move of a move's code; raises ValueError where it is not legal on
    ``board``."""
    promotion = (code >> PROMOTION_SHIFT) & 7
    move = chess.Move(code & 63, (code >> TO_SHIFT) & 63, promotion + 1 if promotion else None)
    if not board.is_legal(move):
        raise ValueError(f"move {move.uci()} is not legal in {board.fen()}")
    return move


def code_of(move: chess.Move, state: np.ndarray) -> int:
    """The code of a move in ``state`` (read from the state, not checked for legality); raises
    ValueError where no piece of the side to move stands on its from-square."""
    us = int(state[FLAGS]) & 1
    origin, target = move.from_square, move.to_square
    mover = _piece_at(state, origin, us)
    if mover < 0:
        raise ValueError(f"move {move.uci()} moves no piece of the side to move")
    code = origin | target << TO_SHIFT | mover << MOVER_SHIFT
    if move.promotion is not None:
        code |= (move.promotion - 1) << PROMOTION_SHIFT
    captured = _piece_at(state, target, 1 - us)
    if captured >= 0:
        code |= CAPTURE | captured << CAPTURED_SHIFT
    elif mover == PAWN and (target - origin) % 8 != 0:
        code |= CAPTURE | EN_PASSANT | PAWN << CAPTURED_SHIFT
    if mover == PAWN and abs(target - origin) == 16:
        code |= DOUBLE_PUSH
    if mover == KING and abs(target - origin) == 2:
        code |= CASTLING
    return code


def _piece_at(state: np.ndarray, square: int, colour: int) -> int:
    for piece in range(6):
        if int(state[colour * 6 + piece]) >> square & 1:
            return piece
    return -1


def reference_perft(board: chess.Board, depth: int) -> int:
    """The paths ``depth`` plies long from ``board``, counted by python-chess's own move generation:
    the reference the compiled perft is held to, and ``go perft``'s count where the compiled search
    cannot run."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += reference_perft(board, depth - 1)
        board.pop()
    return total
