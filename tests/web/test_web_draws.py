"""Draw offers to the expert (web/draws.py): the rule, accepted and declined with its reason, the
score read from the expert's record, and the offer over the game's websocket."""

from __future__ import annotations

import json

import chess
import pytest
from web_helpers import EXPERT, client, no_engines_left, settled, until

from web.draws import FROM_MOVE, answer, last_score
from web.scores import MATE_CP

#: Rooks and pawns at move 40: a thin position (16 points of pieces).
THIN = "3rk3/ppp2ppp/8/8/8/8/PPP2PPP/3RK3 w - - 0 40"
#: Every piece still on the board at move 40.
FULL = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 40"


def test_a_clearly_worse_expert_accepts_at_any_move():
    said = answer(chess.Board(), -180)
    assert said.accepted and "worse (-1.8 for the expert)" in said.why
    assert answer(chess.Board(), -MATE_CP - 1000 + 3).accepted  # being mated
    assert not answer(chess.Board(), -149).accepted  # a little worse in the opening: it plays on


def test_a_better_expert_plays_on_and_says_by_how_much():
    said = answer(chess.Board(THIN), 120)
    assert not said.accepted and said.why == "the expert plays on: +1.2 for the expert"
    assert (
        answer(chess.Board(THIN), MATE_CP + 990).why == "the expert plays on: mate for the expert"
    )


def test_a_level_game_is_agreed_late_with_reduced_material_only():
    late = answer(chess.Board(THIN), 20)
    assert late.accepted and "+0.2 for the expert at move 40, 10 points of pieces left" in late.why
    assert answer(chess.Board(THIN), -60).accepted  # a little worse, late and thin: welcome too
    early = answer(chess.Board(THIN.replace(" 40", " 12")), 0)
    assert (
        not early.accepted
        and f"it is move 12; it agrees a level game from move {FROM_MOVE}" in early.why
    )
    full = answer(chess.Board(FULL), 0)
    assert not full.accepted and "62 points of pieces are left" in full.why
    assert not answer(chess.Board(THIN), 31).accepted


def test_without_a_score_the_expert_plays_on():
    said = answer(chess.Board(THIN), None)
    assert not said.accepted and "no score of this game" in said.why


def _record(**guided: object) -> str:
    return "json " + json.dumps(
        {
            "version": 1,
            "move": {"uci": "e2e4", "san": "e4"},
            "reason": "likely",
            "notes": [],
            "guided": guided,
        }
    )


def test_the_score_is_the_played_moves_else_the_best_ones_from_the_record():
    played = _record(choice={"score": {"cp": -42}}, verdict={"score": {"cp": 10}})
    best = _record(choice={"score": None}, verdict={"score": {"mate": 2}})
    assert last_score(["seed 1", played, "words"]) == -42
    assert last_score([best]) == MATE_CP + 998
    assert last_score(["no record here"]) is None
    tables = {"version": 1, "move": {"uci": "a1a8", "san": "Ra8#"}, "reason": "tables", "notes": []}
    ours, syzygy = {"ending": "KRK", "wins": True, "wdl": 0}, {"ending": None, "wins": None}
    assert last_score(["json " + json.dumps(tables | {"tables": ours})]) == MATE_CP
    assert [
        last_score(["json " + json.dumps(tables | {"tables": syzygy | {"wdl": wdl}})])
        for wdl in (-2, -1, 0, 1, 2)
    ] == [-MATE_CP, 0, 0, 0, MATE_CP]


@pytest.mark.slow  # games through engine processes
def test_an_offer_over_the_websocket_is_declined_with_why_or_ends_the_game(kosteniuk_casebase):
    up = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1"  # the expert (Black) a queen up
    # the expert (Black) a queen down
    down = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    with client(kosteniuk_casebase.parent) as app, app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white"})  # the human moves first
        until(ws, settled)
        ws.send_json({"type": "offer_draw"})
        said = until(ws, lambda m: m["type"] == "draw_offer")[-1]
        assert not said["accepted"] and "no score of this game" in said["why"]
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": up})
        until(ws, lambda m: settled(m) and m["plies"] == 1)
        ws.send_json({"type": "offer_draw"})
        said = until(ws, lambda m: m["type"] == "draw_offer")[-1]
        assert not said["accepted"] and said["why"].startswith("the expert plays on: +")
        assert until(ws, settled)[-1]["result"] is None
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": down})
        until(ws, lambda m: settled(m) and m["plies"] == 1)
        ws.send_json({"type": "offer_draw"})
        said = until(ws, lambda m: m["type"] == "draw_offer")[-1]
        assert said["accepted"] and said["why"].startswith("the expert accepts: it is worse (-")
        state = until(ws, settled)[-1]
        assert state["result"] == "1/2-1/2" and state["termination"] == "draw agreed"
        ws.send_json({"type": "offer_draw"})
        assert "the game is over" in until(ws, lambda m: m["type"] == "error")[-1]["message"]
    assert no_engines_left()
