"""The journal of judged positions: one JSON line per finished position, by case key, so that a
judge that fails or a user who stops loses nothing finished (docs/strength.md §1).

The first line is the header: what kind of journal it is and what the entries depend on (the
expert, depth, MultiPV, the judge's name); a journal of another kind or other settings is
refused. Each entry is flushed and synced before it counts, and a cut-off last line (a killed writer's) is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from profiling import ProfileError

#: The header's ``journal`` value: what says a file is a profile journal (the play-time
#: calibration's journal has its own, :data:`profiling.play.PLAY_JOURNAL`).
JOURNAL = "cbr-chess-profile-journal"


class Journal:
    """The judged positions of one expert, one JSON line each by case key (a cut-off last line is ignored)."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            self._read()

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        kind = self.header.get("journal", JOURNAL)
        if not isinstance(header, dict) or header.get("journal") != kind:
            what = "profile" if kind == JOURNAL else "play-time"
            raise ProfileError(f"{self.path}: not a {what} journal; move it away or name another")
        for key, value in self.header.items():
            if key != "judge" and header.get(key) != value:
                raise ProfileError(
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
        """Whether ``key`` is judged, or not yet known to be unusable (a skipped position is not)."""
        return "skip" not in self.entries.get(key, {})

    def judged(self) -> int:
        """How many positions are judged (skipped ones not counted)."""
        return sum(1 for entry in self.entries.values() if "moves" in entry)

    def add(self, entry: dict[str, Any]) -> None:
        """Record one finished position (written and flushed to disk before it counts)."""
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
