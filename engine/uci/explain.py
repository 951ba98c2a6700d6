"""A decision's record in words (cbr-agent.md §6, search.md §5): the lines the engine sends as
``info string`` with ``Explain text`` (the default), and the tournament keeps with its moves.

The agents record what decided a move (:mod:`engine.agents.record`); this module only words it.
"""

from __future__ import annotations

from endgame.syzygy import wdl_text
from endgame.tablebase import Probe
from engine.agents.record import (
    Case,
    Chess0,
    Choice,
    Guided,
    Named,
    NoCase,
    NoMove,
    Precedent,
    Proposal,
    Pure,
    Recalled,
    Record,
    Share,
    Tables,
    Uniform,
    Verdict,
)
from engine.search.scores import is_mate_score, mate_moves, score_text
from engine.style.prior import PriorSource, share_text
from engine.uci.notes import note_text

#: Who proposes, by the prior in use.
_PROPOSER = {
    PriorSource.CASES: "casebase",
    PriorSource.MODEL: "style model",
    PriorSource.BLEND: "expert's prior",
}


def explain(record: Record) -> list[str]:
    """The record's lines for people: its notes, then how the move was decided."""
    detail = record.detail
    if isinstance(detail, Guided):
        lines = _guided(detail)
    elif isinstance(detail, Pure):
        lines = _pure(detail)
    elif isinstance(detail, Recalled):
        lines = _recalled(detail)
    elif isinstance(detail, Uniform):
        lines = [_uniform(detail)]
    elif isinstance(detail, Chess0):
        lines = [_chess0(detail)]
    elif isinstance(detail, Tables):
        lines = [_tables(detail)]
    elif isinstance(detail, NoMove):
        lines = ["no legal move" + (f" ({detail.why})" if detail.why else "")]
    else:
        lines = []
    return [*(note_text(note) for note in record.notes), *lines]


def no_case_text(no_case: NoCase) -> str:
    """Why there is no case to follow (no casebase, or none of its cases with the side to move)."""
    if no_case.expert is None:
        return "no casebase loaded"
    return f"the casebase of {no_case.expert} has no case with {no_case.side.capitalize()} to move"


def _guided(guided: Guided) -> list[str]:
    verdict, choice = guided.verdict, guided.choice
    lines = [
        _proposal_line(guided.proposal),
        _judge_line(verdict) if verdict.judge else _search_line(verdict),
    ]
    lines.append(_choice_line(guided.proposal.source, verdict, choice))
    if guided.case is not None:
        case = guided.case
        assert case.votes is not None
        lines.append(
            f"{choice.move.san} adapted from case {case.row} of {case.expert}: {case.white} -"
            f" {case.black}, {case.event}, {case.date}, move {case.move} (ply {case.ply});"
            f" similarity {case.similarity}/256; {share_text(case.votes)} of the votes from"
            f" {case.voters} of {case.cases} cases"
        )
    if guided.precedent is not None:
        lines.append(_precedent_line(guided.precedent, choice.move.san))
    return lines


def _precedent_line(precedent: Precedent, san: str) -> str:
    """The precedent in a player's words: "a position 94 % alike from White - Black, Event date,
    move 23, where the expert played Rd1"."""
    line = f"precedent: {_alike(precedent.case, precedent.alike, precedent.case_move)}"
    return line + (
        ""
        if precedent.played
        else f" (none of the {precedent.nearest} nearest played {san}: the nearest)"
    )


def _choice_line(source: PriorSource, verdict: Verdict, choice: Choice) -> str:
    searcher = "the search" if verdict.judge is None else f"judge {verdict.judge}"
    san, top, who = choice.move.san, choice.top, _PROPOSER[source]
    if top is None:
        return f"played {san}, {searcher}'s best move (no case to propose one)"
    if choice.unvetted:
        return f"played {san}, the {who}'s choice unvetted: {searcher} stopped before depth 1"
    if verdict.led:
        return _led_line(verdict, choice, who)
    if choice.reason == "search":
        return (
            f"{who} move {top.san} ({share_text(top.share)}) {_loss(verdict, choice)}; no proposed"
            f" move is sound: played {san}, {searcher}'s best move, instead"
        )
    if choice.reason in ("calibrated", "likely"):
        return _calibrated_line(choice, searcher)
    if choice.move.uci == top.uci:
        assert choice.score is not None
        return (
            f"played {san}, the {who}'s first choice ({share_text(choice.move.share)}),"
            f" sound at depth {verdict.depth} ({score_text(choice.score)})"
        )
    if choice.reason == "sample":
        return (
            f"played {san} ({share_text(choice.move.share)}), drawn by the prior among the sound"
            f" proposed moves; the {who}'s first choice was {top.san} ({share_text(top.share)})"
        )
    return (
        f"{who} move {top.san} ({share_text(top.share)}) {_loss(verdict, choice)};"
        f" played {san} ({share_text(choice.move.share)}) instead"
    )


