"""A resumable journal: one JSON line per finished item, by key, so that a worker that fails or a
user who stops loses nothing finished (the error profile's, docs/strength.md §1; the chooser's
records).

The first line is the header: what kind of journal it is (its ``journal`` value) and what the
entries depend on; a journal of another kind or other settings is refused, except for its
``judge``, which the caller checks once the judge has said its name (and what else a kind of journal
leaves to its caller, :attr:`Journal.checked_later`). Each entry is flushed and
synced before it counts, and a line a killed writer cut off is ignored: at the end, or anywhere
once a resumed run has written on after it (:func:`read_journal`, which the journals' other
readers share).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, ClassVar

from common.bounded import lines

#: The header's ``journal`` value of a play-time journal (``python -m profiling --play``), here
#: because its writer (:mod:`profiling.play`) and a reader (:mod:`learn.chooser.convert`) may not
#: import each other.
PLAY_JOURNAL = "cbr-chess-play-journal"


class JournalError(Exception):
    """A file that is not a journal of this kind, or one of other settings; the message says
    which."""


def cut_off(line: str) -> bool:
    """Whether ``line`` (not JSON) is what a killed writer leaves: the start of an entry's
    object."""
    return line.lstrip().startswith("{")


def read_journal(path: Path) -> tuple[Any, list[tuple[int, Any]], list[int]]:
    """The first line of the JSON-lines file ``path`` (None where it is not JSON), the other lines
    each with its number (from 1), blank lines and the lines a killed writer cut off
    (:func:`cut_off`) passed over, and the numbers of the lines that are neither JSON nor cut off,
    or longer than :data:`common.bounded.LINE_MOST` (never held whole: issue #69) (OSError and
    UnicodeDecodeError where the file cannot be read)."""
    header: Any = None
    entries, bad = [], []
    with open(path, "rb") as f:
        for number, line in enumerate(lines(f), start=1):
            if number == 1:
                header = _json(line) if line is not None else None
            elif line is None:
                bad.append(number)
            elif line.strip():
                try:
                    entries.append((number, json.loads(line)))
                except json.JSONDecodeError:
                    if not cut_off(line):
                        bad.append(number)
    return header, entries, bad


def _json(line: str) -> Any:
    """``line`` read as JSON, or None where it is not."""
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


class Journal:
    """The finished items of one run, one JSON line each by key (a cut-off last line is ignored)."""

    #: What a journal of another kind or other settings raises.
    error: ClassVar[type[Exception]] = JournalError
    #: The kind a header without a ``journal`` value is taken for.
    default_kind: ClassVar[str | None] = None
    #: The header's values its caller checks itself (the judge's name, known once the judge has said
    #: it): a journal that differs in them is read, and its own values replace the header's.
    checked_later: ClassVar[tuple[str, ...]] = ("judge",)

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            self._read()

    def describe(self, kind: str | None) -> str:
        """A journal of ``kind`` in words, for the messages."""
        return str(kind)

    def _read(self) -> None:
        header, entries, bad = read_journal(self.path)
        kind = self.header.get("journal", self.default_kind)
        if not isinstance(header, dict) or header.get("journal") != kind:
            raise self.error(
                f"{self.path}: not a {self.describe(kind)} journal; move it away or name another"
            )
        for key, value in self.header.items():
            if key not in self.checked_later and header.get(key) != value:
                raise self.error(
                    f"{self.path}: a journal of other settings ({key} {header.get(key)!r}, not"
                    f" {value!r}); delete it to start over, or give the settings it was made with"
                )
        if bad:
            raise self.error(
                f"{self.path}:{bad[0]}: not a JSON line (the file is damaged); move it away or"
                " name another"
            )
        self.header["judge"] = header.get("judge")
        self.header |= {key: header.get(key) for key in self.checked_later if key in self.header}
        for _, entry in entries:
            if isinstance(entry, dict) and "key" in entry:
                self.entries[str(entry["key"])] = entry

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
