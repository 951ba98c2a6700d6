"""The web app (FastAPI): the page, the experts' API, asking the expert, and the games' websocket.

Requests name experts by id (web/experts.py), never by path; bodies are capped (413); every game
owns one engine process, ended when its websocket closes, when it idles, or at shutdown. Host, Origin
and content type are checked before a request gets here (web/guard.py), and what goes to the page
carries no path of this machine (web/redact.py).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from common.text import clip
from engine.agents import defaults
from engine.outside.launch import LaunchError
from engine.search.limits import SearchLimits, to_limit
from web.ask import MAX_LINES, ask
from web.differ import compared
from web.experts import Experts, UnknownExpert
from web.games import Game, GameError, Settings
from web.guard import LOOPBACK, Bound, Busy, Guard
from web.keeper import Keeper, new_game
from web.positions import PositionError, board_from_fen, positions_of_fen, positions_of_pgn
from web.redact import redact
from web.store import Store
from web.vendor import VENDOR

STATIC = Path(__file__).resolve().parent / "static"
#: The most characters of a message said to the page (it may repeat what was sent: a 900 kB FEN).
MESSAGE = 500


@dataclass
class Config:
    """What ``cbr-chess web`` was started with."""

    experts: Experts
    judge: str | None = None
    mode: str | None = None  # an engine mode other than its default (guided)
    limit: chess.engine.Limit | None = None  # a fixed limit for every engine move instead of the clock
    ask_limit: chess.engine.Limit = field(default_factory=lambda: to_limit(SearchLimits(movetime=1000)))
    max_games: int = 4
    max_asks: int = 2
    max_ask_queue: int = 8  # asks running or waiting for an engine; one more is 503
    idle_seconds: float = 1800.0
    max_body: int = 1_000_000  # bytes of a request body (a PGN upload)
    max_message: int = 65_536  # characters of one websocket message
    hosts: tuple[str, ...] = LOOPBACK  # the Host names the page is served as (web/guard.py)
    port: int | None = None  # the port it is served on (None: any)
    store: Path | None = None  # the games' store (web/store.py; None: none kept)
    grace_seconds: float = 60.0  # how long a game waits for its closed tab to come back (a reload)


class Registry:
    """The open games, capped: one engine process each."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.games: dict[str, Game] = {}
        self.keeper: Keeper  # set by create_app

    def add(self, game: Game) -> None:
        if len(self.games) >= self.cap:
            # a closed tab's game still counts while it waits for a reload: say so, or the player sees no game to close
            waiting = sum(1 for open_game in self.games.values() if open_game.relay.owner is None)
            kept = f", {waiting} of them kept for a closed tab's reload for up to {self.keeper.grace:g} s" if waiting else ""
            raise GameError(f"too many games at once (at most {self.cap}{kept}): close another tab's game and try again")
        self.games[game.id] = game

    async def close(self, game: Game) -> None:
        self.games.pop(game.id, None)
        await game.close()

    async def close_all(self) -> None:
        await asyncio.gather(*(self.close(game) for game in list(self.games.values())))


