"""Alpha-beta search for the guided mode: it vets the casebase's proposals (search.md §2–4).

Negamax alpha-beta (fail-soft) with iterative deepening, a transposition table, quiescence
search and move ordering (table move, captures by MVV-LVA, killers, history; the caller's
prior orders the root). Scores are centipawns from the side to move; a mate found ``n``
plies from the root scores ``MATE - n``.

Exactness, because the guided mode trusts each root score (search.md §2–3):

- No pruning or reduction beyond alpha-beta itself, so the root score at depth ``d`` equals
  plain minimax at depth ``d`` over the same leaves. The table only cuts off with entries of
  exactly the remaining depth, for the same reason (a deeper entry would change the value).
- The leaf is quiescence: stand pat with :func:`engine.search.evaluation.evaluate`, then every
  capture (except under-promotions and losing captures, see
  :func:`engine.search.moveorder.noisy_moves`) and every non-capturing queen promotion, in MVV-LVA
  order. A side in check may not stand pat: it searches all its evasions, and with none it is mated.
- With a tablebase, a position it covers below the root is a leaf scored by the tables.
- Draws score 0 at every node below the root: insufficient material, the fifty-move rule
  (unless the move mates), and repetition. A position repeating one met earlier in the tree
  (strictly after the root) is a draw; one that only repeats the game before the search
  must have occurred twice before (the move makes it threefold), so the root never counts a
  twofold repetition of the game's past as a draw.
- :meth:`Searcher.search` searches every root move after the first with the window
  ``(best - tolerance - 1, +inf)``, so every root score at least ``best - tolerance`` is
  exact and every lower one is an upper bound below it (search.md §3). The caller may
  name the only moves whose soundness it needs (``exact=``, the guided mode's proposed
  moves); the others are merely proven no better than the best so far with a null window,
  which is much cheaper when many moves lie within the tolerance.

The table is keyed by the polyglot Zobrist hash, updated incrementally from move to move
(:mod:`engine.search.zobrist`); so is the evaluation's material and square-bonus sum
(:func:`engine.search.evaluation.material_white`). Each finished iteration is handed to the caller
as a :class:`SearchResult` (``on_iteration``); turning it into protocol text is the UCI
layer's business. Standard chess only (no Chess960).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping

import chess

from engine.search.evaluation import evaluate, material_white
from engine.search.leaves import Endgames, past_counts
from engine.search.limits import Budget
from engine.search.moveorder import MoveOrder
from engine.search.result import RootScore, SearchResult
from engine.search.scores import MATE, is_mate_score
from engine.search.tree import CHECK_EVERY, INF, MAX_PLY, Tree, _Abort
from engine.search.zobrist import board_pieces_key, zobrist_key

#: Iterations when neither depth nor nodes bounds the search.
MAX_DEPTH = 64


class Searcher(Tree):
    """Searches positions: one :meth:`search` at a time, each with a fresh table.

    A fresh table per search makes ``go depth`` and ``go nodes`` give the same move however
    the engine got to the position. ``table=False`` turns the table off and
    ``quiescence=False`` makes the horizon's leaves static evaluations: the tests compare
    each variant with plain minimax. ``evaluation(board, material)`` scores the leaves
    (default :func:`engine.search.evaluation.evaluate`; ``material`` is its incremental sum).
    With a ``tablebase``, a position it covers below the
    root is a leaf scored by the table (a mate at its exact distance, or a draw).
    """

    def __init__(
        self,
        *,
        table: bool = True,
        quiescence: bool = True,
        tablebase: Endgames | None = None,
        evaluation: Callable[[chess.Board, int], int] = evaluate,
    ) -> None:
        self.use_table = table
        self.use_quiescence = quiescence
        self.tablebase = tablebase
        self.evaluate = evaluation
        self._reset(chess.Board(), Budget(), None, 0, time.monotonic())

    def _reset(
        self,
        board: chess.Board,
        budget: Budget,
        stop: threading.Event | None,
        tolerance: int,
        start: float,
    ) -> None:
        """Fresh state for searching ``board`` within ``budget`` from ``start``: counters, table,
        killers, history, PV."""
        self._start = start
        self._budget, self._stop = budget, stop
        # the budget's seconds as moments of time.monotonic, which the tree looks at
        self._deadline = None if budget.movetime is None else start + budget.movetime
        self._soft_deadline = None if budget.soft_time is None else start + budget.soft_time
        self.board = board.copy(stack=False)
        self.tolerance = tolerance
        self.nodes = 0
        self.seldepth = 0
        self._next_check = CHECK_EVERY if budget.nodes is None else min(CHECK_EVERY, budget.nodes)
        self.table: dict[int, tuple[int, int, int, chess.Move | None]] | None = (
            {} if self.use_table else None
        )
        self.order = MoveOrder(MAX_PLY)
        self.pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self.path: set[int] = set()
        self._partial: dict[chess.Move, RootScore] = {}

    def quiescence(self, board: chess.Board) -> int:
        """The quiescence value of ``board`` (no draw rules; the search's leaf value)."""
        self._reset(board, Budget(), None, 0, time.monotonic())
        self.nodes = 1
        return self._quiesce(-INF, INF, 0, material_white(self.board))

    def search(
        self,
        board: chess.Board,
        budget: Budget | None = None,
        *,
        stop: threading.Event | None = None,
        prior: Mapping[chess.Move, float] | None = None,
        moves: Iterable[chess.Move] | None = None,
        tolerance: int = 0,
        exact: Collection[chess.Move] | None = None,
        on_iteration: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult:
        """Search ``board`` by iterative deepening until a limit of ``budget`` (None: none) is
        reached.

        Its ``depth`` iterations at most; ``nodes`` visited positions at most (exactly
        reproducible); ``movetime`` seconds at most; no new iteration after ``soft_time``
        seconds (the clock-managed budget; a search on the clock also stops at an
        only move or a mate found); ``stop`` set by another thread ends it within a few
        milliseconds. Root moves are ``moves`` (legal ones only) or all legal moves, ordered
        by ``prior`` at first. Every root score down to ``best - tolerance`` is exact, of
        the moves in ``exact`` (and the best move) when that is given.
        ``on_iteration`` gets the result of every finished iteration. A ``depth`` below 1
        searches depth 1, one beyond :data:`MAX_DEPTH` that depth; no depth is MAX_DEPTH.
        """
        if board.chess960:
            raise ValueError("the search plays standard chess only, not Chess960")
        start = time.monotonic()
        budget = budget or Budget()
        depth = max(1, min(budget.depth, MAX_DEPTH)) if budget.depth is not None else MAX_DEPTH
        nodes = max(budget.nodes, 1) if budget.nodes is not None else None
        self._reset(
            board, dataclasses.replace(budget, depth=depth, nodes=nodes), stop, tolerance, start
        )
        self.exact = None if exact is None else frozenset(exact)
        self.past = past_counts(board)

        legal = list(self.board.generate_legal_moves())
        if moves is not None:
            wanted = set(moves)
            legal = [m for m in legal if m in wanted] or legal
        prior = prior or {}
        order = sorted(legal, key=lambda m: -prior.get(m, 0.0))
        if not order:
            score = -MATE if self.board.is_check() else 0
            return SearchResult(
                move=None,
                score=score,
                depth=0,
                seldepth=0,
                nodes=0,
                seconds=0.0,
                pv=[],
                scores={},
                tolerance=tolerance,
            )

        root_key = zobrist_key(self.board)
        root_pieces = board_pieces_key(self.board)
        root_material = material_white(self.board)
        result: SearchResult | None = None
        for iteration in range(1, depth + 1):
            self._partial = {}
            try:
                best_move, best, pv = self._root(
                    iteration, order, root_key, root_pieces, root_material
                )
            except _Abort:
                if result is None:
                    result = self._result_of_partial(order)
                break
            scores = self._partial
            result = SearchResult(
                move=best_move,
                score=best,
                depth=iteration,
                seldepth=self.seldepth,
                nodes=self.nodes,
                seconds=time.monotonic() - start,
                pv=pv,
                scores=scores,
                tolerance=tolerance,
            )
            if on_iteration is not None:
                on_iteration(result)
            order = sorted(order, key=lambda m: (-scores[m].score, -prior.get(m, 0.0)))
            if self._finished(result, len(order)):
                break
        assert result is not None
        result.nodes, result.seconds = self.nodes, time.monotonic() - start
        return result

    # -- limits ----------------------------------------------------------------------

    def _finished(self, result: SearchResult, root_moves: int) -> bool:
        """Whether to stop after a finished iteration."""
        assert result.score is not None
        # A mate within the full-width depth cannot get shorter by searching deeper.
        if is_mate_score(result.score) and MATE - abs(result.score) <= result.depth:
            return True
        if self._soft_deadline is not None:  # on the clock
            if root_moves == 1 or time.monotonic() >= self._soft_deadline:
                return True
        return self._stop is not None and self._stop.is_set()

    def _result_of_partial(self, order: list[chess.Move]) -> SearchResult:
        """The result when the first iteration did not finish: the root moves it did score."""
        scores = self._partial
        if scores:
            best_move = max(scores, key=lambda m: scores[m].score)  # first of the best
            best = scores[best_move].score
        else:
            best_move, best = order[0], None
        return SearchResult(
            move=best_move,
            score=best,
            depth=0,
            seldepth=self.seldepth,
            nodes=self.nodes,
            seconds=time.monotonic() - self._start,
            pv=[best_move],
            scores=scores,
            tolerance=self.tolerance,
        )
