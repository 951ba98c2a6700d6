"""Guided mode's choice by the chooser (issue #40; search.md, "The chooser"): with ``Selection
likely`` or ``calibrated`` and a judge, the chance of each judged move under the chooser's
conditional logit at a strength (1 for ``likely``; ``calibrated``'s the error model's,
:meth:`Chooser.strength_of`) (:mod:`engine.strength.chooser`), from what the agent has: the board
and the opponent's last move, the judge's scores, the prior and the cases' vote, and the candidates'
scores at the shallow depths from the judge itself (:mod:`engine.outside.shallow`), which get at
most :data:`SHALLOW_SHARE` of what is left of the move's time. Where they are not done (stop, no
time, the judge's fault) their features are 0 and the record says why; with one candidate alone they
are not searched (its chance is 1).
"""

from __future__ import annotations

import threading

import chess

from engine.agents.record import ByChooser, Note
from engine.outside.judge import Judge, JudgeError
from engine.outside.shallow import Unscored, shallow_scores
from engine.search.result import SearchResult
from engine.strength.calibration import judged_candidates
from engine.strength.chooser import Chooser
from engine.strength.chooser_features import SHALLOW_DEPTHS, features
from engine.style.prior import Proposal

#: The share of what is left of the move's time (after the judge's searches) the shallow searches
#: may take: the rest is the margin of the move's own work and the round trips.
SHALLOW_SHARE = 0.5


def chooser_chances(
    chooser: Chooser,
    judge: Judge,
    board: chess.Board,
    proposal: Proposal,
    result: SearchResult,
    seconds: float | None,
    stop: threading.Event | None,
    strength: float = 1.0,
) -> tuple[dict[chess.Move, float], ByChooser, list[Note]]:
    """The chooser's chance at ``strength`` of each move ``judge`` scored exactly in ``result`` (the
    moves the error model chooses among), with ``seconds`` left of the move (None: no clock) and
    ``stop``; what the record says of it, and what became of the judge if it failed in the shallow
    searches."""
    moves, scores, prior = judged_candidates(proposal, result)
    if not moves:
        return {}, ByChooser([], "no move was scored exactly", strength), []
    notes: list[Note] = []
    missing = None
    if len(moves) == 1:  # every column cancels in the softmax: nothing to search for
        return {moves[0]: 1.0}, ByChooser([], "one move was scored exactly", strength), []
    try:
        shallow = shallow_scores(
            judge,
            board,
            moves,
            SHALLOW_DEPTHS,
            None if seconds is None else SHALLOW_SHARE * seconds,
            stop,
        )
    except Unscored as exc:
        shallow, missing = {}, str(exc)
    except JudgeError as exc:
        shallow, missing = {}, "the judge failed"
        notes.append(judge.fault(str(exc)))
    last = board.move_stack[-1] if board.move_stack else None
    matrix, _ = features(
        board, last, moves, scores, prior, [proposal.votes.get(m, 0.0) for m in moves], shallow
    )
    chances = chooser.probabilities(matrix, strength)
    return (
        dict(zip(moves, chances.tolist(), strict=True)),
        ByChooser(sorted(shallow), missing, strength),
        notes,
    )
