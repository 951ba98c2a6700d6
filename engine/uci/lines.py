"""UCI text made from the engine's values: option declarations, scores, iteration info lines."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import chess

from engine.agents.options import Option, OptionValue
from engine.search.result import SearchResult
from engine.search.scores import is_mate_score, mate_moves, score_text
from engine.style.prior import share_text

if TYPE_CHECKING:
    from engine.agents.base import Candidate, Decision  # numpy: not before uciok


#: The longest value in force an option's declaration announces; a longer one (a user's echo
#: without bound) is declared by the option's own default instead, keeping lines short.
MAX_DECLARED = 1000


def declaration(option: Option, value: OptionValue) -> str:
    """The ``option name ... type ...`` line of ``option``, announcing ``value`` (the value in
    force)."""
    if len(str(value)) > MAX_DECLARED:
        value = option.default
    shown = str(value).lower() if option.kind == "check" else value
    line = (
        f"option name {option.name} type {option.kind} default"
        f" {shown if shown != '' else '<empty>'}"
    )
    if option.kind == "spin":
        line += f" min {option.minimum} max {option.maximum}"
    return line + "".join(f" var {choice}" for choice in option.choices)


def decision_info(decision: Decision, ms: int, *, wdl: bool = False) -> str:
    """The last ``info`` line before ``bestmove``, what match runners and bots record: the depth,
    nodes, time and score behind the chosen move (a bound marked) and the line from it on."""
    assert decision.move is not None and decision.score is not None
    bound = " upperbound" if decision.upper_bound else ""
    shown = f" wdl {wdl_text(decision.score)}" if wdl else ""
    nps = decision.nodes * 1000 // ms if ms > 0 else 0
    pv = " ".join(move.uci() for move in decision.pv or [decision.move])
    return (
        f"info depth {decision.depth} seldepth {decision.seldepth} score"
        f" {uci_score(decision.score)}{bound}{shown} nodes {decision.nodes} nps {nps} time {ms} pv"
        f" {pv}"
    )


#: The rough model behind ``wdl`` (UCI_ShowWDL): the expected score's logistic in centipawns
#: (Lichess's slope), with draws most likely near equality (their share falls off as 1/cosh).
_WDL_SLOPE = 0.00368208
_DRAW_SCALE = 300.0


def wdl_text(score: int) -> str:
    """``W D L`` in per mille for the side to move, from a score on the search's scale."""
    if is_mate_score(score):
        return "1000 0 0" if score > 0 else "0 0 1000"
    expected = 1 / (1 + math.exp(-_WDL_SLOPE * score))
    draw = 0.5 / math.cosh(score / _DRAW_SCALE) * min(expected, 1 - expected) * 2
    win = expected - draw / 2
    w, d = round(1000 * win), round(1000 * draw)
    return f"{w} {d} {1000 - w - d}"


def uci_score(score: int) -> str:
    """A score as a UCI ``info`` payload: ``cp X`` or ``mate M`` (in moves, negative when mated)."""
    return f"mate {mate_moves(score)}" if is_mate_score(score) else f"cp {score}"


def iteration_info(result: SearchResult, *, wdl: bool = False) -> str:
    """The ``info`` line of one finished search iteration (with ``wdl``: UCI_ShowWDL's)."""
    assert result.score is not None
    ms = max(int(result.seconds * 1000), 0)
    nps = int(result.nodes / result.seconds) if result.seconds > 0 else 0
    pv = " ".join(move.uci() for move in result.pv)
    shown = f" wdl {wdl_text(result.score)}" if wdl else ""
    return (
        f"info depth {result.depth} seldepth {result.seldepth} score"
        f" {uci_score(result.score)}{shown} nodes {result.nodes} nps {nps} time {ms} pv {pv}"
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
