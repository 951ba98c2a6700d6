"""The thesis's pure agent (cbr-agent.md §4–5): the most similar case's move, adapted."""

from __future__ import annotations

import chess
import numpy as np

from engine.agents.base import CaseAgent, Decision, Reason
from engine.agents.explain import adaptation_line, pure_case_lines
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
            return Decision(
                move=move,
                reason=Reason.RANDOM,
                explanation=[
                    f"{self.no_case_reason(board.turn)}: played {board.san(move)}, drawn"
                    f" uniformly from {len(candidates)} legal moves",
                ],
            )
        assert self.casebase is not None and self.index is not None
        case = int(rows[draw_index(len(rows), self.rng)])
        case_move, case_board = self.casebase.move(case), self.casebase.board(case)
        tied_moves, score = best_moves(case_move, case_board, board, self.weights, candidates)
        move = draw(tied_moves, self.rng)
        return Decision(
            move=move,
            reason=Reason.CASE,
            explanation=[
                *pure_case_lines(self.casebase, self.index, case, board.turn, sim, len(rows)),
                adaptation_line(case_move, case_board, board, move, score, len(tied_moves)),
            ],
            case=case,
            similarity=sim,
            tied_cases=len(rows),
        )
