"""Casebases the tests read: the expert the builder's tests select, and a casebase's cases as
plain tuples."""

from __future__ import annotations

from casebase.format import Casebase
from casebase.games import GameFilter

CARLSEN = GameFilter("Magnus Carlsen")


def cases(casebase: Casebase) -> list[tuple[str, str, int, int]]:
    """(FEN pieces before the move, UCI move, game row, ply) of every case."""
    return [
        (
            casebase.board(i).board_fen(),
            casebase.move(i).uci(),
            int(casebase.game[i]),
            int(casebase.ply[i]),
        )
        for i in range(len(casebase))
    ]
