"""The stage record, ``DIR/stages.json``: for each stage, the key of what it was made from (its
flags, the SHA-256 of its input files, the keys of the stages it reads) and, once it finished, its
outputs (relative to the folder) and their SHA-256, and the seconds spent making it (the report's
stage times: a resumed stage adds each run's).

A rerun skips a stage whose key is the same and whose outputs are still there, as they were
(``done (kept)``); goes on with a stage started with the same key (its journals are resumed);
and starts again a stage whose key changed (a changed PGN or flag), removing its journals first,
so that everything after it, whose keys hold its key, is made again too. It names the player (the
slug) whose engine the folder holds: another player's folder is refused, for the journals are named
alike for every player.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from common.files import file_sha256, write_atomic
from player import PlayerError

#: The stage record's name in the player's folder.
BOOK = "stages.json"
FORMAT = "cbr-chess-new-stages"


def key_of(inputs: dict[str, Any]) -> str:
    """The SHA-256 of a stage's inputs (JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


class StageBook:
    """The stage record of one player's folder, written atomically at every change."""

    def __init__(self, folder: Path, player: str | None = None) -> None:
        self.path = folder / BOOK
        self.player = player  # the slug of the player the folder is made for (None: not said)
        self.stages: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise PlayerError(
                    f"{self.path}: not a stage record ({exc}); move it away to start over"
                ) from None
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise PlayerError(
                    f"{self.path}: not a stage record of cbr-chess new; move it away to start over"
                )
            self.stages = data.get("stages", {})
            if None not in (player, data.get("player")) and data["player"] != player:
                raise PlayerError(
                    f"{folder} holds the engine of {data['player']}, not of {player}: give another"
                    " --out (its journals would be overwritten)"
                )

    def _save(self) -> None:
        made = {
            "format": FORMAT,
            **({"player": self.player} if self.player else {}),
            "stages": self.stages,
        }
        write_atomic(self.path, json.dumps(made, indent=1) + "\n")

    def key(self, name: str) -> str | None:
        """The key stage ``name`` was last started with (None: never)."""
        return self.stages.get(name, {}).get("key")

    def finished(self, name: str, key: str) -> bool:
        """Whether ``name`` finished with ``key`` and its outputs are still as it left them."""
        entry = self.stages.get(name, {})
        if entry.get("key") != key or "outputs" not in entry:
            return False
        return all(
            (path := self.path.parent / name).exists() and file_sha256(path) == sha
            for name, sha in entry["outputs"].items()
        )

    def start(self, name: str, key: str) -> bool:
        """Record that ``name`` starts with ``key``; True when it starts afresh (another key before:
        the seconds spent on it start again from 0, a resumed stage keeps them)."""
        fresh = self.key(name) != key
        self.stages[name] = {"key": key, "seconds": 0.0 if fresh else self.seconds(name) or 0.0}
        self._save()
        return fresh

    def spent(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to the time spent on ``name`` (a run that finished it or was stopped in
        it)."""
        self.stages[name]["seconds"] = (self.seconds(name) or 0.0) + seconds
        self._save()

    def seconds(self, name: str) -> float | None:
        """The seconds the runs that made ``name`` with its last key spent on it (None: not said; a
        folder made before the stage record kept them)."""
        seconds = self.stages.get(name, {}).get("seconds")
        return float(seconds) if isinstance(seconds, (int, float)) else None

    def finish(self, name: str, key: str, outputs: list[Path]) -> None:
        """Record that ``name`` finished with ``key``, writing ``outputs``."""
        # relative to the folder, which may be moved
        self.stages[name] = {
            "key": key,
            "seconds": self.seconds(name) or 0.0,
            "outputs": {
                str(path.relative_to(self.path.parent)): file_sha256(path) for path in outputs
            },
        }
        self._save()
