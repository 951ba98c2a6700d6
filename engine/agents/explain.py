"""The explanations of the agents' moves: lines a person can read (cbr-agent.md §6, search.md §5).

The agents decide; this module only words what they decided. The UCI layer sends each line
as an ``info string``; the tournament keeps them in the PGN's comments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import chess

from casebase.format import Casebase
from engine.agents.base import Reason
from engine.cbr.retrieval import CaseIndex
from engine.search.result import SearchResult
from engine.search.scores import is_mate_score, mate_moves, score_text
from engine.style.calibration import Calibration
from engine.style.errormodel import expected_score
from engine.style.model import StyleModel
from engine.style.prior import PriorSource, Proposal, share_text


class GuidedView(Protocol):
    """What the explanation of a guided move reads of its agent."""

    casebase: Casebase | None
    prior_source: PriorSource
    model: StyleModel | None
    tolerance: int
    judge_tolerance: int
    calibration: Calibration | None

    def no_case_reason(self, colour: chess.Color) -> str: ...


def explain_guided(
    agent: GuidedView, board: chess.Board, proposal: Proposal, result: SearchResult, move: chess.Move, why: Reason,
    judge: str | None, chances: Mapping[chess.Move, float] | None = None,
) -> list[str]:
    """search.md §5; ``why`` is what decided the move, ``judge`` names the outside engine that
    judged, if one did, and ``chances`` are the calibrated chances the move was chosen with
    (``Selection calibrated``, ``likely``)."""
    lines = [_proposal_line(agent, board, proposal)]
    if judge is not None:
        lines.append(_judge_line(board, result, proposal, agent.judge_tolerance, judge))
    else:
        lines.append(_search_line(board, result, proposal, agent.tolerance))
    searcher = "the search" if judge is None else f"judge {judge}"
    san = board.san(move)
    top = proposal.top()
    share = proposal.prior.get(move, 0.0)
    who = _PROPOSER[agent.prior_source]
    if top is None:
        lines.append(f"played {san}, {searcher}'s best move (no case to propose one)")
    elif result.score is None:
        lines.append(f"played {san}, the {who}'s choice unvetted: {searcher} stopped before depth 1")
    elif why is Reason.SEARCH:
        lines.append(
            f"{who} move {board.san(top)} ({share_text(proposal.prior[top])})"
            f" {_loss(result, top)}; no proposed move is sound: played {san},"
            f" {searcher}'s best move, instead"
        )
    elif why in (Reason.CALIBRATED, Reason.LIKELY):
        assert agent.calibration is not None and chances is not None
        lines.append(_calibrated_line(agent.calibration, board, chances, result, move, why, searcher))
    elif move == top:
        lines.append(
            f"played {san}, the {who}'s first choice ({share_text(share)}),"
            f" sound at depth {result.depth} ({score_text(result.scores[move].score)})"
        )
    elif why is Reason.SAMPLE:
        lines.append(
            f"played {san} ({share_text(share)}), drawn by the prior among the sound proposed moves;"
            f" the {who}'s first choice was {board.san(top)} ({share_text(proposal.prior[top])})"
        )
    else:
        lines.append(
            f"{who} move {board.san(top)} ({share_text(proposal.prior[top])}) {_loss(result, top)};"
            f" played {san} ({share_text(share)}) instead"
        )
    if move in proposal.source:
        lines.append(_case_line(agent, board, move, proposal))
    return lines

def _calibrated_line(calibration: Calibration, board: chess.Board, chances: Mapping[chess.Move, float],
                     result: SearchResult, move: chess.Move, why: Reason, searcher: str) -> str:
    """What the move loses, how often the expert loses that much, and the chance it was played with."""
    assert result.score is not None
    loss = float(expected_score(result.score) - expected_score(result.scores[move].score))
    how = "drawn" if why is Reason.CALIBRATED else "the likeliest"
    line = (f"played {board.san(move)}, {how} by the error model ({share_text(chances[move])} of"
            f" {len(chances)} moves {searcher} scored): it loses {100 * max(loss, 0):.1f} % of the expected score")
    often = calibration.how_often(max(loss, 0.0), board, board.ply())
    if often is not None:
        line += f"; {calibration.expert} loses that much or more in {share_text(often[1])} of {often[0]} moves"
    return f"{line} ({calibration.source})"


def _proposal_line(agent: GuidedView, board: chess.Board, proposal: Proposal) -> str:
    if not proposal.prior:
        return f"{agent.no_case_reason(board.turn)}: the search alone chooses"
    cases = ""
    if proposal.cases:
        assert agent.casebase is not None
        best, worst = proposal.sims
        stopped = (
            f" (stop came after {proposal.cases} of {proposal.retrieved} adaptations)"
            if proposal.cases < proposal.retrieved
            else ""
        )
        cases = (f"{proposal.cases} nearest cases of {agent.casebase.expert} (similarity {best} to"
                 f" {worst}/256){stopped}")
    if agent.prior_source is PriorSource.CASES:
        return f"{cases} propose {_ranked(board, proposal.prior)}"
    assert agent.model is not None
    line = f"the style model ({agent.model.describe()}) proposes {_ranked(board, proposal.model)}"
    if proposal.case_weight > 0:
        return (f"{line}; {cases} vote {_ranked(board, proposal.votes)}, weighing"
                f" {share_text(proposal.case_weight)}: prior {_ranked(board, proposal.prior)}")
    if proposal.cases:
        return f"{line}; {cases}: not the position itself, so they do not vote"
    return line

def _case_line(agent: GuidedView, board: chess.Board, move: chess.Move, proposal: Proposal) -> str:
    assert agent.casebase is not None
    row, sim = proposal.source[move]
    src = agent.casebase.source(row)
    return (
        f"{board.san(move)} adapted from case {row} of {agent.casebase.expert}:"
        f" {src.white} - {src.black}, {src.event},"
        f" {src.date}, move {src.move_number} (ply {src.ply}); similarity {sim}/256;"
        f" {share_text(proposal.votes[move])} of the votes from {proposal.count[move]}"
        f" of {proposal.cases} cases"
    )


#: Who proposes, by the prior in use (for the explanations).
_PROPOSER = {PriorSource.CASES: "casebase", PriorSource.MODEL: "style model", PriorSource.BLEND: "expert's prior"}


def _ranked(board: chess.Board, shares: dict[chess.Move, float], shown: int = 4) -> str:
    """``Nf3 35%, e4 20%, d4 10%, c4 8% and 12 more``: the largest shares first."""
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    more = f" and {len(ranked) - shown} more" if len(ranked) > shown else ""
    return ", ".join(f"{board.san(m)} {share_text(p)}" for m, p in ranked[:shown]) + more



def _loss(result: SearchResult, move: chess.Move) -> str:
    """How much worse than the best ``move`` is, e.g. ``loses 320 cp at depth 4``."""
    assert result.score is not None
    at = f"at depth {result.depth}" if result.depth else "in the unfinished first iteration"
    score = result.scores.get(move)
    if score is None:  # a judge stopped before it scored every proposal
        return "went unscored"
    if score.exact and is_mate_score(score.score) and score.score < 0:
        return f"allows mate in {-mate_moves(score.score)} {at}"
    if is_mate_score(result.score) and result.score > 0:
        return f"misses {score_text(result.score)} {at}"
    bound = "" if score.exact else "at least "
    return f"loses {bound}{result.score - score.score} cp {at}"


def _search_line(board: chess.Board, result: SearchResult, proposal: Proposal, tolerance: int) -> str:
    if result.score is None or result.move is None:
        return f"search: {result.nodes} nodes, not enough to finish depth 1"
    line = (
        f"search depth {result.depth}, {result.nodes} nodes: best {board.san(result.move)}"
        f" ({score_text(result.score)})"
    )
    if proposal.prior:
        sound = sum(m in proposal.prior for m in result.sound())
        line += f"; {sound} of {len(proposal.prior)} proposed moves sound (within {tolerance} cp)"
    return line


def _judge_line(board: chess.Board, result: SearchResult, proposal: Proposal, tolerance: int, name: str) -> str:
    """Which engine judged, how deep and how long, its best move and how many proposals it found sound."""
    if result.score is None:
        return f"judge {name}: stopped after {result.seconds:.2f} s, before it scored a move"
    assert result.move is not None
    line = (f"judge {name}: depth {result.depth}, {result.seconds:.2f} s, {result.nodes} nodes:"
            f" best {board.san(result.move)} ({score_text(result.score)})")
    if proposal.prior:
        scored = sum(m in result.scores for m in proposal.prior)
        sound = sum(m in proposal.prior for m in result.sound())
        line += (f"; it scored {scored} of {len(proposal.prior)} proposed moves, {sound} sound"
                 f" (within {tolerance} cp)")
    return line


def pure_case_lines(casebase: Casebase, index: CaseIndex, case: int, colour: chess.Color, sim: int, tied: int) -> list[str]:
    src = casebase.source(case)
    side = chess.COLOR_NAMES[colour].capitalize()
    return [
        f"case {case} of {casebase.expert}: {src.white} - {src.black}, {src.event},"
        f" {src.date}, move {src.move_number} (ply {src.ply}, {side} to move)",
        f"similarity {sim}/256; {tied} of {index.count(colour)} cases with {side} to move"
        " tied at best" + (", one drawn" if tied > 1 else ""),
    ]


def adaptation_line(
    case_move: chess.Move,
    case_board: chess.Board,
    board: chess.Board,
    move: chess.Move,
    score: float,
    tied: int,
) -> str:
    ties = f", {tied} moves tied, one drawn" if tied > 1 else ""
    relation = "the case move itself" if move == case_move else "adapted"
    return (
        f"case move {_san(case_board, case_move)}; played {board.san(move)}"
        f" ({relation}, L {score:.5f}{ties})"
    )


def _san(board: chess.Board, move: chess.Move) -> str:
    """SAN when python-chess can write it, else UCI: a case board lacks castling and en-passant rights."""
    try:
        return board.san(move)
    except (ValueError, AssertionError):
        return move.uci()