def _calibrated_line(choice: Choice, searcher: str) -> str:
    """What the move loses, how often the expert loses that much, and the chance it was played
    with."""
    assert choice.loss is not None
    chance = next(c.share for c in choice.chances if c.uci == choice.move.uci)
    how = (
        "drawn by the error model"
        if choice.reason == "calibrated"
        else "the likeliest by the error model"
    )
    if choice.chooser is not None:
        seen = (
            f"with depths {' and '.join(map(str, choice.chooser.depths))}"
            if choice.chooser.depths
            else f"without its shallow depths, {choice.chooser.missing},"
        )
        how = (
            f"drawn by the chooser at strength {choice.chooser.strength:.2f} {seen}"
            if choice.reason == "calibrated"
            else f"the likeliest by the chooser {seen}"
        )
    line = (
        f"played {choice.move.san}, {how} ({share_text(chance)} of {len(choice.chances)} moves"
        f" {searcher} scored): it loses {100 * choice.loss:.1f} % of the expected score"
    )
    if choice.often is not None:
        line += (
            f"; {choice.expert} loses that much or more in {share_text(choice.often)} of"
            f" {choice.phase} moves"
        )
    return f"{line} ({choice.calibration})"


def _proposal_line(proposal: Proposal) -> str:
    if not proposal.prior:
        assert proposal.no_case is not None
        return f"{no_case_text(proposal.no_case)}: the search alone chooses"
    cases = ""
    if proposal.cases:
        assert proposal.similarity is not None
        best, worst = proposal.similarity
        stopped = (
            f" (stop came after {proposal.cases} of {proposal.retrieved} adaptations)"
            if proposal.cases < proposal.retrieved
            else ""
        )
        cases = (
            f"{proposal.cases} nearest cases of {proposal.expert} (similarity {best} to"
            f" {worst}/256){stopped}"
        )
    if proposal.source is PriorSource.CASES:
        return f"{cases} propose {_ranked(proposal.prior)}"
    line = f"the style model ({proposal.model}) proposes {_ranked(proposal.proposes)}"
    if proposal.case_weight > 0:
        return (
            f"{line}; {cases} vote {_ranked(proposal.votes)}, weighing"
            f" {share_text(proposal.case_weight)}: prior {_ranked(proposal.prior)}"
        )
    if proposal.cases:
        return f"{line}; {cases}: not the position itself, so they do not vote"
    return line


def _ranked(shares: list[Share], shown: int = 4) -> str:
    """``Nf3 35%, e4 20%, d4 10%, c4 8% and 12 more``: the largest shares first."""
    more = f" and {len(shares) - shown} more" if len(shares) > shown else ""
    return ", ".join(f"{s.san} {share_text(s.share)}" for s in shares[:shown]) + more


def _loss(verdict: Verdict, choice: Choice) -> str:
    """How much worse than the best the proposer's first choice is, e.g. ``loses 320 cp at depth
    4``."""
    assert verdict.score is not None
    at = f"at depth {verdict.depth}" if verdict.depth else "in the unfinished first iteration"
    score = choice.top_score
    if score is None:  # a judge stopped before it scored every proposal
        return "went unscored"
    if choice.top_exact and is_mate_score(score) and score < 0:
        return f"allows mate in {-mate_moves(score)} {at}"
    if is_mate_score(verdict.score) and verdict.score > 0:
        return f"misses {score_text(verdict.score)} {at}"
    bound = "" if choice.top_exact else "at least "
    return f"loses {bound}{verdict.score - score} cp {at}"


def _led_line(verdict: Verdict, choice: Choice, who: str) -> str:
    """What a search the network led chose, and what it changed: "the search preferred Nf3, +31 cp
    in 412 visits, to the expert's prior's Bd3 (38 %, 95 visits)"."""
    assert choice.top is not None and choice.score is not None
    san, top = choice.move.san, choice.top
    if choice.move.uci == top.uci:
        return (
            f"played {san}, the {who}'s first choice ({share_text(choice.move.share)}), the"
            f" search's too: {choice.visits} of {verdict.nodes} visits ({score_text(choice.score)})"
        )
    return (
        f"the search preferred {san}, {score_text(choice.score)} in {choice.visits} visits, to the"
        f" {who}'s {top.san} ({share_text(top.share)}, {choice.top_visits} visits): played {san}"
        f" ({share_text(choice.move.share)})"
    )


