"""The two searches ``cbr-chess-search`` plays by (:mod:`engine.uci.search_main`): the compiled one
(:mod:`engine.compiled`), made ready on a thread of its own at start, and the Python alpha-beta
(:mod:`engine.search.alphabeta`), which plays while the compile runs, where numba is missing or the
compile failed, and for a board the compiled search cannot hold. Both answer a ``go`` with the same
:class:`Searched` iterations, their scores already in UCI's words.

The compile is made under the cache folder's lock (``jit.compile_lock``): a second process sharing
the folder waits, then loads what the first one wrote. It runs every compiled function once (a tiny
search, one with several lines and root moves, a perft), so that numba compiles them or loads them
from its cache before the first ``go`` needs them.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from common.text import clip
from engine.search.limits import Budget, SearchLimits, search_budget

if TYPE_CHECKING:
    from engine.compiled.search import CompiledSearch, Iteration
    from engine.search.result import SearchResult

#: Nodes the compiled search searches for a ``go`` that names no limit (about a second).
COMPILED_NODES = 1_000_000
#: The compiled search's centipawns are said multiplied by this: on the scale of the profiles'
#: judge, Stockfish 15.1 at depth 12, so that the expert's error model reads the built-in judge's
#: losses as it reads Stockfish's (``python -m experiments.builtin_scale`` measures it: the scale
#: whose losses of expected score are nearest Stockfish's on the shipped profiles' judged
#: positions: 1.12 on 397 positions of five experts at depth 8, the scores themselves 1.01 within
#: 400 cp, correlation 0.80).
CP_SCALE = 1.12
#: The depth the Python alpha-beta goes to at most (its own bound).
PYTHON_DEPTH = 64


@dataclass(frozen=True)
class Line:
    """One principal variation: its first move, its score as UCI says it (``cp 20``, ``mate -3``)
    and the line."""

    move: chess.Move
    score: str
    pv: list[chess.Move]


@dataclass(frozen=True)
class Searched:
    """One finished iteration of either search, its lines best first (MultiPV)."""

    depth: int
    seldepth: int
    nodes: int
    lines: list[Line]


def uci_score(score: int, mate: int) -> str:
    """``cp X`` or ``mate M`` (in moves, negative when mated) of a score on a search's scale, where
    a mate in ``n`` plies scores ``mate - n``."""
    if abs(score) < mate - 1000:
        return f"cp {score}"
    plies = mate - abs(score)
    return f"mate {(plies + 1) // 2}" if score > 0 else f"mate {-(plies // 2)}"


def _clear(folder: Path) -> None:
    """The compiled functions' files removed from numba's cache ``folder``, so that they are
    compiled again."""
    for path in folder.rglob("*"):
        if path.suffix in (".nbi", ".nbc"):
            path.unlink(missing_ok=True)


def _cached_files(folder: Path) -> int:
    """How many files numba's cache folder holds (a compile writes some; a load none)."""
    return sum(1 for path in folder.rglob("*") if path.suffix in (".nbi", ".nbc"))


