"""The thesis's pure agent (cbr-agent.md §4–5): the most similar case's move, adapted; with the
learned similarity (option ``Similarity learned``, issue #61), the nearest cases' moves, adapted,
voting."""

from __future__ import annotations

from collections import defaultdict

import chess
import numpy as np

from casebase.format import Casebase
from engine.agents.base import CaseAgent, Decision, Reason
from engine.agents.modes import Resources
from engine.agents.precedent import learned_similarity
from engine.agents.pure_options import PureSettings
from engine.agents.record import Case, Named, Pure, Recalled, Record, Uniform
from engine.cbr.adaptation import best_moves, draw, draw_index, voted_moves
from engine.cbr.learned import NEAREST, TEMPERATURE, LearnedIndex
from engine.cbr.similarity import board_similarity
from engine.cbr.weights import Weights


def make_pure(casebase: Casebase | None, settings: PureSettings, resources: Resources) -> PureAgent:
    """The pure agent of ``settings``: the learned similarity's index where option Similarity asks
    for it; where the casebase has no embeddings yet, the shallow similarity's while they are made
    in the background."""
    learned = (
        learned_similarity(casebase, resources, make=True)
        if casebase is not None and settings.similarity == "learned"
        else None
    )
    return PureAgent(casebase, settings.weights, 0, learned)


class PureAgent(CaseAgent):
    """The thesis's agent: retrieve the most similar case, adapt its move (cbr-agent.md §4–5).

    Generator use, in this order for every move: one draw among the tied best cases, then one
    among the moves tied in L. A draw among a single item is skipped (Decision: it would carry
    no choice), so the same casebase, weights, seed and positions give the same moves.
    Clock limits, ``stop`` and ``on_iteration`` are accepted for the :class:`Agent` protocol and not
    needed: a move takes milliseconds.
    """

    def __init__(
        self,
        casebase: Casebase | None,
        weights: Weights,
        seed: int,
        learned: LearnedIndex | None = None,
    ) -> None:
        super().__init__(casebase, weights, seed)
        #: The learned similarity's index, where option Similarity is ``learned`` and the casebase
        #: has embeddings.
        self.learned = learned

    def _choose(self, board: chess.Board, candidates: list[chess.Move], *_: object) -> Decision:
        """Retrieve, draw among ties, adapt; see the class docstring for the generator's use."""
        if self.learned is not None:
            return self._recall(board, candidates, self.learned)
        rows, sim = self.index.most_similar(board) if self.index else (np.empty(0), -1)
        if not len(rows):
            return self._uniform(board, candidates)
        assert self.casebase is not None and self.index is not None
        case = int(rows[draw_index(len(rows), self.rng)])
        case_move, case_board = self.casebase.move(case), self.casebase.board(case)
        tied_moves, score = best_moves(case_move, case_board, board, self.weights, candidates)
        move = draw(tied_moves, self.rng)
        return Decision(
            move=move,
            reason=Reason.CASE,
            record=Record(
                detail=Pure(
                    Case.of(self.casebase, case, int(sim)),
                    chess.COLOR_NAMES[board.turn],
                    len(rows),
                    self.index.count(board.turn),
                    Named.of_case(case_board, case_move),
                    Named.of(board, move),
                    float(score),
                    len(tied_moves),
                )
            ),
            case=case,
            similarity=sim,
            tied_cases=len(rows),
        )

    def _recall(
        self, board: chess.Board, candidates: list[chess.Move], learned: LearnedIndex
    ) -> Decision:
        """The nearest cases by the learned similarity vote, each weighted by exp((similarity - 1) /
        TEMPERATURE): for its own move where that is legal here, else for the most similar legal
        moves as the thesis adapts it (tied moves share the vote); one draw among the moves tied at
        the most votes (none where one leads)."""
        rows, sims = learned.nearest(board, NEAREST)
        if not len(rows):
            return self._uniform(board, candidates)
        assert self.casebase is not None
        votes: dict[chess.Move, float] = defaultdict(float)
        voters: dict[chess.Move, int] = defaultdict(int)
        for row, sim in zip(rows.tolist(), sims.tolist()):
            tied = voted_moves(
                self.casebase.move(row), self.casebase.board(row), board, self.weights, candidates
            )
            for move in tied:
                votes[move] += float(np.exp((sim - 1) / TEMPERATURE)) / len(tied)
                voters[move] += 1
        most = max(votes.values())
        tied_moves = [m for m in candidates if votes.get(m, 0.0) >= most * (1 - 1e-9)]
        move = draw(tied_moves, self.rng)
        nearest, case_board = int(rows[0]), self.casebase.board(int(rows[0]))
        case_move = self.casebase.move(nearest)
        record = Recalled(
            Case.of(self.casebase, nearest, board_similarity(case_board, board)),
            round(100 * float(sims[0]), 1),
            chess.COLOR_NAMES[board.turn],
            len(rows),
            learned.count(board.turn),
            Named.of_case(case_board, case_move),
            Named.of(board, move),
            votes[move] / sum(votes.values()),
            voters[move],
            len(tied_moves),
        )
        return Decision(
            move=move,
            reason=Reason.CASE,
            record=Record(detail=record),
            case=nearest,
            similarity=record.case.similarity,
            tied_cases=1,
        )

    def _uniform(self, board: chess.Board, candidates: list[chess.Move]) -> Decision:
        """A move drawn uniformly among ``candidates``: there is no case to follow."""
        move = draw(candidates, self.rng)
        return Decision(
            move=move,
            reason=Reason.RANDOM,
            record=Record(
                detail=Uniform(Named.of(board, move), len(candidates), self.no_case(board.turn))
            ),
        )