def create_app(config: Config) -> FastAPI:
    """The app for ``config``; its games end with it."""
    registry = Registry(config.max_games)
    registry.keeper = Keeper(registry, None if config.store is None else Store(config.store), config.grace_seconds)
    asks = asyncio.Semaphore(config.max_asks)
    ask_queue = Bound(config.max_ask_queue, "asks")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        registry.keeper.stop()
        await registry.close_all()

    app = FastAPI(title="cbr-chess", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.registry = registry
    app.state.asks = ask_queue
    app.add_middleware(Guard, hosts=config.hosts, port=config.port)
    # the widget where web.vendor put it (an installed engine's is in the user's data folder), before the page's own
    app.mount("/static/vendor", StaticFiles(directory=VENDOR, check_dir=False), name="vendor")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(UnknownExpert)
    async def unknown(_: Request, exc: UnknownExpert) -> JSONResponse:
        return JSONResponse({"error": clip(redact(str(exc)), MESSAGE)}, status_code=404)  # it names the id asked for

    @app.exception_handler(PositionError)
    async def bad_position(_: Request, exc: PositionError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(ClientDisconnect)  # a request cut short: no one to answer, and no traceback in the log
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

    @app.get("/favicon.ico", include_in_schema=False)  # asked for by browsers whatever the page names
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/experts")
    async def experts() -> dict[str, Any]:
        listing = await asyncio.to_thread(config.experts.listing)
        return {"experts": listing, "default": config.experts.default_id(), "judge": redact(config.judge),
                "limits": {"minutes": 90, "moves": 40, "increment": 60, "elo": list(defaults.UCI_ELO_RANGE), "lines": MAX_LINES}}

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
        """The experts' candidates in a position: ``{"fen", "experts": [id, ...] (1 or 2), "lines", "ratings"}``."""
        body = await _json_body(request, config.max_body)
        board = board_from_fen(str(body.get("fen", "")))
        ids = body.get("experts")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 2 or not all(isinstance(i, str) for i in ids):
            raise HTTPException(400, '"experts" is a list of one or two expert ids')
        lines = body.get("lines", 4)
        if not isinstance(lines, int) or not 1 <= lines <= MAX_LINES:
            raise HTTPException(400, f'"lines" is a whole number from 1 to {MAX_LINES}')
        if not isinstance(ratings := body.get("ratings", False), bool):
            raise HTTPException(400, '"ratings" is true (the chances at several ratings too) or false')
        paths = [str(config.experts.get(i).path.resolve()) for i in ids]  # absolute: web/redact.py finds it
        names = [config.experts.casebase(i).expert for i in ids]

        async def one(path: str) -> dict[str, Any]:
            async with asks:
                return await ask(board, path, lines, config.ask_limit, judge=config.judge, mode=config.mode, ratings=ratings)

        try:
            with ask_queue.hold():
                answers = await asyncio.gather(*(one(p) for p in paths))
        except (chess.engine.EngineError, TimeoutError, LaunchError) as exc:
            raise HTTPException(503, f"the engine failed: {exc}") from None
        return redact({"fen": board.fen(), "differences": compared(config.experts, ids, names, list(answers)),
                       "answers": [{"expert": i, "name": n, **a} for i, n, a in zip(ids, names, answers)]})

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {"games": redact(await asyncio.to_thread(registry.keeper.finished))}

    @app.get("/api/games/{game_id}/pgn")
    async def pgn(game_id: str) -> PlainTextResponse:
        game = registry.games.get(game_id)
        text = game.pgn() if game is not None else await asyncio.to_thread(registry.keeper.pgn, game_id)
        if text is None:
            raise HTTPException(404, "no such game, open or finished")
        return PlainTextResponse(redact(text), media_type="application/x-chess-pgn",
                                 headers={"Content-Disposition": f'attachment; filename="cbr-chess-{game_id[:8]}.pgn"'})

    @app.websocket("/api/play")
    async def play(ws: WebSocket) -> None:
        await ws.accept()
        session = _Session(ws, config, registry)
        try:
            await session.run()
        except WebSocketDisconnect:
            pass
        finally:
            await session.end()

    return app


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, refused with 413 beyond ``limit`` bytes (counted as it arrives)."""
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
    except (ValueError, UnicodeError, RecursionError):  # RecursionError: nested too deep for the reader
        raise HTTPException(400, "the request is not JSON") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the request is not a JSON object")
    return body


class _Session:
    """One websocket: at most one game at a time, its engine ended with the socket."""

    def __init__(self, ws: WebSocket, config: Config, registry: Registry) -> None:
        self.ws, self.config, self.registry = ws, config, registry
        self.game: Game | None = None
        self.lock = asyncio.Lock()
        self.last = time.monotonic()

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.ws.send_json(redact(message))

    async def run(self) -> None:
        while True:
            try:
                received = await asyncio.wait_for(self.ws.receive(), self._wait())
            except TimeoutError:
                if time.monotonic() - self.last >= self.config.idle_seconds and not (self.game and self.game.busy):
                    await self.send({"type": "closed", "message": f"idle for {self.config.idle_seconds:.0f} s: game ended"})
                    await self.ws.close()
                    return
                continue
            if received["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(received.get("code", 1000))
            self.last = time.monotonic()
            game = self.game
            result = None if game is None else game.result
            try:
                await self.handle(self._parse(received.get("text")))
            except (GameError, PositionError, UnknownExpert) as exc:
                await self.send({"type": "error", "message": clip(str(exc).strip("'\""), MESSAGE)})  # it may repeat the input
                if game is not None and game is self.game and result is None and game.result is not None:
                    await game.relay.send(game.state())  # the refused move ended the game (a flag fell): show the end
            self.last = time.monotonic()  # idle counts from the end of the last request (a start takes seconds)

    def _wait(self) -> float:
        return max(self.config.idle_seconds - (time.monotonic() - self.last), 0.05)

    def _parse(self, text: str | None) -> dict[str, Any]:
        if text is None:
            raise GameError("send text messages (JSON)")
        if len(text) > self.config.max_message:
            raise GameError(f"message too large: at most {self.config.max_message} characters")
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested too deep for the reader
            raise GameError("not a JSON message") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise GameError('a message is a JSON object with a "type"')
        return message

    async def handle(self, message: dict[str, Any]) -> None:
        kind, game = message["type"], self.game
        if kind == "new":
            await self.new(message)
            return
        if kind == "resume":  # a reloaded page asks for its game again (web/keeper.py)
            game = self.game = await self.registry.keeper.resume(message, self, self.config)
            kind = "state"
        if game is None:
            raise GameError(f"out of order: {kind!r} before a game was started (send \"new\" first)")
        if kind == "move":
            game.human_move(str(message.get("uci", "")))
        elif kind == "takeback":
            game.take_back()
        elif kind == "resign":
            if game.task is not None and not game.task.done():
                game.task.cancel()
            game.resign()
        elif kind == "draw":
            game.claim_draw()
        elif kind == "offer_draw":
            said = game.offer_draw()
            await self.send({"type": "draw_offer", "accepted": said.accepted, "why": said.why})
        elif kind != "state":
            raise GameError(f"unknown message type {kind[:20]!r}")
        self._think()  # first, so that the state says the engine thinks
        await game.relay.send(game.state())

    async def new(self, message: dict[str, Any]) -> None:
        settings = _settings(message, self.config.experts)
        if self.game is not None:
            await self.registry.close(self.game)
            self.game = None
        game = new_game(self.config, settings)
        await self.registry.keeper.start(game)
        self.game = game
        await self.registry.keeper.hold(game, self)
        self._think()
        await game.relay.send(game.state())

    def _think(self) -> None:
        game = self.game
        if game is not None and game.engine_to_move() and not game.busy:
            game.begin_thinking()
            game.task = asyncio.create_task(self._engine_move(game))

    async def _engine_move(self, game: Game) -> None:
        try:
            await game.engine_move(game.relay.send)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as exc:
            game.result, game.termination = "*", f"the engine failed: {exc}"
        finally:
            game.busy = False
        await game.relay.send(game.state())  # to the tab that holds it now, if any (web/relay.py)

    async def end(self) -> None:
        if self.game is not None:
            await self.registry.keeper.leave(self.game)  # it waits for a reload (web/keeper.py)
            self.game = None


def _settings(message: dict[str, Any], experts: Experts) -> Settings:
    """The new game's settings from the page's message, each checked."""
    expert = message.get("expert")
    if not isinstance(expert, str):
        raise GameError("choose an expert")
    experts.get(expert)
    colour = message.get("colour", "white")
    if colour not in ("white", "black", "random"):
        raise GameError("colour is white, black or random")
    human = random.choice([chess.WHITE, chess.BLACK]) if colour == "random" else colour == "white"
    minutes, moves, increment = message.get("minutes", 15), message.get("moves", 40), message.get("increment", 0)
    if not isinstance(minutes, int | float) or not 0 < minutes <= 90:
        raise GameError("minutes: more than 0, at most 90")
    if not isinstance(moves, int) or not 0 <= moves <= 40:
        raise GameError("moves per period: 0 (the whole game) to 40")
    if not isinstance(increment, int | float) or not 0 <= increment <= 60:
        raise GameError("increment: 0 to 60 seconds")
    elo = message.get("elo")
    low, high = defaults.UCI_ELO_RANGE  # the engine's option UCI_Elo
    if elo is not None and (not isinstance(elo, int) or not low <= elo <= high):
        raise GameError(f"strength: the expert's own (no elo) or an Elo from {low} to {high}")
    fen = message.get("fen")
    if fen is not None:
        board = board_from_fen(str(fen))
        if board.is_game_over():
            raise GameError("this position is already over: nothing to play")
        fen = board.fen()
    return Settings(expert, human, float(minutes), moves, float(increment), elo, fen)
