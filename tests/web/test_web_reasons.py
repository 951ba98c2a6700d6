"""The page's reasons (web/reasons.py) read from records the engine really made (guided, limited,
pure), as its ``Explain json`` line sends them; never from the engine's words."""

from __future__ import annotations

import chess
import pytest

from casebase.format import Casebase
from engine.agents.base import Decision, Reason
from engine.agents.factory import Loader, make_agent
from engine.agents.record import (
    Case,
    Choice,
    Guided,
    Named,
    Precedent,
    Proposal,
    Record,
    Share,
    Verdict,
)
from engine.outside.judge import JudgeEvent, JudgeNote
from engine.search.limits import SearchLimits
from engine.style.prior import PriorSource
from engine.uci.explain import explain
from engine.uci.record_json import record_string
from web.reasons import bars, gather, record_of, score_text, shape


def strings(
    values: dict, casebase: Casebase, moves: str = "e2e4"
) -> tuple[list[str], chess.Board, object]:
    """What an engine with ``Explain json`` sends as info strings for one move: a notice, the
    record, its words."""
    board = chess.Board()
    for uci in moves.split():
        board.push_uci(uci)
    agent = make_agent(values, casebase, Loader())
    agent.new_game(3)
    decision = agent.choose(board, limits=SearchLimits(depth=2))
    return (
        ["seed 3 for this game", record_string(decision, board), *explain(decision.record)],
        board,
        decision,
    )


@pytest.fixture(scope="module")
def casebase(kosteniuk_casebase) -> Casebase:
    return Casebase.load(kosteniuk_casebase)


def test_the_record_is_found_by_its_prefix_and_version_and_nothing_else_is_read():
    assert record_of('json {"version": 1, "move": null}') == {"version": 1, "move": None}
    assert record_of('json {"version": 2}') is None and record_of("json {broken") is None
    assert record_of('played e4, json {"version": 1}') is None
    reasons = gather(["seed 3", "played e4, the casebase's first choice (100%)"])
    assert reasons["played"] is None and reasons["prior"] is None and reasons["words"] == []
    assert bars({"moves": [{"uci": "e2e4", "san": "e4", "share": 0.4567}], "total": 9}) == {
        "moves": [{"san": "e4", "uci": "e2e4", "share": 45.7}],
        "more": 8,
    }
    assert (
        score_text({"cp": 35}) == "+35 cp"
        and score_text({"mate": -3}) == "mated in 3"
        and score_text(None) is None
    )


def test_a_guided_move_gives_the_prior_the_verdict_the_reason_the_case_and_its_words(casebase):
    lines, board, decision = strings({"Mode": "guided"}, casebase)
    reasons = gather(lines)
    assert reasons["words"] == explain(decision.record) and lines[0] not in reasons["words"]
    prior = reasons["prior"]
    assert (
        prior["source"] == "blend"
        and prior["expert"] == "Alexandra Kosteniuk"
        and prior["proposes"]["moves"]
    )
    assert prior["prior"]["moves"][0]["share"] >= prior["prior"]["moves"][-1]["share"] > 0
    verdict = reasons["verdict"]
    assert (
        verdict["by"] == "search"
        and verdict["depth"] == decision.depth
        and verdict["best"] in [board.san(m) for m in board.legal_moves]
    )
    played = reasons["played"]
    assert played["san"] == board.san(decision.move) and played["reason"] == decision.reason.value
    assert decision.case is not None  # seed 3 plays a move of the expert's cases
    assert (
        reasons["case"]["row"] == decision.case
        and reasons["case"]["similarity"] == decision.similarity
    )
    assert reasons["case"]["expert"] == "Alexandra Kosteniuk" and reasons["case"]["votes"] > 0
    assert reasons["precedent"] is None  # a casebase without embeddings cites none


def test_a_limited_move_says_what_it_loses(casebase):
    lines, _, decision = strings(
        {"Mode": "guided", "UCI_LimitStrength": True, "UCI_Elo": 1500}, casebase
    )
    played = gather(lines)["played"]
    assert played["reason"] == "calibrated" == decision.reason.value
    assert (
        0 <= played["loss"] <= 100
        and played["chances"] >= 1
        and played["expert"] == "Alexandra Kosteniuk"
    )


