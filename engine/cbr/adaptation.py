"""Adaptation (cbr-agent.md §5): the legal move most like the retrieved case's move."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import chess
import numpy as np

from engine.cbr.similarity import square_similarity
from engine.cbr.weights import Weights

T = TypeVar("T")

#: L values closer than this count as equal (they are sums of a few products of weights).
TOLERANCE = 1e-12


def manhattan(s: chess.Square, t: chess.Square) -> float:
    """M(s, t): Manhattan distance between two squares divided by its maximum, 14."""
    return chess.square_manhattan_distance(s, t) / 14


def adaptation_similarity(
    m1: chess.Move, m2: chess.Move, b1: chess.BaseBoard, b2: chess.BaseBoard, w: Weights
) -> float:
    """L(m1, m2, b1, b2): how alike move ``m1`` on ``b1`` is to move ``m2`` on ``b2``, in [0, 1]."""
    distance = w.v2 * manhattan(m1.from_square, m2.from_square) + (1 - w.v2) * manhattan(
        m1.to_square, m2.to_square
    )
    content = (
        w.v3 * square_similarity(b1.piece_at(m1.from_square), b2.piece_at(m2.from_square)) / 4
        + (1 - w.v3) * square_similarity(b1.piece_at(m1.to_square), b2.piece_at(m2.to_square)) / 4
    )
    return w.v1 * (1 - distance) + (1 - w.v1) * content


def candidate_moves(
    board: chess.Board, moves: Iterable[chess.Move] | None = None
) -> list[chess.Move]:
    """The legal moves of ``board`` (only those listed in ``moves``, if given), in a fixed order.

    The order (from square, to square, promotion piece) does not depend on how the moves were
    generated or listed, so a tie drawn by the generator replays identically.
    """
    pool = board.legal_moves if moves is None else {m for m in moves if board.is_legal(m)}
    return sorted(pool, key=lambda m: (m.from_square, m.to_square, m.promotion or 0))


def best_moves(
    case_move: chess.Move,
    case_board: chess.BaseBoard,
    board: chess.Board,
    w: Weights,
    candidates: Sequence[chess.Move],
) -> tuple[list[chess.Move], float]:
    """The candidate moves left after both tie rules but the draw, and their L.

    ``candidates`` come from :func:`candidate_moves` (legal, in its fixed order), prepared
    once by the caller rather than re-checked for every case. The result is the moves within
    :data:`TOLERANCE` of the highest L, narrowed to the ones that promote to the case move's
    promotion piece (a queen when it is no promotion) if any do.
    """
    if not candidates:
        raise ValueError(f"no legal move to adapt to in {board.fen()}")
    scores = [adaptation_similarity(m, case_move, board, case_board, w) for m in candidates]
    best = max(scores)
    tied = [m for m, s in zip(candidates, scores) if s >= best - TOLERANCE]
    promotion = case_move.promotion or chess.QUEEN
    preferred = [m for m in tied if m.promotion == promotion]
    return preferred or tied, best


def voted_moves(
    case_move: chess.Move,
    case_board: chess.BaseBoard,
    board: chess.Board,
    w: Weights,
    candidates: Sequence[chess.Move],
) -> list[chess.Move]:
    """The moves a retrieved case speaks for on ``board`` (the learned similarity's vote,
    cbr-agent.md §4.1): its own move where that is among ``candidates``, else the moves it adapts to
    (:func:`best_moves`)."""
    if case_move in candidates:
        return [case_move]
    return best_moves(case_move, case_board, board, w, candidates)[0]


def adapt(
    case_move: chess.Move,
    case_board: chess.BaseBoard,
    board: chess.Board,
    w: Weights,
    rng: np.random.Generator,
    moves: Iterable[chess.Move] | None = None,
) -> chess.Move:
    """The legal move of ``board`` (among ``moves``, if given) with the highest L to the case move.

    Ties follow cbr-agent.md §5: the case's promotion piece first, then a uniform draw with
    ``rng`` (made only when more than one move is left). Raises ValueError when there is no
    candidate move.
    """
    return adapt_to(case_move, case_board, board, w, rng, candidate_moves(board, moves))


def adapt_to(
    case_move: chess.Move,
    case_board: chess.BaseBoard,
    board: chess.Board,
    w: Weights,
    rng: np.random.Generator,
    candidates: Sequence[chess.Move],
) -> chess.Move:
    """:func:`adapt` among ``candidates`` already prepared by :func:`candidate_moves`."""
    tied, _ = best_moves(case_move, case_board, board, w, candidates)
    return draw(tied, rng)


def draw_index(count: int, rng: np.random.Generator) -> int:
    """An index below ``count`` drawn uniformly with ``rng``; 0 without a draw when ``count`` is
    1."""
    return int(rng.integers(count)) if count > 1 else 0


def draw(items: Sequence[T], rng: np.random.Generator) -> T:
    """One of ``items`` drawn uniformly with ``rng`` (:func:`draw_index`)."""
    return items[draw_index(len(items), rng)]
