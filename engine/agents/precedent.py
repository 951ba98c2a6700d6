"""The precedent of a move (issue #61): of the cases nearest a position by the learned similarity, the
nearest that speaks for the move played (its own move, or where that is illegal here, the move it adapts to); a precedent worth
reading beside the move, which the shallow similarity's nearest case seldom is (docs/results.md)."""

from __future__ import annotations

from collections.abc import Sequence

import chess

from engine.agents.record import Case, Named, Precedent
from engine.cbr.adaptation import voted_moves
from engine.cbr.learned import LearnedIndex
from engine.cbr.similarity import board_similarity
from engine.cbr.weights import Weights

#: How many of the nearest cases a precedent is looked for among: a few milliseconds after the move is chosen
#: (the query's embedding, one product, at most this many adaptations), which the clock's margins cover.
LOOKED_AT = 16


def precedent(learned: LearnedIndex, board: chess.Board, move: chess.Move, weights: Weights,
              candidates: Sequence[chess.Move]) -> Precedent | None:
    """The precedent of ``move`` on ``board`` among the :data:`LOOKED_AT` nearest cases; None where no case
    has the side to move."""
    casebase = learned.casebase
    rows, sims = learned.nearest(board, LOOKED_AT)
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
    return Precedent(Case.of(casebase, row, board_similarity(case_board, board)), round(100 * float(sims[found]), 1),
                     Named.of_case(case_board, casebase.move(row)), i >= 0, len(rows))
