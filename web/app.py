"""The web app (FastAPI): the page, the experts' API, asking the expert, and the games' websocket
(its sessions: web/session.py; what the app was started with: web/config.py).

Requests name experts by id (web/experts.py), never by path; bodies are capped (413); every game
owns one engine process, ended when its websocket closes, when it idles, or at shutdown. Host,
Origin and content type are checked before a request gets here (web/guard.py), and what goes to the
page carries no path of this machine (web/redact.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from common.text import clip
from engine.agents import defaults
from engine.outside.failures import ENGINE_FAILURES
from engine.outside.launch import LaunchError
from web.ask import MAX_LINES, ask
from web.config import Config
from web.differ import compared
from web.experts import UnknownExpert
from web.guard import Bound, Busy, Guard
from web.keeper import Keeper
from web.positions import PositionError, board_from_fen, positions_of_fen, positions_of_pgn
from web.redact import redact
from web.session import MESSAGE, Registry, Session
from web.store import Store
from web.vendor import VENDOR

STATIC = Path(__file__).resolve().parent / "static"


def create_app(config: Config) -> FastAPI:
    """The app for ``config``; its games end with it."""
    registry = Registry(config.max_games)
    registry.keeper = Keeper(
        registry, None if config.store is None else Store(config.store), config.grace_seconds
    )
    asks = asyncio.Semaphore(config.max_asks)
    ask_queue = Bound(config.max_ask_queue, "asks")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        registry.keeper.stop()
        await registry.close_all()

    app = FastAPI(
        title="cbr-chess", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.registry = registry
    app.state.asks = ask_queue
    app.add_middleware(Guard, hosts=config.hosts, port=config.port)
    # the widget where web.vendor put it (an installed engine's is in the user's data folder),
    # before the page's own
    app.mount("/static/vendor", StaticFiles(directory=VENDOR, check_dir=False), name="vendor")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(UnknownExpert)
    async def unknown(_: Request, exc: UnknownExpert) -> JSONResponse:
        # it names the id asked for
        return JSONResponse({"error": clip(redact(str(exc)), MESSAGE)}, status_code=404)

    @app.exception_handler(PositionError)
    async def bad_position(_: Request, exc: PositionError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    # a request cut short: no one to answer, and no traceback in the log
    @app.exception_handler(ClientDisconnect)
    async def cut_short(_: Request, __: ClientDisconnect) -> JSONResponse:
        return JSONResponse({"error": "the request was cut short"}, status_code=400)

    @app.exception_handler(StarletteHTTPException)  # FastAPI's and the router's (no such route)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": redact(str(exc.detail))}, status_code=exc.status_code)

    @app.exception_handler(Busy)
    async def busy(_: Request, exc: Busy) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "5"})

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    # asked for by browsers whatever the page names
    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/experts")
    async def experts() -> dict[str, Any]:
        listing = await asyncio.to_thread(config.experts.listing)
        return {
            "experts": listing,
            "default": config.experts.default_id(),
            "judge": redact(config.judge),
            "limits": {
                "minutes": 90,
                "moves": 40,
                "increment": 60,
                "elo": list(defaults.UCI_ELO_RANGE),
                "lines": MAX_LINES,
            },
        }

    @app.get("/api/experts/{expert_id}")
    async def expert(expert_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(config.experts.facts, expert_id)

    @app.get("/api/experts/{expert_id}/repertoire")
    async def repertoire(expert_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(config.experts.repertoire, expert_id)

    @app.get("/api/experts/{expert_id}/cases/{index}")
    async def case(expert_id: str, index: int) -> dict[str, Any]:
        return await asyncio.to_thread(config.experts.case, expert_id, index)

    @app.get("/api/experts/{expert_id}/profile.png")
    async def profile_picture(expert_id: str) -> Response:
        try:
            png = await config.experts.profile_picture(expert_id)
        except RuntimeError as exc:
            raise HTTPException(503, str(exc)) from None
        return Response(png, media_type="image/png")

    @app.post("/api/position")
    async def position(request: Request) -> dict[str, Any]:
        """A FEN or a PGN (JSON ``{"fen": ...}`` or ``{"pgn": ...}``): its positions, or why not."""
        body = await _json_body(request, config.max_body)
        if isinstance(body.get("fen"), str):
            return positions_of_fen(body["fen"])
        if isinstance(body.get("pgn"), str):
            return positions_of_pgn(body["pgn"])
        raise HTTPException(400, 'send {"fen": "..."} or {"pgn": "..."}')

    @app.post("/api/ask")
    async def ask_expert(request: Request) -> dict[str, Any]:
        """The experts' candidates in a position: ``{"fen", "experts": [id, ...] (1 or 2), "lines",
        "ratings"}``."""
        body = await _json_body(request, config.max_body)
        board = board_from_fen(str(body.get("fen", "")))
        ids = body.get("experts")
        if (
            not isinstance(ids, list)
            or not 1 <= len(ids) <= 2
            or not all(isinstance(i, str) for i in ids)
        ):
            raise HTTPException(400, '"experts" is a list of one or two expert ids')
        lines = body.get("lines", 4)
        if not isinstance(lines, int) or not 1 <= lines <= MAX_LINES:
            raise HTTPException(400, f'"lines" is a whole number from 1 to {MAX_LINES}')
        if not isinstance(ratings := body.get("ratings", False), bool):
            raise HTTPException(
                400, '"ratings" is true (the chances at several ratings too) or false'
            )
        # absolute: web/redact.py finds it
        paths = [str(config.experts.get(i).path.resolve()) for i in ids]
        names = [config.experts.casebase(i).expert for i in ids]

        async def one(path: str) -> dict[str, Any]:
            async with asks:
                return await ask(
                    board,
                    path,
                    lines,
                    config.ask_limit,
                    judge=config.judge,
                    mode=config.mode,
                    ratings=ratings,
                )

        try:
            with ask_queue.hold():
                answers = await asyncio.gather(*(one(p) for p in paths))
        except ENGINE_FAILURES + (LaunchError,) as exc:
            raise HTTPException(503, f"the engine failed: {exc}") from None
        return redact(
            {
                "fen": board.fen(),
                "differences": compared(config.experts, ids, names, list(answers)),
                "answers": [{"expert": i, "name": n, **a} for i, n, a in zip(ids, names, answers)],
            }
        )

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": redact(await asyncio.to_thread(registry.keeper.finished))}

    @app.get("/api/games/{game_id}/pgn")
    async def pgn(game_id: str) -> PlainTextResponse:
        game = registry.games.get(game_id)
        text = (
            game.pgn()
            if game is not None
            else await asyncio.to_thread(registry.keeper.pgn, game_id)
        )
        if text is None:
            raise HTTPException(404, "no such game, open or finished")
        return PlainTextResponse(
            redact(text),
            media_type="application/x-chess-pgn",
            headers={"Content-Disposition": f'attachment; filename="cbr-chess-{game_id[:8]}.pgn"'},
        )

    @app.websocket("/api/play")
    async def play(ws: WebSocket) -> None:
        await ws.accept()
        session = Session(ws, config, registry)
        try:
            await session.run()
        except WebSocketDisconnect:
            pass
        finally:
            await session.end()

    return app


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, refused with 413 beyond ``limit`` bytes (counted as it
    arrives)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, f"request too large: at most {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"request too large: at most {limit} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks) or b"null")
    # RecursionError: nested too deep for the reader
    except (ValueError, UnicodeError, RecursionError):
        raise HTTPException(400, "the request is not JSON") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the request is not a JSON object")
    return body
