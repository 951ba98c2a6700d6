"""Games that outlive their tab: a game whose websocket closes waits ``grace_seconds`` for its tab
to come back (a reload) before its engine ends; each clean point of a game (the human to move, or
the end) is kept in the store (web/store.py), from which a game is taken up again after a server
restart, on a fresh engine process at that position, both clocks, moves and reasons as they were. A
tab shows the game's secret token to take it back, so that no other tab or site can."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import secrets
from typing import Any, Protocol

import chess
import chess.engine

from engine.outside.failures import ENGINE_FAILURES
from engine.outside.launch import LaunchError
from web.experts import Experts, UnknownExpert
from web.game_settings import Settings
from web.games import Game, GameError
from web.relay import Holder
from web.store import Store, StoreError

log = logging.getLogger(__name__)


class Config(Protocol):
    """What a game's engine is started with (web/app.py's Config)."""

    experts: Experts
    judge: str | None
    mode: str | None
    limit: chess.engine.Limit | None


class Registry(Protocol):
    """The open games, capped (web/app.py's Registry)."""

    games: dict[str, Game]

    def add(self, game: Game) -> None: ...

    async def close(self, game: Game) -> None: ...


def new_game(config: Config, settings: Settings) -> Game:
    """A game (not started) of ``settings`` with ``config``'s engine."""
    experts = config.experts
    expert, casebase = experts.get(settings.expert), experts.casebase(settings.expert)

    def case(index: int) -> dict[str, Any] | None:
        try:
            return experts.case(settings.expert, index)
        except UnknownExpert:
            return None

    return Game(
        settings,
        str(expert.path.resolve()),
        casebase.expert,
        judge=config.judge,
        mode=config.mode,
        limit=config.limit,
        case_lookup=case,
    )


def snapshot(game: Game) -> dict[str, Any]:
    """Everything to take ``game`` up again: settings, moves, reasons, both clocks now, result."""
    return {
        "settings": dataclasses.asdict(game.settings),
        "moves": [m.uci() for m in game.board.move_stack],
        "reasons": {str(ply): record for ply, record in game.reasons.items()},
        "clock": game.clock.saved(),
        "clocks": game.clocks,
        "result": game.result,
        "termination": game.termination,
        "started": game.started.isoformat(),
    }


def restore(config: Config, game_id: str, token: str, kept: dict[str, Any]) -> Game:
    """The game of a snapshot (:func:`snapshot`), not started."""
    game = new_game(config, Settings(**kept["settings"]))
    game.id, game.relay.token = game_id, token
    for uci in kept["moves"]:
        game.board.push_uci(uci)
    game.reasons = {int(ply): record for ply, record in kept["reasons"].items()}
    game.clock.restore(kept["clock"])
    game.clocks = list(kept["clocks"])
    game.result, game.termination = kept["result"], kept["termination"]
    game.started = datetime.date.fromisoformat(kept["started"])
    return game


class Keeper:
    """The registry's games beyond their tabs: the grace after a tab closes, the store, resuming."""

    def __init__(self, registry: Registry, store: Store | None, grace_seconds: float) -> None:
        self.registry, self.store, self.grace = registry, store, grace_seconds
        self.expiry: dict[str, asyncio.Task[None]] = {}

    async def start(self, game: Game) -> None:
        """Count the game against the cap, start its engine and its flag's watch."""
        self.registry.add(game)
        try:
            await game.start()
        except ENGINE_FAILURES + (OSError, LaunchError) as exc:
            await self.registry.close(game)
            raise GameError(f"the engine did not start: {exc}") from None
        game.watcher = asyncio.create_task(game.watch_flag(game.relay.send))

    async def hold(self, game: Game, holder: Holder) -> None:
        """Give ``game`` to ``holder``'s tab (taken from another tab that held it), and tell the tab
        its id and token, which the page keeps to ask for the game again."""
        relay = game.relay
        if relay.owner is not None and relay.owner is not holder:
            relay.owner.game = None  # the other tab lets go
        relay.owner, relay.settled = holder, lambda: self.save(game)
        waiting = self.expiry.pop(game.id, None)
        if waiting is not None:
            waiting.cancel()
        await relay.send({"type": "kept", "game": game.id, "token": relay.token})

    async def leave(self, game: Game) -> None:
        """``game``'s tab went away: end it now if it is over (or there is no grace), else after the
        grace."""
        game.relay.owner = None
        if self.grace <= 0 or game.result is not None:
            await self.registry.close(game)
        elif game.id not in self.expiry:
            self.expiry[game.id] = asyncio.create_task(self._expire(game))

    async def _expire(self, game: Game) -> None:
        await asyncio.sleep(self.grace)
        self.expiry.pop(game.id, None)
        await self.registry.close(game)

    def stop(self) -> None:
        """The server stops: no game waits any longer (the registry closes them)."""
        for task in self.expiry.values():
            task.cancel()
        self.expiry.clear()

    async def resume(self, message: dict[str, Any], holder: Holder, config: Config) -> Game:
        """The game a ``resume`` message names, with its token: still open (its tab reloaded), or
        taken up from the store on a fresh engine; its reasons sent again, and given to
        ``holder``."""
        game_id, token = str(message.get("game", "")), str(message.get("token", ""))
        game = self.registry.games.get(game_id)
        if game is not None and not secrets.compare_digest(game.relay.token, token):
            game = None
        if game is None:
            game = await self._taken_up(game_id, token, config)
        if holder.game is not None and holder.game is not game:
            await self.leave(holder.game)
        await self.hold(game, holder)
        for ply in sorted(game.reasons):
            await game.relay.send({"type": "reasons", **game.reasons[ply]})
        return game

    async def _taken_up(self, game_id: str, token: str, config: Config) -> Game:
        try:
            kept = None if self.store is None else await asyncio.to_thread(self.store.load, game_id)
        except (StoreError, ValueError) as exc:  # ValueError: a record that is not JSON
            raise GameError(f"the game could not be read: {exc}") from None
        if kept is None or not secrets.compare_digest(kept[0], token):
            raise GameError("no such game to resume (it ended, or was never kept): start a new one")
        if isinstance(kept[1], dict) and kept[1].get("result") is not None:
            raise GameError("that game is over: its PGN is in the list of finished games")
        try:
            game = restore(config, game_id, token, kept[1])
        except UnknownExpert:
            raise GameError("that game's expert is no longer offered: start a new one") from None
        # a record damaged or from another version
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GameError(
                f"that game's record cannot be read ({exc!r}): start a new one"
            ) from None
        await self.start(game)
        return game

    def save(self, game: Game) -> None:
        """Keep ``game`` if it is at a clean point: over, or the human to move (the engine not
        thinking)."""
        if self.store is None or (
            game.result is None and (game.busy or game.board.turn != game.human)
        ):
            return
        finished = (
            None
            if game.result is None
            else {
                "date": game.started.isoformat(),
                "expert": game.expert_name,
                "human": chess.COLOR_NAMES[game.human],
                "result": game.result,
                "termination": game.termination,
                "plies": len(game.board.move_stack),
            }
        )
        try:
            self.store.save(
                game.id,
                game.relay.token,
                snapshot(game),
                finished,
                None if finished is None else game.pgn(),
            )
        except StoreError as exc:  # the game goes on; only taking it up again is lost
            log.warning("%s", exc)

    def finished(self) -> list[dict[str, Any]]:
        """The finished games kept (none when the store cannot be read: the page plays on)."""
        try:
            return [] if self.store is None else self.store.finished()
        except StoreError as exc:
            log.warning("%s", exc)
            return []

    def pgn(self, game_id: str) -> str | None:
        try:
            return None if self.store is None else self.store.pgn(game_id)
        except StoreError as exc:
            log.warning("%s", exc)
            return None
