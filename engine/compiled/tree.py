"""The compiled search's tree: negamax with principal-variation search, quiescence, the
transposition table, the move ordering and the pruning, and one iteration over the root's moves.

Negamax (fail-soft) with a transposition table (one entry a slot, kept by depth and age, mates
stored from the node), quiescence (captures and queen promotions in MVV-LVA order, stand pat, delta
pruning, the captures that lose material by the static exchange left out), null move, late-move
reductions, reverse futility and futility pruning, check extensions, killers and history; captures
that lose material by the static exchange ordered after the quiet moves. Scores are centipawns for
the side to move; a mate ``n`` plies from the root scores ``MATE - n``. Draws score 0 below the
root: a position seen once before in the search's own line (strictly after the root) or twice
before it in the game, the fifty-move rule's hundredth ply (unless the side to move is mated), and
bare kings with at most one minor piece.

The arrays a search works in travel as one tuple, ``work``: the state stack, the positions' hashes
(the game's, then the line's), each ply's moves and their ordering keys, the principal variations
(length first), killers, history, the table's keys and data, and the control array, whose words
Python sets (the stop word from another thread) and the tree keeps (nodes, seldepth, aborted).
Quiescence lives inside ``_negamax``: numba's cache cannot hold a recursive function that calls
another recursive one.
"""

from __future__ import annotations

import math

import numpy as np

from engine.compiled.board import (
    BISHOP,
    BLACK_PIECES,
    CAPTURE,
    CAPTURED_SHIFT,
    EN_PASSANT,
    HASH,
    KING,
    KNIGHT,
    MOVER_SHIFT,
    PAWN,
    PROMOTION_SHIFT,
    QUEEN,
    ROOK,
    TO_SHIFT,
    WHITE_PIECES,
    attackers,
    bishop_attacks,
    bit,
    halfmove_clock,
    lsb,
    rook_attacks,
    side_to_move,
)
from engine.compiled.evaluate import evaluate
from engine.compiled.jit import njit
from engine.compiled.movegen import generate, generate_captures, in_check, make, make_null

MATE = 32000
#: Scores beyond this (in absolute value) are mates.
MATE_BOUND = MATE - 1000
INF = MATE + 1
#: The deepest iteration.
MAX_DEPTH = 100
#: The deepest ply a line reaches, quiescence and extensions included.
MAX_PLY = 128
#: Nodes between two looks at the control array's stop word (a power of two).
POLL_EVERY = 1024

# The control array's words: set by Python (STOP from another thread), read and kept by the tree.
STOP, NODES, LIMIT, SELDEPTH, ABORTED, OPTIONS, AGE, GAME = range(8)
CONTROL = 8

# Options, the bits of word OPTIONS.
USE_TABLE, USE_QUIESCENCE, USE_SELECTIVE = 1, 2, 4

# Table entries: the key's word, and a data word packing the move (bits 0..24), the depth (25..31),
# the bound (32..33), the search's age (34..41) and the score plus SCORE_OFFSET (42..58).
EXACT, LOWER, UPPER = 1, 2, 3
SCORE_OFFSET = 1 << 16
MOVE_MASK = (1 << 25) - 1
ENTRY_BYTES = 16

# Move ordering's keys: the table's move, then captures and queen promotions by MVV-LVA, killers,
# then quiet moves by history (kept below the killers), then the captures that lose material.
ORDER_TABLE = 1 << 30
ORDER_NOISY = 1 << 24
ORDER_KILLER = 1 << 22
HISTORY_MAX = 1 << 20
ORDER_LOSING = -(1 << 10)

PROMOTION_MASK = 7 << PROMOTION_SHIFT
QUEEN_PROMOTION = QUEEN << PROMOTION_SHIFT
NOISY = CAPTURE | PROMOTION_MASK

#: What a captured piece gains at most, for delta pruning (pawn .. king).
PIECE_VALUES = np.array([100, 320, 330, 500, 950, 0], dtype=np.int64)
DELTA_MARGIN = 200
FUTILITY_MARGIN = np.array([0, 120, 250], dtype=np.int64)
REVERSE_FUTILITY_MARGIN = 90


