"""A decision's record as one JSON ``info string`` (option ``Explain json``; the schema, version
:data:`~engine.agents.record.VERSION`, is docs/explain.md): ``info string json {...}``, one line
under :data:`MAX_LINE` bytes, as every line the engine sends."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import chess

from common.text import ECHO_LIMIT, clip
from engine.agents.base import Decision
from engine.agents.record import (
    VERSION,
    EngineLine,
    ListedMovesIllegal,
    NoAgent,
    NoMove,
    Note,
    OtherJudge,
    SpeedProfile,
    TablesProblem,
)
from engine.outside.judge import JudgeNote
from engine.search.scores import is_mate_score, mate_moves
from engine.uci.notes import note_text

#: The longest line the engine sends, in bytes (``info string json`` and its record included).
MAX_LINE = 4096
#: How many moves of each ranked list the line first tries to hold; fewer until it fits.
SHOWN = (16, 8, 4, 2, 1, 0)
#: The record's fields that hold a score on the search's scale, written as ``{"cp": N}`` or
#: ``{"mate": N}``.
_SCORES = {"score", "top_score"}
#: The record's ranked lists of moves, written as ``{"moves": [...], "total": N}``.
_RANKED = {"prior", "proposes", "votes", "chances"}
#: The texts that may run longer than :data:`~common.text.ECHO_LIMIT` characters, and how long:
#: where the error model came from is a sentence of its sources (a profile, its play-time record, a
#: speed), cut mid-word at 200, which the web page's parameters and the PGN's first comment showed
#: cut.
_LONG_TEXTS = {"calibration": 600}
#: The name of each kind of record in the JSON object.
_KINDS: dict[type, str] = {NoMove: "no_move"}
#: The name of each kind of note.
_NOTES: dict[type, str] = {
    ListedMovesIllegal: "listed_moves_illegal",
    NoAgent: "no_agent",
    JudgeNote: "judge",
    OtherJudge: "other_judge",
    TablesProblem: "tables",
    EngineLine: "engine_line",
    SpeedProfile: "speed",
}


def record_string(decision: Decision, board: chess.Board) -> str:
    """``json {...}``: the record of ``decision`` (chosen on ``board``), its ranked lists cut to fit
    the line (each says its ``total``), every text clipped to 200 characters (``calibration`` to
    600)."""
    for shown in SHOWN:
        text = "json " + json.dumps(
            record_json(decision, board, shown), ensure_ascii=False, separators=(",", ":")
        )
        if len(f"info string {text}".encode()) < MAX_LINE:
            return text
    # only notes beyond count can be too long now: the line keeps how many there were
    notes = len(decision.record.notes)
    trimmed = dataclasses.replace(decision, record=dataclasses.replace(decision.record, notes=[]))
    return "json " + json.dumps(
        record_json(trimmed, board, 0) | {"notes_left_out": notes},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def record_json(decision: Decision, board: chess.Board, shown: int = SHOWN[0]) -> dict[str, Any]:
    """The record as a JSON object: the version, the move played (UCI and SAN), the reason, the
    notes, and the way it was decided under its kind's name (``guided``, ``pure``...)."""
    move = (
        None
        if decision.move is None
        else {"uci": decision.move.uci(), "san": board.san(decision.move)}
    )
    out: dict[str, Any] = {
        "version": VERSION,
        "move": move,
        "reason": decision.reason.value,
        "notes": [_note(note) for note in decision.record.notes],
    }
    detail = decision.record.detail
    if detail is not None:
        out[_KINDS.get(type(detail), type(detail).__name__.lower())] = _value(detail, shown)
    return out


def _note(note: Note) -> dict[str, Any]:
    """A note as its kind, its fields and its words (``text``: what the English lines say)."""
    return {"kind": _NOTES[type(note)], **_value(note, 0), "text": clip(note_text(note))}


def _value(value: Any, shown: int, name: str = "") -> Any:
    if name in _SCORES and isinstance(value, int):
        return {"mate": mate_moves(value)} if is_mate_score(value) else {"cp": value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _value(getattr(value, f.name), shown, f.name) for f in dataclasses.fields(value)
        }
    if name in _RANKED and isinstance(value, list):
        return {"moves": [_value(s, shown) for s in value[:shown]], "total": len(value)}
    if isinstance(value, list | tuple):
        return [_value(v, shown) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, str):
        return clip(value, _LONG_TEXTS.get(name, ECHO_LIMIT))
    return value
