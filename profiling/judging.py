"""Judging the expert's own moves with an outside engine, for the error profile (docs/strength.md
§1).

A sample of the expert's positions (after move :data:`FIRST_MOVE`, in the order of a seeded hash
of each case's key) is judged by any UCI engine, started by the engine's one launcher
(:mod:`engine.outside.launch`): its :data:`MULTIPV` best moves and the expert's own, at a fixed
depth, scored as every score is (:func:`engine.search.scores.from_pov_score`). Each finished
position is one line of a :class:`~profiling.journal.Journal`, so a judge that fails or a user
who stops loses nothing finished: the same command goes on where it stopped. The positions are
judged in this process, on worker processes or on a Ray cluster (:mod:`profiling.workers`), each
worker with a judge of its own; this process writes the journal.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import deque
from contextlib import closing
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from casebase.phases import FIRST_MOVE
from common.cli import positive_int
from engine.outside.failures import quit_engine
from engine.outside.launch import LaunchError, launch
from engine.search.limits import SearchLimits, to_limit
from engine.search.scores import from_pov_score
from engine.strength.profile import position
from profiling import ProfileError
from profiling.cache import JudgedCache, take
from profiling.journal import Journal
from profiling.workers import HERE, Engines, Verdict, Where, verdict, verdicts

#: Positions judged unless told otherwise (from full move FIRST_MOVE on: casebase.phases).
POSITIONS = 1200
DEPTH = 12
#: The judge's best moves scored in each position, besides the expert's own.
MULTIPV = 10
#: The longest a judge may think about one position (milliseconds) before it counts as hung.
MAX_MS = 60_000


@dataclass(frozen=True)
class Settings:
    """How the positions are drawn and judged (a journal of other settings is refused)."""

    positions: int = POSITIONS
    depth: int = DEPTH
    multipv: int = MULTIPV
    seed: int = 0
    first_move: int = FIRST_MOVE

    def header(self) -> dict[str, Any]:
        """What a journal's entries depend on (the seed and first move only choose among them)."""
        return {"depth": self.depth, "multipv": self.multipv}


def case_keys(casebase: Casebase, rows: np.ndarray) -> list[str]:
    """What names a case whichever games a casebase kept of its source: the source file's SHA-256
    (its start), the game's index in that file and the ply (a held-out casebase's cases keep
    theirs)."""
    sources = [
        str(source.get("sha256") or source.get("name"))[:16] for source in casebase.meta["sources"]
    ]
    games = np.asarray(casebase.game)[rows]
    return [
        f"{sources[s]}/{i}/{p}"
        for s, i, p in zip(
            casebase.games["source"][games].tolist(),
            casebase.games["index"][games].tolist(),
            np.asarray(casebase.ply)[rows].tolist(),
            strict=True,
        )
    ]


def sample(casebase: Casebase, settings: Settings) -> tuple[np.ndarray, list[str]]:
    """The cases in the order they are judged, and their keys: those from move ``first_move`` on,
    ordered by a seeded hash of their keys, so that a casebase holding fewer of the same games
    (held out) draws the same positions where it has them, and a larger ``--positions`` goes on
    along the same order."""
    rows = np.flatnonzero(np.asarray(casebase.ply) >= 2 * (settings.first_move - 1))
    keys = case_keys(casebase, rows)
    digests = b"".join(
        hashlib.blake2b(f"{settings.seed}:{key}".encode(), digest_size=8).digest() for key in keys
    )
    order = np.argsort(np.frombuffer(digests, dtype=">u8"), kind="stable")
    return rows[order], [keys[i] for i in order.tolist()]


# -- judging -------------------------------------------------------------------------------


