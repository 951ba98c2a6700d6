"""The compiled move generator: all legal moves of a state (checkers, pins, en passant's
discovered check, castling through attacked squares), copy-make with the Zobrist hash kept up to
date, the null move, and perft, which proves it against python-chess."""

from __future__ import annotations

import chess
import numpy as np

from engine.compiled.board import (
    BETWEEN,
    BISHOP,
    CAPTURE,
    CAPTURED_SHIFT,
    CASTLING,
    CASTLING_KEPT,
    CASTLING_KEYS,
    CASTLING_SHIFT,
    DOUBLE_PUSH,
    EN_PASSANT,
    EP_KEYS,
    EP_SHIFT,
    FLAGS,
    FULLMOVE_SHIFT,
    HALFMOVE_MAX,
    HALFMOVE_SHIFT,
    HASH,
    KING,
    KING_ATTACKS,
    KNIGHT,
    KNIGHT_ATTACKS,
    LINE,
    MAX_MOVES,
    MOVER_SHIFT,
    NO_SQUARE,
    PAWN,
    PAWN_ATTACKS,
    PIECE_KEYS,
    PROMOTION_SHIFT,
    QUEEN,
    ROOK,
    STATE,
    TO_SHIFT,
    WHITE,
    WHITE_PIECES,
    WHITE_TO_MOVE_KEY,
    attackers,
    bishop_attacks,
    bit,
    ep_square,
    lsb,
    move_of,
    piece_on,
    rook_attacks,
    side_to_move,
    state_of,
)
from engine.compiled.jit import njit

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_ONE = np.uint64(1)
# The squares between king and rook that must be empty, and those the king crosses that must not
# be attacked, for each castling (white king side, white queen side, black's), its right's bit.
_CASTLE_EMPTY = np.array(
    [
        (1 << chess.F1) | (1 << chess.G1),
        (1 << chess.B1) | (1 << chess.C1) | (1 << chess.D1),
        (1 << chess.F8) | (1 << chess.G8),
        (1 << chess.B8) | (1 << chess.C8) | (1 << chess.D8),
    ],
    dtype=np.uint64,
)
_CASTLE_SAFE = np.array(
    [
        (1 << chess.F1) | (1 << chess.G1),
        (1 << chess.C1) | (1 << chess.D1),
        (1 << chess.F8) | (1 << chess.G8),
        (1 << chess.C8) | (1 << chess.D8),
    ],
    dtype=np.uint64,
)
_CASTLE_TO = np.array([chess.G1, chess.C1, chess.G8, chess.C8], dtype=np.int64)


@njit
def _attacked(state: np.ndarray, by: np.int64, occupied: np.uint64) -> np.uint64:
    """Every square the pieces of colour ``by`` attack, sliders seeing through what ``occupied``
    leaves out."""
    base = by * 6
    pawns = state[base + PAWN]
    if by == WHITE:
        attacked = ((pawns & _NOT_FILE_A) << np.uint64(7)) | ((pawns & _NOT_FILE_H) << np.uint64(9))
    else:
        attacked = ((pawns & _NOT_FILE_A) >> np.uint64(9)) | ((pawns & _NOT_FILE_H) >> np.uint64(7))
    attacked |= KING_ATTACKS[lsb(state[base + KING])]
    bits = state[base + KNIGHT]
    while bits:
        attacked |= KNIGHT_ATTACKS[lsb(bits)]
        bits &= bits - _ONE
    queens = state[base + QUEEN]
    bits = state[base + BISHOP] | queens
    while bits:
        attacked |= bishop_attacks(lsb(bits), occupied)
        bits &= bits - _ONE
    bits = state[base + ROOK] | queens
    while bits:
        attacked |= rook_attacks(lsb(bits), occupied)
        bits &= bits - _ONE
    return attacked


@njit
def _emit(
    state: np.ndarray,
    moves: np.ndarray,
    n: np.int64,
    origin: np.int64,
    targets: np.uint64,
    mover: np.int64,
    them: np.int64,
) -> np.int64:
    """Writes the moves of one piece to ``targets`` from ``moves[n]`` on; the new count."""
    enemy = state[WHITE_PIECES + them]
    base = origin | mover << MOVER_SHIFT
    while targets:
        target = lsb(targets)
        targets &= targets - _ONE
        code = base | target << TO_SHIFT
        if enemy & bit(target):
            code |= CAPTURE | piece_on(state, target, them) << CAPTURED_SHIFT
        moves[n] = code
        n += 1
    return n


