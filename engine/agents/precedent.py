"""The precedent of a move (issue #61): of the cases nearest a position by the learned similarity, the
nearest that speaks for the move played (its own move, or where that is illegal here, the move it adapts to); a precedent worth
reading beside the move, which the shallow similarity's nearest case seldom is (docs/results.md)."""

from __future__ import annotations

from collections.abc import Sequence

import chess

from engine.agents.record import Case, Named, Precedent
from engine.cbr.adaptation import voted_moves
from engine.cbr.learned import NEAREST, LearnedIndex
from engine.cbr.similarity import board_similarity
from engine.cbr.weights import Weights


def precedent(learned: LearnedIndex, board: chess.Board, move: chess.Move, weights: Weights,
              candidates: Sequence[chess.Move]) -> Precedent | None:
    """The precedent of ``move`` on ``board`` among the :data:`NEAREST` cases; None where no case has the side to move."""
    casebase = learned.casebase
    rows, sims = learned.nearest(board, NEAREST)
    if not len(rows):
        return None
    found = 0
    for i, row in enumerate(rows.tolist()):
        if move in voted_moves(casebase.move(row), casebase.board(row), board, weights, candidates):
            found = i
            break
    else:
        i = -1
    row, case_board = int(rows[found]), casebase.board(int(rows[found]))
    case_move = casebase.move(row)
    try:
        san = case_board.san(case_move)
    except (ValueError, AssertionError):  # a case board lacks castling and en-passant rights
        san = case_move.uci()
    return Precedent(Case.of(casebase, row, board_similarity(case_board, board)), round(100 * float(sims[found]), 1),
                     Named(case_move.uci(), san), i >= 0, len(rows))
