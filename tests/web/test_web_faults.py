"""The web page's faults of issue #41 through the API (web/app.py): flags that fall at once, bodies
the server cannot use, the profile picture drawn once, move numbers from a FEN, one sign of a score,
and the smaller ones (Chess960, a FEN with a typo, a request cut short, the OpenAPI schema)."""

from __future__ import annotations

import time

import chess
import chess.engine
import pytest
from web_helpers import EXPERT, client, error, no_engines_left, settled, until

pytestmark = pytest.mark.slow  # games through the app's engine processes


@pytest.fixture(scope="module")
def app(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, idle_seconds=20) as test_client:
        yield test_client


def over(message: dict) -> bool:
    return message["type"] == "state" and message["result"] is not None


@pytest.mark.parametrize(
    ("fen", "move", "result"),
    [
        (chess.STARTING_FEN, "e2e4", "0-1"),
        # Black has only its king: it cannot win on time
        ("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", "a1a2", "1/2-1/2"),
    ],
)
def test_the_humans_flag_falls_at_once_after_the_engines_reply(app, fen, move, result):
    # 6 s each for the whole game; the engine replies at depth 1
    with app.websocket_connect("/api/play") as ws:
        ws.send_json(
            {
                "type": "new",
                "expert": EXPERT,
                "colour": "white",
                "minutes": 0.1,
                "moves": 0,
                "fen": fen,
            }
        )
        until(ws, settled)
        # the human has 3 s left, the engine 6 s: the flag's watch follows the clock that runs
        time.sleep(3)
        ws.send_json({"type": "move", "uci": move})
        moved = time.monotonic()
        until(ws, lambda m: settled(m) and m["plies"] == 2)
        # the flag's state, not the idle's "closed"
        state = until(ws, lambda m: m["type"] != "info")[-1]
        # at once: not when the engine's time or the idle time is up
        assert time.monotonic() - moved < 5
        assert (
            over(state) and state["result"] == result and state["termination"] == "time forfeit"
        ), state
        assert (
            state["clock"]["white"] == 0
            and state["clock"]["running"] is None
            and state["dests"] == {}
        )
        pgn = app.get(f"/api/games/{state['game']}/pgn").text
        assert f'[Result "{result}"]' in pgn and '[Termination "time forfeit"]' in pgn
        ws.send_json({"type": "move", "uci": "a2a3"})
        assert "game is over" in until(ws, error)[-1]["message"]
    assert no_engines_left()


def test_a_move_that_comes_as_the_flag_falls_is_refused_and_the_end_is_sent(app, monkeypatch):
    async def asleep(self, send) -> None:  # the move comes before the flag's watch wakes
        return None

    monkeypatch.setattr("web.games.Game.watch_flag", asleep)
    with app.websocket_connect("/api/play") as ws:
        ws.send_json(
            {"type": "new", "expert": EXPERT, "colour": "white", "minutes": 0.01, "moves": 0}
        )  # 0.6 s
        until(ws, settled)
        time.sleep(1)
        ws.send_json({"type": "move", "uci": "e2e4"})
        assert "your time ran out" in until(ws, error)[-1]["message"]
        state = ws.receive_json()
        assert (
            over(state)
            and state["result"] == "0-1"
            and state["termination"] == "time forfeit"
            and state["moves"] == []
        )
    assert no_engines_left()


def test_the_engines_flag_falls_while_it_thinks_and_its_search_stops(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, limit=chess.engine.Limit(time=30)) as slow:
        with slow.websocket_connect("/api/play") as ws:  # the engine thinks 30 s on a clock of 3 s
            ws.send_json(
                {"type": "new", "expert": EXPERT, "colour": "black", "minutes": 0.05, "moves": 0}
            )
            began = time.monotonic()
            state = until(ws, over, limit=5000)[-1]
            assert time.monotonic() - began < 15  # not the 30 s of the search
            assert (
                state["result"] == "0-1"
                and state["termination"] == "time forfeit"
                and not state["thinking"]
            )
            assert state["moves"] == [] and state["clock"]["white"] == 0
    assert no_engines_left()


NESTED = "[" * 5000 + "]" * 5000  # deeper than Python's JSON reader goes


def test_json_nested_too_deep_is_a_400_and_on_the_websocket_an_error_and_the_game_goes_on(app):
    for path in ("/api/ask", "/api/position"):
        response = app.post(
            path, content=NESTED.encode(), headers={"content-type": "application/json"}
        )
        assert response.status_code == 400 and "not JSON" in response.json()["error"]
    with app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white"})
        until(ws, settled)
        ws.send_text(NESTED)
        assert "JSON" in until(ws, error)[-1]["message"]
        ws.send_json({"type": "move", "uci": "e2e4"})
        assert until(ws, lambda m: settled(m) and m["plies"] == 2)[-1]["result"] is None
    assert no_engines_left()


#: A stand-in for the profile's drawing: notes when it starts and ends, takes a while, writes a
#: "picture".
DRAW = (
    "import sys, time; from pathlib import Path; log = open(sys.argv[1], 'a');"
    " log.write(f'start {time.monotonic()}\\n'); log.flush(); time.sleep(0.5);"
    " Path(sys.argv[3]).write_bytes(b'png of ' + Path(sys.argv[2]).stem.encode());"
    " log.write(f'end {time.monotonic()}\\n')"
)


