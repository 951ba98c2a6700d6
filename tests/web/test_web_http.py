"""The web app's HTTP API (web/app.py) through FastAPI's TestClient, on Kosteniuk's casebase: the
experts listed by id, unknown ones refused, positions read from FEN and PGN, a huge input repeated
only a little, an oversized upload, asking the expert (its games: test_web_api.py)."""

from __future__ import annotations

import chess
import pytest
from web_helpers import EXPERT, client, error, no_engines_left, until

from engine.strength.tendencies import describe_expert

pytestmark = pytest.mark.slow  # games through the app's engine processes

START = chess.STARTING_FEN
JSON = {"content-type": "application/json"}  # the one type of a body (web/guard.py)


@pytest.fixture(scope="module")
def app(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, max_body=2000) as test_client:
        yield test_client


def test_the_experts_are_listed_by_id_with_their_facts(app):
    listing = app.get("/api/experts").json()
    assert listing["default"] == EXPERT and [e["id"] for e in listing["experts"]] == [EXPERT]
    assert (
        listing["experts"][0]["name"] == "Alexandra Kosteniuk"
        and listing["experts"][0]["games"] > 100
    )
    facts = app.get(f"/api/experts/{EXPERT}").json()
    assert facts["cases"] == facts["cases_white"] + facts["cases_black"] > 5000
    assert facts["first_moves"]["white"][0] == ["e4", 57]
    # a browser asks for it, whatever the page names
    assert app.get("/favicon.ico").status_code == 200
    # the shipped file's words, or why there are none
    assert facts["tendencies"] == describe_expert(EXPERT)
    tree = app.get(f"/api/experts/{EXPERT}/repertoire").json()
    assert (
        tree["white"][0]["san"] == "e4"
        and tree["white"][0]["games"] == 57
        and tree["white"][0]["next"]
    )
    case = app.get(f"/api/experts/{EXPERT}/cases/119").json()
    assert (
        case["san"] == "Nc6"
        and case["white"] == "Kostjukovich, Svetlana"
        and case["year"] == "1996"
    )
    assert chess.Board(case["fen"]).is_valid()


@pytest.mark.parametrize(
    "path",
    [
        "/api/experts/nobody",
        "/api/experts/nobody/repertoire",
        "/api/experts/..%2F..%2Fetc",
        f"/api/experts/{EXPERT}/cases/999999",
        "/api/games/nonesuch/pgn",
    ],
)
def test_unknown_experts_cases_and_games_are_404_with_a_message(app, path):
    response = app.get(path)
    assert response.status_code == 404 and response.json()["error"]


def test_positions_are_read_from_fen_and_pgn_and_bad_ones_refused(app):
    ok = app.post("/api/position", json={"pgn": '[White "A"]\n\n1. e4 e5 2. Nf3 *'}).json()
    assert [p["san"] for p in ok["positions"]] == [None, "e4", "e5", "Nf3"] and ok["headers"][
        "White"
    ] == "A"
    for body, words in [
        ({"fen": "rnbqkbnr/pppppppp/8/8 w"}, "malformed FEN"),
        ({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "impossible"),
        ({"pgn": "1. e4 e5 2. Ke3 *"}, "malformed PGN"),
        ({"pgn": "hello"}, "malformed PGN"),
        ({}, "send"),
    ]:
        response = app.post("/api/position", json=body)
        assert response.status_code == 400 and words in response.json()["error"], (
            body,
            response.json(),
        )
    assert app.post("/api/position", content=b"{not json", headers=JSON).status_code == 400


def test_a_message_repeats_only_a_little_of_a_huge_input(kosteniuk_casebase):
    """A 900 kB FEN came back whole as a 900 kB red line (issue #53, item 6)."""
    huge = "x" * 900_000
    with client(kosteniuk_casebase.parent) as big:
        for body in (
            {"fen": f"{START} {huge}"},
            {"fen": f"rnbqkbnr/{huge} w - - 0 1"},
            {"pgn": f'[FEN "{huge}"]\n\n1. e4 *'},
        ):
            response = big.post("/api/position", json=body)
            assert response.status_code == 400 and 20 < len(response.json()["error"]) < 600, (
                response.json()["error"][:300]
            )
        with big.websocket_connect("/api/play") as ws:
            for message in (
                {"type": "new", "expert": huge[:60_000]},
                {"type": "new", "expert": EXPERT, "fen": huge[:60_000]},
            ):
                ws.send_json(message)
                assert len(until(ws, error)[-1]["message"]) < 600  # 500 and the length cut


def test_an_oversized_upload_is_413_with_the_limit(app):
    big = {"pgn": "1. e4 e5 " * 300}
    response = app.post("/api/position", json=big)
    assert response.status_code == 413 and "at most 2000 bytes" in response.json()["error"]
    # without a declared length (chunked), counted as it arrives
    chunked = app.post(
        "/api/position", content=iter([b'{"pgn": "', b"x" * 3000, b'"}']), headers=JSON
    )
    assert chunked.status_code == 413


def test_ask_gives_the_experts_candidates_with_their_shares(app):
    board = chess.Board()
    board.push_uci("e2e4")
    answer = app.post(
        "/api/ask", json={"fen": board.fen(), "experts": [EXPERT, EXPERT], "lines": 3}
    ).json()
    assert len(answer["answers"]) == 2
    first = answer["answers"][0]
    assert first["name"] == "Alexandra Kosteniuk" and len(first["lines"]) == 3
    assert [line["rank"] for line in first["lines"]] == [1, 2, 3] and all(
        line["share"] > 0 for line in first["lines"]
    )
    assert first["best"] in [board.san(m) for m in board.legal_moves]
    assert app.post("/api/ask", json={"fen": START, "experts": ["nobody"]}).status_code == 404
    assert app.post("/api/ask", json={"fen": START, "experts": []}).status_code == 400
    assert app.post("/api/ask", json={"fen": "nonsense", "experts": [EXPERT]}).status_code == 400
    assert no_engines_left()
