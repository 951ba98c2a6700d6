"""The record's scores (docs/explain.md: ``{"cp": N}`` or ``{"mate": M}``, for the side to move) as
numbers to compare, and as a person says them."""

from __future__ import annotations

#: A mate, in centipawns for comparisons: beyond any evaluation (a quicker mate counts more).
MATE_CP = 100_000


def centipawns(score: dict[str, int] | None) -> int | None:
    """A record's score as centipawns, mates beyond :data:`MATE_CP` (None: no score)."""
    if score is None:
        return None
    if "mate" in score:
        return (
            MATE_CP + 1000 - score["mate"] if score["mate"] > 0 else -MATE_CP - 1000 - score["mate"]
        )
    return int(score["cp"])


def pawns(score: int) -> str:
    """Centipawns as a person says them: ``+1.2``, ``-0.3``, ``mate``, ``mated``."""
    if abs(score) >= MATE_CP:
        return "mate" if score > 0 else "mated"
    return f"{score / 100:+.1f}"
