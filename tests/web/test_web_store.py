"""Games that survive their tab and the server (web/keeper.py, web/store.py) through the API: a game
taken back after its websocket closed (the same engine), after the app restarted (a fresh engine at
its last clean point: moves, clocks, reasons), only with its token; finished games listed, each with
its PGN; and a store that cannot be opened said before the server starts."""

from __future__ import annotations

import io

import chess.pgn
import pytest
from web_helpers import EXPERT, client, engine_processes, no_engines_left, settled, until

pytestmark = pytest.mark.slow  # games through the app's engine processes


def kept(message: dict) -> bool:
    return message["type"] == "kept"


def _opened(ws, **settings) -> tuple[dict, dict]:
    """A new game with one move of each side: its id and token, and its settled state."""
    ws.send_json(
        {"type": "new", "expert": EXPERT, "colour": "white", "minutes": 10, "moves": 0, **settings}
    )
    token = until(ws, kept)[-1]
    until(ws, settled)
    ws.send_json({"type": "move", "uci": "e2e4"})
    return token, until(ws, lambda m: settled(m) and m["plies"] == 2)[-1]


def _resumed(ws, token: dict) -> tuple[list[dict], dict]:
    """The reasons sent again and the state, after asking for the game of ``token``."""
    ws.send_json({"type": "resume", "game": token["game"], "token": token["token"]})
    seen = until(ws, lambda m: m["type"] in ("state", "error"))
    assert seen[-1]["type"] == "state", seen[-1]
    assert [m for m in seen if kept(m)][0]["token"] == token["token"]
    return [m for m in seen if m["type"] == "reasons"], seen[-1]


def _refused(ws, game: str, token: str) -> str:
    """The error that answers a ``resume`` of ``game`` with ``token`` (a state instead fails the
    test)."""
    ws.send_json({"type": "resume", "game": game, "token": token})
    answer = until(ws, lambda m: m["type"] in ("state", "error"))[-1]
    assert answer["type"] == "error", answer
    return str(answer["message"])


def test_a_reloaded_tab_takes_its_game_back_from_the_same_engine_only_with_its_token(
    kosteniuk_casebase, tmp_path
):
    with client(
        kosteniuk_casebase.parent, grace_seconds=60, store=tmp_path / "games.sqlite3"
    ) as app:
        with app.websocket_connect("/api/play") as ws:
            token, before = _opened(ws)
        engines = engine_processes()
        assert len(engines) == 1  # the tab closed: its game waits
        with app.websocket_connect("/api/play") as ws:
            assert "no such game" in _refused(ws, token["game"], "guessed")
            reasons, state = _resumed(ws, token)
            assert (
                state["game"] == token["game"]
                and state["moves"] == before["moves"]
                and not state["thinking"]
            )
            assert [r["ply"] for r in reasons] == [1] and reasons[0]["san"] == before["moves"][1]
            assert engine_processes() == engines  # the same engine, not a fresh one
            ws.send_json({"type": "move", "uci": "d2d4"})
            assert until(ws, lambda m: settled(m) and m["plies"] == 4)[-1]["game"] == token["game"]
    assert no_engines_left()


def test_a_closed_tabs_game_ends_its_engine_after_the_grace(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent, grace_seconds=0.5) as app:
        with app.websocket_connect("/api/play") as ws:
            token, _ = _opened(ws)
        assert len(engine_processes()) == 1
        assert no_engines_left(5)
        with app.websocket_connect("/api/play") as ws:  # no store: nothing to take up again
            assert "no such game" in _refused(ws, token["game"], token["token"])


