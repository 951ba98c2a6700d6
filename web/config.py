"""What ``cbr-chess web`` was started with (:class:`Config`): the experts, the judge and mode, the
limits of the engine's moves and asks, the bounds on games, bodies and messages, the hosts served,
the games' store."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine

from engine.search.limits import SearchLimits, to_limit
from web.experts import Experts
from web.guard import LOOPBACK


@dataclass
class Config:
    """What ``cbr-chess web`` was started with."""

    experts: Experts
    judge: str | None = None
    mode: str | None = None  # an engine mode other than its default (guided)
    # a fixed limit for every engine move instead of the clock
    limit: chess.engine.Limit | None = None
    ask_limit: chess.engine.Limit = field(
        default_factory=lambda: to_limit(SearchLimits(movetime=1000))
    )
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
