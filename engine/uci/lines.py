"""UCI text made from the engine's values: option declarations, scores, iteration info lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from engine.agents.options import Option, OptionValue
from engine.search.result import SearchResult
from engine.search.scores import is_mate_score, mate_moves, score_text
from engine.style.prior import share_text

if TYPE_CHECKING:
    from engine.agents.base import Candidate, Decision  # numpy: not before uciok


def declaration(option: Option, value: OptionValue) -> str:
    """The ``option name ... type ...`` line of ``option``, announcing ``value`` (the value in force)."""
    shown = str(value).lower() if option.kind == "check" else value
    line = f"option name {option.name} type {option.kind} default {shown if shown != '' else '<empty>'}"
    if option.kind == "spin":
        line += f" min {option.minimum} max {option.maximum}"
    return line + "".join(f" var {choice}" for choice in option.choices)


def decision_info(decision: Decision, ms: int) -> str:
    """The ``info`` line of the move an agent chose: its time, its score where known, and the move."""
    assert decision.move is not None
    score = "" if decision.score_cp is None else f" score cp {decision.score_cp}"
    if decision.mate is not None:
        score = f" score mate {decision.mate}"
    return f"info time {ms}{score} pv {decision.move.uci()}"


def uci_score(score: int) -> str:
    """A score as a UCI ``info`` payload: ``cp X`` or ``mate M`` (in moves, negative when mated)."""
    return f"mate {mate_moves(score)}" if is_mate_score(score) else f"cp {score}"


def iteration_info(result: SearchResult) -> str:
    """The ``info`` line of one finished search iteration."""
    assert result.score is not None
    ms = max(int(result.seconds * 1000), 0)
    nps = int(result.nodes / result.seconds) if result.seconds > 0 else 0
    pv = " ".join(move.uci() for move in result.pv)
    return (
        f"info depth {result.depth} seldepth {result.seldepth} score {uci_score(result.score)}"
        f" nodes {result.nodes} nps {nps} time {ms} pv {pv}"
    )


def multipv_info(rank: int, candidate: Candidate, ms: int) -> str:
    """The ``info multipv`` line of the expert's ``rank``-th most likely move (search.md §8)."""
    score = ""
    if candidate.score is not None:
        score = f" score {uci_score(candidate.score)}" + ("" if candidate.exact else " upperbound")
    return f"info multipv {rank} depth {candidate.depth}{score} time {ms} pv {candidate.move.uci()}"


def multipv_string(board: chess.Board, rank: int, candidate: Candidate) -> str:
    """The same line for people: ``line 2: c5, 38% of the prior, at most -60 cp at depth 3``."""
    line = f"line {rank}: {board.san(candidate.move)}, {share_text(candidate.share)} of the prior"
    if candidate.score is None:
        return line + ", not scored"
    bound = "" if candidate.exact else "at most "
    return line + f", {bound}{score_text(candidate.score)} at depth {candidate.depth}"
