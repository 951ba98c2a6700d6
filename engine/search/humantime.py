"""A person's pace (option ``HumanTime``, usage.md and web.md): how long to take over a move that is
already chosen, so that a person across the board does not read the engine as a bot.

On a clock the time for a move is ``remaining / movestogo + increment`` (30 moves to go when the GUI
does not say), scaled by the position: a tenth for the only legal move, a fifth for a recapture, a
quarter for the expert's own move in this very position (a case of theirs), else from half in a
quiet position to twice in a sharp one (many captures and checks on the board, and several moves the
judge scores within 30 cp of its best). The last seconds are never spent: at most a third of what
remains, and never the last :data:`RESERVE_MS`. Only a clock is followed: a ``go`` without one, or
with ``depth``, ``nodes``, ``mate``, ``movetime``, ``infinite`` or ``ponder``, adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import chess

from engine.search.limits import DEFAULT_MOVES_TO_GO, SearchLimits, on_clock

#: The clock time never spent on a pace: a person keeps some seconds for the moves to come.
RESERVE_MS = 10_000
#: The scales of a move's time for the quick kinds of move.
ONLY_MOVE, RECAPTURE, KNOWN = 0.1, 0.2, 0.25
#: A quiet position's scale, and what a fully tense position and fully close scores add to it.
QUIET, TENSION, CLOSENESS = 0.5, 1.0, 0.5
#: Captures and checks among the legal moves that make a position fully tense.
TENSE_MOVES = 8
#: Scores this close to the best (centipawns) make a hard choice; this many such other moves, a
#: fully hard one.
CLOSE_CP, CLOSE_MOVES = 30, 3


class Kind(StrEnum):
    """Why a move takes the time it takes."""

    ONLY = "the only move"
    RECAPTURE = "a recapture"
    KNOWN = "the expert's own move here"
    POSITION = "the position"


@dataclass(frozen=True)
class Pace:
    """The seconds a person would take over the move from the ``go`` on (0: no clock), its ``kind``
    and the ``scale`` of the clock's time for a move."""

    seconds: float
    kind: Kind
    scale: float


def human_pace(
    limits: SearchLimits,
    board: chess.Board,
    move: chess.Move,
    *,
    known: bool = False,
    scores: Sequence[int] = (),
) -> Pace:
    """How long a person at this clock takes over ``move`` on ``board``: ``known`` when it is the
    expert's own move in this very position, ``scores`` the exact scores of the moves judged (the
    side to move's)."""
    kind, scale = position_scale(board, move, known, scores)
    clock = on_clock(limits, board.turn)
    if clock is None:  # a go that says more than the clock: a test's, a quick game's
        return Pace(0.0, kind, scale)
    remaining, increment = clock
    per_move = remaining / (limits.movestogo or DEFAULT_MOVES_TO_GO) + increment
    ceiling = min(remaining / 3, remaining - RESERVE_MS) - limits.overhead
    return Pace(max(min(per_move * scale, ceiling), 0.0) / 1000, kind, scale)


def position_scale(
    board: chess.Board, move: chess.Move, known: bool, scores: Sequence[int]
) -> tuple[Kind, float]:
    """The kind of ``move`` and the scale of the clock's time it takes (see the module)."""
    if board.legal_moves.count() == 1:
        return Kind.ONLY, ONLY_MOVE
    if recaptures(board, move):
        return Kind.RECAPTURE, RECAPTURE
    if known:
        return Kind.KNOWN, KNOWN
    tense = sum(1 for m in board.legal_moves if board.is_capture(m) or board.gives_check(m))
    best = max(scores, default=0)
    close = sum(1 for s in scores if best - s <= CLOSE_CP) - 1 if scores else 0
    return Kind.POSITION, QUIET + TENSION * min(tense / TENSE_MOVES, 1) + CLOSENESS * min(
        close / CLOSE_MOVES, 1
    )


def recaptures(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` takes back on the square where the last move captured."""
    if (
        not board.move_stack
        or not board.is_capture(move)
        or board.move_stack[-1].to_square != move.to_square
    ):
        return False
    before = board.copy(stack=1)  # the last move is all it looks back at
    last = before.pop()
    return before.is_capture(last)
