"""The thesis's pure agent (cbr-agent.md §4–5): the most similar case's move, adapted."""

from __future__ import annotations

import chess
import numpy as np

from engine.agents.base import CaseAgent, Decision
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
                explanation=[
                    f"{self._no_case_reason(board.turn)}: played {board.san(move)}, drawn"
                    f" uniformly from {len(candidates)} legal moves",
                ],
            )
        assert self.casebase is not None
        case = int(rows[draw_index(len(rows), self.rng)])
        case_move, case_board = self.casebase.move(case), self.casebase.board(case)
        tied_moves, score = best_moves(case_move, case_board, board, self.weights, candidates)
        move = draw(tied_moves, self.rng)
        return Decision(
            move=move,
            explanation=[
                *self._case_lines(case, board.turn, sim, len(rows)),
                _adaptation_line(case_move, case_board, board, move, score, len(tied_moves)),
            ],
            case=case,
            similarity=sim,
            tied_cases=len(rows),
        )

    def _case_lines(self, case: int, colour: chess.Color, sim: int, tied: int) -> list[str]:
        assert self.casebase is not None and self.index is not None
        src = self.casebase.source(case)
        side = chess.COLOR_NAMES[colour].capitalize()
        return [
            f"case {case} of {self.casebase.expert}: {src.white} - {src.black}, {src.event},"
            f" {src.date}, move {src.move_number} (ply {src.ply}, {side} to move)",
            f"similarity {sim}/256; {tied} of {self.index.count(colour)} cases with {side} to move"
            " tied at best" + (", one drawn" if tied > 1 else ""),
        ]


def _adaptation_line(
    case_move: chess.Move,
    case_board: chess.Board,
    board: chess.Board,
    move: chess.Move,
    score: float,
    tied: int,
) -> str:
    ties = f", {tied} moves tied, one drawn" if tied > 1 else ""
    relation = "the case move itself" if move == case_move else "adapted"
    return (
        f"case move {_san(case_board, case_move)}; played {board.san(move)}"
        f" ({relation}, L {score:.5f}{ties})"
    )


def _san(board: chess.Board, move: chess.Move) -> str:
    """SAN when python-chess can write it, else UCI: a case board lacks castling and en-passant rights."""
    try:
        return board.san(move)
    except (ValueError, AssertionError):
        return move.uci()