def test_pure_mode_gives_the_case_and_the_adaptation(casebase):
    lines, board, decision = strings({"Mode": "pure"}, casebase)
    reasons = gather(lines)
    assert reasons["case"]["row"] == decision.case and reasons["case"]["side"] == "black"
    assert (
        reasons["similarity"]["tied"] == decision.tied_cases
        and reasons["similarity"]["count"] > 1000
    )
    assert reasons["played"]["san"] == board.san(decision.move) and reasons["prior"] is None
    assert reasons["precedent"] is None


def test_rewording_the_engine_changes_nothing_the_page_reads(casebase):
    """The page reads the record alone: other words (the engine's sentences reworded) give the same
    reasons."""
    lines, _, _ = strings({"Mode": "guided"}, casebase)
    reworded = [*lines[:2], *(line[::-1].upper() for line in lines[2:])]
    ours, theirs = gather(lines), gather(reworded)
    assert theirs.pop("words") == reworded[2:] and ours.pop("words") == lines[2:]
    assert ours == theirs and shape({})["played"] is None


def test_a_judged_calibrated_move_gives_the_judge_and_how_often_the_expert_loses_as_much():
    board = chess.Board()
    e4, d4 = (
        Share(m, board.san(chess.Move.from_uci(m)), p) for m, p in (("e2e4", 0.6), ("d2d4", 0.4))
    )
    guided = Guided(
        Proposal(PriorSource.MODEL, [e4, d4], "8x96", [e4, d4]),
        Verdict("Stockfish 15.1", 7, 962, 0.01, Named("d2d4", "d4"), 25, 2, 2, 1, 25),
        Choice(
            "calibrated",
            e4,
            e4,
            20,
            True,
            20,
            chances=[e4, d4],
            loss=0.004,
            expert="A. Expert",
            phase="opening",
            often=0.88,
            calibration="A. Expert's error profile",
        ),
    )
    decision = Decision(
        move=chess.Move.from_uci("e2e4"),
        reason=Reason.CALIBRATED,
        record=Record([JudgeNote("Stockfish 15.1", JudgeEvent.STILL_REFUSED)], guided),
    )
    reasons = gather([record_string(decision, board), *explain(decision.record)])
    verdict, played = reasons["verdict"], reasons["played"]
    assert (
        verdict["by"] == "Stockfish 15.1" and verdict["seconds"] == 0.01 and verdict["scored"] == 2
    )
    assert verdict["best"] == "d4" and verdict["score"] == "+25 cp" and verdict["sound"] == 1
    assert (
        played["loss"] == 0.4
        and played["often"] == 88
        and played["phase"] == "opening"
        and played["chances"] == 2
    )
    assert reasons["prior"]["proposes"]["moves"][0] == {"san": "e4", "uci": "e2e4", "share": 60}
    assert reasons["prior"]["votes"] is None and reasons["case"] is None
    assert reasons["notes"] == [
        "judge Stockfish 15.1 refused (see above): the Python search judged"
    ]


def test_a_guided_moves_precedent_reaches_the_page_as_the_record_has_it():
    """The precedent by the learned similarity (issue #61): its game and row (whose position the
    page draws), how alike, its own move, whether it speaks for the move played, and how many were
    looked at."""
    board = chess.Board()
    e4 = Share("e2e4", "e4", 1.0)
    case = Case(
        41,
        "Magnus Carlsen",
        "Carlsen, Magnus",
        "Nakamura, Hikaru",
        "Sinquefield Cup",
        "2018.08.17",
        23,
        44,
        180,
    )
    guided = Guided(
        Proposal(PriorSource.MODEL, [e4], "8x96", [e4]),
        Verdict(None, 1, 20, 0.0, Named("e2e4", "e4"), 30, 1, 1, 1, 25),
        Choice("argmax", e4, e4, 30, True, 30),
        precedent=Precedent(case, 94.2, Named("d2d4", "d4"), False, 16),
    )
    decision = Decision(
        move=chess.Move.from_uci("e2e4"), reason=Reason.ARGMAX, record=Record([], guided)
    )
    precedent = gather([record_string(decision, board), *explain(decision.record)])["precedent"]
    assert precedent["case"]["row"] == 41 and precedent["case"]["black"] == "Nakamura, Hikaru"
    assert [precedent["case"][key] for key in ("event", "date", "move")] == [
        "Sinquefield Cup",
        "2018.08.17",
        23,
    ]
    assert precedent["alike"] == 94.2 and precedent["case_move"] == {"uci": "d2d4", "san": "d4"}
    assert precedent["played"] is False and precedent["nearest"] == 16
