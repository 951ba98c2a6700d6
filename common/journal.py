"""A resumable journal: one JSON line per finished item, by key, so that a worker that fails or a
user who stops loses nothing finished (the error profile's, docs/strength.md §1; the chooser's records).

The first line is the header: what kind of journal it is (its ``journal`` value) and what the
entries depend on; a journal of another kind or other settings is refused, except for its
``judge``, which the caller checks once the judge has said its name. Each entry is flushed and
synced before it counts, and a cut-off last line (a killed writer's) is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, ClassVar


class JournalError(Exception):
    """A file that is not a journal of this kind, or one of other settings; the message says which."""


class Journal:
    """The finished items of one run, one JSON line each by key (a cut-off last line is ignored)."""

    #: What a journal of another kind or other settings raises.
    error: ClassVar[type[Exception]] = JournalError
    #: The kind a header without a ``journal`` value is taken for.
    default_kind: ClassVar[str | None] = None

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            self._read()

    def describe(self, kind: str | None) -> str:
        """A journal of ``kind`` in words, for the messages."""
        return str(kind)

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        kind = self.header.get("journal", self.default_kind)
        if not isinstance(header, dict) or header.get("journal") != kind:
            raise self.error(f"{self.path}: not a {self.describe(kind)} journal; move it away or name another")
        for key, value in self.header.items():
            if key != "judge" and header.get(key) != value:
                raise self.error(
                    f"{self.path}: a journal of other settings ({key} {header.get(key)!r}, not {value!r});"
                    " delete it to start over, or give the settings it was made with")
        self.header["judge"] = header.get("judge")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
                self.entries[str(entry["key"])] = entry
            except (json.JSONDecodeError, KeyError, TypeError):
                continue  # the line a killed writer left half-written

    def usable(self, key: str) -> bool:
        """Whether ``key`` is done, or not yet known to be unusable (a skipped item is not)."""
        return "skip" not in self.entries.get(key, {})

    def judged(self) -> int:
        """How many items are done (skipped ones not counted)."""
        return sum(1 for entry in self.entries.values() if "moves" in entry)

    def add(self, entry: dict[str, Any]) -> None:
        """Record one finished item (written and flushed to disk before it counts)."""
        new = not self.path.exists()
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            if new:
                f.write(json.dumps(self.header) + "\n")
            elif f.tell() and not self._ends_with_newline():
                f.write("\n")  # after a half-written line
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.entries[str(entry["key"])] = entry

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"
