"""Distance-to-mate tables of pawnless endings with a lone defending king, by retrograde analysis.

The stronger side is White here (a board with the stronger side Black is mirrored first, see
:mod:`endgame.tablebase`). A position is the squares of the white king, the black king and the
white pieces, ``(wk, bk, p1[, p2])``: its index is those squares as base-64 digits, in that
order, so a table is a ``64 ** (2 + pieces)`` array per side to move.

Values are plies to mate plus one, 0 where White does not win (a draw, or no legal position):
with Black to move, 1 means Black is mated now; with White to move, 2 means mate in one.

The analysis runs backwards from the mates, a ply at a time, on whole sets of positions at once
(numpy): White-to-move predecessors of positions lost for Black in ``n`` plies win in ``n + 1``;
a Black-to-move position is lost in ``n + 2`` once every one of its legal moves leads to a
position won for White (a count of its moves not yet refuted reaches zero). Moves that capture
a white piece leave the table for a drawn ending (or one a lone king survives), so a position
where Black has one is never lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: The white pieces of each ending after the king, as letters (bishops on either colour).
ENDINGS: dict[str, tuple[str, ...]] = {
    "KQK": ("Q",),
    "KRK": ("R",),
    "KBBK": ("B", "B"),
    "KBNK": ("B", "N"),
}

_ROOK_DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))
_BISHOP_DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))
_KING_STEPS = _ROOK_DIRECTIONS + _BISHOP_DIRECTIONS
_KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_DIRECTIONS = {"Q": range(8), "R": range(4), "B": range(4, 8)}
_ONE = np.uint64(1)


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _step_masks(steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    masks = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        file, rank = square & 7, square >> 3
        for df, dr in steps:
            if _on_board(file + df, rank + dr):
                masks[square] |= _ONE << np.uint64(8 * (rank + dr) + file + df)
    return masks


def _ray_masks() -> np.ndarray:
    """``RAYS[d, s]``: the squares from ``s`` (excluded) to the edge in direction ``d``."""
    rays = np.zeros((8, 64), dtype=np.uint64)
    for d, (df, dr) in enumerate(_KING_STEPS):
        for square in range(64):
            file, rank = (square & 7) + df, (square >> 3) + dr
            while _on_board(file, rank):
                rays[d, square] |= _ONE << np.uint64(8 * rank + file)
                file, rank = file + df, rank + dr
    return rays


KING = _step_masks(_KING_STEPS)
KNIGHT = _step_masks(_KNIGHT_STEPS)
RAYS = _ray_masks()


def bit(squares: np.ndarray) -> np.ndarray:
    """The one-square bitboards of ``squares``."""
    return _ONE << squares.astype(np.uint64)


def attacks(piece: str, squares: np.ndarray, blockers: list[np.ndarray]) -> np.ndarray:
    """The squares ``piece`` (K, Q, R, B or N) attacks from each of ``squares``, sliders
    stopping at the first of ``blockers`` (arrays of squares, one blocker each) on their way."""
    if piece == "K":
        return KING[squares]
    if piece == "N":
        return KNIGHT[squares]
    found = np.zeros(squares.shape, dtype=np.uint64)
    for d in _DIRECTIONS[piece]:
        ray = RAYS[d][squares]
        for blocker in blockers:
            hit = ((ray >> blocker.astype(np.uint64)) & _ONE).astype(bool)
            ray = np.where(hit, ray & ~RAYS[d][blocker], ray)
        found |= ray
    return found


def _count(bitboards: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bitboards).astype(np.uint8)


@dataclass
class Table:
    """One ending's values (plies to mate + 1; 0 where White does not win) by side to move."""

    ending: str
    white_to_move: np.ndarray  # int8, 64 ** (2 + pieces)
    black_to_move: np.ndarray

    @property
    def pieces(self) -> tuple[str, ...]:
        return ENDINGS[self.ending]

    def longest_mate(self) -> int:
        """The longest win with White to move, in moves."""
        return int(self.white_to_move.max()) // 2