@njit
def _emit_pawn(
    moves: np.ndarray, n: np.int64, code: np.int64, target: np.int64, quiet: bool
) -> np.int64:
    """Writes a pawn's move, as its four promotions (queen first; only the queen's where
    ``quiet`` is False) where it reaches the last rank."""
    if target >= 56 or target < 8:
        moves[n] = code | QUEEN << PROMOTION_SHIFT
        n += 1
        if quiet:
            for promotion in (ROOK, BISHOP, KNIGHT):
                moves[n] = code | promotion << PROMOTION_SHIFT
                n += 1
        return n
    moves[n] = code
    return n + 1


@njit
def _generate(state: np.ndarray, moves: np.ndarray, quiet: bool) -> np.int64:
    """The legal moves; without ``quiet``, only the captures and the queen promotions."""
    us = side_to_move(state)
    them = 1 - us
    own = state[WHITE_PIECES + us]
    enemy = state[WHITE_PIECES + them]
    occupied = own | enemy
    king = lsb(state[us * 6 + KING])
    king_bit = bit(king)
    n = np.int64(0)

    # The king: to squares not attacked once it has left its own (a slider's ray goes on past it).
    danger = _attacked(state, them, occupied ^ king_bit)
    targets = KING_ATTACKS[king] & ~own & ~danger
    if not quiet:
        targets &= enemy
    n = _emit(state, moves, n, king, targets, KING, them)

    checkers = attackers(state, king, occupied, them)
    if checkers & (checkers - _ONE):
        return n  # double check: only the king moves
    if checkers:
        evasion = checkers | BETWEEN[king, lsb(checkers)]
    else:
        evasion = _ALL
    # The squares other pieces may move to: where they block or take a checker, and without
    # ``quiet`` onto an enemy piece.
    allowed = evasion & ~own
    if not quiet:
        allowed &= enemy

    # Pinned pieces: the only piece of ours between the king and an enemy slider on its line.
    pinned = np.uint64(0)
    queens = state[them * 6 + QUEEN]
    snipers = (rook_attacks(king, np.uint64(0)) & (state[them * 6 + ROOK] | queens)) | (
        bishop_attacks(king, np.uint64(0)) & (state[them * 6 + BISHOP] | queens)
    )
    while snipers:
        sniper = lsb(snipers)
        snipers &= snipers - _ONE
        between = BETWEEN[king, sniper] & occupied
        if between and not (between & (between - _ONE)) and between & own:
            pinned |= between

    base = us * 6
    bits = state[base + KNIGHT] & ~pinned  # a pinned knight never moves
    while bits:
        origin = lsb(bits)
        bits &= bits - _ONE
        n = _emit(state, moves, n, origin, KNIGHT_ATTACKS[origin] & allowed, KNIGHT, them)
    for piece in (BISHOP, ROOK, QUEEN):
        bits = state[base + piece]
        while bits:
            origin = lsb(bits)
            bits &= bits - _ONE
            targets = np.uint64(0)
            if piece != ROOK:
                targets |= bishop_attacks(origin, occupied)
            if piece != BISHOP:
                targets |= rook_attacks(origin, occupied)
            targets &= allowed
            if pinned & bit(origin):
                targets &= LINE[king, origin]
            n = _emit(state, moves, n, origin, targets, piece, them)

    ep = ep_square(state)
    forward = 8 if us == WHITE else -8
    start_low = 8 if us == WHITE else 48
    bits = state[base + PAWN]
    while bits:
        origin = lsb(bits)
        bits &= bits - _ONE
        along = _ALL
        if pinned & bit(origin):
            along = LINE[king, origin]
        code = origin | PAWN << MOVER_SHIFT
        one = origin + forward
        if not occupied & bit(one):
            last = one >= 56 or one < 8
            if (quiet or last) and evasion & along & bit(one):
                n = _emit_pawn(moves, n, code | one << TO_SHIFT, one, quiet)
            two = one + forward
            if (
                quiet
                and start_low <= origin < start_low + 8
                and evasion & along & bit(two) & ~occupied
            ):
                moves[n] = code | two << TO_SHIFT | DOUBLE_PUSH
                n += 1
        targets = PAWN_ATTACKS[us, origin] & enemy & evasion & along
        while targets:
            target = lsb(targets)
            targets &= targets - _ONE
            captured = piece_on(state, target, them)
            n = _emit_pawn(
                moves,
                n,
                code | target << TO_SHIFT | CAPTURE | captured << CAPTURED_SHIFT,
                target,
                quiet,
            )
        if ep != NO_SQUARE and PAWN_ATTACKS[us, origin] & bit(ep):
            # Tried on the board it makes: the capture may uncover a check along the rank (both
            # pawns leave it) or fail to answer one, and may take a checking pawn.
            taken = ep - forward
            after = occupied ^ bit(origin) ^ bit(ep) ^ bit(taken)
            if not attackers(state, king, after, them) & ~bit(taken):
                moves[n] = code | ep << TO_SHIFT | CAPTURE | EN_PASSANT | PAWN << CAPTURED_SHIFT
                n += 1

    if quiet and not checkers:
        rights = np.int64((state[FLAGS] >> np.uint64(CASTLING_SHIFT)) & np.uint64(15))
        for side in (2 * us, 2 * us + 1):
            if (
                rights >> side & 1
                and not occupied & _CASTLE_EMPTY[side]
                and not danger & _CASTLE_SAFE[side]
            ):
                moves[n] = king | _CASTLE_TO[side] << TO_SHIFT | CASTLING | KING << MOVER_SHIFT
                n += 1
    return n


