"""The games' websocket of the web app (:mod:`web.app`): the open games, capped (:class:`Registry`),
and one websocket's session (:class:`Session`): at most one game at a time, its messages read and
answered, the engine's moves, its engine ended with the socket."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import chess
import chess.engine
from fastapi import WebSocket, WebSocketDisconnect

from common.text import clip
from engine.agents import defaults
from engine.outside.failures import ENGINE_FAILURES
from web.config import Config
from web.experts import Experts, UnknownExpert
from web.game_settings import Settings
from web.games import Game, GameError
from web.keeper import Keeper, new_game
from web.positions import PositionError, board_from_fen
from web.redact import redact

#: The most characters of a message said to the page (it may repeat what was sent: a 900 kB FEN).
MESSAGE = 500


class Registry:
    """The open games, capped: one engine process each."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.games: dict[str, Game] = {}
        self.keeper: Keeper  # set by create_app

    def add(self, game: Game) -> None:
        if len(self.games) >= self.cap:
            # a closed tab's game still counts while it waits for a reload: say so, or the player
            # sees no game to close
            waiting = sum(1 for open_game in self.games.values() if open_game.relay.owner is None)
            kept = (
                f", {waiting} of them kept for a closed tab's reload for up to"
                f" {self.keeper.grace:g} s"
                if waiting
                else ""
            )
            raise GameError(
                f"too many games at once (at most {self.cap}{kept}): close another tab's game"
                " and try again"
            )
        self.games[game.id] = game

    async def close(self, game: Game) -> None:
        self.games.pop(game.id, None)
        await game.close()

    async def close_all(self) -> None:
        await asyncio.gather(*(self.close(game) for game in list(self.games.values())))


class Session:
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
                if time.monotonic() - self.last >= self.config.idle_seconds and not (
                    self.game and self.game.busy
                ):
                    await self.send(
                        {
                            "type": "closed",
                            "message": f"idle for {self.config.idle_seconds:.0f} s: game ended",
                        }
                    )
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
                # it may repeat the input
                await self.send({"type": "error", "message": clip(str(exc).strip("'\""), MESSAGE)})
                if (
                    game is not None
                    and game is self.game
                    and result is None
                    and game.result is not None
                ):
                    # the refused move ended the game (a flag fell): show the end
                    await game.relay.send(game.state())
            # idle counts from the end of the last request (a start takes seconds)
            self.last = time.monotonic()

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
            raise GameError(f'out of order: {kind!r} before a game was started (send "new" first)')
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
        except ENGINE_FAILURES as exc:
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
    minutes, moves, increment = (
        message.get("minutes", 15),
        message.get("moves", 40),
        message.get("increment", 0),
    )
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
