"""The judged positions shared by every run: what a judge said of a position and the move played
there, at one depth and MultiPV, so that a position one run judged is not judged again by another
with the same judge (issue #62; docs/strength.md §1).

A run's journal (:mod:`profiling.journal`) keeps its own positions by case key, and goes when its
stage starts afresh (``cbr-chess new`` with another ``--positions`` or ``--holdout``) or another run
names another journal (another ``--out``). The cache keeps them by what the judge was shown: the
position (its FEN, move counters included: Stockfish's evaluation reads the fifty-move count) and
the move played, one file a judge, depth and MultiPV (``ID-dDEPTH-mMULTIPV.jsonl``). The judge is
named by its executable's SHA-256 and the name it gives (``id name``): another build at the same
path has another SHA-256, and another engine behind the same file (a wrapper script, a snap's
launcher, a command that names no file) another name. Its entries are a journal's, so a position
found there goes into the run's journal exactly as if its judge had just said it; it is appended to
as the positions come back, an entry at a time, as a journal is.

The cache only saves time: a damaged entry is a miss, and a cache that cannot be read or written is
said once on stderr and the run goes on without it.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import chess
import platformdirs

from common.files import file_sha256
from common.journal import read_journal
from engine.outside.failures import quit_engine
from engine.outside.launch import LaunchError, launch
from profiling.journal import Journal
from profiling.workers import Verdict

#: The header's ``journal`` value of the cache's files.
JUDGED = "cbr-chess-judged-positions"
#: What an entry keeps of a profile journal's (the case's key is the run's own).
FIELDS = ("fen", "moves", "scores", "played")
#: The entries each journal (by path) was given from a cache in this process: they took no judging,
#: so the progress line's pace leaves them out (:mod:`player.progress`).
_TAKEN: Counter[Path] = Counter()


class CacheFault(Exception):
    """A cache file of another kind or other settings than its name says."""


def default_folder() -> Path:
    """Where the judged positions are kept unless told otherwise: the user's cache folder
    (``~/.cache/cbr-chess/judged`` on Linux), shared by every clone and every player's folder."""
    return platformdirs.user_cache_path("cbr-chess") / "judged"


def judge_sha256(command: str) -> str:
    """What names a judge's build: its executable's SHA-256 (found on the PATH as the launcher finds
    it), or the command's own where it names no file."""
    found = shutil.which(command) or command
    return (
        file_sha256(found)
        if Path(found).is_file()
        else hashlib.sha256(command.encode()).hexdigest()
    )


def judge_name(command: str) -> str:
    """The name the judge at ``command`` gives (``id name``, else its file's name, as a worker's
    judge says it), started for it (LaunchError where it cannot be): asked afresh each time, for a
    wrapper's file does not change with the engine it starts."""
    engine = launch([command], own_group=True)
    try:
        return str(engine.id.get("name", Path(command).name))
    finally:
        quit_engine(engine)


def taken(journal: Path) -> int:
    """How many of the journal at ``journal``'s entries a cache gave in this process."""
    return _TAKEN[journal]


def take(journal: Path) -> None:
    """Count an entry a cache gave the journal at ``journal`` (:func:`taken`)."""
    _TAKEN[journal] += 1


def position_key(fen: str, played: str) -> str:
    """An entry's key: the position and the move played there (UCI)."""
    return f"{fen} {played}"


def whole(entry: Any) -> bool:
    """Whether ``entry`` is a cache entry a verdict can be made of: every field, the move played
    among the moves scored, keyed by its position and that move."""
    try:
        moves, scores, played = entry["moves"], entry["scores"], entry["played"]
        return (
            isinstance(played, int)
            and len(moves) == len(scores)
            and 0 <= played < len(moves)
            and entry["key"] == position_key(entry["fen"], moves[played])
        )
    except (KeyError, TypeError, IndexError):
        return False


# memoised: each warning is said once a process, however many stages meet the cache
@functools.cache
def say_once(text: str) -> None:
    """A warning of the cache on stderr, once."""
    print(f"warning: {text}", file=sys.stderr)


class _File(Journal):
    """A cache file: read leniently (its damaged lines and entries passed over and counted)."""

    default_kind = JUDGED
    damaged = 0  # the lines and entries passed over

    def _read(self) -> None:
        header, entries, bad = read_journal(self.path)
        if not isinstance(header, dict) or any(
            header.get(key) != value for key, value in self.header.items()
        ):
            raise CacheFault(
                f"{self.path}: not a judged positions' cache of this judge, depth and MultiPV"
            )
        usable = {str(entry["key"]): entry for _, entry in entries if whole(entry)}
        self.entries |= usable
        self.damaged = len(bad) + len(entries) - len(usable)


class JudgedCache:
    """The positions judged by the judge at ``judge`` at one depth and MultiPV (``header``: a
    profile journal's settings), in ``folder``: empty, and not written, where the folder cannot be
    used."""

    def __init__(self, folder: Path, judge: str, header: dict[str, Any]) -> None:
        sha = judge_sha256(judge)
        self.name: str | None = None
        self.file: _File | None = None
        try:
            self.name = judge_name(judge)
        except LaunchError as exc:  # a judge only the cluster's nodes hold: judged there, uncached
            say_once(
                f"judge {judge} could not be started here ({exc}): its positions are not cached"
            )
            return
        identity = hashlib.sha256(f"{sha} {self.name}".encode()).hexdigest()
        path = folder / f"{identity[:16]}-d{header['depth']}-m{header['multipv']}.jsonl"
        try:
            self.file = _File(
                path, {"journal": JUDGED, "judge_sha256": sha, "judge": self.name, **header}
            )
        except (OSError, UnicodeDecodeError, CacheFault) as exc:
            say_once(
                f"the judged positions' cache cannot be read ({exc}): the run goes on without it"
            )
            return
        if self.file.damaged:
            say_once(
                f"{path}: {self.file.damaged} damaged entries passed over (their positions are"
                " judged again)"
            )

    def __len__(self) -> int:
        return 0 if self.file is None else len(self.file.entries)

    @property
    def path(self) -> Path | None:
        """The cache's file (None: no cache)."""
        return None if self.file is None else self.file.path

    def verdict(self, key: str, board: chess.Board, played: chess.Move) -> Verdict | None:
        """The journal entry of case ``key`` (``board``, the move ``played``) as its judge gave it,
        if kept."""
        found = (
            None
            if self.file is None
            else self.file.entries.get(position_key(board.fen(), played.uci()))
        )
        if found is None or self.name is None:
            return None
        return Verdict(key, self.name, {"key": key, **{field: found[field] for field in FIELDS}})

    def add(self, verdict: Verdict) -> None:
        """Keep a position's verdict (not one of another judge's name: a file, one name); where the
        cache cannot be written, say so once and keep none from now on."""
        entry = verdict.entry
        key = position_key(entry["fen"], entry["moves"][entry["played"]])
        if self.file is None or key in self.file.entries or verdict.judge != self.name:
            return
        try:
            self.file.add({"key": key, **{field: entry[field] for field in FIELDS}})
        except OSError as exc:
            say_once(
                f"the judged positions' cache cannot be written ({exc}): the run goes on without it"
            )
            self.file = None
