"""Chess facts that the search's incremental updates (hash, material) share."""

from __future__ import annotations

import chess


def castling_rook(king_from: chess.Square, king_to: chess.Square) -> tuple[chess.Square, chess.Square]:
    """Where the rook goes from and to when the king castles from ``king_from`` to ``king_to``
    (standard chess: the king's two-square step)."""
    if king_to > king_from:
        return king_from + 3, king_from + 1
    return king_from - 4, king_from - 1
