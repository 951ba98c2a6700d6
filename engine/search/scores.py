"""Search scores: centipawns from the side to move, and mates counted in plies from the root.

A mate found ``n`` plies from the root scores ``MATE - n`` (``-(MATE - n)`` when the side to
move is mated), so shorter mates score higher; every module that reads or writes mate scores
goes through here.
"""

from __future__ import annotations

import chess.engine

MATE = 100_000
#: Scores beyond this (in absolute value) are mates.
MATE_BOUND = MATE - 1_000


def is_mate_score(score: int) -> bool:
    """Whether a score announces a forced mate (for either side)."""
    return abs(score) > MATE_BOUND


def mate_moves(score: int) -> int:
    """The mate a mate score announces, in moves: positive when the side to move mates,
    negative when it is mated (UCI's ``score mate``)."""
    if score > 0:
        return (MATE - score + 1) // 2
    return -((MATE + score) // 2)


def from_mate_moves(moves: int) -> int:
    """The score of UCI's ``score mate moves`` (inverse of :func:`mate_moves`; 0: mated now)."""
    if moves > 0:
        return MATE - (2 * moves - 1)
    return -(MATE + 2 * moves)


def to_root(score: int, ply: int) -> int:
    """A score stored relative to the node ``ply`` plies down, as seen from the root."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


def from_root(score: int, ply: int) -> int:
    """A root-relative score as stored for the node ``ply`` plies down (inverse of
    :func:`to_root`)."""
    return to_root(score, -ply)


def score_text(score: int) -> str:
    """A score for people: ``+35 cp``, ``mate in 2``, ``mated in 3``."""
    if not is_mate_score(score):
        return f"{score:+d} cp"
    moves = mate_moves(score)
    return f"mate in {moves}" if moves > 0 else f"mated in {-moves}"


def from_pov_score(score: chess.engine.Score) -> int:
    """A python-chess score (from the side to move; an outside engine's) on this scale."""
    mate = score.mate()
    if mate is None:
        value = score.score()
        assert value is not None
        return value
    return from_mate_moves(mate)