def _reductions() -> np.ndarray:
    """Late-move reductions by depth and move number (log by log: a common, untuned shape)."""
    table = np.zeros((64, 64), dtype=np.int64)
    for depth in range(1, 64):
        for number in range(1, 64):
            table[depth, number] = int(0.75 + math.log(depth) * math.log(number) / 2.25)
    return table


REDUCTIONS = _reductions()


@njit
def _counted(control: np.ndarray) -> bool:
    """Count a node; False where the search must stop (node limit, or the stop word set)."""
    nodes = control[NODES] + 1
    if nodes > control[LIMIT] or (nodes & (POLL_EVERY - 1) == 0 and control[STOP] != 0):
        control[ABORTED] = 1
        return False
    control[NODES] = nodes
    return True


@njit
def _repeated(keys: np.ndarray, index: int, clock: int, root: int) -> bool:
    """Whether the position ``keys[index]`` is a draw by repetition: seen once since the root
    (strictly after it), or twice at or before it, within the last ``clock`` plies."""
    key = keys[index]
    seen = 0
    earliest = max(index - clock, 0)
    i = index - 4
    while i >= earliest:
        if keys[i] == key:
            if i > root:
                return True
            seen += 1
            if seen >= 2:
                return True
        i -= 2
    return False


@njit
def _bare(state: np.ndarray) -> bool:
    """Kings alone, or with one knight or bishop: no mate can be forced, nor even helped."""
    heavy = (state[PAWN] | state[ROOK] | state[QUEEN] | state[6 + PAWN] | state[6 + ROOK]) | state[
        6 + QUEEN
    ]
    if heavy:
        return False
    minors = state[KNIGHT] | state[BISHOP] | state[6 + KNIGHT] | state[6 + BISHOP]
    return (minors & (minors - np.uint64(1))) == 0


@njit
def _has_pieces(state: np.ndarray, side: int) -> bool:
    """Whether ``side`` has a piece beside its king and pawns (null move's zugzwang guard)."""
    base = side * 6
    return (
        state[base + KNIGHT] | state[base + BISHOP] | state[base + ROOK] | state[base + QUEEN]
    ) != 0


@njit
def _passed(stack: np.ndarray, ply: int) -> bool:
    """Whether the move that led to ``stack[ply]`` was a null move (no piece moved: every move
    changes its side's squares). Two null moves in a row would only search the same position
    shallower. (Said by the stack, not by a bool argument: numba's cache cannot load a recursive
    function called with a literal bool.)"""
    return ply > 0 and (
        stack[ply, WHITE_PIECES] == stack[ply - 1, WHITE_PIECES]
        and stack[ply, BLACK_PIECES] == stack[ply - 1, BLACK_PIECES]
    )


