"""The web page's games kept on disk (SQLite, in the user's data folder: ``--store``): each open
game at its last clean point, so that a tab (or the server) can take it up again, and each finished
game with its PGN, listed on the page. A commit is SQLite's own transaction: a reader sees the old
row or the new one."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_SCHEMA = """CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, token TEXT NOT NULL, snapshot TEXT NOT NULL,
    finished TEXT, pgn TEXT, updated REAL NOT NULL)"""
#: The finished games the page lists, newest first.
LISTED = 200


class StoreError(RuntimeError):
    """The store cannot be opened or written (the message says which file and why)."""


class Store:
    """The games table of one SQLite file, opened for each use (the server's threads share none)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._open() as db:
                db.execute(_SCHEMA)
        except OSError as exc:
            raise StoreError(f"the games' store {self.path}: {exc}") from None

    @contextmanager
    def _open(self) -> Iterator[sqlite3.Connection]:
        """A connection whose changes are committed as one transaction, closed after; its failures
        are StoreError."""
        try:
            db = sqlite3.connect(self.path, timeout=10)
            try:
                with db:
                    yield db
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise StoreError(f"the games' store {self.path}: {exc}") from None

    def save(
        self,
        game_id: str,
        token: str,
        snapshot: dict[str, Any],
        finished: dict[str, Any] | None = None,
        pgn: str | None = None,
    ) -> None:
        """Keep a game's snapshot, with its listing and PGN once it is over."""
        row = (
            game_id,
            token,
            json.dumps(snapshot),
            None if finished is None else json.dumps(finished),
            pgn,
            time.time(),
        )
        with self._open() as db:
            db.execute("INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?)", row)

    def load(self, game_id: str) -> tuple[str, dict[str, Any]] | None:
        """A kept game's token and snapshot, or None."""
        row = self._one("SELECT token, snapshot FROM games WHERE id = ?", game_id)
        return None if row is None else (row[0], json.loads(row[1]))

    def pgn(self, game_id: str) -> str | None:
        """A finished game's PGN, or None."""
        row = self._one("SELECT pgn FROM games WHERE id = ? AND pgn IS NOT NULL", game_id)
        return None if row is None else str(row[0])

    def finished(self) -> list[dict[str, Any]]:
        """The finished games' listings, newest first."""
        with self._open() as db:
            rows = db.execute(
                "SELECT id, finished FROM games WHERE finished IS NOT NULL ORDER BY updated"
                " DESC LIMIT ?",
                (LISTED,),
            ).fetchall()
        return [{"id": game_id, **json.loads(text)} for game_id, text in rows]

    def _one(self, query: str, game_id: str) -> tuple[Any, ...] | None:
        with self._open() as db:
            row: tuple[Any, ...] | None = db.execute(query, (game_id,)).fetchone()
        return row
