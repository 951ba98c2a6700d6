"""Guided mode's record of a move (docs/explain.md; search.md §5): the proposal, the verdict of
the search or the judge, the choice and the case, read off what the agent decided from.

The agent decides; this module only records what it decided from. The UCI layer words the
record (:mod:`engine.uci.explain`) and sends it as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Protocol

import chess

from casebase.format import Casebase
from engine.agents.base import Reason
from engine.agents.record import (
    ByChooser,
    Case,
    Choice,
    Guided,
    Named,
    NoCase,
    Precedent,
    Proposal,
    Verdict,
    ranked,
    share_of,
)
from engine.search.result import SearchResult
from engine.strength.calibration import Calibration
from engine.strength.errormodel import expected_score
from engine.style import prior as priors
from engine.style.loader import PriorModel


class GuidedView(Protocol):
    """What the record of a guided move reads of its agent."""

    casebase: Casebase | None
    prior_source: priors.PriorSource
    model: PriorModel | None
    tolerance: int
    judge_tolerance: int
    calibration: Calibration | None

    def no_case(self, colour: chess.Color) -> NoCase: ...


def guided_record(
    agent: GuidedView,
    board: chess.Board,
    proposal: priors.Proposal,
    result: SearchResult,
    move: chess.Move,
    why: Reason,
    judge: str | None,
    chances: Mapping[chess.Move, float] | None = None,
    chooser: ByChooser | None = None,
    cited: Precedent | None = None,
) -> Guided:
    """search.md §5; ``why`` is what decided the move, ``judge`` names the outside engine that
    judged, if one did, and ``chances`` are the chances the move was chosen with (``Selection
    calibrated``, ``likely``): the error model's, or the chooser's where it chose (``chooser``);
    ``cited``, the precedent the agent found by the learned similarity."""
    case = None
    if move in proposal.source:
        assert agent.casebase is not None
        row, sim = proposal.source[move]
        case = Case.of(
            agent.casebase,
            row,
            sim,
            votes=proposal.votes[move],
            voters=proposal.count[move],
            cases=proposal.cases,
        )
    return Guided(
        _proposal(agent, board, proposal),
        _verdict(agent, board, proposal, result, judge),
        _choice(agent.calibration, board, proposal, result, move, why, chances or {}, chooser),
        case,
        cited,
    )


def _proposal(agent: GuidedView, board: chess.Board, proposal: priors.Proposal) -> Proposal:
    expert = None if agent.casebase is None else agent.casebase.expert
    model = agent.model if agent.prior_source.uses_model else None
    return Proposal(
        source=agent.prior_source,
        prior=ranked(board, proposal.prior),
        model=None if model is None else model.describe(),
        model_sha256=None if model is None else model.weights_sha256,
        proposes=ranked(board, proposal.model),
        votes=ranked(board, proposal.votes),
        case_weight=proposal.case_weight,
        expert=expert,
        cases=proposal.cases,
        retrieved=proposal.retrieved,
        similarity=proposal.sims if proposal.cases else None,
        no_case=None if proposal.prior else agent.no_case(board.turn),
    )


def _verdict(
    agent: GuidedView,
    board: chess.Board,
    proposal: priors.Proposal,
    result: SearchResult,
    judge: str | None,
) -> Verdict:
    sound = result.sound() if result.score is not None else []
    return Verdict(
        judge=judge,
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
        best=None if result.move is None else Named.of(board, result.move),
        score=result.score,
        proposed=len(proposal.prior),
        scored=sum(m in result.scores for m in proposal.prior),
        sound=sum(m in proposal.prior for m in sound),
        tolerance=agent.tolerance if judge is None else agent.judge_tolerance,
        led=bool(result.visits),
    )


def _choice(
    calibration: Calibration | None,
    board: chess.Board,
    proposal: priors.Proposal,
    result: SearchResult,
    move: chess.Move,
    why: Reason,
    chances: Mapping[chess.Move, float],
    chooser: ByChooser | None,
) -> Choice:
    top = proposal.top()
    scored = result.scores.get(top) if top is not None else None
    own = result.scores.get(move)
    choice = Choice(
        reason=why.value,
        move=share_of(board, move, proposal.prior),
        top=None if top is None else share_of(board, top, proposal.prior),
        top_score=None if scored is None else scored.score,
        top_exact=scored is None or scored.exact,
        score=None if own is None else own.score,
        unvetted=result.score is None,
        chances=ranked(board, chances),
        chooser=chooser,
        visits=result.visits.get(move) if result.visits else None,
        top_visits=result.visits.get(top, 0) if result.visits and top is not None else None,
    )
    if why not in (Reason.CALIBRATED, Reason.LIKELY) or result.score is None or own is None:
        return choice
    assert calibration is not None
    loss = max(float(expected_score(result.score) - expected_score(own.score)), 0.0)
    often = calibration.how_often(loss, board)
    phase, share = often if often is not None else (None, None)
    return replace(
        choice,
        loss=loss,
        expert=calibration.expert,
        phase=phase,
        often=share,
        calibration=calibration.source,
        speed=calibration.speed,
        speed_profile=calibration.speed_profile,
    )