def test_after_a_restart_the_game_goes_on_from_its_last_clean_point(kosteniuk_casebase, tmp_path):
    store = tmp_path / "games.sqlite3"
    with client(kosteniuk_casebase.parent, store=store) as app:
        with app.websocket_connect("/api/play") as ws:
            token, before = _opened(ws, minutes=5, moves=40, increment=2)
    assert no_engines_left()
    with client(kosteniuk_casebase.parent, store=store) as app:  # a new server over the same store
        with app.websocket_connect("/api/play") as ws:
            reasons, state = _resumed(ws, token)
            assert (
                state["moves"] == before["moves"]
                and state["fen"] == before["fen"]
                and len(engine_processes()) == 1
            )
            assert [r["ply"] for r in reasons] == [1] and reasons[0]["reasons"]["played"]
            white, black = state["clock"]["white"], state["clock"]["black"]
            assert (
                state["clock"]["running"] == "white"
                and before["clock"]["white"] - 2000 < white <= before["clock"]["white"]
            )
            # the engine's move was charged, + 2 s
            assert black == before["clock"]["black"] and black > 5 * 60_000
            # each move's clock, the PGN's [%clk], kept too
            assert state["clocks"] == before["clocks"]
            ws.send_json({"type": "move", "uci": "d2d4"})
            after = until(ws, lambda m: settled(m) and m["plies"] == 4)[-1]
            assert after["moves"][:2] == before["moves"] and len(after["clocks"]) == 4
            pgn = chess.pgn.read_game(io.StringIO(app.get(f"/api/games/{token['game']}/pgn").text))
            assert all(node.clock() is not None for node in pgn.mainline())
        with app.websocket_connect("/api/play") as ws:  # the token is the game's own
            assert "no such game" in _refused(ws, token["game"], token["token"][:-1])
    assert no_engines_left()


def test_finished_games_are_listed_with_their_pgn_after_a_restart(kosteniuk_casebase, tmp_path):
    store = tmp_path / "games.sqlite3"
    with client(kosteniuk_casebase.parent, store=store) as app:
        assert app.get("/api/games").json() == {"games": []}
        with app.websocket_connect("/api/play") as ws:
            token, before = _opened(ws)
            ws.send_json({"type": "resign"})
            until(ws, lambda m: m["type"] == "state" and m["result"] == "0-1")
            _opened(ws)  # a game not over is not listed
    with client(kosteniuk_casebase.parent, store=store) as app:
        listing = app.get("/api/games").json()["games"]
        assert [
            (g["id"], g["result"], g["termination"], g["plies"], g["human"]) for g in listing
        ] == [(token["game"], "0-1", "resignation", 2, "white")]
        game = chess.pgn.read_game(io.StringIO(app.get(f"/api/games/{token['game']}/pgn").text))
        assert [m.uci() for m in game.mainline_moves()][0] == "e2e4" and len(
            list(game.mainline_moves())
        ) == 2
        assert game.headers["Result"] == "0-1" and game.headers["Termination"] == "resignation"
        assert (
            game.headers["Black"].startswith("Alexandra Kosteniuk")
            and list(game.mainline())[1].comment
        )
        assert app.get("/api/games/nonesuch/pgn").status_code == 404
        with app.websocket_connect("/api/play") as ws:
            assert "over" in _refused(ws, token["game"], token["token"])
    assert no_engines_left()


@pytest.mark.parametrize("junk", ["a file where its folder should be", "a file that is not SQLite"])
def test_a_store_that_cannot_be_opened_is_said_before_serving(tmp_path, capsys, monkeypatch, junk):
    from web.cli import main

    monkeypatch.setattr(
        "uvicorn.run", lambda *_, **__: pytest.fail("served with a store it cannot use")
    )
    blocker = tmp_path / "x"
    blocker.write_text("not a database " * 100)
    store = blocker / "games.sqlite3" if junk.startswith("a file where") else blocker
    assert main(["--no-fetch", "--store", str(store)]) == 1
    assert f"cbr-chess web: the games' store {store}: " in capsys.readouterr().err
    assert blocker.read_text() == "not a database " * 100  # nothing lost


def test_a_damaged_record_is_refused_with_a_message_and_the_page_plays_on(
    kosteniuk_casebase, tmp_path
):
    from web.store import Store

    store = Store(tmp_path / "games.sqlite3")
    store.save("bad", "secret", {"settings": {"expert": EXPERT}, "moves": ["e2e5"], "reasons": {}})
    store.save("worse", "secret", ["not", "a", "game"])
    with (
        client(kosteniuk_casebase.parent, store=store.path) as app,
        app.websocket_connect("/api/play") as ws,
    ):
        for game in ("bad", "worse"):
            assert "record cannot be read" in _refused(ws, game, "secret")
        ws.send_json({"type": "new", "expert": EXPERT})
        assert until(ws, settled)[-1]["plies"] == 0
    assert no_engines_left()