def generate(ending: str, progress: Callable[[int, int], None] | None = None) -> Table:
    """The table of ``ending`` (a key of :data:`ENDINGS`); ``progress(plies, positions)`` is
    called after each ply resolved, with the positions won so far."""
    pieces = ENDINGS[ending]
    n = 2 + len(pieces)
    size = 64**n
    # The white men's squares for every (wk, p1[, p2]); the black king is the second digit.
    white = np.indices((64,) * (n - 1), dtype=np.int64).reshape(n - 1, -1)
    wk, men = white[0], list(white[1:])
    attacked = KING[wk].copy()
    occupied = bit(wk)
    overlap = np.zeros(wk.shape, dtype=bool)
    for i, (piece, square) in enumerate(zip(pieces, men)):
        others = [wk] + [s for j, s in enumerate(men) if j != i]
        attacked |= attacks(piece, square, others)
        occupied |= bit(square)
        overlap |= np.any(np.stack([square == s for s in others]), axis=0)
    # Which white man Black may take: those no other white man defends (the black king's own
    # square is empty once it has moved, so only the white king blocks).
    undefended = []
    for i, square in enumerate(men):
        guard = KING[wk].copy()
        for j, (other, other_square) in enumerate(zip(pieces, men)):
            if j != i:
                guard |= attacks(other, other_square, [wk])
        undefended.append((guard >> square.astype(np.uint64)) & _ONE == 0)

    shape = (64, 64) + (64,) * len(pieces)
    legal_white = np.zeros(shape, dtype=bool)
    legal_black = np.zeros(shape, dtype=bool)
    moves = np.zeros(shape, dtype=np.uint8)  # Black's legal moves not yet shown to lose
    in_check = np.zeros(shape, dtype=bool)
    sub = (64,) + (64,) * len(pieces)
    for bk in range(64):
        bk_bit = _ONE << np.uint64(bk)
        free = ~overlap & (occupied & bk_bit == 0) & (KING[wk] & bk_bit == 0)
        check = attacked & bk_bit != 0
        escapes = _count(KING[bk] & ~attacked & ~occupied)
        for square, loose in zip(men, undefended):
            escapes += (loose & (KING[bk] >> square.astype(np.uint64) & _ONE != 0)).astype(np.uint8)
        legal_white[:, bk] = (free & ~check).reshape(sub)
        legal_black[:, bk] = free.reshape(sub)
        in_check[:, bk] = (free & check).reshape(sub)
        moves[:, bk] = np.where(free, escapes, 0).reshape(sub)
    legal_white, legal_black = legal_white.reshape(size), legal_black.reshape(size)
    moves, in_check = moves.reshape(size), in_check.reshape(size)

    wtm = np.zeros(size, dtype=np.int8)
    btm = np.zeros(size, dtype=np.int8)
    frontier = np.flatnonzero(legal_black & in_check & (moves == 0))
    btm[frontier] = 1
    plies = 0
    won = len(frontier)
    while len(frontier):
        parents = np.unique(_unmoves(frontier, pieces, white=True))
        parents = parents[legal_white[parents] & (wtm[parents] == 0)]
        wtm[parents] = plies + 2
        won += len(parents)
        grand = _unmoves(parents, pieces, white=False)
        grand = grand[legal_black[grand] & (btm[grand] == 0)]
        grand, refuted = np.unique(grand, return_counts=True)
        moves[grand] -= refuted.astype(np.uint8)
        frontier = grand[moves[grand] == 0]
        btm[frontier] = plies + 3
        won += len(frontier)
        plies += 2
        if progress is not None:
            progress(plies, won)
    return Table(ending, wtm, btm)


def _unmoves(children: np.ndarray, pieces: tuple[str, ...], *, white: bool) -> np.ndarray:
    """The indices of the positions one move before ``children`` (with duplicates, one per
    move): White's moves (its king's and its men's) or the black king's. Captures never lead
    into a table, so there are no uncaptures; the caller keeps the legal positions."""
    n = 2 + len(pieces)
    digits = [(children // 64 ** (n - 1 - k)) % 64 for k in range(n)]
    strides = [64 ** (n - 1 - k) for k in range(n)]
    occupied = np.zeros(children.shape, dtype=np.uint64)
    for square in digits:
        occupied |= bit(square)
    found = []
    movers = (
        [(0, "K"), *((2 + i, piece) for i, piece in enumerate(pieces))] if white else [(1, "K")]
    )
    for slot, piece in movers:
        square = digits[slot]
        others = [s for k, s in enumerate(digits) if k != slot]
        origins = attacks(piece, square, others) & ~occupied
        found.append(_expand(children, origins, square, strides[slot]))
    return np.concatenate(found)


def _expand(
    children: np.ndarray, origins: np.ndarray, square: np.ndarray, stride: int
) -> np.ndarray:
    """``children`` with the digit worth ``stride`` (now ``square``) set to each origin square."""
    out = []
    chunk = 1 << 20
    for start in range(0, len(children), chunk):
        part = slice(start, start + chunk)
        bits = np.unpackbits(origins[part].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        row, origin = np.nonzero(bits)
        out.append(children[part][row] + (origin - square[part][row]) * stride)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def timed(ending: str, progress: Callable[[int, int], None] | None = None) -> tuple[Table, float]:
    """:func:`generate` and the seconds it took."""
    started = time.perf_counter()
    table = generate(ending, progress)
    return table, time.perf_counter() - started