@njit
def _to_table(score: int, ply: int) -> int:
    """A score as the table keeps it: mates counted from the node, not the root."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit
def _from_table(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit
def _store(
    tt_key: np.ndarray,
    tt_data: np.ndarray,
    key: np.uint64,
    move: int,
    depth: int,
    bound: int,
    score: int,
    age: int,
) -> None:
    """Keep an entry where its slot's is older, shallower or the same position's."""
    slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
    old = tt_data[slot]
    same = tt_key[slot] == key
    if not same and old != 0 and (old >> 34) & 255 == age and (old >> 25) & 127 > depth:
        return
    if move == 0 and same:
        move = old & MOVE_MASK  # a fail-low has no move of its own: keep the one it had
    depth = min(max(depth, 0), 127)
    tt_key[slot] = key
    tt_data[slot] = move | depth << 25 | bound << 32 | age << 34 | (score + SCORE_OFFSET) << 42


@njit
def _see_wins(state: np.ndarray, move: int) -> bool:
    """Whether a capture wins or keeps material when both sides recapture on its square with
    their least valuable piece while it pays (the static exchange; pins are not seen)."""
    victim = (move >> CAPTURED_SHIFT) & 7
    mover = (move >> MOVER_SHIFT) & 7
    if move & EN_PASSANT or PIECE_VALUES[victim] >= PIECE_VALUES[mover]:
        return True
    target = np.int64((move >> TO_SHIFT) & 63)
    swap = PIECE_VALUES[mover] - PIECE_VALUES[victim]  # what the mover's side risks on it
    occupied = (state[WHITE_PIECES] | state[BLACK_PIECES]) ^ bit(np.int64(move & 63))
    side = side_to_move(state)
    around = attackers(state, target, occupied, 0) | attackers(state, target, occupied, 1)
    diagonal = state[BISHOP] | state[QUEEN] | state[6 + BISHOP] | state[6 + QUEEN]
    straight = state[ROOK] | state[QUEEN] | state[6 + ROOK] | state[6 + QUEEN]
    wins = 1
    while True:
        side = 1 - side
        around &= occupied
        mine = around & state[WHITE_PIECES + side]
        if not mine:
            break
        wins ^= 1
        piece = PAWN
        while not mine & state[side * 6 + piece]:
            piece += 1
        if piece == KING:  # the king takes last, where nothing defends
            if around & state[WHITE_PIECES + 1 - side]:
                wins ^= 1
            break
        swap = PIECE_VALUES[piece] - swap
        if swap < wins:
            break
        occupied ^= bit(lsb(mine & state[side * 6 + piece]))
        if piece == PAWN or piece == BISHOP or piece == QUEEN:
            around |= bishop_attacks(target, occupied) & diagonal
        if piece == ROOK or piece == QUEEN:
            around |= rook_attacks(target, occupied) & straight
    return wins != 0


@njit
def _order(
    state: np.ndarray,
    moves: np.ndarray,
    keys: np.ndarray,
    count: int,
    table_move: int,
    killers: np.ndarray,
    history: np.ndarray,
    side: int,
) -> None:
    """Each move's ordering key into ``keys``."""
    for i in range(count):
        move = moves[i]
        if move == table_move:
            keys[i] = ORDER_TABLE
        elif move & NOISY:
            victim = (move >> CAPTURED_SHIFT) & 7 if move & CAPTURE else 0
            if (move & PROMOTION_MASK) == QUEEN_PROMOTION:
                victim += QUEEN
            mvv_lva = victim * 8 - ((move >> MOVER_SHIFT) & 7)
            promotion = move & PROMOTION_MASK
            losing = not promotion and not _see_wins(state, move)
            keys[i] = (ORDER_LOSING if losing else ORDER_NOISY) + mvv_lva
        elif move == killers[0]:
            keys[i] = ORDER_KILLER + 1
        elif move == killers[1]:
            keys[i] = ORDER_KILLER
        else:
            keys[i] = history[side * 6 + ((move >> MOVER_SHIFT) & 7), (move >> TO_SHIFT) & 63]


@njit
def _pick(moves: np.ndarray, keys: np.ndarray, start: int, count: int) -> int:
    """Bring the best-keyed move of ``start..count`` to ``start`` and return it."""
    best = start
    for i in range(start + 1, count):
        if keys[i] > keys[best]:
            best = i
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        keys[start], keys[best] = keys[best], keys[start]
    return moves[start]


@njit
def _remember(
    killers: np.ndarray, history: np.ndarray, ply: int, move: int, depth: int, side: int
) -> None:
    """A quiet move that cut off: a killer at its ply, and its history raised."""
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    piece = side * 6 + ((move >> MOVER_SHIFT) & 7)
    target = (move >> TO_SHIFT) & 63
    history[piece, target] += depth * depth
    if history[piece, target] > HISTORY_MAX:
        for i in range(12):
            for j in range(64):
                history[i, j] //= 2


@njit
def _noisy(state: np.ndarray, moves: np.ndarray, keys: np.ndarray, check: bool) -> int:
    """Quiescence's moves, MVV-LVA keyed: the captures and queen promotions, or every evasion
    in check."""
    count = generate(state, moves) if check else generate_captures(state, moves)
    for i in range(count):
        move = moves[i]
        victim = (move >> CAPTURED_SHIFT) & 7 if move & CAPTURE else 0
        keys[i] = victim * 8 - ((move >> MOVER_SHIFT) & 7) + (64 if move & PROMOTION_MASK else 0)
    return count