def test_the_profile_picture_is_drawn_once_however_many_ask_and_one_drawing_at_a_time(
    tmp_path, monkeypatch
):
    import asyncio
    import sys
    from types import SimpleNamespace

    from web.experts import Experts

    for name in ("a-2000", "b-2000"):
        (tmp_path / f"{name}.npz").write_bytes(b"")
    log = tmp_path / "drawings.log"
    monkeypatch.setattr(
        "web.experts.picture_command",
        lambda casebase, out: [sys.executable, "-c", DRAW, str(log), str(casebase), str(out)],
    )
    monkeypatch.setattr(
        Experts, "casebase", lambda self, expert_id: SimpleNamespace(profile=object())
    )
    experts = Experts([("shipped", tmp_path)])

    async def ask_all() -> list[bytes]:
        return await asyncio.gather(
            *(experts.profile_picture(e) for e in ["a-2000"] * 4 + ["b-2000"] * 2)
        )

    pictures = asyncio.run(ask_all())
    assert pictures == [b"png of a-2000"] * 4 + [b"png of b-2000"] * 2
    # kept: not drawn again
    assert asyncio.run(experts.profile_picture("a-2000")) == b"png of a-2000"
    events = [line.split() for line in log.read_text().splitlines()]
    # two drawings, one after the other
    assert [kind for kind, _ in events] == ["start", "end", "start", "end"]


def test_moves_are_numbered_from_the_fens_own_move_number_in_the_list_and_the_reasons(app):
    # Black to move, move 30
    fen = "r1bqkbnr/pp1p1ppp/2n1p3/1Bp5/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 30"
    with app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": fen})
        seen = until(ws, lambda m: settled(m) and m["plies"] == 1)
        record = next(m for m in seen if m["type"] == "reasons")
        assert record["label"] == f"30… {record['san']}" and seen[-1]["numbered"] == [
            record["label"]
        ]
        board = chess.Board(seen[-1]["fen"])
        move = min(board.legal_moves, key=lambda m: m.uci())
        ws.send_json({"type": "move", "uci": move.uci()})
        state = until(ws, lambda m: settled(m) and m["plies"] == 3)[-1]
        assert state["numbered"][1] == f"31. {board.san(move)}" and state["numbered"][2].startswith(
            "31… "
        )
        assert state["moves"] == [label.split(" ", 1)[1] for label in state["numbered"]]
        ws.send_json({"type": "resign"})
        until(ws, settled)
    assert no_engines_left()


CHESS960 = (
    '[Variant "Chess960"]\n[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2'
    ' 9"]\n\n'
    "9. g3 *"
)


def test_chess960_is_refused_at_load_and_a_fen_with_a_typo_says_what_is_wrong_as_a_fen(app):
    for body in (
        {"pgn": CHESS960},
        {"fen": "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"},
    ):
        response = app.post("/api/position", json=body)
        assert (
            response.status_code == 400 and "Chess960 is not supported" in response.json()["error"]
        ), body
    # X for R: the page sends it as PGN
    typo = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNX b KQkq - 0 1"
    response = app.post("/api/position", json={"pgn": typo})
    assert response.status_code == 400 and response.json()["error"].startswith("malformed FEN"), (
        response.json()
    )
    fen = app.post("/api/position", json={"pgn": typo.replace("X", "R")}).json()
    assert fen["positions"] == [{"ply": 0, "san": None, "fen": typo.replace("X", "R")}]


def test_a_request_cut_short_is_answered_without_a_traceback_and_the_schema_is_not_served(app):
    import asyncio

    sent: list[dict] = []
    parts = iter(
        [
            {"type": "http.request", "body": b'{"pgn": "1. e4', "more_body": True},
            {"type": "http.disconnect"},
        ]
    )

    async def receive() -> dict:
        return next(parts)

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/position",
        "raw_path": b"/api/position",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), (b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    # without the fix, ClientDisconnect escapes (the traceback)
    asyncio.run(app.app(scope, receive, send))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 400
    assert app.get("/openapi.json").status_code == 404


def test_every_score_on_the_page_is_for_the_side_to_move(app):
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1"  # Black, a queen up, to move
    with app.websocket_connect("/api/play") as ws:  # the engine plays Black and moves first
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": fen})
        seen = until(ws, lambda m: settled(m) and m["plies"] == 1)
        verdict = next(m for m in seen if m["type"] == "reasons")["reasons"]["verdict"]["score"]
        # the think's own scores are not sent (#53)
        assert verdict.startswith("+") and verdict.endswith(" cp"), verdict
        ws.send_json({"type": "resign"})
        until(ws, settled)
    lines = app.post("/api/ask", json={"fen": fen, "experts": [EXPERT], "lines": 2}).json()[
        "answers"
    ][0]["lines"]
    assert all(line["score"].startswith("+") and line["score"].endswith(" cp") for line in lines), (
        lines
    )
    assert no_engines_left()
