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

from engine.search import Search
from engine.search.evaluation import evaluate, material_white, move_delta
from engine.search.leaves import Endgames, past_counts, table_score
from engine.search.limits import Budget
from engine.search.moveorder import MoveOrder, noisy_moves
from engine.search.result import RootScore, SearchResult
from engine.search.scores import MATE, from_root, is_mate_score, to_root
from engine.search.zobrist import board_pieces_key, full_key, pieces_delta, zobrist_key

INF = 1_000_000
#: Deepest ply the search goes; quiescence stops there too.
MAX_PLY = 120
#: Nodes between two looks at the clock and the stop event (about 5 ms of work).
CHECK_EVERY = 128

_EXACT, _LOWER, _UPPER = 0, 1, 2
_BB_SQUARES = chess.BB_SQUARES
_PAWN = chess.PAWN


class _Abort(Exception):
    """Raised inside the tree when a limit is reached; the iteration is abandoned."""


def _child_keys(
    board: chess.Board, move: chess.Move, pieces: int, material: int
) -> tuple[int, int]:
    """The pieces' hash and :func:`material_white` after ``move`` (``board`` before it)."""
    piece = board.piece_type_at(move.from_square) or chess.PAWN
    captured = board.piece_type_at(move.to_square)
    return (
        pieces ^ pieces_delta(board, move, piece, captured),
        material + move_delta(board, move, piece, captured),
    )


#: Iterations when neither depth nor nodes bounds the search.
MAX_DEPTH = 64


class Searcher:
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
            return SearchResult.empty(score=score, tolerance=tolerance, search=Search.ALPHABETA)

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
                search=Search.ALPHABETA,
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
            search=Search.ALPHABETA,
        )

    def _check(self) -> None:
        """Look at the limits before counting a node (every :data:`CHECK_EVERY` nodes, and at
        the node limit); raise :class:`_Abort` at one."""
        nodes = self._budget.nodes
        if nodes is not None and self.nodes >= nodes:
            raise _Abort
        if self._stop is not None and self._stop.is_set():
            raise _Abort
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise _Abort
        self._next_check = self.nodes + CHECK_EVERY
        if nodes is not None:
            self._next_check = min(self._next_check, nodes)

    # -- the tree --------------------------------------------------------------------

    def _root(
        self, depth: int, order: list[chess.Move], key: int, pieces: int, material: int
    ) -> tuple[chess.Move, int, list[chess.Move]]:
        """One iteration over the root moves; fills ``self._partial`` as moves finish."""
        board = self.board
        self.nodes += 1
        best, best_move, pv = -INF, order[0], [order[0]]
        for move in order:
            alpha = -INF if best == -INF else max(best - self.tolerance - 1, -INF)
            child_pieces, child_material = _child_keys(board, move, pieces, material)
            board.push(move)
            child = (full_key(board, child_pieces), child_pieces, child_material)
            if alpha == -INF or self.exact is None or move in self.exact:
                score = -self._negamax(depth - 1, -INF, -alpha, 1, *child)
                exact = score > alpha
            else:
                # Not needed exactly: a null window shows it is no better than the best...
                score = -self._negamax(depth - 1, -best - 1, -best, 1, *child)
                exact = False
                if score > best:  # ...or else it is the new best, and gets its exact score
                    score = -self._negamax(depth - 1, -INF, -alpha, 1, *child)
                    exact = score > alpha
            board.pop()
            self._partial[move] = RootScore(score, exact)
            if score > best:
                best, best_move, pv = score, move, [move, *self.pv[1]]
        return best_move, best, pv

    def _negamax(
        self, depth: int, alpha: int, beta: int, ply: int, key: int, pieces: int, material: int
    ) -> int:
        if self.nodes >= self._next_check:
            self._check()
        self.nodes += 1
        board = self.board
        self.pv[ply] = []
        clock = board.halfmove_clock
        if clock >= 4 and (key in self.path or self.past.get(key, 0) >= 2):
            return 0
        if clock >= 100:
            return -MATE + ply if board.is_checkmate() else 0
        if not (board.pawns | board.rooks | board.queens) and board.is_insufficient_material():
            return 0
        if self.tablebase is not None and not board.pawns and chess.popcount(board.occupied) <= 4:
            verdict = self.tablebase.probe(board)
            if verdict is not None:
                return table_score(verdict, ply)
        if depth <= 0 or ply >= MAX_PLY:
            if self.use_quiescence:
                return self._quiesce(alpha, beta, ply, material)
            return self.evaluate(board, material)

        table = self.table
        table_move = None
        if table is not None:
            entry = table.get(key)
            if entry is not None:
                entry_depth, flag, score, table_move = entry
                if entry_depth == depth:
                    score = to_root(score, ply)
                    if (
                        flag == _EXACT
                        or (flag == _LOWER and score >= beta)
                        or (flag == _UPPER and score <= alpha)
                    ):
                        if table_move is not None:
                            self.pv[ply] = [table_move]
                        return score

        self.path.add(key)
        original_alpha = alpha
        best, best_move = -INF, None
        them = board.occupied_co[not board.turn]
        for move in self.order.staged(board, table_move, ply):
            child_pieces, child_material = _child_keys(board, move, pieces, material)
            board.push(move)
            child = (full_key(board, child_pieces), child_pieces, child_material)
            if best == -INF or beta - alpha == 1:
                score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, *child)
            else:
                # Principal variation search: prove the move is no better with a null window,
                # search it fully only when it is (the value stays exact within the window).
                score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1, *child)
                if alpha < score < beta:
                    score = -self._negamax(depth - 1, -beta, -score, ply + 1, *child)
            board.pop()
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if not (_BB_SQUARES[move.to_square] & them or move.promotion):
                            self.order.remember_cutoff(move, depth, ply)
                        break
                    self.pv[ply] = [move, *self.pv[ply + 1]]
        self.path.discard(key)
        if best_move is None:
            return -MATE + ply if board.is_check() else 0

        if table is not None:
            flag = _LOWER if best >= beta else _UPPER if best <= original_alpha else _EXACT
            table[key] = (depth, flag, from_root(best, ply), best_move)
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, material: int) -> int:
        """Quiescence value of the current position (already counted as a node)."""
        board = self.board
        if ply > self.seldepth:
            self.seldepth = ply
        if ply >= MAX_PLY:
            return self.evaluate(board, material)
        if board.is_check():
            moves = list(self.order.staged(board, None, ply))
            if not moves:
                return -MATE + ply
            best = -INF
        else:
            best = self.evaluate(board, material)
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
            moves = noisy_moves(board)
        type_at = board.piece_type_at
        for move in moves:
            if self.nodes >= self._next_check:
                self._check()
            self.nodes += 1
            child_material = material + move_delta(
                board, move, type_at(move.from_square) or _PAWN, type_at(move.to_square)
            )
            board.push(move)
            score = -self._quiesce(-beta, -alpha, ply + 1, child_material)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best