@njit
def _negamax(work: tuple, ply: int, depth: int, alpha: int, beta: int) -> int:
    """The value of ``stack[ply]`` searched ``depth`` plies within ``(alpha, beta)`` (fail-soft);
    its principal variation in ``pv[ply]`` (its length first)."""
    stack, keys, lists, pv, killers, history, tt_key, tt_data, control = work
    pv[ply, 0] = 0
    state = stack[ply]
    options = control[OPTIONS]
    root = control[GAME]
    keys[root + ply] = state[HASH]
    clock = halfmove_clock(state)
    check = in_check(state)
    if clock >= 100:
        if check and generate(state, lists[ply, 0]) == 0:
            return -MATE + ply
        return 0
    if (clock >= 4 and _repeated(keys, root + ply, clock, root)) or _bare(state):
        return 0
    # No line from here can beat a mate already found nearer the root.
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha
    selective = (options & USE_SELECTIVE) != 0
    if check and selective:
        depth += 1
    if not _counted(control):
        return 0
    if ply > control[SELDEPTH]:
        control[SELDEPTH] = ply
    if depth <= 0 or ply >= MAX_PLY - 1:
        if not options & USE_QUIESCENCE or ply >= MAX_PLY - 1:
            return evaluate(state)
        # Quiescence, here rather than in a function of its own: numba's cache cannot hold a
        # recursive function that calls another recursive one (it crashes when loaded).
        moves = lists[ply, 0]
        order = lists[ply, 1]
        count = _noisy(state, moves, order, check)
        if check:
            if count == 0:
                return -MATE + ply
            best = -INF
        else:
            best = evaluate(state)  # standing pat: the side to move need not capture
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        stand = best
        for i in range(count):
            move = _pick(moves, order, i, count)
            if (
                selective
                and not check
                and not move & PROMOTION_MASK
                and stand + PIECE_VALUES[(move >> CAPTURED_SHIFT) & 7] + DELTA_MARGIN <= alpha
            ):
                continue  # even winning the piece for nothing leaves it below alpha
            if selective and not check and not move & PROMOTION_MASK and not _see_wins(state, move):
                continue  # a capture that loses material is not quiet's way to win it
            make(state, move, stack[ply + 1])
            score = -_negamax(work, ply + 1, np.int64(0), -beta, -alpha)
            if control[ABORTED]:
                return 0
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    key = state[HASH]
    table_move = 0
    pv_node = beta - alpha > 1
    if options & USE_TABLE:
        slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
        if tt_key[slot] == key:
            data = tt_data[slot]
            table_move = data & MOVE_MASK
            if not pv_node and (data >> 25) & 127 >= depth:
                score = _from_table(((data >> 42) & 0x1FFFF) - SCORE_OFFSET, ply)
                bound = (data >> 32) & 3
                if (
                    bound == EXACT
                    or (bound == LOWER and score >= beta)
                    or (bound == UPPER and score <= alpha)
                ):
                    return score

    side = side_to_move(state)
    static = 0
    if selective and not pv_node and not check:
        static = evaluate(state)
        margin = REVERSE_FUTILITY_MARGIN * depth
        if depth <= 6 and abs(beta) < MATE_BOUND and static - margin >= beta:
            return static - margin
        if depth >= 3 and static >= beta and _has_pieces(state, side) and not _passed(stack, ply):
            make_null(state, stack[ply + 1])
            reduction = 3 if depth >= 6 else 2
            score = -_negamax(work, ply + 1, depth - 1 - reduction, -beta, -beta + 1)
            if control[ABORTED]:
                return 0
            if score >= beta:  # passing holds the bound: so will a move (but prove no mate)
                return beta if score >= MATE_BOUND else score

    moves = lists[ply, 0]
    order = lists[ply, 1]
    count = generate(state, moves)
    if count == 0:
        return -MATE + ply if check else 0
    _order(state, moves, order, count, table_move, killers[ply], history, side)
    futile = (
        selective
        and not pv_node
        and not check
        and depth <= 2
        and abs(alpha) < MATE_BOUND
        and static + FUTILITY_MARGIN[depth] <= alpha
    )

    best = -INF
    best_move = 0
    original_alpha = alpha
    child = stack[ply + 1]
    for i in range(count):
        move = _pick(moves, order, i, count)
        quiet = (move & NOISY) == 0
        make(state, move, child)
        late = selective and quiet and i >= 3 and depth >= 3 and order[i] < ORDER_KILLER
        gives_check = False
        if i > 0 and quiet and (futile or late):
            gives_check = in_check(child)
            if futile and not gives_check:
                continue  # a quiet move this far below alpha will not reach it
        if i == 0:
            score = -_negamax(work, ply + 1, depth - 1, -beta, -alpha)
        else:
            # Principal variation search: a null window proves the move no better, a reduced
            # depth first where it comes late and quiet; searched again where it is better.
            reduction = 0
            if late and not check and not gives_check:
                reduction = REDUCTIONS[min(depth, 63), min(i, 63)] - (1 if pv_node else 0)
                reduction = max(0, min(reduction, depth - 2))
            score = -_negamax(work, ply + 1, depth - 1 - reduction, -alpha - 1, -alpha)
            if score > alpha and reduction > 0 and not control[ABORTED]:
                score = -_negamax(work, ply + 1, depth - 1, -alpha - 1, -alpha)
            if alpha < score < beta and not control[ABORTED]:
                score = -_negamax(work, ply + 1, depth - 1, -beta, -alpha)
        if control[ABORTED]:
            return 0
        if score > best:
            best = score
            best_move = move
            if score > alpha:
                alpha = score
                length = pv[ply + 1, 0]
                pv[ply, 1] = move
                pv[ply, 2 : length + 2] = pv[ply + 1, 1 : length + 1]
                pv[ply, 0] = length + 1
                if score >= beta:
                    if quiet:
                        _remember(killers, history, ply, move, depth, side)
                    break
    if options & USE_TABLE:
        bound = LOWER if best >= beta else EXACT if best > original_alpha else UPPER
        kept = best_move if bound != UPPER else 0
        _store(tt_key, tt_data, key, kept, depth, bound, _to_table(best, ply), control[AGE])
    return best


