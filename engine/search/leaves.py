"""Nodes the search scores without searching them: positions the endgame tables cover, and the
game's past that makes a repetition (search.md §2).

The tables are anything with :meth:`Endgames.probe` (:class:`endgame.tablebase.Tablebase` is
one): the search needs their verdicts, not how they are stored.
"""

from __future__ import annotations

from typing import Protocol

import chess

from engine.search.scores import MATE
from engine.search.zobrist import zobrist_key


class Verdict(Protocol):
    """What a table says of a position, for the side to move: it wins (True), loses (False) or
    draws (None), mating or mated in ``plies`` (0 for a draw)."""

    @property
    def wins(self) -> bool | None: ...

    @property
    def plies(self) -> int: ...


class Endgames(Protocol):
    """Endgame tables as the search probes them."""

    def probe(self, board: chess.Board) -> Verdict | None:
        """The verdict on ``board``, or None where the tables do not cover it."""


def table_score(verdict: Verdict, ply: int) -> int:
    """The score of a table's verdict on a node ``ply`` plies down: a mate at its distance, or 0."""
    if verdict.wins is None:
        return 0
    distance = ply + verdict.plies
    return MATE - distance if verdict.wins else -(MATE - distance)


def past_counts(board: chess.Board) -> dict[int, int]:
    """How often each position since the last irreversible move occurred, the current one
    included."""
    counts: dict[int, int] = {}
    replay = board.copy()
    for _ in range(min(board.halfmove_clock, len(board.move_stack)) + 1):
        key = zobrist_key(replay)
        counts[key] = counts.get(key, 0) + 1
        if not replay.move_stack:
            break
        replay.pop()
    return counts