@njit
def generate(state: np.ndarray, moves_out: np.ndarray) -> np.int64:
    """Writes all legal moves of ``state`` to ``moves_out`` (int32, MAX_MOVES long); their count."""
    return _generate(state, moves_out, True)


@njit
def generate_captures(state: np.ndarray, moves_out: np.ndarray) -> np.int64:
    """Writes the legal captures and queen promotions (a capture that promotes only to a queen)
    to ``moves_out``, for quiescence; their count."""
    return _generate(state, moves_out, False)


@njit
def in_check(state: np.ndarray) -> bool:
    """Whether the side to move is in check."""
    us = side_to_move(state)
    occupied = state[WHITE_PIECES] | state[WHITE_PIECES + 1]
    return attackers(state, lsb(state[us * 6 + KING]), occupied, 1 - us) != np.uint64(0)


@njit
def _next_flags(flags: np.uint64, us: np.int64, halfmove: np.int64) -> np.uint64:
    """The flags' side, clocks and cleared en-passant square after a move of ``us``."""
    fullmove = (flags >> np.uint64(FULLMOVE_SHIFT)) + np.uint64(us)
    if halfmove > HALFMOVE_MAX:
        halfmove = np.int64(HALFMOVE_MAX)
    rights = flags & np.uint64(15 << CASTLING_SHIFT)
    return (
        np.uint64(1 - us)
        | rights
        | np.uint64(NO_SQUARE << EP_SHIFT)
        | np.uint64(halfmove) << np.uint64(HALFMOVE_SHIFT)
        | (fullmove & np.uint64(0xFFFF)) << np.uint64(FULLMOVE_SHIFT)
    )


@njit
def make(state: np.ndarray, move: np.int64, out: np.ndarray) -> None:
    """Writes the state after ``move`` (legal in ``state``) to ``out``, the hash updated by the
    keys of what changed."""
    for i in range(STATE):
        out[i] = state[i]
    us = side_to_move(state)
    them = 1 - us
    flags = state[FLAGS]
    key = state[HASH] ^ WHITE_TO_MOVE_KEY
    origin = np.int64(move & 63)
    target = np.int64((move >> TO_SHIFT) & 63)
    mover = np.int64((move >> MOVER_SHIFT) & 7)
    index = us * 6 + mover
    origin_bit = bit(origin)
    target_bit = bit(target)
    halfmove = np.int64((flags >> np.uint64(HALFMOVE_SHIFT)) & np.uint64(255)) + 1

    if move & CAPTURE:
        taken = target
        if move & EN_PASSANT:
            taken = target - 8 if us == WHITE else target + 8
        captured = them * 6 + np.int64((move >> CAPTURED_SHIFT) & 7)
        taken_bit = bit(taken)
        out[captured] ^= taken_bit
        out[WHITE_PIECES + them] ^= taken_bit
        key ^= PIECE_KEYS[captured, taken]
        halfmove = np.int64(0)

    out[index] ^= origin_bit
    key ^= PIECE_KEYS[index, origin]
    promotion = np.int64((move >> PROMOTION_SHIFT) & 7)
    arrives = index if promotion == 0 else us * 6 + promotion
    out[arrives] |= target_bit
    key ^= PIECE_KEYS[arrives, target]
    out[WHITE_PIECES + us] ^= origin_bit | target_bit
    if mover == PAWN:
        halfmove = np.int64(0)

    if move & CASTLING:
        # The rook: h-file to f-file, or a-file to d-file, on the king's rank.
        if target > origin:
            rook_from, rook_to = target + 1, target - 1
        else:
            rook_from, rook_to = target - 2, target + 1
        rook = us * 6 + ROOK
        moved = bit(rook_from) | bit(rook_to)
        out[rook] ^= moved
        out[WHITE_PIECES + us] ^= moved
        key ^= PIECE_KEYS[rook, rook_from] ^ PIECE_KEYS[rook, rook_to]

    rights = (flags >> np.uint64(CASTLING_SHIFT)) & np.uint64(15)
    kept = rights & CASTLING_KEPT[origin] & CASTLING_KEPT[target]
    key ^= CASTLING_KEYS[np.int64(rights)] ^ CASTLING_KEYS[np.int64(kept)]
    old_ep = ep_square(state)
    if old_ep != NO_SQUARE:
        key ^= EP_KEYS[old_ep & 7]

    new_flags = _next_flags(flags, us, halfmove)
    new_flags = (new_flags & ~np.uint64(15 << CASTLING_SHIFT)) | (kept << np.uint64(CASTLING_SHIFT))
    if move & DOUBLE_PUSH:
        # Kept only where a pawn of the side to move next could take en passant (polyglot's way).
        passed = (origin + target) >> 1
        if PAWN_ATTACKS[us, passed] & out[them * 6 + PAWN]:
            new_flags = (new_flags & ~np.uint64(127 << EP_SHIFT)) | (
                np.uint64(passed) << np.uint64(EP_SHIFT)
            )
            key ^= EP_KEYS[passed & 7]
    out[FLAGS] = new_flags
    out[HASH] = key