@njit
def iterate(
    work: tuple,
    root_moves: np.ndarray,
    scores: np.ndarray,
    subtree: np.ndarray,
    lines: np.ndarray,
    depth: int,
    every_exact: bool,
) -> int:
    """One iteration over the root moves in their order: each move's score (exact for the best
    and, with ``every_exact``, for every move; else an upper bound below the best), its subtree's
    nodes and its line (length first). Returns how many moves it finished before a stop."""
    stack, keys, _, pv, _, _, _, _, control = work
    state = stack[0]
    keys[control[GAME]] = state[HASH]
    if not _counted(control):
        return 0
    # Typed, not literal: numba's cache cannot load a recursive function first called with a
    # literal argument (a literal's own compile is left unresolved).
    child = np.int64(1)
    infinity = np.int64(INF)
    best = -infinity
    for i in range(root_moves.shape[0]):
        move = root_moves[i]
        before = control[NODES]
        make(state, move, stack[1])
        if i == 0 or every_exact:
            score = -_negamax(work, child, depth - 1, -infinity, infinity)
        else:
            score = -_negamax(work, child, depth - 1, -best - 1, -best)
            if score > best and not control[ABORTED]:
                score = -_negamax(work, child, depth - 1, -infinity, -best)
        if control[ABORTED]:
            return i
        scores[i] = score
        subtree[i] = control[NODES] - before
        if score > best or every_exact:
            length = pv[1, 0]
            lines[i, 0] = length + 1
            lines[i, 1] = move
            lines[i, 2 : length + 2] = pv[1, 1 : length + 1]
        if score > best:
            best = score
    return root_moves.shape[0]


@njit
def root_order(
    state: np.ndarray,
    moves: np.ndarray,
    keys: np.ndarray,
    tt_key: np.ndarray,
    tt_data: np.ndarray,
    killers: np.ndarray,
    history: np.ndarray,
) -> None:
    """The root moves' first ordering keys: the table's move, captures, killers, history."""
    key = state[HASH]
    slot = np.int64(key & np.uint64(tt_key.shape[0] - 1))
    table_move = tt_data[slot] & MOVE_MASK if tt_key[slot] == key else 0
    _order(state, moves, keys, moves.shape[0], table_move, killers, history, side_to_move(state))


@njit
def evaluate_after(state: np.ndarray, move: int, out: np.ndarray) -> int:
    """The static value of a move for the side that makes it (a search stopped at once)."""
    make(state, move, out)
    return -evaluate(out)
