"""A local server still meets the web (web/guard.py, web/redact.py; docs/web.md, Security): the
Host and the Origin are checked, bodies are JSON only, the asks waiting are bounded, and no path of
this machine reaches the page."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest
from starlette.websockets import WebSocketDisconnect
from web_helpers import EXPERT, HOST, client, settled, until

from common.paths import PROJECT_ROOT
from engine.style.lc0 import is_network
from engine.style.loader import default_model
from web.guard import LOOPBACK, served_as

START = chess.STARTING_FEN
JSON = {"content-type": "application/json"}
FEN = json.dumps({"fen": START}).encode()
STOCKFISH = shutil.which("stockfish") or next(
    (p for p in ("/usr/games/stockfish",) if Path(p).is_file()), None
)


@pytest.fixture(scope="module")
def app(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def on_8000(kosteniuk_casebase):
    """The app as ``cbr-chess web`` serves it on port 8000 (its clients name the port in Host)."""
    with client(kosteniuk_casebase.parent, port=8000) as test_client:
        yield test_client


def _refused_socket(app: Any, headers: dict[str, str]) -> WebSocketDisconnect:
    with pytest.raises(WebSocketDisconnect) as refused:
        with app.websocket_connect("/api/play", headers=headers):
            pass
    return refused.value


@pytest.mark.parametrize(
    "host", ["evil.example:8000", "evil.example", "localhost:8001", "127.0.0.2:8000", ""]
)
def test_a_host_the_server_is_not_served_as_is_refused_on_every_request_and_the_websocket(
    on_8000, host
):
    """DNS rebinding: another site's name resolved to this machine reaches the server with its own
    Host."""
    response = on_8000.get("/api/experts", headers={"host": host})
    assert response.status_code == 400 and "not served as" in response.json()["error"]
    assert on_8000.get("/", headers={"host": host}).status_code == 400
    assert (
        on_8000.post("/api/position", content=FEN, headers={**JSON, "host": host}).status_code
        == 400
    )
    refused = _refused_socket(on_8000, {"host": host})
    assert refused.code == 1008 and "not served as" in refused.reason


@pytest.mark.parametrize(
    "host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST:8000", f"{HOST}:8000"]
)
def test_the_names_the_server_is_served_as_are_accepted(on_8000, host):
    assert on_8000.get("/api/experts", headers={"host": host}).status_code == 200
    assert (
        on_8000.post("/api/position", content=FEN, headers={**JSON, "host": host}).status_code
        == 200
    )


def test_the_names_follow_the_address_listened_on():
    assert served_as("127.0.0.1") == LOOPBACK and set(served_as("0.0.0.0", ["Box.lan"])) == {
        *LOOPBACK,
        "box.lan",
    }
    assert served_as("192.168.1.5") == ("192.168.1.5",) and served_as("[::1]") == (
        "::1",
        "127.0.0.1",
        "localhost",
    )


def test_another_sites_origin_is_refused_on_the_websocket_and_on_posts(app):
    for origin in (
        "http://evil.example",
        f"http://{HOST}.evil.example",
        "null",
        f"https://{HOST}:8001",
        "file://",
    ):
        refused = _refused_socket(app, {"origin": origin})
        assert refused.code == 1008 and "another site" in refused.reason, origin
        response = app.post("/api/ask", content=FEN, headers={**JSON, "origin": origin})
        assert response.status_code == 403 and "another site" in response.json()["error"], origin
    # the page's own origin, and a client that is not a browser (no Origin), are served
    assert (
        app.post(
            "/api/position", content=FEN, headers={**JSON, "origin": f"http://{HOST}"}
        ).status_code
        == 200
    )
    assert app.post("/api/position", content=FEN, headers=JSON).status_code == 200
    with app.websocket_connect("/api/play", headers={"origin": f"http://{HOST}"}) as ws:
        ws.send_json({"type": "state"})
        assert ws.receive_json()["type"] == "error"  # the game's own answer: no game yet
    # reading is left to the browser's same-origin policy (no CORS header is ever sent)
    response = app.get("/api/experts", headers={"origin": "http://evil.example"})
    assert response.status_code == 200 and "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize(
    "kind",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/jsonx",
        "text/json",
    ],
)
def test_a_body_not_sent_as_application_json_is_415(app, kind):
    """A page of any site may POST text/plain (or a form) without asking first; JSON it may not."""
    headers = {} if kind is None else {"content-type": kind}
    for path in ("/api/ask", "/api/position"):
        response = app.post(path, content=FEN, headers=headers)
        assert response.status_code == 415 and "application/json" in response.json()["error"], (
            path,
            kind,
        )


def test_json_with_its_charset_is_read(app):
    headers = {"content-type": "Application/JSON; charset=utf-8"}
    assert (
        app.post("/api/position", content=FEN, headers=headers).json()["positions"][0]["fen"]
        == START
    )


@pytest.mark.slow  # an ask runs an engine process
def test_asks_beyond_the_bound_are_refused_at_once_with_503(kosteniuk_casebase):
    """One ask thinks (a second of movetime) while the bound is full: the next one is not queued."""
    body = {"fen": START, "experts": [EXPERT]}
    with client(
        kosteniuk_casebase.parent,
        max_asks=1,
        max_ask_queue=1,
        ask_limit=chess.engine.Limit(time=1.0),
    ) as small:
        answers: list[Any] = []
        first = threading.Thread(target=lambda: answers.append(small.post("/api/ask", json=body)))
        first.start()
        asks = small.app.state.asks
        while asks.count == 0 and first.is_alive():
            first.join(0.01)
        refused = small.post("/api/ask", json=body)
        first.join()
        assert (
            asks.count == 0
            and answers[0].status_code == 200
            and answers[0].json()["answers"][0]["best"]
        )
    assert refused.status_code == 503 and refused.headers["retry-after"]
    assert "too many asks waiting (at most 1 at once)" in refused.json()["error"]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


@pytest.mark.slow  # a game and an ask through engine processes
@pytest.mark.skipif(
    STOCKFISH is None, reason="no stockfish: the judge's path is one of those looked for"
)
def test_no_path_of_this_machine_reaches_the_page(kosteniuk_casebase):
    """The engine names the personal model's file and the judge's command in its lines; the page
    gets their names only, on the websocket, from ask, in the listing and in the PGN."""
    assert STOCKFISH is not None
    sent: list[Any] = []
    with client(kosteniuk_casebase.parent, judge=STOCKFISH) as app:
        sent.append(app.get("/api/experts").json())
        with app.websocket_connect("/api/play") as ws:
            ws.send_json({"type": "new", "expert": EXPERT, "colour": "black"})
            game = until(ws, lambda m: settled(m) and m["plies"] == 1)
            sent += game
            sent.append(app.get(f"/api/games/{game[-1]['game']}/pgn").text)
        sent.append(
            app.post("/api/ask", json={"fen": START, "experts": [EXPERT], "lines": 2}).json()
        )
    texts = _texts(sent)
    machine = [str(PROJECT_ROOT), str(kosteniuk_casebase.parent), str(Path(STOCKFISH).parent)]
    leaks = [
        t
        for t in texts
        if any(path in t for path in machine) or re.search(r"(^|[\s(])~?/[\w.-]+/", t)
    ]
    assert not leaks, leaks[:3]
    # the engine did name them, by name
    # where lc0's backend plays it, her shipped own network; else the personal 8x96
    default = default_model()[0]
    named = (
        f"the own network of Alexandra Kosteniuk ({EXPERT}.pb.gz;"
        if is_network(default)
        else f"personal model of Alexandra Kosteniuk ({EXPERT}.npz;"
    )
    assert any(named in t for t in texts)
    assert (
        any(f"judge: {Path(STOCKFISH).name}," in t for t in texts)
        and sent[0]["judge"] == Path(STOCKFISH).name
    )
