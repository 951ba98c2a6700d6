"""Building a casebase from PGN (spec §2): one case per expert move, in file order.

Each input file is cut into chunks of whole games (:func:`casebase.sources.chunk_bounds`)
that worker processes parse independently with a python-chess visitor; the chunks' results
are merged in file order, so the casebase is byte-identical however many workers built it.
Games without the expert are decided from their headers and their moves never parsed.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.pool import AsyncResult, Pool
from typing import TypeVar

import numpy as np
from tqdm import tqdm

from casebase.chunks import CANDIDATE, OUTCOMES, Chunk, ParsedGame, parse_chunk
from casebase.format import GAME_TEXT_COLUMNS, Casebase
from casebase.games import (
    BEYOND_MAX_GAMES,
    HELD_OUT,
    WITHOUT_EXPERT,
    BuildError,
    GameFilter,
    latest,
)
from casebase.names import closest_names
from casebase.sources import Source, chunk_bounds, read_source

#: Most characters of PGN per chunk (a worker's task); inputs are cut finer when that gives
#: each worker fewer than CHUNKS_PER_WORKER chunks, so that workers finish together.
#: Chunking never changes the casebase: chunks are whole games, merged in file order.
CHUNK_SIZE = 1 << 18
CHUNKS_PER_WORKER = 8
#: Chunks handed to each worker ahead of the reader: enough to keep it busy, few to wait for at a
#: stop.
IN_FLIGHT_PER_WORKER = 2

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Collection:
    """The games of a build's input, merged in file order, before the global selection."""

    selection: GameFilter
    sources: list[Source]
    games_read: list[int]  # per source
    outcomes: Counter[str]  # how many games each per-game decision other than candidate took
    games: list[tuple[int, ParsedGame]]  # candidates in file order: (source number, game)
    names: Counter[str]  # every player tag seen, for the no-match error
    boards: np.ndarray
    moves: np.ndarray
    turn: np.ndarray
    ply: np.ndarray

    def game_text(self, source: int, game: ParsedGame) -> str:
        """A candidate game's PGN text as it stands in its source file."""
        start, end = game.span
        return self.sources[source].text[start:end].strip()

    def decide(self) -> list[str | None]:
        """Per candidate: None if used, else ``HELD_OUT`` or ``BEYOND_MAX_GAMES``."""
        selection = self.selection
        decisions: list[str | None] = [None] * len(self.games)
        if selection.exclude_latest:
            dates = [game.tags[GAME_TEXT_COLUMNS.index("date")] for _, game in self.games]
            decisions = [
                HELD_OUT if out else None for out in latest(dates, selection.exclude_latest)
            ]
        if selection.max_games is not None:
            kept = [i for i, decision in enumerate(decisions) if decision is None]
            for i in kept[selection.max_games :]:
                decisions[i] = BEYOND_MAX_GAMES
        return decisions

    def check_found(self) -> None:
        """Raise :class:`BuildError` if the expert is in no game, listing the names present."""
        if self.games or sum(self.outcomes.values()) > self.outcomes[WITHOUT_EXPERT]:
            return
        files = ", ".join(source.name for source in self.sources)
        closest = "; ".join(
            f"{name} ({count} games)"
            for name, count in closest_names(self.selection.player, self.names)
        )
        raise BuildError(
            f"no game in {files} has a player matching {self.selection.player!r}"
            f"{' (taken literally)' if self.selection.exact_name else ''}."
            f" Closest names present: {closest or 'none'}"
        )


