"""Option Explain (docs/explain.md): the record in words, also as one JSON line (its schema's
version, under 4 KB whatever the record holds), or not at all."""

from __future__ import annotations

import io
import json

import chess
from uci_helpers import ROOT

from engine.agents.base import Decision, Reason
from engine.agents.record import (
    VERSION,
    Case,
    Choice,
    Guided,
    ListedMovesIllegal,
    Named,
    Proposal,
    Record,
    Share,
    TablesProblem,
    Uniform,
    Verdict,
)
from engine.outside.judge import JudgeEvent, JudgeNote
from engine.style.prior import PriorSource
from engine.uci.explain import explain
from engine.uci.protocol import UciEngine
from engine.uci.record_json import MAX_LINE, record_string


def session(commands: list[str], **defaults: str) -> list[str]:
    out = io.StringIO()
    assert UciEngine(defaults, out=out).run(commands) == 0
    return out.getvalue().splitlines()


def records(lines: list[str]) -> list[dict]:
    return [
        json.loads(line.removeprefix("info string json "))
        for line in lines
        if line.startswith("info string json ")
    ]


CHESS0 = dict(Casebase="", Mode="chess0", Depth="1", Seed="7")
WORDS = "info string classic style: depth 1 of 1"


def test_text_by_default_json_beside_it_or_nothing():
    text = session(["go depth 1"], **CHESS0)
    assert any(line.startswith(WORDS) for line in text) and not records(text)
    both = session(["setoption name Explain value json", "go depth 1"], **CHESS0)
    (record,) = records(both)
    assert record["version"] == VERSION == 1 and record["reason"] == "search"
    assert record["move"]["uci"] == both[-1].split()[1] and record["chess0"]["style"] == "classic"
    at = both.index(next(line for line in both if line.startswith("info string json ")))
    assert both[at + 1].startswith(WORDS)  # the record first, then its words
    off = session(
        ["setoption name Explain value off", "setoption name MultiPV value 3", "go depth 1"],
        **CHESS0,
    )
    notices = [
        line for line in text if line.startswith("info string") and not line.startswith(WORDS)
    ]
    # the set-up's notices alone
    assert [line for line in off if line.startswith("info string")] == notices
    assert any(line.startswith("info depth 1 ") and " pv " in line for line in off) and off[
        -1
    ].startswith("bestmove")
    assert "info string Explain takes one of text, json, off, not 'loud'; ignored" in session(
        ["setoption name Explain value loud"], **CHESS0
    )


def test_a_guided_record_holds_the_proposal_the_verdict_the_choice_and_its_words(
    kosteniuk_casebase,
):
    lines = session(
        ["setoption name Explain value json", "position startpos moves e2e4", "go depth 2"],
        Casebase=str(kosteniuk_casebase),
        Mode="guided",
    )
    (record,) = records(lines)
    guided = record["guided"]
    proposal, verdict, choice = guided["proposal"], guided["verdict"], guided["choice"]
    assert proposal["source"] == "blend" and proposal["expert"] == "Alexandra Kosteniuk"
    assert proposal["prior"]["total"] >= len(proposal["prior"]["moves"]) > 0
    assert abs(sum(m["share"] for m in proposal["prior"]["moves"]) - 1) < 0.05
    assert verdict["judge"] is None and verdict["depth"] >= 1 and "cp" in verdict["score"]
    assert choice["move"]["uci"] == record["move"]["uci"] == lines[-1].split()[1]
    words = [line.removeprefix("info string ") for line in lines if line.startswith("info string ")]
    at = words.index(next(w for w in words if w.startswith("json ")))
    assert words[at + 2].startswith(
        f"search depth {verdict['depth']}, {verdict['nodes']} nodes: best {verdict['best']['san']}"
    )


def test_the_json_line_stays_under_4_kb_with_many_candidates_and_long_texts():
    board = chess.Board()
    moves = list(board.legal_moves)
    many = [Share(m.uci(), board.san(m), 1 / len(moves)) for m in moves] * 12  # 240 shares a list
    long = "x" * 5000
    case = Case(1, long, long, long, long, "2000.01.01", 1, 1, 200, 0.5, 3, 64)
    guided = Guided(
        Proposal(PriorSource.BLEND, many, long, many, many, 0.5, long, 64, 64, (256, 200)),
        Verdict(long, 10, 1000, 1.0, Named("e2e4", "e4"), 30, 240, 240, 200, 25),
        Choice(
            "calibrated",
            many[0],
            many[1],
            20,
            True,
            30,
            chances=many,
            loss=0.01,
            expert=long,
            phase="opening",
            often=0.5,
            calibration=long,
        ),
        case,
    )
    for notes in ([], [TablesProblem(long)] * 3, [JudgeNote(long, JudgeEvent.REFUSED, long)] * 100):
        decision = Decision(
            move=moves[0], reason=Reason.CALIBRATED, record=Record(list(notes), guided)
        )
        text = record_string(decision, board)
        assert len(f"info string {text}".encode()) < MAX_LINE and "\n" not in text
        record = json.loads(text.removeprefix("json "))
        assert record["version"] == 1 and record["guided"]["proposal"]["prior"]["total"] == 240
        assert explain(decision.record)  # the words are not cut: only the JSON line is


def test_the_schema_names_every_field_of_the_record():
    import dataclasses

    from engine.agents import record as kinds

    schema = (ROOT / "docs" / "explain.md").read_text()
    assert "version 1" in schema.lower() and f"Schema, version {VERSION}" in schema
    types = [
        t
        for t in vars(kinds).values()
        if dataclasses.is_dataclass(t) and t.__module__ == kinds.__name__
    ]
    missing = {
        f"{t.__name__}.{f.name}"
        for t in types
        for f in dataclasses.fields(t)
        if f"`{f.name}`" not in schema and f'"{f.name}"' not in schema
    }
    assert len(types) >= 12 and not missing


def test_notes_are_typed_in_the_json_and_worded_only_in_the_uci_layer():
    board = chess.Board()
    notes = [
        ListedMovesIllegal(),
        JudgeNote("sf", JudgeEvent.FAILED, "it died"),
        TablesProblem("cannot read KQK"),
    ]
    decision = Decision(
        move=chess.Move.from_uci("e2e4"),
        reason=Reason.RANDOM,
        record=Record(notes, Uniform(Named("e2e4", "e4"), 20)),
    )
    record = json.loads(record_string(decision, board).removeprefix("json "))
    assert [n["kind"] for n in record["notes"]] == ["listed_moves_illegal", "judge", "tables"]
    assert record["notes"][1] | {"text": ""} == {
        "kind": "judge",
        "judge": "sf",
        "event": "failed",
        "why": "it died",
        "text": "",
    }
    words = explain(decision.record)
    assert [n["text"] for n in record["notes"]] == words[:3]
    assert words[1] == "judge sf failed: it died; it will be restarted at the next move"
