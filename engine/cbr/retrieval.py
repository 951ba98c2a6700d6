"""Retrieval (cbr-agent.md §4): the cases most similar to a position, among those of its colour."""

from __future__ import annotations

import threading
import weakref

import chess
import numpy as np

from casebase.format import Casebase
from engine.cbr.similarity import SimilarityScanner

_NO_ROWS = np.empty(0, dtype=np.intp)


class CaseIndex:
    """A casebase fitted for queries: one :class:`SimilarityScanner` per colour to move.

    Fitting copies each colour's boards once; every query then scans them with a few
    vectorised passes. Queries are serialised by a lock because the scanners reuse their
    scratch buffers, so one index may be shared by agents on several threads.
    """

    def __init__(self, casebase: Casebase) -> None:
        self.casebase = casebase
        self._rows: dict[bool, np.ndarray] = {}
        self._scanners: dict[bool, SimilarityScanner] = {}
        self._sims: dict[bool, np.ndarray] = {}
        turn = np.asarray(casebase.turn)
        for colour in chess.COLORS:
            rows = np.flatnonzero(turn == colour)
            self._rows[colour] = rows
            self._scanners[colour] = SimilarityScanner(casebase.boards, rows)
            self._sims[colour] = np.empty(len(rows), dtype=np.int16)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, casebase: Casebase) -> CaseIndex:
        """The index of ``casebase``, fitted on first use and shared while the casebase lives."""
        index = _INDEXES.get(casebase)
        if index is None:
            index = _INDEXES[casebase] = cls(casebase)
        return index

    def count(self, colour: chess.Color) -> int:
        """How many cases have ``colour`` to move."""
        return len(self._rows[colour])

    def scanner(self, colour: chess.Color) -> SimilarityScanner:
        """The scanner of the cases with ``colour`` to move."""
        return self._scanners[colour]

    def similarities(self, board: chess.Board) -> tuple[np.ndarray, np.ndarray]:
        """Rows (casebase order) of the cases with ``board.turn`` to move, and their Sim to
        ``board``."""
        colour = board.turn
        with self._lock:
            sims = self._scanners[colour].similarities(board, out=self._sims[colour]).copy()
        return self._rows[colour], sims

    def most_similar(self, board: chess.Board) -> tuple[np.ndarray, int]:
        """All cases tied at the highest Sim (rows in casebase order, duplicates kept), and that
        Sim.

        With no case of the side to move, the rows are empty and the Sim is -1.
        """
        colour = board.turn
        if not len(self._rows[colour]):
            return _NO_ROWS, -1
        with self._lock:
            sims = self._scanners[colour].similarities(board, out=self._sims[colour])
            best = int(sims.max())
            hits = np.flatnonzero(sims == best)
        return self._rows[colour][hits], best

    def nearest(
        self,
        board: chess.Board,
        k: int,
        rng: np.random.Generator,
        exclude: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` most similar cases of the side to move: rows and Sims, best first.

        Within one Sim the rows keep casebase order. When more cases tie at the k-th place
        than there is room for, ``rng`` picks which (uniformly, without replacement); it is
        not used when there is no choice to make. Fewer than ``k`` rows come back when the
        colour has fewer cases. Rows in ``exclude`` are never returned (a game held out).
        """
        if k < 1:
            raise ValueError(f"k = {k} must be at least 1")
        rows, sims = self.similarities(board)
        if exclude is not None and len(exclude):
            kept = ~np.isin(rows, exclude)
            rows, sims = rows[kept], sims[kept]
        if len(rows) > k:
            # Sims are integers in 0..256: a histogram finds the k-th best without sorting.
            at_least = np.cumsum(np.bincount(sims, minlength=257)[::-1])[::-1]
            cut = int(np.flatnonzero(at_least >= k)[-1])
            above = np.flatnonzero(sims > cut)
            level = np.flatnonzero(sims == cut)
            room = k - len(above)
            if room < len(level):
                level = np.sort(rng.choice(level, size=room, replace=False))
            keep = np.union1d(above, level)
            rows, sims = rows[keep], sims[keep]
        order = np.argsort(-sims.astype(np.int32), kind="stable")
        return rows[order], sims[order]


_INDEXES: weakref.WeakKeyDictionary[Casebase, CaseIndex] = weakref.WeakKeyDictionary()