def judge_position(
    engine: chess.engine.SimpleEngine, board: chess.Board, played: chess.Move, settings: Settings
) -> tuple[list[chess.Move], list[int]]:
    """The judge's best moves and the expert's, with their scores (centipawns for the mover, mates
    as :mod:`engine.search.scores` writes them: beyond any centipawn score)."""
    limit = to_limit(SearchLimits(depth=settings.depth, movetime=MAX_MS))
    infos = engine.analyse(board, limit, multipv=settings.multipv)
    scored = {}
    for info in infos:
        pv, score = info.get("pv"), info.get("score")
        if pv and score is not None and pv[0] not in scored:
            scored[pv[0]] = from_pov_score(score.relative)
    if played not in scored:
        info = engine.analyse(board, limit, root_moves=[played])
        score = info.get("score")
        if score is None:
            raise chess.engine.EngineError("no score for the expert's move")
        scored[played] = from_pov_score(score.relative)
    moves = sorted(scored, key=lambda m: -scored[m])
    return moves, [scored[m] for m in moves]


@dataclass
class _Sample:
    """The sampled cases of one casebase along their order, and which of them a journal holds."""

    rows: np.ndarray
    keys: list[str]
    journal: Journal
    positions: int

    def wanted(self) -> list[tuple[int, str]]:
        """The first ``positions`` usable cases (row, key) along the order, skipped ones passed
        over."""
        chosen: list[tuple[int, str]] = []
        usable = 0
        for row, key in zip(self.rows.tolist(), self.keys, strict=True):
            if usable == self.positions:
                break
            if self.journal.usable(key):
                chosen.append((row, key))
                usable += 1
        return chosen

    def missing(self) -> list[tuple[int, str]]:
        return [(row, key) for row, key in self.wanted() if key not in self.journal.entries]

    def plan(self, casebase: Casebase) -> list[tuple[str, chess.Board, chess.Move, str | None]]:
        """The cases the journal lacks, along the order, until ``positions`` are usable: each key,
        position, the expert's move, and why it is skipped (None: judged)."""
        planned: list[tuple[str, chess.Board, chess.Move, str | None]] = []
        usable = 0
        for row, key in zip(self.rows.tolist(), self.keys, strict=True):
            if usable == self.positions:
                break
            if key in self.journal.entries:
                usable += self.journal.usable(key)
                continue
            board, played = position(casebase, row), casebase.move(row)
            skip = (
                None
                if board.is_legal(played) and board.legal_moves.count() >= 2
                else "forced move"
                if board.is_legal(played)
                else "the move needs what the stored position lacks (en passant)"
            )
            planned.append((key, board, played, skip))
            usable += skip is None
        return planned


