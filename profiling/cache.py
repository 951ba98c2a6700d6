"""The judged positions shared by every run: what a judge said of a position and the move played there,
at one depth and MultiPV, so that no position is judged twice by the same judge (issue #62;
docs/strength.md §1).

A run's journal (:mod:`profiling.journal`) keeps its own positions by case key, and goes when its
stage starts afresh (``cbr-chess new`` with another ``--positions`` or ``--holdout``) or another run
names another journal (another ``--out``). The cache keeps them by what the judge was shown: the
position (its FEN, move counters included: Stockfish's evaluation reads the fifty-move count) and the
move played, one file a judge, depth and MultiPV (``SHA16-dDEPTH-mMULTIPV.jsonl``), the judge named by
its executable's SHA-256 (another build at the same path judges otherwise; a wrapper script is
named by the script, not by what it starts). Its entries are a journal's, so a position found there
goes into the run's journal exactly as if its judge had just said it; it is appended to as the
positions come back, an entry at a time, as a journal is.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import chess
import platformdirs

from common.files import file_sha256
from profiling.journal import Journal
from profiling.workers import Verdict

#: The header's ``journal`` value of the cache's files.
JUDGED = "cbr-chess-judged-positions"
#: What an entry keeps of a profile journal's (the case's key is the run's own).
FIELDS = ("fen", "moves", "scores", "played")


def default_folder() -> Path:
    """Where the judged positions are kept unless told otherwise: the user's cache folder
    (``~/.cache/cbr-chess/judged`` on Linux), shared by every clone and every player's folder."""
    return platformdirs.user_cache_path("cbr-chess") / "judged"


def judge_sha256(command: str) -> str:
    """What names a judge: its executable's SHA-256, or the command's own where it names no file."""
    found = shutil.which(command) or command
    return file_sha256(found) if Path(found).is_file() else hashlib.sha256(command.encode()).hexdigest()


def position_key(fen: str, played: str) -> str:
    """An entry's key: the position and the move played there (UCI)."""
    return f"{fen} {played}"


class _File(Journal):
    default_kind = JUDGED

    def describe(self, kind: str | None) -> str:
        return "judged positions' cache"


class JudgedCache:
    """The positions judged by one judge at one depth and MultiPV (``header``: a profile journal's
    settings), in ``folder``."""

    def __init__(self, folder: Path, judge: str, header: dict[str, Any]) -> None:
        sha = judge_sha256(judge)
        name = f"{sha[:16]}-d{header['depth']}-m{header['multipv']}.jsonl"
        self.file = _File(folder / name, {"journal": JUDGED, "judge_sha256": sha, **header})

    @property
    def judge(self) -> str | None:
        """The name the judge gives (``id name``; None until it judged a position here)."""
        return self.file.header.get("judge")

    def __len__(self) -> int:
        return len(self.file.entries)

    def verdict(self, key: str, board: chess.Board, played: chess.Move) -> Verdict | None:
        """The journal entry of case ``key`` (``board``, the move ``played``) as its judge gave it, if kept."""
        found = self.file.entries.get(position_key(board.fen(), played.uci()))
        if found is None or self.judge is None:
            return None
        return Verdict(key, self.judge, {"key": key, **{field: found[field] for field in FIELDS}})

    def add(self, verdict: Verdict) -> None:
        """Keep a position's verdict (one of another judge's name than the file's is not kept: a file, one name)."""
        entry = verdict.entry
        key = position_key(entry["fen"], entry["moves"][entry["played"]])
        if key in self.file.entries or self.judge not in (None, verdict.judge):
            return
        self.file.header["judge"] = verdict.judge
        self.file.add({"key": key, **{field: entry[field] for field in FIELDS}})
