"""Agents that choose a move for a position, what the case-based ones share, and the thesis's
pure agent (cbr-agent.md §4–5)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import chess
import numpy as np

from casebase.format import Casebase
from engine.adaptation import best_moves, candidate_moves, draw, draw_index
from engine.retrieval import CaseIndex
from engine.timeman import SearchLimits
from engine.weights import Weights

if TYPE_CHECKING:
    from engine.searchresult import SearchResult

#: What an agent that searches calls after each finished iteration (the UCI layer reports it).
IterationCallback = Callable[["SearchResult"], None]


@dataclass(kw_only=True)
class Decision:
    """A chosen move (None when there is no legal move) and why, in lines a person can read.

    ``case`` and ``similarity`` name the case the move came from (None when none did);
    ``tied_cases`` is how many cases tied at the best similarity (pure mode), ``votes`` how
    many of the retrieved cases proposed the move (guided mode); ``score_cp`` is the search's
    exact score of the move, when it has one, and ``mate`` a mate known for certain (UCI's
    ``score mate``: moves, negative when the side to move is mated).
    """

    move: chess.Move | None
    explanation: list[str]
    case: int | None = None
    similarity: int | None = None
    tied_cases: int = 0
    votes: int = 0
    score_cp: int | None = None
    mate: int | None = None


class Agent(Protocol):
    """Something that plays: one behaviour (casebase, weights, mode) with its own generator."""

    def new_game(self, seed: int | None = None) -> None:
        """Start a game: a fresh ``numpy.random.Generator(PCG64(seed))``."""

    def choose(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move] | None = None,
        *,
        limits: SearchLimits | None = None,
        stop: threading.Event | None = None,
        on_iteration: IterationCallback | None = None,
    ) -> Decision:
        """The move to play on ``board`` (restricted to ``moves`` when given); an agent that
        searches hands each finished iteration to ``on_iteration``."""


class CaseAgent:
    """What the case-based agents share: the casebase and its index, the weights, a seeded
    generator, and the rules of :meth:`choose` that do not depend on the mode.

    :meth:`choose` falls back to all legal moves when none of the listed ones is legal, and
    answers a position without a legal move itself; a mode implements :meth:`_choose` for the
    rest, and its explanation follows the fallback's note.
    """

    def __init__(self, casebase: Casebase | None, weights: Weights, seed: int) -> None:
        self.casebase = casebase
        self.weights = weights
        self.index = CaseIndex.of(casebase) if casebase is not None else None
        self.new_game(seed)

    def new_game(self, seed: int | None = None) -> None:
        """Re-seed the generator, with ``seed`` (remembered) or else the agent's last seed."""
        if seed is not None:
            self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(self.seed))

    def choose(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move] | None = None,
        *,
        limits: SearchLimits | None = None,
        stop: threading.Event | None = None,
        on_iteration: IterationCallback | None = None,
    ) -> Decision:
        """The move to play on ``board`` (restricted to ``moves`` when any of them is legal)."""
        notes: list[str] = []
        candidates = candidate_moves(board, moves)
        if moves is not None and not candidates:
            notes.append("none of the listed moves is legal here: choosing among all legal moves")
            candidates = candidate_moves(board)
        if not candidates:
            reason = "checkmate" if board.is_checkmate() else "stalemate"
            return Decision(move=None, explanation=[*notes, f"no legal move ({reason})"])
        decision = self._choose(board, candidates, limits, stop, on_iteration)
        decision.explanation[:0] = notes
        return decision

    def _choose(self, board: chess.Board, candidates: list[chess.Move], limits: SearchLimits | None,
                stop: threading.Event | None, on_iteration: IterationCallback | None) -> Decision:
        """The mode's own choice among ``candidates`` (legal, at least one)."""
        raise NotImplementedError

    def _no_case_reason(self, colour: chess.Color) -> str:
        """Why there is no case to follow for ``colour`` (no casebase, or none of its cases)."""
        if self.casebase is None:
            return "no casebase loaded"
        side = chess.COLOR_NAMES[colour].capitalize()
        return f"the casebase of {self.casebase.expert} has no case with {side} to move"


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
