"""The chooser's records read back: one position a line, the candidates the engine scores at play
time and the move played (the format of issue #40's plan, ``cbr-chess-chooser-data``), each turned
into the rows of :func:`engine.strength.chooser_features.features`.

A skipped position (``skip``) and a line cut off by a killed writer
(:func:`common.journal.read_journal`: at the end, or anywhere once the run was resumed) are passed
over; anything else that does not read is an error naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.phases import Phase, phase
from common.journal import read_journal
from engine.strength.chooser_features import features

#: The header's ``journal`` value of a chooser's records.
RECORDS = "cbr-chess-chooser-data"


class RecordError(ValueError):
    """A record file that cannot be read; the message names the file, the line and what is wrong."""


@dataclass(frozen=True, eq=False)
class Record:
    """One recorded position: its candidates (their scores and prior as the engine plays them),
    their features, and the index of the move played among them (-1: not a candidate)."""

    key: str
    board: chess.Board
    moves: list[chess.Move]
    scores: list[int]
    prior: list[float]
    matrix: np.ndarray
    played: int
    phase: Phase


def record_of(entry: dict[str, Any]) -> Record:
    """A record's entry as a :class:`Record` (KeyError, ValueError, TypeError where it is not
    one)."""
    board = chess.Board(entry["fen"])
    moves = [chess.Move.from_uci(m) for m in entry["moves"]]
    last = chess.Move.from_uci(entry["last"]) if entry.get("last") else None
    shallow = {int(depth): scores for depth, scores in (entry.get("shallow") or {}).items()}
    columns = {
        "scores": entry["scores"],
        "prior": entry["prior"],
        "votes": entry.get("votes"),
        **{f"shallow {depth}": scores for depth, scores in shallow.items()},
    }
    for name, values in columns.items():
        if values is not None and len(values) != len(moves):
            raise ValueError(f"{len(values)} {name} for {len(moves)} candidates")
    matrix, _ = features(
        board, last, moves, entry["scores"], entry["prior"], entry.get("votes"), shallow
    )
    played = chess.Move.from_uci(entry["played"])
    index = moves.index(played) if played in moves else -1
    ply = int(str(entry["key"]).rsplit("/", 1)[-1])
    return Record(
        str(entry["key"]),
        board,
        moves,
        [int(s) for s in entry["scores"]],
        [float(p) for p in entry["prior"]],
        matrix,
        index,
        phase(board, ply),
    )


def read_entries(path: Path, kind: str, what: str) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """The header and the entries (with their line numbers) of the journal ``path`` of ``kind``
    (:func:`common.journal.read_journal`); RecordError naming the file, and the line, where it is
    not one (``what``: the file in words)."""
    try:
        header, entries, bad = read_journal(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(header, dict) or header.get("journal") != kind:
        raise RecordError(f"{path}: not {what} (its first line is not a {kind} header)")
    if bad:
        raise RecordError(f"{path}:{bad[0]}: not a JSON line")
    return header, entries


def read_records(path: Path) -> tuple[dict[str, Any], list[Record]]:
    """The header and the positions of a record file (skipped positions left out)."""
    header, entries = read_entries(path, RECORDS, "a chooser's records")
    positions = []
    for number, entry in entries:
        if isinstance(entry, dict) and "skip" in entry:
            continue
        try:
            positions.append(record_of(entry))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise RecordError(
                f"{path}:{number}: not a record of a position ({type(exc).__name__}: {exc})"
            ) from None
    return header, positions
