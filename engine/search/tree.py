"""The alpha-beta tree below :meth:`engine.search.alphabeta.Searcher.search` (search.md §2–3): one
iteration over the root moves with their windows, negamax (fail-soft) with the transposition
table, principal variation search and the draws, quiescence at the horizon, and the limits
looked at every :data:`CHECK_EVERY` nodes. :class:`engine.search.alphabeta.Searcher` is a
:class:`Tree`: it sets the state the tree reads (``_reset``, ``search``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import chess

from engine.search.evaluation import move_delta
from engine.search.leaves import Endgames, table_score
from engine.search.limits import Budget
from engine.search.moveorder import MoveOrder, noisy_moves
from engine.search.result import RootScore
from engine.search.scores import MATE, from_root, to_root
from engine.search.zobrist import full_key, pieces_delta

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


class Tree:
    """The tree a :class:`~engine.search.alphabeta.Searcher` searches: its state is the searcher's
    (set by its ``_reset`` and ``search``, documented there)."""

    board: chess.Board
    use_quiescence: bool
    tablebase: Endgames | None
    evaluate: Callable[[chess.Board, int], int]
    tolerance: int
    exact: frozenset[chess.Move] | None
    past: dict[int, int]
    nodes: int
    seldepth: int
    table: dict[int, tuple[int, int, int, chess.Move | None]] | None
    order: MoveOrder
    pv: list[list[chess.Move]]
    path: set[int]
    _budget: Budget
    _stop: threading.Event | None
    _deadline: float | None
    _next_check: int
    _partial: dict[chess.Move, RootScore]

    # -- limits ----------------------------------------------------------------------

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
