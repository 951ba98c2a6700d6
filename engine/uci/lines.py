"""UCI text made from the engine's values: option declarations, scores, iteration info lines."""

from __future__ import annotations

from engine.agents.modes import Option, OptionValue
from engine.search.result import SearchResult
from engine.search.scores import is_mate_score, mate_moves


def declaration(option: Option, value: OptionValue) -> str:
    """The ``option name ... type ...`` line of ``option``, announcing ``value`` (the value in force)."""
    shown = str(value).lower() if option.kind == "check" else value
    line = f"option name {option.name} type {option.kind} default {shown if shown != '' else '<empty>'}"
    if option.kind == "spin":
        line += f" min {option.minimum} max {option.maximum}"
    return line + "".join(f" var {choice}" for choice in option.choices)


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