def collect(
    paths: Sequence[str | os.PathLike[str]],
    selection: GameFilter,
    *,
    workers: int | None = None,
    progress: bool | None = None,
) -> Collection:
    """Read and parse every game of ``paths``, merged in file order.

    Without ``exclude_latest`` (which needs every candidate's date), reading stops at the
    ``max_games``-th candidate game, and the counts cover the games up to it.
    """
    if not paths:
        raise BuildError("no PGN input given")
    sources = [read_source(path) for path in paths]
    workers = max(1, workers or os.cpu_count() or 1)
    size = min(CHUNK_SIZE, sum(len(s.text) for s in sources) // (workers * CHUNKS_PER_WORKER) + 1)
    tasks = [
        (number, start, end)
        for number, source in enumerate(sources)
        for start, end in chunk_bounds(source.text, size)
    ]
    texts = ((sources[number].text[start:end], selection) for number, start, end in tasks)
    estimate = sum(s.text.count("\n[White ") + s.text.startswith("[White ") for s in sources)
    limit = None if selection.exclude_latest else selection.max_games
    merge = _Merge(selection, sources)
    # The pool forks before tqdm may start its monitor thread.
    with (
        _parallel_map(parse_chunk, texts, workers, len(tasks)) as chunks,
        tqdm(
            total=estimate,
            unit="games",
            desc="reading PGN",
            file=sys.stderr,
            leave=False,
            disable=not (sys.stderr.isatty() if progress is None else progress),
        ) as bar,
    ):
        for (number, start, _), chunk in zip(tasks, chunks):
            bar.update(len(chunk.outcomes))
            if merge.add(number, start, chunk, limit):
                break
    return merge.finish()


class _Merge:
    """Joins chunk results in file order, turning chunk-relative numbers into file ones."""

    def __init__(self, selection: GameFilter, sources: list[Source]) -> None:
        self.selection = selection
        self.sources = sources
        self.games_read = [0] * len(sources)
        self.outcomes: Counter[str] = Counter()
        self.games: list[tuple[int, ParsedGame]] = []
        self.names: Counter[str] = Counter()
        self.cases = 0
        self.parts: list[Chunk] = []

    def add(self, number: int, start: int, chunk: Chunk, limit: int | None) -> bool:
        """Append a chunk (of source ``number``, at character ``start``); True once ``limit``
        candidate games are in, the chunk cut after the last of them."""
        games = chunk.games
        outcomes = chunk.outcomes
        if limit is not None and len(self.games) + len(games) >= limit:
            games = games[: limit - len(self.games)]
            outcomes = outcomes[: games[-1].index + 1]
            cases = games[-1].first_case + games[-1].cases
            chunk = Chunk(
                outcomes,
                games,
                chunk.names,
                chunk.boards[: 8 * cases],
                chunk.moves[: 3 * cases],
                chunk.turn[:cases],
                chunk.ply[:cases],
            )
        for game in games:
            game.index += self.games_read[number]
            game.first_case += self.cases
            game.span = (game.span[0] + start, game.span[1] + start)
            self.games.append((number, game))
        self.games_read[number] += len(outcomes)
        self.outcomes.update(OUTCOMES[code] for code in outcomes if code != CANDIDATE)
        self.names.update(chunk.names)
        self.cases += len(chunk.turn)
        self.parts.append(chunk)
        return limit is not None and len(self.games) >= limit

    def finish(self) -> Collection:
        parts = self.parts

        def join(name: str, dtype: type, width: int = 1) -> np.ndarray:
            arrays: list[np.ndarray] = [
                np.frombuffer(getattr(part, name), dtype=dtype) for part in parts
            ]
            joined = np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)
            return joined.reshape(-1, width) if width > 1 else joined

        return Collection(
            selection=self.selection,
            sources=self.sources,
            games_read=self.games_read,
            outcomes=self.outcomes,
            games=self.games,
            names=self.names,
            boards=join("boards", np.uint64, 8),
            moves=join("moves", np.uint8, 3),
            turn=join("turn", np.int8).astype(bool),
            ply=join("ply", np.int32),
        )


@contextmanager
def _parallel_map(
    function: Callable[[T], R], items: Iterable[T], workers: int, count: int
) -> Iterator[Iterator[R]]:
    """``map(function, items)`` (``count`` of them) in order, over ``workers`` processes.

    A caller may stop reading early (the ``max_games``-th game read): the pool is then closed and
    joined, never terminated, since a worker killed while it sends a result holds the result queue's
    lock for ever and ``Pool.terminate`` then waits on it for ever. So that the join waits for
    little, at most :data:`IN_FLIGHT_PER_WORKER` chunks a worker are handed out ahead of the reader.
    The workers let Ctrl-C (SIGINT, which the terminal sends the whole process group) pass: the
    reader stops, and the join waits for those chunks, which a killed worker would never finish.
    """
    workers = min(workers, count)
    if workers <= 1:
        yield map(function, items)
        return
    context = get_context("fork" if sys.platform == "linux" else "spawn")
    pool = context.Pool(workers, initializer=_let_interrupts_pass)
    try:
        yield _ahead(pool, function, items, IN_FLIGHT_PER_WORKER * workers)
    finally:
        pool.close()
        pool.join()