def analyse(
    casebase: Casebase,
    journal: Journal,
    settings: Settings,
    judge: str | None,
    *,
    progress: bool = True,
    where: Where = HERE,
    cache: Path | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """Judge the casebase's sampled positions not yet in ``journal`` with the UCI engine at
    ``judge`` (on the workers or cluster of ``where``; those this judge already judged at these
    settings taken from the judged positions' ``cache`` folder, where one is named, and those judged
    now kept there); the first ``settings.positions`` judged positions' rows and entries, in
    order."""
    cases = _Sample(*sample(casebase, settings), journal, settings.positions)
    missing = cases.missing()
    if missing and not judge:
        raise ProfileError(
            f"{len(missing)} of {settings.positions} positions are still to be judged:"
            " give the engine to judge them with --judge PATH"
        )
    if missing:
        assert judge is not None
        shared = None if cache is None else JudgedCache(cache, judge, settings.header())
        _judge_cases(casebase, cases, settings, judge, progress, where, shared)
    return [(row, journal.entries[key]) for row, key in cases.wanted()]


class PositionJudge:
    """Judges positions in one worker process (:class:`parallel.pool.Worker`), its judge started at
    the first and started again after a failure."""

    def __init__(self, engines: Engines, settings: Settings) -> None:
        self.command, self.settings = engines.commands[0], settings
        self.engine: chess.engine.SimpleEngine | None = None
        self.name = Path(self.command).name

    def __call__(self, item: tuple[str, chess.Board, chess.Move]) -> Verdict:
        key, board, played = item
        if self.engine is None:
            # in a process group of its own: a Ctrl-C meant for us stops it by quit, after the
            # journal
            try:
                self.engine = launch([self.command], own_group=True)
            except LaunchError as exc:
                raise ProfileError(f"judge {self.command} could not be started: {exc}") from None
            self.name = self.engine.id.get("name", Path(self.command).name)
        engine = self.engine

        def entry() -> dict[str, Any]:
            moves, scores = judge_position(engine, board, played, self.settings)
            return {
                "key": key,
                "fen": board.fen(),
                "moves": [m.uci() for m in moves],
                "scores": scores,
                "played": moves.index(played),
            }

        return verdict(self, key, entry)

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            quit_engine(engine)


def mismatch(journal: Journal, judge: str, cache: Path | None) -> str:
    """What a file judged by another judge than ``judge`` says: the journal, or the ``cache`` file
    whose positions named the journal's judge in this run (deleting the journal would not start
    over)."""
    path = cache or journal.path
    return (
        f"{path}: judged by {journal.header['judge']}, not {judge}: delete it to start over, or"
        " judge with that engine"
    )


def _judge_cases(
    casebase: Casebase,
    cases: _Sample,
    settings: Settings,
    judge: str,
    progress: bool,
    where: Where,
    shared: JudgedCache | None,
) -> None:
    """Judge the planned positions on ``where`` (those ``shared`` keeps taken from it first, those
    judged kept there), writing each entry as it comes back; a skipped position's entry is written
    once every position before it is (in order on one worker, as the judging goes)."""
    journal = cases.journal
    plan = cases.plan(casebase)
    place = {key: i for i, (key, *_) in enumerate(plan)}
    waiting = {i for i, (*_, skip) in enumerate(plan) if skip is None}
    skips = deque((i, key, skip) for i, (key, *_, skip) in enumerate(plan) if skip is not None)

    def write_skips() -> None:
        first = min(waiting, default=len(plan))
        while skips and skips[0][0] < first:
            _, key, skip = skips.popleft()
            journal.add({"key": key, "skip": skip})

    def failure(what: str) -> ProfileError:
        return ProfileError(
            f"{what}; the {journal.judged()} positions judged are kept in {journal.path}:"
            " run the same command again to go on"
        )

    items = [(key, board, played) for key, board, played, skip in plan if skip is None]
    known = [
        found
        for item in items
        if shared is not None and (found := shared.verdict(*item)) is not None
    ]
    kept = {verdict.key for verdict in known}
    # the cache's file where its positions give the journal its judge's name: a live judge's other
    # name is then its fault
    from_cache = (
        shared.path
        if shared is not None and known and journal.header.get("judge") is None
        else None
    )
    bar = tqdm(
        total=settings.positions,
        initial=settings.positions - len(items),
        unit="pos",
        desc=f"judging {casebase.expert}",
        file=sys.stderr,
        disable=not progress,
        leave=False,
    )
    try:
        with closing(
            verdicts(
                PositionJudge,
                (Engines((judge,)), settings),
                [item for item in items if item[0] not in kept],
                where,
                failure,
            )
        ) as judged:
            for verdict in chain(known, judged):
                if journal.header.get("judge") not in (None, verdict.judge):
                    raise ProfileError(mismatch(journal, verdict.judge, from_cache))
                journal.header["judge"] = verdict.judge
                write_skips()
                journal.add(verdict.entry)
                if verdict.key in kept:
                    take(journal.path)
                elif shared is not None:
                    shared.add(verdict)
                waiting.discard(place[verdict.key])
                write_skips()
                bar.update()
        write_skips()
    finally:
        bar.close()


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The judge and how it judges, as every command that judges moves takes them (--judge,
    --depth, --multipv: python -m profiling, python -m profiling.intrinsic)."""
    parser.add_argument(
        "--judge",
        metavar="PATH",
        help="a UCI engine (e.g. /usr/games/stockfish); needed"
        " unless the journal already holds every position",
    )
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=DEPTH,
        metavar="D",
        help=f"the judge's depth (default {DEPTH}, as the shipped experts' profiles)",
    )
    parser.add_argument(
        "--multipv",
        type=positive_int,
        default=MULTIPV,
        metavar="K",
        help=f"the judge's best moves scored besides the one played (default {MULTIPV})",
    )
