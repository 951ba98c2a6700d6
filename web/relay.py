"""Where a game's messages go: the websocket of the tab that holds the game, or nowhere while no tab
does (a reloaded page's game waits for it: web/keeper.py). Every state sent is offered to the store,
which keeps it when it is a clean point."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Protocol

from starlette.websockets import WebSocketDisconnect


class Holder(Protocol):
    """A tab's session: the game it holds, and how to send it a message."""

    game: Any

    async def send(self, message: dict[str, Any]) -> None: ...


class Relay:
    """A game's way to its tab, and the secret a tab shows to take the game back after a reload."""

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(16)
        self.owner: Holder | None = None
        # called on every state sent (the store's save)
        self.settled: Callable[[], None] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "state" and self.settled is not None:
            self.settled()
        owner = self.owner
        if owner is None:
            return
        try:
            await owner.send(message)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the tab closed meanwhile: the game waits for it (web/keeper.py)