def _let_interrupts_pass() -> None:
    """A worker's start: Ctrl-C is its reader's to handle (:func:`_parallel_map`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ahead(pool: Pool, function: Callable[[T], R], items: Iterable[T], window: int) -> Iterator[R]:
    """``function(item)`` for each item in order, at most ``window`` of them given to ``pool`` at
    once."""
    pending: deque[AsyncResult[R]] = deque()
    for item in items:
        pending.append(pool.apply_async(function, (item,)))
        if len(pending) >= window:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def build(
    paths: Sequence[str | os.PathLike[str]],
    selection: GameFilter,
    *,
    workers: int | None = None,
    progress: bool | None = None,
) -> Casebase:
    """The casebase of ``selection``'s expert from the PGN files ``paths`` (spec §2).

    Raises :class:`BuildError` when an input is unreadable or no PGN, when the expert is in
    no game (listing the closest names present) or when no case is left.
    """
    collection = collect(paths, selection, workers=workers, progress=progress)
    collection.check_found()
    decisions = collection.decide()
    used = [
        (number, game)
        for (number, game), decision in zip(collection.games, decisions)
        if decision is None
    ]
    # Cases are stored candidate after candidate, so a per-game mask selects them.
    keep = np.repeat(
        np.array([decision is None for decision in decisions], dtype=bool),
        np.array([game.cases for _, game in collection.games], dtype=np.int64),
    )
    turn = collection.turn[keep]
    counts = {
        "games_read": sum(collection.games_read),
        "games_used": len(used),
        **{
            f"games_{outcome}": (collection.outcomes + Counter(decisions))[outcome]
            for outcome in (*OUTCOMES, HELD_OUT, BEYOND_MAX_GAMES)
        },
        "games_damaged": sum(game.damaged for _, game in used),
        "cases_white": int(turn.sum()),
        "cases_black": int(len(turn) - turn.sum()),
    }
    if not len(turn):
        raise BuildError(
            f"no cases left for {selection.expert!r} ("
            + ", ".join(
                f"{key.removeprefix('games_').replace('_', ' ')}: {value}"
                for key, value in counts.items()
                if value and key.startswith("games_")
            )
            + "); nothing written"
        )
    moves = collection.moves[keep]
    elos = [game.expert_elo for _, game in used if game.expert_elo > 0]
    return Casebase(
        boards=collection.boards[keep],
        turn=turn,
        from_square=np.ascontiguousarray(moves[:, 0]),
        to_square=np.ascontiguousarray(moves[:, 1]),
        promotion=np.ascontiguousarray(moves[:, 2]),
        game=np.repeat(np.arange(len(used), dtype=np.int32), [game.cases for _, game in used]),
        ply=collection.ply[keep],
        games={
            **{
                column: np.array([game.tags[i] for _, game in used], dtype=np.str_)
                for i, column in enumerate(GAME_TEXT_COLUMNS)
            },
            "expert_white": np.array([game.expert_white for _, game in used], dtype=np.bool_),
            "expert_elo": np.array([game.expert_elo for _, game in used], dtype=np.int32),
            "index": np.array([game.index for _, game in used], dtype=np.int32),
            "source": np.array([number for number, _ in used], dtype=np.int32),
        },
        meta={
            "expert": selection.expert,
            "spellings": {}
            if selection.all_players
            else dict(Counter(game.spelling for _, game in used).most_common()),
            "median_elo": float(np.median(elos)) if elos else None,
            "counts": counts,
            "sources": [
                {"name": source.name, "sha256": source.sha256, "games": read}
                for source, read in zip(collection.sources, collection.games_read)
            ],
            "options": selection.as_meta(),
        },
    )