@njit
def make_null(state: np.ndarray, out: np.ndarray) -> None:
    """Writes the state after passing the move to ``out`` (for null-move pruning: never in
    check)."""
    for i in range(STATE):
        out[i] = state[i]
    flags = state[FLAGS]
    us = side_to_move(state)
    key = state[HASH] ^ WHITE_TO_MOVE_KEY
    ep = ep_square(state)
    if ep != NO_SQUARE:
        key ^= EP_KEYS[ep & 7]
    halfmove = np.int64((flags >> np.uint64(HALFMOVE_SHIFT)) & np.uint64(255)) + 1
    out[FLAGS] = _next_flags(flags, us, halfmove)
    out[HASH] = key


@njit
def _perft(stack: np.ndarray, moves: np.ndarray, ply: np.int64, depth: np.int64) -> np.int64:
    n = generate(stack[ply], moves[ply])
    if depth == 1:
        return n  # bulk counting: the leaves are counted, not made
    total = np.int64(0)
    for i in range(n):
        make(stack[ply], moves[ply, i], stack[ply + 1])
        total += _perft(stack, moves, ply + 1, depth - 1)
    return total


@njit
def perft(stack: np.ndarray, depth: np.int64) -> np.int64:
    """The number of move paths ``depth`` plies long from ``stack[0]``; ``stack`` (``np.uint64``,
    at least ``depth`` rows of STATE) is the working space of the plies below."""
    if depth <= 0:
        return np.int64(1)
    moves = np.zeros((depth, MAX_MOVES), dtype=np.int32)
    return _perft(stack, moves, np.int64(0), depth)


@njit
def divide(
    stack: np.ndarray, depth: np.int64, moves_out: np.ndarray, counts_out: np.ndarray
) -> np.int64:
    """Perft split by the root's moves: the moves of ``stack[0]`` to ``moves_out``, the paths
    below each (``depth`` plies in all, at least 1) to ``counts_out``; the number of moves."""
    n = generate(stack[0], moves_out)
    for i in range(n):
        make(stack[0], moves_out[i], stack[1])
        counts_out[i] = perft(stack[1:], depth - 1)
    return n


def perft_board(board: chess.Board, depth: int) -> int:
    """``perft`` of a python-chess board."""
    stack = np.zeros((max(depth, 1) + 1, STATE), dtype=np.uint64)
    stack[0] = state_of(board)
    return int(perft(stack, depth))


def divide_board(board: chess.Board, depth: int) -> list[tuple[chess.Move, int]]:
    """``divide`` of a python-chess board (``go perft``): each legal move and the paths
    ``depth`` plies long (at least 1) that start with it."""
    stack = np.zeros((max(depth, 1) + 1, STATE), dtype=np.uint64)
    stack[0] = state_of(board)
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    counts = np.zeros(MAX_MOVES, dtype=np.int64)
    n = int(divide(stack, max(depth, 1), moves, counts))
    return [(move_of(int(moves[i]), board), int(counts[i])) for i in range(n)]
