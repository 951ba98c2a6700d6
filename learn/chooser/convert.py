"""The chooser's records made from what a profile already holds (issue #40): a play-time record
(``data/profiles/NAME.heldout.play.jsonl``: the engine's candidates at the judge's depth, their
scores and prior) with the positions and moves played from the expert's PGN, which the record's keys
name (source SHA-256, game index, ply).

A position whose candidates the game does not allow (the profile's positions guess castling rights
from where the king and rooks stand) or whose move is forced is skipped, saying why. A play-time
record has no cases' vote apart from the prior (``votes`` is null) and no shallow depths; given a
judge, each candidate is also scored at :data:`~engine.strength.chooser_features.SHALLOW_DEPTHS`
(``root_moves`` the candidates, MultiPV their number). ``played_score`` is null: the record scores
the candidates only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from casebase.speed import speed_of
from common.files import file_sha256, write_atomic
from common.journal import PLAY_JOURNAL
from engine.outside.launch import launch
from engine.outside.shallow import searched_scores
from engine.strength.chooser_features import SHALLOW_DEPTHS
from learn.chooser.records import RECORDS, RecordError, read_entries


def _games(pgn: Path) -> list[chess.pgn.Game]:
    with open(pgn, encoding="utf-8", errors="replace") as f:
        return list(iter(lambda: chess.pgn.read_game(f), None))


def convert(
    play: Path,
    pgn: Path,
    judge: str | None = None,
    casebase: str | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """The records (header first) of the play-time record ``play`` of the expert's games ``pgn``,
    made by the engine on ``casebase`` (its name, for the header), with the shallow depths where a
    ``judge`` is given."""
    first, entries = read_entries(
        play, PLAY_JOURNAL, "a play-time record (python -m profiling --play)"
    )
    digest = file_sha256(pgn)
    for number, entry in entries:  # before the PGN is parsed: another file's record is told at once
        if (
            isinstance(entry, dict)
            and "moves" in entry
            and not digest.startswith(str(entry.get("key", "")).split("/")[0])
        ):
            raise RecordError(
                f"{play}:{number}: a position of another file than {pgn.name} (SHA-256"
                f" {digest[:16]})"
            )
    games = _games(pgn)
    engine = None if judge is None else launch([judge], own_group=True)
    header = {
        "journal": RECORDS,
        "source": pgn.name,
        "source_sha256": digest,
        "player": first.get("expert"),
        "judge": first.get("judge"),
        "judge_depth": first.get("judge_depth"),
        "shallow": list(SHALLOW_DEPTHS) if engine else [],
        "seed": first.get("seed"),
        "casebase": casebase,
        "model": None,
    }
    records: list[dict[str, Any]] = [header]
    try:
        if engine is not None:
            engine.configure(
                {
                    name: value
                    for name, value in (("Threads", 1), ("Hash", 16))
                    if name in engine.options
                }
            )
        for number, entry in tqdm(
            entries,
            desc=f"converting {play.name}",
            file=sys.stderr,
            disable=not progress,
            leave=False,
        ):
            try:
                records.append(_record(entry, digest, games, engine))
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                if isinstance(exc, RecordError):
                    raise
                raise RecordError(
                    f"{play}:{number}: not a play-time record of this PGN's positions"
                    f" ({type(exc).__name__}: {exc})"
                ) from None
    finally:
        if engine is not None:
            engine.quit()
    return records


def _record(
    entry: dict[str, Any],
    digest: str,
    games: list[chess.pgn.Game],
    engine: chess.engine.SimpleEngine | None,
) -> dict[str, Any]:
    source, index, ply = str(entry["key"]).split("/")
    if "moves" not in entry:
        return {"key": entry["key"], "skip": entry.get("skip", "not played")}
    if not digest.startswith(source):
        raise RecordError(
            f"{entry['key']}: a position of another file than the PGN given (SHA-256 {digest[:16]})"
        )
    game = games[int(index)]
    line = list(game.mainline_moves())
    board = game.board()
    for move in line[: int(ply)]:
        board.push(move)
    moves = [chess.Move.from_uci(m) for m in entry["moves"]]
    illegal = [m.uci() for m in moves if not board.is_legal(m)]
    if illegal:  # the profile's position guessed castling rights the game had lost
        return {
            "key": entry["key"],
            "skip": f"candidates the position cannot hold: {', '.join(illegal)}",
        }
    if board.legal_moves.count() == 1:
        return {"key": entry["key"], "skip": "a forced move"}
    played = line[int(ply)]
    rating = game.headers.get("WhiteElo" if board.turn == chess.WHITE else "BlackElo", "")
    return {
        "key": entry["key"],
        "fen": board.fen(),
        "last": line[int(ply) - 1].uci() if int(ply) else None,
        "elo": int(rating) if rating.isdigit() else None,
        "speed": speed_of(
            game.headers.get("TimeControl"), game.headers.get("Event"), game.headers.get("Site")
        ),
        "moves": entry["moves"],
        "scores": entry["scores"],
        "prior": entry["prior"],
        "votes": None,
        "shallow": {}
        if engine is None
        else {
            str(depth): scores
            for depth, scores in searched_scores(
                engine, board, moves, SHALLOW_DEPTHS, entry["key"]
            ).items()
        },
        "played": played.uci(),
        "played_index": moves.index(played) if played in moves else -1,
        "played_score": None,
    }


def write_records(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """The records as JSON lines, written atomically."""
    write_atomic(path, "".join(json.dumps(r) + "\n" for r in records))
