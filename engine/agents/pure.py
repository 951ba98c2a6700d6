"""The thesis's pure agent (cbr-agent.md §4–5): the most similar case's move, adapted."""

from __future__ import annotations

import chess
import numpy as np

from engine.agents.base import CaseAgent, Decision, Reason
from engine.agents.record import Case, Named, Pure, Record, Uniform
from engine.cbr.adaptation import best_moves, draw, draw_index


class PureAgent(CaseAgent):
    """The thesis's agent: retrieve the most similar case, adapt its move (cbr-agent.md §4–5).

    Generator use, in this order for every move: one draw among the tied best cases, then one
    among the moves tied in L. A draw among a single item is skipped (Decision: it would carry
    no choice), so the same casebase, weights, seed and positions give the same moves.
    Clock limits, ``stop`` and ``on_iteration`` are accepted for the :class:`Agent` protocol and not
    needed: a move takes milliseconds.
    """

    def _choose(self, board: chess.Board, candidates: list[chess.Move], *_: object) -> Decision:
        """Retrieve, draw among ties, adapt; see the class docstring for the generator's use."""
        rows, sim = self.index.most_similar(board) if self.index else (np.empty(0), -1)
        if not len(rows):
            move = draw(candidates, self.rng)
            return Decision(move=move, reason=Reason.RANDOM,
                            record=Record(detail=Uniform(Named.of(board, move), len(candidates), self.no_case(board.turn))))
        assert self.casebase is not None and self.index is not None
        case = int(rows[draw_index(len(rows), self.rng)])
        case_move, case_board = self.casebase.move(case), self.casebase.board(case)
        tied_moves, score = best_moves(case_move, case_board, board, self.weights, candidates)
        move = draw(tied_moves, self.rng)
        return Decision(
            move=move,
            reason=Reason.CASE,
            record=Record(detail=Pure(Case.of(self.casebase, case, int(sim)), chess.COLOR_NAMES[board.turn], len(rows),
                                      self.index.count(board.turn), Named(case_move.uci(), _san(case_board, case_move)),
                                      Named.of(board, move),
                                      float(score), len(tied_moves))),
            case=case,
            similarity=sim,
            tied_cases=len(rows),
        )


def _san(board: chess.Board, move: chess.Move) -> str:
    """SAN when python-chess can write it, else UCI: a case board lacks castling and en-passant rights."""
    try:
        return board.san(move)
    except (ValueError, AssertionError):
        return move.uci()
