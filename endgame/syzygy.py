"""Syzygy tables, as other engines read them (option ``SyzygyPath``): python-chess probes them
(:mod:`chess.syzygy`), and :meth:`SyzygyTables.best` chooses the move that keeps the best
result and reaches it soonest under the fifty-move rule (distance to zeroing, DTZ)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import chess
import chess.syzygy

from common.text import clip

#: What a WDL value means for the side to move (a cursed win or blessed loss is a draw under
#: the fifty-move rule).
WDL_WORDS = {
    2: "win",
    1: "win, drawn by the fifty-move rule",
    0: "draw",
    -1: "loss, drawn by the fifty-move rule",
    -2: "loss",
}


@dataclass(frozen=True)
class SyzygyMove:
    """The move chosen, and what the tables say of the position: its WDL (2 win .. -2 loss, for
    the side to move) and distance to zeroing (plies; 0 for a draw)."""

    move: chess.Move
    wdl: int
    dtz: int


def wdl_text(wdl: int, dtz: int) -> str:
    """What the tables say of a position, in words: ``win, 12 plies to zeroing``."""
    return WDL_WORDS[wdl] + (f", {abs(dtz)} plies to zeroing" if wdl else "")


class SyzygyTables:
    """The Syzygy tables of the folders of a ``SyzygyPath`` (separated as the system's paths
    are); folders that cannot be read are passed over, each named in :attr:`problems`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[str] = []
        self.tables = chess.syzygy.Tablebase()
        found = 0
        for folder in filter(None, path.split(os.pathsep)):
            try:
                found += self.tables.add_directory(folder)
            except (OSError, ValueError) as exc:
                self.problems.append(f"SyzygyPath: cannot read {clip(folder)!r} ({clip(str(exc))})")
        self.pieces = max((len(name) - 1 for name in self._names()), default=0)
        if not found and not self.problems:
            self.problems.append(f"SyzygyPath: no Syzygy table in {clip(path)!r}")

    def _names(self) -> list[str]:
        return list(self.tables.wdl)

    def close(self) -> None:
        self.tables.close()

    def best(self, board: chess.Board, moves: set[chess.Move] | None = None) -> SyzygyMove | None:
        """The best move among ``moves`` (all legal moves if None), or None when the tables do not
        cover the position: the best WDL after it, then among wins the fewest plies to zeroing
        (a mate at once first), among losses the most, and the first such move in python-chess's
        order."""
        if (
            chess.popcount(board.occupied) > self.pieces
            or board.castling_rights
            or not board.is_valid()
        ):
            return None
        try:
            wdl, dtz = self.tables.probe_wdl(board), self.tables.probe_dtz(board)
            ranked = []
            for move in board.legal_moves:
                if moves is not None and move not in moves:
                    continue
                after = board.copy(stack=False)
                after.push(move)
                ranked.append((self._rank(after), move))
        except (KeyError, chess.syzygy.MissingTableError):
            return None  # a table the position or a move leads to is missing
        if not ranked:
            return None
        return SyzygyMove(max(ranked, key=lambda r: r[0])[1], wdl, dtz)

    def _rank(self, after: chess.Board) -> tuple[int, int]:
        """How good the position after a move is for the mover: its WDL, then the DTZ order."""
        if after.is_checkmate():
            return 3, 0
        if after.is_game_over():
            return 0, 0
        wdl = -self.tables.probe_wdl(after)
        dtz = -self.tables.probe_dtz(after)  # the opponent's distance, from the mover's side
        zeroed = after.halfmove_clock == 0
        if wdl > 0:  # sooner is better; a zeroing move restarts the count, so it is as good as 1
            return wdl, -(1 if zeroed else abs(dtz))
        return wdl, abs(dtz)
