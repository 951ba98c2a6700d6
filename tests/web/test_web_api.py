"""The web app's HTTP and websocket API (web/app.py) through FastAPI's TestClient, on Kosteniuk's
casebase, every engine move at depth 1: games, their reasons, bad input and requests out of order
(the experts, positions and asking over HTTP: test_web_http.py)."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest
from web_helpers import (
    EXPERT,
    client,
    engine_processes,
    error,
    no_engines_left,
    settled,
    until,
    wrap_engine,
)

from web.game_settings import Settings
from web.games import Game, GameError

pytestmark = pytest.mark.slow  # games through the app's engine processes

START = chess.STARTING_FEN
JSON = {"content-type": "application/json"}  # the one type of a body (web/guard.py)


@pytest.fixture(scope="module")
def app(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, max_body=2000) as test_client:
        yield test_client


def test_a_game_move_by_move_with_reasons_take_back_and_pgn(app):
    with app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "move", "uci": "e2e4"})
        assert "before a game was started" in until(ws, error)[-1]["message"]
        ws.send_json(
            {"type": "new", "expert": EXPERT, "colour": "white", "minutes": 5, "moves": 40}
        )
        state = until(ws, settled)[-1]
        assert (
            state["fen"] == START
            and state["human"] == "white"
            and sorted(state["dests"]["g1"]) == ["f3", "h3"]
        )
        ws.send_json({"type": "takeback"})
        assert "nothing to take back" in until(ws, error)[-1]["message"]
        for bad, words in [
            ("e2e5", "illegal move"),
            ("zz", "not a move"),
            ("e7e5", "illegal move"),
        ]:
            ws.send_json({"type": "move", "uci": bad})
            assert words in until(ws, error)[-1]["message"]
        ws.send_json({"type": "move", "uci": "e2e4"})
        seen = until(ws, lambda m: settled(m) and m["plies"] == 2)
        assert seen[0]["type"] == "state" and seen[0]["thinking"] and seen[0]["dests"] == {}
        infos = [m["info"] for m in seen if m["type"] == "info"]
        # how far it got, never its line or score (issue #53, item 2)
        assert any("depth" in info for info in infos)
        assert not any({"pv", "score", "string"} & set(info) for info in infos), infos
        record = next(m for m in seen if m["type"] == "reasons")
        reasons = record["reasons"]
        assert record["ply"] == 1 and record["san"] == seen[-1]["moves"][1]
        assert (
            reasons["prior"]["proposes"]["moves"]
            and reasons["verdict"]["by"] == "search"
            and reasons["verdict"]["depth"] == 1
        )
        assert reasons["played"]["san"] == record["san"]
        records = [record]
        # a move the expert's cases gave
        while not any(r["reasons"]["case"] for r in records) and len(records) < 4:
            board = chess.Board(seen[-1]["fen"])
            ws.send_json({"type": "move", "uci": min(m.uci() for m in board.legal_moves)})
            seen = until(ws, settled)
            records.append(next(m for m in seen if m["type"] == "reasons"))
        record = next(r for r in records if r["reasons"]["case"])
        case = record["reasons"]["case"]
        assert (
            case["expert"] == "Alexandra Kosteniuk"
            and case["white"]
            and case["date"]
            and case["move"] >= 1
        )
        assert (
            record["position"]["case"] == case["row"]
            and chess.Board(record["position"]["fen"]).is_valid()
        )
        pgn = app.get(f"/api/games/{seen[-1]['game']}/pgn")
        game = chess.pgn.read_game(io.StringIO(pgn.text))
        assert pgn.headers["content-disposition"].startswith("attachment")
        assert (
            game.headers["Black"] == "Alexandra Kosteniuk (cbr-chess)"
            and game.headers["TimeControl"] == "40/300"
        )
        commented = game.mainline()
        node = list(commented)[record["ply"]]
        plain_words = " ".join(record["plain"]["lines"]).replace("}", ")")
        # then the move's clock
        assert record["plain"]["lines"] and node.comment.startswith(plain_words + " [%clk ")
        assert "Kosteniuk" in record["plain"]["lines"][0] and game.comment.startswith(
            "style model: "
        )  # issue #41 item 14
        for _ in records:
            ws.send_json({"type": "takeback"})
            state = until(ws, settled)[-1]
        assert state["moves"] == [] and state["fen"] == START and state["dests"]
        ws.send_json({"type": "draw"})
        assert "no draw to claim" in until(ws, error)[-1]["message"]
        ws.send_json({"type": "resign"})
        state = until(ws, settled)[-1]
        assert state["result"] == "0-1" and state["termination"] == "resignation"
        for late in ({"type": "move", "uci": "e2e4"}, {"type": "resign"}, {"type": "wat"}):
            ws.send_json(late)
            assert until(ws, error)[-1]["message"]
        ws.send_text("not json")
        assert "JSON" in until(ws, error)[-1]["message"]
    assert no_engines_left()


def test_a_short_game_from_a_position_to_mate(app):
    fen = "7k/8/6K1/8/8/8/8/R7 w - - 0 1"  # after Ra2 the engine has one move, Kg8, and Ra8 mates
    with app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": fen})
        until(ws, settled)
        ws.send_json({"type": "move", "uci": "a1a2"})
        state = until(ws, settled)[-1]
        assert state["moves"] == ["Ra2", "Kg8"] and state["result"] is None
        board = chess.Board(state["fen"])
        mate = next(m for m in board.legal_moves if _mates(board, m))
        ws.send_json({"type": "move", "uci": mate.uci()})
        state = until(ws, settled)[-1]
        assert (
            state["result"] == "1-0"
            and state["termination"] == "checkmate"
            and state["dests"] == {}
        )
        pgn = app.get(f"/api/games/{state['game']}/pgn").text
        assert (
            f'[FEN "{fen}"]' in pgn
            and "2. Ra8# { [%clk " in pgn.replace("\n", " ")
            and pgn.rstrip().endswith("} 1-0")
        )
    assert no_engines_left()


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def test_bad_settings_and_unknown_experts_are_refused_and_a_draw_is_claimed(app):
    with app.websocket_connect("/api/play") as ws:
        for bad, words in [
            ({"expert": "../../etc/passwd"}, "no expert"),
            ({"expert": EXPERT, "minutes": 91}, "minutes"),
            ({"expert": EXPERT, "moves": 41}, "moves per period"),
            ({"expert": EXPERT, "elo": 50}, "Elo"),
            ({"expert": EXPERT, "colour": "green"}, "colour"),
            ({"expert": EXPERT, "fen": "x"}, "malformed FEN"),
        ]:
            ws.send_json({"type": "new", **bad})
            assert words in until(ws, error)[-1]["message"], bad
        assert engine_processes() == []
        ws.send_json(
            {
                "type": "new",
                "expert": EXPERT,
                "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 100 80",
                "elo": 1500,
            }
        )
        until(ws, settled)
        ws.send_json({"type": "draw"})
        state = until(ws, settled)[-1]
        # no "((claimed))"
        assert state["result"] == "1/2-1/2" and state["termination"] == "fifty-move rule, claimed"
    assert no_engines_left()


def test_the_games_are_capped_and_an_idle_game_ends_its_engine(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, max_games=1, idle_seconds=2.0) as small:
        with small.websocket_connect("/api/play") as first:
            first.send_json({"type": "new", "expert": EXPERT})
            until(first, settled)
            with small.websocket_connect("/api/play") as second:
                second.send_json({"type": "new", "expert": EXPERT})
                assert "too many games" in until(second, error)[-1]["message"]
                assert len(engine_processes()) == 1
            closed = until(first, lambda m: m["type"] == "closed")[-1]
            assert "idle" in closed["message"]
            assert no_engines_left()


def test_a_game_refused_for_a_closed_tabs_game_says_that_one_waits(kosteniuk_casebase):
    """The cap counts a game kept for its closed tab's reload; the refusal says so (issue #53, item
    5)."""
    with client(kosteniuk_casebase.parent, max_games=1, grace_seconds=60) as small:
        with small.websocket_connect("/api/play") as first:
            first.send_json({"type": "new", "expert": EXPERT})
            until(first, settled)
        with small.websocket_connect("/api/play") as second:
            second.send_json({"type": "new", "expert": EXPERT})
            message = until(second, error)[-1]["message"]
            assert message.startswith(
                "too many games at once (at most 1, 1 of them kept for a closed tab's reload"
                " for up to 60 s)"
            ), message
    assert no_engines_left()


def test_the_experts_clock_runs_from_the_state_that_says_it_thinks(app):
    """The state sent as the expert starts to think shows its clock running (issue #53, item 1: it
    said none ran, so the page's clock stood still through the think and then jumped)."""
    with app.websocket_connect("/api/play") as ws:
        ws.send_json(
            {"type": "new", "expert": EXPERT, "colour": "black", "minutes": 5, "moves": 40}
        )
        first = until(ws, lambda m: m["type"] == "state")[-1]
        assert first["thinking"] and first["clock"]["running"] == "white", first["clock"]
        assert first["settings"] == {
            "expert": EXPERT,
            "colour": "black",
            "minutes": 5,
            "moves": 40,
            "increment": 0,
            # what the New game form shows again after a reload
            "elo": None,
        }
        state = until(ws, settled)[-1]
        assert state["clock"]["running"] == "black"
        ws.send_json(
            {"type": "move", "uci": min(m.uci() for m in chess.Board(state["fen"]).legal_moves)}
        )
        first = until(ws, lambda m: m["type"] == "state")[-1]
        assert first["thinking"] and first["clock"]["running"] == "white", first["clock"]
        ws.send_json({"type": "resign"})
        until(ws, lambda m: m["type"] == "state" and m["result"] is not None)
    assert no_engines_left()


def test_a_game_refuses_the_humans_move_while_the_engine_thinks(kosteniuk_casebase):
    game = Game(Settings(EXPERT), str(kosteniuk_casebase), "K")
    game.busy = True
    with pytest.raises(GameError, match="engine is thinking"):
        game.human_move("e2e4")
    game.busy = False
    game.human_move("e2e4")
    with pytest.raises(GameError, match="not your move"):
        game.human_move("e7e5")


def test_cbr_chess_web_dispatches_to_the_web_app_and_the_engine_never_loads_it(capsys):
    import subprocess
    import sys

    import uci_main

    with pytest.raises(SystemExit) as stop:
        uci_main.main(["web", "--help"])
    assert stop.value.code == 0 and "cbr-chess web" in capsys.readouterr().out
    code = (
        "import sys, uci_main; uci_main.parse_args([]);"
        " print(sorted(m for m in ('fastapi', 'uvicorn', 'web') if m in sys.modules))"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "[]"
    )


def test_a_pawn_promotes_to_the_piece_chosen_and_a_move_to_the_last_rank_needs_one(app):
    fen = "k7/4P3/8/8/8/8/P7/K7 w - - 0 1"  # a pawn beside: K+N+P against K plays on
    with app.websocket_connect("/api/play") as ws:
        ws.send_json({"type": "new", "expert": EXPERT, "colour": "white", "fen": fen})
        state = until(ws, settled)[-1]
        # the board offers the square; the page asks which piece
        assert "e8" in state["dests"]["e7"]
        ws.send_json({"type": "move", "uci": "e7e8"})
        assert "e7e8" in until(ws, error)[-1]["message"]
        ws.send_json({"type": "move", "uci": "e7e8n"})  # an underpromotion, as chosen
        state = until(ws, lambda m: settled(m) and m["plies"] == 2)[-1]
        assert state["moves"][0] == "e8=N" and state["result"] is None
        assert (
            chess.Piece(chess.KNIGHT, chess.WHITE) in chess.Board(state["fen"]).piece_map().values()
        )
    assert no_engines_left()


#: The engine with its sentences reworded (each line reversed): what the page shows must not change.
REWORDED = (
    "import engine.uci.explain as e; words = e.explain;"
    " e.explain = lambda record: [line[::-1] for line in words(record)]"
)


def test_rewording_the_engines_sentences_breaks_nothing_on_the_page(app, monkeypatch):
    wrap_engine(monkeypatch, REWORDED)
    with app.websocket_connect("/api/play") as ws:
        ws.send_json(
            {"type": "new", "expert": EXPERT, "colour": "white", "minutes": 5, "moves": 40}
        )
        until(ws, settled)
        ws.send_json({"type": "move", "uci": "e2e4"})
        seen = until(ws, lambda m: settled(m) and m["plies"] == 2)
        record = next(m for m in seen if m["type"] == "reasons")
        reasons = record["reasons"]
        assert reasons["prior"]["prior"]["moves"] and reasons["verdict"]["by"] == "search"
        assert reasons["played"]["san"] == record["san"]
        assert any("deyalp" in w for w in reasons["words"])  # the engine's "played", reversed
        pgn = app.get(f"/api/games/{seen[-1]['game']}/pgn").text
        node = list(chess.pgn.read_game(io.StringIO(pgn)).mainline())[1]
        # the page's words, then the move's clock
        assert (
            node.comment.startswith(" ".join(record["plain"]["lines"]) + " [%clk ")
            and "deyalp" not in node.comment
        )
        ws.send_json({"type": "resign"})
        until(ws, settled)
    assert no_engines_left()