def _search_line(verdict: Verdict) -> str:
    if verdict.led:
        if verdict.score is None or verdict.best is None:
            return "search led by the network: no visit yet"
        return (
            f"search led by the network (PUCT): {verdict.nodes} visits, depth {verdict.depth}:"
            f" most visited {verdict.best.san} ({score_text(verdict.score)})"
        )
    if verdict.score is None or verdict.best is None:
        return f"search: {verdict.nodes} nodes, not enough to finish depth 1"
    line = (
        f"search depth {verdict.depth}, {verdict.nodes} nodes: best {verdict.best.san}"
        f" ({score_text(verdict.score)})"
    )
    if verdict.proposed:
        line += (
            f"; {verdict.sound} of {verdict.proposed} proposed moves sound (within"
            f" {verdict.tolerance} cp)"
        )
    return line


def _judge_line(verdict: Verdict) -> str:
    """Which engine judged, how deep and how long, its best move and how many proposals it found
    sound."""
    if verdict.score is None:
        return (
            f"judge {verdict.judge}: stopped after {verdict.seconds:.2f} s, before it scored a move"
        )
    assert verdict.best is not None
    line = (
        f"judge {verdict.judge}: depth {verdict.depth}, {verdict.seconds:.2f} s, {verdict.nodes}"
        f" nodes: best {verdict.best.san} ({score_text(verdict.score)})"
    )
    if verdict.proposed:
        line += (
            f"; it scored {verdict.scored} of {verdict.proposed} proposed moves, {verdict.sound}"
            f" sound (within {verdict.tolerance} cp)"
        )
    return line


def _adapted(played: Named, case_move: Named, tied_moves: int) -> tuple[str, str]:
    """How the move played stands to the case's move, and the draw among tied moves (empty where
    none)."""
    relation = "the case move itself" if played.uci == case_move.uci else "adapted"
    return relation, f", {tied_moves} moves tied, one drawn" if tied_moves > 1 else ""


def _alike(case: Case, alike: float, case_move: Named) -> str:
    """A case as a player reads it: "a position 94 % alike (learned similarity) from White - Black,
    ..."."""
    return (
        f"a position {alike:.0f} % alike (learned similarity) from {case.white} - {case.black},"
        f" {case.event} {case.date}, move {case.move}, where {case.expert} played {case_move.san}"
    )


def _pure(pure: Pure) -> list[str]:
    case, side = pure.case, pure.side.capitalize()
    relation, ties = _adapted(pure.played, pure.case_move, pure.tied_moves)
    return [
        f"case {case.row} of {case.expert}: {case.white} - {case.black}, {case.event},"
        f" {case.date}, move {case.move} (ply {case.ply}, {side} to move)",
        f"similarity {case.similarity}/256; {pure.tied} of {pure.count} cases with {side} to move"
        " tied at best" + (", one drawn" if pure.tied > 1 else ""),
        f"case move {pure.case_move.san}; played {pure.played.san} ({relation}, L"
        f" {pure.fit:.5f}{ties})",
    ]


def _recalled(recalled: Recalled) -> list[str]:
    """Pure mode by the learned similarity, in a player's words: the nearest precedent, then the
    vote."""
    case, side = recalled.case, recalled.side.capitalize()
    relation, ties = _adapted(recalled.played, recalled.case_move, recalled.tied_moves)
    return [
        f"{_alike(case, recalled.alike, recalled.case_move)} (case {case.row})",
        f"the {recalled.nearest} nearest of {recalled.count} cases with {side} to move voted, their"
        f" moves adapted: {recalled.played.san} ({relation}) {100 * recalled.votes:.0f} % of the"
        f" votes from {recalled.voters}{ties}",
    ]


def _uniform(uniform: Uniform) -> str:
    if uniform.no_case is None:
        return f"played {uniform.played.san}, a uniformly random legal move"
    return (
        f"{no_case_text(uniform.no_case)}: played {uniform.played.san}, drawn uniformly from"
        f" {uniform.legal} legal moves"
    )


def _chess0(chess0: Chess0) -> str:
    if chess0.best is None:
        return f"{chess0.style} style: no legal move"
    line = f"{chess0.style} style: depth {chess0.depth} of {chess0.planned}, best {chess0.best.san}"
    if chess0.score is not None:
        line += f" ({score_text(chess0.score)})"
    if chess0.drawn is not None:
        line += (
            f"; {chess0.within} move(s) within {chess0.window} cp of it: drew {chess0.drawn.san}"
            " uniformly"
        )
    return line


def _tables(tables: Tables) -> str:
    if tables.ending is None:
        return (
            f"Syzygy tables: {wdl_text(tables.wdl, tables.dtz)}; played {tables.played.san}, the"
            " best result soonest"
        )
    probe = Probe(tables.wins, tables.plies)
    return (
        f"tablebase: {probe.text()} ({tables.ending}); played {tables.played.san}, the"
        " distance-to-mate-optimal move"
    )
