"""Agents that choose a move for a position, what the case-based ones share, and the thesis's
pure agent (cbr-agent.md §4–5)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import chess
import numpy as np

from casebase.format import Casebase
from engine.agents.record import ListedMovesIllegal, NoCase, NoMove, Note, Record
from engine.cbr.adaptation import candidate_moves
from engine.cbr.retrieval import CaseIndex
from engine.cbr.weights import Weights
from engine.search.evaluation import evaluate
from engine.search.limits import SearchLimits
from engine.search.result import SearchResult
from engine.search.scores import from_mate_moves, is_mate_score

#: What an agent that searches calls after each finished iteration (the UCI layer reports it).
IterationCallback = Callable[["SearchResult"], None]


class Reason(StrEnum):
    """What decided a move (:attr:`Decision.reason`; its record says how,
    :mod:`engine.agents.record`)."""

    #: pure mode: the most similar case's move, adapted
    CASE = "case"
    #: guided mode: the sound proposed move the prior likes best
    ARGMAX = "argmax"
    #: guided mode: drawn by the prior among the sound proposed moves
    SAMPLE = "sample"
    #: drawn by the expert's error model among the judged moves (strength.md)
    CALIBRATED = "calibrated"
    #: the expert's error model's likeliest judged move
    LIKELY = "likely"
    #: the search's own best move (no sound proposal, or chess0)
    SEARCH = "search"
    #: the endgame tables' distance-to-mate-optimal move
    TABLES = "tables"
    #: drawn uniformly among the legal moves (no case to follow, or the engine's last resort)
    RANDOM = "random"
    #: an outside engine's own move (a tournament's reference player)
    ENGINE = "engine"
    #: there is no legal move
    NO_MOVE = "no move"


@dataclass(frozen=True)
class Candidate:
    """One of the moves the expert would consider (guided mode's proposals, for ``MultiPV``): its
    share of the prior, and its score at ``depth`` (None when the search did not reach it; an upper
    bound when not ``exact``)."""

    move: chess.Move
    share: float
    score: int | None
    exact: bool
    depth: int


@dataclass(kw_only=True)
class Decision:
    """A chosen move (None when there is no legal move), what decided it (``reason``) and why, as a
    typed record (:mod:`engine.agents.record`; the UCI layer words it).

    ``case`` and ``similarity`` name the case the move came from (None when none did);
    ``tied_cases`` is how many cases tied at the best similarity (pure mode), ``votes`` how
    many of the retrieved cases proposed the move (guided mode). ``score`` is the move's score
    for the side to move on the search's scale (centipawns; mates by
    :mod:`engine.search.scores`), an upper bound when ``upper_bound``, None when no search
    scored it; ``depth``, ``seldepth`` and ``nodes`` are the search's behind it, ``pv`` its line
    from the played move on (what a GUI is told last, search.md §4). ``candidates`` are the
    moves the expert would consider, most likely first (search.md §8), in modes with a prior;
    ``chances`` the calibrated choice's chance of each move it drew among (strength.md §3; empty
    elsewhere); ``ponder`` the reply the search expects, when it has one.
    """

    move: chess.Move | None
    reason: Reason
    record: Record = field(default_factory=Record)
    case: int | None = None
    similarity: int | None = None
    tied_cases: int = 0
    votes: int = 0
    score: int | None = None
    upper_bound: bool = False
    depth: int = 0
    seldepth: int = 0
    nodes: int = 0
    pv: list[chess.Move] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    chances: dict[chess.Move, float] = field(default_factory=dict)
    ponder: chess.Move | None = None

    @property
    def score_cp(self) -> int | None:
        """The move's exact score in centipawns (None for a mate, a bound or no score)."""
        exact = self.score is not None and not self.upper_bound and not is_mate_score(self.score)
        return self.score if exact else None

    def searched(self, result: SearchResult) -> Decision:
        """This decision with what ``result`` (the search or judge behind it) found of its move:
        the move's score (exact, or an upper bound), the depth and nodes, and the line from the
        move on (the search's own line where it starts with the move)."""
        if self.move is None:
            return self
        root = result.scores.get(self.move)
        if root is not None:
            self.score, self.upper_bound = root.score, not root.exact
        elif self.move == result.move:
            self.score = result.score
        self.depth, self.seldepth, self.nodes = result.depth, result.seldepth, result.nodes
        self.pv = list(result.pv) if result.pv[:1] == [self.move] else [self.move]
        return self

    def analysis_lines(self, lines: int) -> list[Candidate]:
        """MultiPV's ``lines`` analysis lines (none for 1): the move played first, as GUIs read
        line 1, then the expert's other moves by the prior (search.md §8)."""
        if lines <= 1 or self.move is None or not self.candidates:
            return []
        played = [c for c in self.candidates if c.move == self.move]
        # the judge's or the tables' move, not among the proposals: no share of the prior
        if not played:
            played = [Candidate(self.move, 0.0, self.score, not self.upper_bound, self.depth)]
        return (played + [c for c in self.candidates if c.move != self.move])[:lines]

    def evaluated(self, board: chess.Board) -> Decision:
        """This decision, where no search scored its move, with the static evaluation of the
        position the move leads to (a look one ply deep): every line a GUI or a match runner reads
        has a depth, nodes and a score."""
        if self.move is None:
            return self
        if self.score is None:
            after = board.copy(stack=False)
            after.push(self.move)
            if after.is_checkmate():
                self.score = from_mate_moves(1)
            else:
                self.score = (
                    0
                    if after.is_stalemate() or after.is_insufficient_material()
                    else -evaluate(after)
                )
            self.upper_bound = False
        self.depth, self.seldepth, self.nodes = (
            max(self.depth, 1),
            max(self.seldepth, 1),
            max(self.nodes, 1),
        )
        self.pv = self.pv or [self.move]
        return self


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
    rest, and its record's notes follow the fallback's.
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
        notes: list[Note] = []
        candidates = candidate_moves(board, moves)
        if moves is not None and not candidates:
            notes.append(ListedMovesIllegal())
            candidates = candidate_moves(board)
        if not candidates:
            reason = "checkmate" if board.is_checkmate() else "stalemate"
            return Decision(move=None, reason=Reason.NO_MOVE, record=Record(notes, NoMove(reason)))
        decision = self._choose(board, candidates, limits, stop, on_iteration)
        decision.record.notes[:0] = notes
        return decision

    def _choose(
        self,
        board: chess.Board,
        candidates: list[chess.Move],
        limits: SearchLimits | None,
        stop: threading.Event | None,
        on_iteration: IterationCallback | None,
    ) -> Decision:
        """The mode's own choice among ``candidates`` (legal, at least one)."""
        raise NotImplementedError

    def no_case(self, colour: chess.Color) -> NoCase:
        """Why there is no case to follow for ``colour`` (no casebase, or none of its cases)."""
        return NoCase(
            None if self.casebase is None else self.casebase.expert, chess.COLOR_NAMES[colour]
        )