class Compiler:
    """The compiled search, made ready on a thread of its own (:meth:`start`); :attr:`done` is set
    when it is ready (:attr:`search`) or cannot be (:attr:`problem` says why)."""

    def __init__(self, say: Callable[[str], None], hash_mb: int) -> None:
        self.say = say
        self.hash_mb = hash_mb
        self.done = threading.Event()
        self.search: CompiledSearch | None = None
        self.problem: str | None = None
        self._thread = threading.Thread(target=self._compile, name="compile", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _compile(self) -> None:
        try:
            from engine.compiled import jit

            why = jit.available()
            if why is not None:
                self.problem = why
            else:
                try:
                    self.search = self._warmed(jit.cache_dir())
                except Exception:  # a damaged cache (numba cannot read its index): compiled again
                    traceback.print_exc(file=sys.stderr)
                    with jit.compile_lock():
                        _clear(jit.cache_dir())
                    self.search = self._warmed(jit.cache_dir())
        except Exception as exc:  # whatever went wrong again, the Python search plays
            traceback.print_exc(file=sys.stderr)
            self.problem = f"its compile failed ({clip(str(exc)) or type(exc).__name__})"
        finally:
            if self.problem is not None:
                self.say(f"the compiled search cannot run: {self.problem}; the Python search plays")
            self.done.set()

    def _warmed(self, folder: Path) -> CompiledSearch:
        """The compiled search with every function compiled or loaded, under the cache's lock; the
        first compile (files written) said in one line."""
        from engine.compiled import jit

        with jit.compile_lock():
            started = time.monotonic()
            before = _cached_files(folder)
            from engine.compiled.movegen import divide_board
            from engine.compiled.search import CompiledSearch

            search = CompiledSearch(self.hash_mb)
            board = chess.Board()
            search.search(board, depth=3)
            search.search(board, depth=2, multipv=2, root_moves=list(board.legal_moves)[:3])
            divide_board(board, 2)
            search.new_game()
            written = _cached_files(folder) > before
        took = time.monotonic() - started
        if written:
            self.say(f"compiled in {took:.0f} s; cached in {folder}")
        else:
            self.say(f"the compiled search loaded from the cache in {took:.1f} s")
        return search


def budget_of(limits: SearchLimits, board: chess.Board, default: int) -> Budget:
    """The search's budget for a ``go``'s ``limits`` (``default`` nodes where it names none)."""
    return search_budget(limits, board.turn, 0.0, default=default)


def compiled_search(
    search: CompiledSearch,
    board: chess.Board,
    budget: Budget,
    moves: Sequence[chess.Move] | None,
    multipv: int,
    halt: threading.Event,
    on_iteration: Callable[[Searched], None],
) -> Searched:
    """``go`` by the compiled search within ``budget``; ``halt`` ends it (set here at the soft time,
    at an only move on the clock and at a mate that cannot get shorter)."""
    from engine.compiled.search import MATE

    start = time.monotonic()
    deadline = None if budget.movetime is None else start + budget.movetime
    soft = None if budget.soft_time is None else start + budget.soft_time
    only = len(moves) == 1 if moves else board.legal_moves.count() == 1

    def seen(iteration: Iteration) -> None:
        searched = _of_compiled(iteration, MATE)
        on_iteration(searched)
        best = iteration.lines[0].score if iteration.lines else 0
        if soft is not None and (only or time.monotonic() >= soft):
            halt.set()
        elif best > MATE - 1000 and MATE - best <= iteration.depth:
            # a mate it gives within the full-width depth cannot get shorter (one it is given may
            # be the pruning's: the time left may find the defence)
            halt.set()

    found = search.search(
        board,
        depth=budget.depth,
        nodes=budget.nodes,
        deadline=deadline,
        stop=halt,
        root_moves=moves,
        multipv=multipv,
        on_iteration=seen,
    )
    return _of_compiled(found, MATE)


def _of_compiled(iteration: Iteration, mate: int) -> Searched:
    """An iteration's lines, centipawns on the profiles' judge's scale (:data:`CP_SCALE`)."""
    return Searched(
        iteration.depth,
        iteration.seldepth,
        iteration.nodes,
        [
            Line(line.move, uci_score(scaled(line.score, mate), mate), list(line.pv))
            for line in iteration.lines
        ],
    )


def scaled(score: int, mate: int) -> int:
    """A compiled search's score on the scale it is said on: centipawns times :data:`CP_SCALE`,
    mates as they are."""
    return score if abs(score) >= mate - 1000 else round(score * CP_SCALE)


def python_search(
    board: chess.Board,
    budget: Budget,
    moves: Sequence[chess.Move] | None,
    multipv: int,
    halt: threading.Event,
    on_iteration: Callable[[Searched], None],
) -> Searched:
    """``go`` by the Python alpha-beta within ``budget``: with ``multipv`` > 1 every root move's
    score exact (a full window each), the lines the best ``multipv`` of them."""
    from engine.search.alphabeta import INF, Searcher
    from engine.search.scores import MATE

    tolerance = 2 * INF if multipv > 1 else 0

    def searched(result: SearchResult) -> Searched:
        if result.move is None:
            return Searched(result.depth, result.seldepth, result.nodes, [])
        best = Line(result.move, uci_score(result.score or 0, MATE), result.pv or [result.move])
        others = sorted(
            ((move, score.score) for move, score in result.scores.items() if score.exact),
            key=lambda item: -item[1],
        )
        lines = [best] + [
            Line(move, uci_score(score, MATE), [move])
            for move, score in others
            if move != best.move
        ]
        return Searched(result.depth, result.seldepth, result.nodes, lines[:multipv])

    result = Searcher().search(
        board,
        budget,
        stop=halt,
        moves=moves,
        tolerance=tolerance,
        on_iteration=lambda result: on_iteration(searched(result)),
    )
    return searched(result)
