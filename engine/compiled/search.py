"""The compiled search's Python face: iterative deepening over the compiled tree
(:mod:`engine.compiled.tree`), its limits, and its results as ``chess.Move``s.

One njit call searches one iteration of the root moves, so that Python runs the iterations, hands
each to ``on_iteration`` and turns codes into ``chess.Move``s. The tree polls a control array every
1,024 nodes; a ``threading.Timer`` (the deadline) or a watcher of the ``stop`` event sets it from
another thread, while the tree runs without the GIL.

``CompiledSearch(table=False, quiescence=False, selective=False)`` is plain alpha-beta over
:func:`engine.compiled.evaluate.evaluate`'s leaves: the tests hold it to minimax.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from engine.compiled.board import MAX_MOVES, STATE, history_of, move_of, state_of
from engine.compiled.movegen import generate
from engine.compiled.tree import (
    AGE,
    CONTROL,
    ENTRY_BYTES,
    GAME,
    LIMIT,
    MATE,
    MATE_BOUND,
    MAX_DEPTH,
    MAX_PLY,
    NODES,
    OPTIONS,
    POLL_EVERY,
    SELDEPTH,
    STOP,
    USE_QUIESCENCE,
    USE_SELECTIVE,
    USE_TABLE,
    evaluate_after,
    iterate,
    root_order,
)

__all__ = [
    "MATE",
    "MATE_BOUND",
    "MAX_DEPTH",
    "POLL_EVERY",
    "CompiledSearch",
    "Iteration",
    "Line",
    "NoMove",
]


class NoMove(Exception):
    """The position has no legal move (the game is over): nothing to search."""


@dataclass(frozen=True)
class Line:
    """A root move, its score (centipawns for the side to move; mates as +-(MATE - plies)) and
    its principal variation (the move first)."""

    move: chess.Move
    score: int
    pv: list[chess.Move]


@dataclass(frozen=True)
class Iteration:
    """A finished iteration: its depth, the deepest ply it reached, the nodes searched since the
    search began, and its lines (best first; as many as multipv asked, fewer where fewer root
    moves)."""

    depth: int
    seldepth: int
    nodes: int
    lines: list[Line]


def _table_entries(hash_mb: int) -> int:
    """The largest power of two of entries within ``hash_mb`` MiB (1,024 at least)."""
    entries = max(hash_mb, 1) * (1 << 20) // ENTRY_BYTES
    return 1 << max(10, entries.bit_length() - 1)


class CompiledSearch:
    """Searches positions, one :meth:`search` at a time; the table, killers and history carry
    over from one search to the next until :meth:`new_game`.

    ``table``, ``quiescence`` and ``selective`` (null move, late-move reductions, futility and
    delta pruning, check extensions) may be turned off: without all three the search is plain
    alpha-beta to the depth asked, the leaves scored by ``evaluate``.
    """

    def __init__(
        self,
        hash_mb: int = 16,
        *,
        table: bool = True,
        quiescence: bool = True,
        selective: bool = True,
    ) -> None:
        entries = _table_entries(hash_mb)
        self._tt_key = np.zeros(entries, dtype=np.uint64)
        self._tt_data = np.zeros(entries, dtype=np.int64)
        self._killers = np.zeros((MAX_PLY + 8, 2), dtype=np.int32)
        self._history = np.zeros((12, 64), dtype=np.int64)
        self._stack = np.zeros((MAX_PLY + 8, STATE), dtype=np.uint64)
        self._lists = np.zeros((MAX_PLY + 8, 2, MAX_MOVES), dtype=np.int32)
        self._pv = np.zeros((MAX_PLY + 8, MAX_PLY + 8), dtype=np.int32)
        self._age = 0
        self._options = (
            (USE_TABLE if table else 0)
            | (USE_QUIESCENCE if quiescence else 0)
            | (USE_SELECTIVE if selective else 0)
        )

    def new_game(self) -> None:
        """Forget the table, the killers and the history."""
        self._tt_key[:] = 0
        self._tt_data[:] = 0
        self._killers[:] = 0
        self._history[:] = 0
        self._age = 0

    def search(
        self,
        board: chess.Board,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
        root_moves: Sequence[chess.Move] | None = None,
        multipv: int = 1,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> Iteration:
        """Search ``board`` by iterative deepening until ``depth`` (at most MAX_DEPTH), ``nodes``,
        ``deadline`` (a ``time.monotonic()``) or ``stop`` (set by another thread); the last
        finished iteration, or the stopped one where it found a better move than the previous
        best. Only ``root_moves`` (the legal ones; all where none is) are searched; with
        ``multipv`` > 1 each gets an exact score. Raises :class:`NoMove` where there is no legal
        move, ``board.Unsupported`` for a board the search cannot hold."""
        state = state_of(board)
        codes = self._root_codes(board, state, root_moves)
        past = history_of(board)
        keys = np.zeros(len(past) + MAX_PLY + 8, dtype=np.uint64)
        keys[: len(past)] = past
        control = np.zeros(CONTROL, dtype=np.int64)
        control[LIMIT] = max(nodes, 1) if nodes is not None else np.iinfo(np.int64).max
        control[OPTIONS] = self._options
        self._age = (self._age + 1) & 255
        control[AGE] = self._age
        control[GAME] = len(past)
        self._stack[0] = state
        self._killers[:] = 0
        self._history //= 8  # the last search's history still orders, but weighs less
        order = np.zeros(len(codes), dtype=np.int32)
        root_order(
            state, codes, order, self._tt_key, self._tt_data, self._killers[0], self._history
        )
        codes = codes[np.argsort(-order.astype(np.int64), kind="stable")]
        work = (
            self._stack,
            keys,
            self._lists,
            self._pv,
            self._killers,
            self._history,
            self._tt_key,
            self._tt_data,
            control,
        )
        last = MAX_DEPTH if depth is None else max(1, min(depth, MAX_DEPTH))
        multipv = max(1, multipv)
        with _Stopper(control, deadline, stop):
            result = self._deepen(board, work, codes, last, multipv, on_iteration)
        return result

    def _root_codes(
        self, board: chess.Board, state: np.ndarray, root_moves: Sequence[chess.Move] | None
    ) -> np.ndarray:
        """The codes of the moves to search: the legal ones of ``root_moves``, or all."""
        buffer = np.zeros(MAX_MOVES, dtype=np.int32)
        count = int(generate(state, buffer))
        if count == 0:
            raise NoMove(f"no legal move in {board.fen()}")
        codes = buffer[:count].copy()
        if root_moves is not None:
            wanted = set(root_moves)
            chosen = [c for c in codes if move_of(int(c), board) in wanted]
            if chosen:
                codes = np.array(chosen, dtype=np.int32)
        return codes

    def _deepen(
        self,
        board: chess.Board,
        work: tuple[np.ndarray, ...],
        codes: np.ndarray,
        last: int,
        multipv: int,
        on_iteration: Callable[[Iteration], None] | None,
    ) -> Iteration:
        """The iterations from depth 1 to ``last`` or a stop."""
        control = work[-1]
        count = len(codes)
        scores = np.zeros(count, dtype=np.int64)
        subtree = np.zeros(count, dtype=np.int64)
        lines = np.zeros((count, MAX_PLY + 8), dtype=np.int32)
        every_exact = multipv > 1
        result: Iteration | None = None
        for depth in range(1, last + 1):
            control[SELDEPTH] = 0
            done = int(iterate(work, codes, scores, subtree, lines, depth, every_exact))
            if done < count:
                best = int(np.argmax(scores[:done])) if done else 0
                if result is None or (not every_exact and best > 0):
                    result = self._stopped(board, codes, scores, lines, done, depth, control)
                break
            if every_exact:
                ranked = np.argsort(-scores, kind="stable")
            else:
                best = int(np.argmax(scores))  # the first of the best: a later one beat it
                rest = [i for i in np.argsort(-subtree, kind="stable") if i != best]
                ranked = np.array([best, *rest], dtype=np.int64)
            codes, scores, subtree, lines = (
                codes[ranked],
                scores[ranked],
                subtree[ranked],
                lines[ranked],
            )
            shown = min(multipv, count)
            result = Iteration(
                depth=depth,
                seldepth=max(int(control[SELDEPTH]), depth),
                nodes=int(control[NODES]),
                lines=[self._line(board, lines[i], int(scores[i])) for i in range(shown)],
            )
            if on_iteration is not None:
                on_iteration(result)
            top = int(scores[0])
            if control[STOP] or (abs(top) > MATE_BOUND and MATE - abs(top) <= depth):
                break  # stopped between iterations, or a mate no deeper search can shorten
        assert result is not None
        return result

    def _stopped(
        self,
        board: chess.Board,
        codes: np.ndarray,
        scores: np.ndarray,
        lines: np.ndarray,
        done: int,
        depth: int,
        control: np.ndarray,
    ) -> Iteration:
        """The iteration stopped part way: the best of the moves it finished, or the first move
        ordered, valued statically, where it finished none."""
        if done:
            best = int(np.argmax(scores[:done]))
            line = self._line(board, lines[best], int(scores[best]))
        else:
            value = evaluate_after(self._stack[0], int(codes[0]), self._stack[1])
            move = move_of(int(codes[0]), board)
            line = Line(move=move, score=int(value), pv=[move])
        return Iteration(
            depth=depth - 1 if done == 0 else depth,
            seldepth=int(control[SELDEPTH]),
            nodes=int(control[NODES]),
            lines=[line],
        )

    @staticmethod
    def _line(board: chess.Board, codes: np.ndarray, score: int) -> Line:
        """A root move's line from its codes (length first), cut where a move is not legal."""
        pv: list[chess.Move] = []
        after = board.copy(stack=False)
        for code in codes[1 : int(codes[0]) + 1]:
            try:
                move = move_of(int(code), after)
            except ValueError:
                break
            pv.append(move)
            after.push(move)
        return Line(move=pv[0], score=score, pv=pv)


class _Stopper:
    """Sets the control array's stop word at the deadline (a timer) or when ``stop`` is set (a
    watcher thread), for the duration of a ``with``."""

    def __init__(
        self, control: np.ndarray, deadline: float | None, stop: threading.Event | None
    ) -> None:
        self._control = control
        self._deadline = deadline
        self._stop = stop
        self._finished = threading.Event()
        self._timer: threading.Timer | None = None
        self._watcher: threading.Thread | None = None

    def __enter__(self) -> _Stopper:
        if self._stop is not None and self._stop.is_set():
            self._set()  # at once, not when the watcher starts
        if self._deadline is not None:
            self._timer = threading.Timer(max(0.0, self._deadline - time.monotonic()), self._set)
            self._timer.daemon = True
            self._timer.start()
        if self._stop is not None:
            self._watcher = threading.Thread(target=self._watch, daemon=True)
            self._watcher.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._finished.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._watcher is not None:
            self._watcher.join()

    def _set(self) -> None:
        self._control[STOP] = 1

    def _watch(self) -> None:
        assert self._stop is not None
        # Wakes each millisecond to see whether the search has ended (an Event cannot be waited
        # on together with another).
        while not self._finished.is_set():
            if self._stop.wait(0.001):
                self._set()
                return
