"""An outside UCI engine as guided mode's judge: the expert proposes, a strong engine disposes
(search.md §7).

:class:`Judge` runs any UCI engine (Stockfish, say) through python-chess's client and scores
one position's proposals in two searches: first the proposals alone (``searchmoves`` with one
principal variation each), then all moves (its own best). The result is a
:class:`~engine.search.result.SearchResult` like the Python search's, so guided mode applies its
decision rule to it unchanged.

The engine starts on a thread of its own (:meth:`Judge.begin`), so that nobody waits for a program
that never answers ``uciok``: a move waits for the start at most its share of the clock (or until
``stop``), and the Python search judges it meanwhile. A program that never started as a UCI engine
(missing, a folder, no ``uciok``, exits, garbage) is *refused* once, with its reason, and not tried
again until its file changes. Faults of a judge that ran (it crashes, hangs past its share of the
clock or, without one, stays :data:`SILENCE` seconds silent, answers garbage) raise
:class:`JudgeError`; the judge is then closed, started again at its next use, and after a second
fault in one game it is *retired*: guided mode's Python search judges until the next game. The
judge's own output never reaches our stdout: it goes to python-chess through a pipe (its stderr is
ours, the diagnostics' stream), and what python-chess finds wrong in it is a fault, not a log
record.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import chess
import chess.engine

from common.paths import file_state
from common.text import clip
from engine.outside.launch import Liveness
from engine.outside.process import KILL_GRACE, EngineProcess, ProcessError
from engine.search.limits import Budget, SearchLimits, to_limit
from engine.search.result import RootScore, SearchResult
from engine.search.scores import from_pov_score

#: Seconds a judge has to start and answer ``uciok`` (and any other command but ``go``), in the
#: background; a move waits for it at most :data:`SEARCH_SHARE` of its time.
START_TIMEOUT = 5.0
#: Share of the move's hard time limit each of the two searches gets; the rest is margin for
#: our own work and the round trips.
SEARCH_SHARE = 0.35


class JudgeError(Exception):
    """The judge failed; the message says how (missing, not UCI, crashed, hung, garbage)."""


class JudgeEvent(StrEnum):
    """What became of the judge during a move (a :class:`JudgeNote`; the UCI layer words it)."""

    #: not ready yet: the Python search judges until it is ready
    STARTING = "starting"
    STILL_STARTING = "still starting"
    #: its first start failed: not tried again until option Judge or its program's file changes
    REFUSED = "refused"
    STILL_REFUSED = "still refused"
    #: a fault closed it: it is restarted at the next move
    FAILED = "failed"
    #: its second fault this game: the Python search judges the rest of the game
    FAILED_FOR_THE_GAME = "failed for the game"
    #: retired after two faults this game, until the next game
    RETIRED = "retired"


@dataclass(frozen=True)
class JudgeNote:
    """What became of the judge ``judge`` (its name) during a move, and ``why`` (the fault or the
    refusal, as the engine's process or python-chess said it)."""

    judge: str
    event: JudgeEvent
    why: str = ""


@dataclass(frozen=True)
class JudgeSettings:
    """What identifies a judge process: the engine's path and its own options."""

    command: str
    threads: int = 1
    hash_mb: int = 16


#: The most proposals (the largest priors first) the judge scores.
JUDGE_PROPOSALS = 5
#: Depth of the proposals' search when nothing else bounds it (``go infinite``, JudgeDepth 0):
#: the search of all moves then runs until ``stop``.
UNBOUNDED_PROPOSAL_DEPTH = 14
#: Seconds a search bounded by depth or nodes alone may stay silent (no info, no bestmove), or as
#: long as it had searched if longer (Stockfish 15.1, one thread, here: 1.2 s at most in its first
#: 10 s, 11.4 s after 36 s at depth 31), before it is stopped, then killed as hung: a ``go depth 1``
#: gets its bestmove within 10.5 s of a hung judge's last word (15.5 s with a restart), within the
#: fuzzer's 20 s.
SILENCE = 10.0

T = TypeVar("T")


class Judge:
    """One outside engine process, started on demand in the background (the UCI loop never waits
    for it), restarted once per game after a fault; a program that never started as a UCI
    engine is *refused* and not tried again until its file changes."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.process = EngineProcess(
            settings.command,
            {"Threads": settings.threads, "Hash": settings.hash_mb},
        )
        self.name = clip(Path(settings.command).name or settings.command)
        self.faults = 0
        #: Why the program is not a judge (its first start failed), while its file stays the same.
        self.refused: str | None = None
        self._refused_file: tuple[object, ...] = ()
        # whether it ever started: then a failed start is a fault, not a refusal
        self._worked = False
        # why the search that just failed was no fault of the judge
        self._excuse: JudgeNote | None = None
        # the last excuse told in full (said once, then shortly)
        self._told: JudgeNote | None = None
        self._game = object()
        self._searched = False  # whether it searched since the last new game
        #: What its users have told about this judge once, not at each move (another judge than a
        #: profile's).
        self.told: set[tuple[str, ...]] = set()

    @property
    def retired(self) -> bool:
        """Whether the judge failed twice this game (the Python search judges until the next)."""
        return self.faults >= 2

    def begin(self) -> None:
        """Start the engine on a thread of its own (unless it runs, starts or was refused): it has
        :data:`START_TIMEOUT` seconds to answer ``uciok``. Returns at once."""
        if self.refused is None:
            self.process.begin(START_TIMEOUT)

    def start(self) -> None:
        """Start the engine (if it is not running) and wait for it; JudgeError if it cannot."""
        self.begin()
        self.process.wait(None)
        self._collect()
        if self.refused is not None:
            raise JudgeError(self.refused)

    def fault(self, why: str) -> JudgeNote:
        """Record a fault (the process is closed); what happens next, for the explanation. After a
        search that failed for no fault of the judge's (it is starting, or was refused), only
        that."""
        if self._excuse is not None:
            excuse, self._excuse = self._excuse, None
            return excuse
        self.faults += 1
        self.close()
        return JudgeNote(
            self.name,
            JudgeEvent.FAILED_FOR_THE_GAME if self.retired else JudgeEvent.FAILED,
            clip(why),
        )

    def new_game(self) -> None:
        """A new game: its hash is cleared at the first search, and after a game it played in,
        the judge may fail once more (a judge that failed to start is not given a new chance
        by the first game's start)."""
        if self._searched:
            self.faults = 0
        self._searched = False
        self._game = object()

    def close(self) -> None:
        """Quit the engine process (killed if it does not quit at once, or while it starts)."""
        self.process.close()

    # -- scoring -----------------------------------------------------------------------

    def search(
        self,
        board: chess.Board,
        proposals: Sequence[chess.Move],
        budget: Budget,
        *,
        depth: int = 0,
        tolerance: int = 0,
        stop: threading.Event | None = None,
        on_iteration: Callable[[SearchResult], None] | None = None,
        moves: Sequence[chess.Move] | None = None,
    ) -> SearchResult:
        """The judge's scores of ``proposals`` (at most :data:`JUDGE_PROPOSALS`, legal on
        ``board``) and its own best move among ``moves`` (all legal moves if None: a ``go
        searchmoves`` restricts it), within ``budget`` (``depth`` > 0 overrides its depth
        and nodes); ``stop`` ends it. JudgeError on a fault."""
        self._searched = True
        stop = stop or threading.Event()
        self._ready(budget, stop)
        started = time.monotonic()
        proposals = list(proposals[:JUDGE_PROPOSALS])
        tally = _Tally()

        def report(info: chess.engine.InfoDict) -> None:
            if on_iteration is not None and info.get("pv") and "score" in info and "depth" in info:
                iteration = self._iteration(
                    info, board, time.monotonic() - started, tally.nodes, tolerance
                )
                if iteration.pv:  # a line that is not legal is not shown
                    on_iteration(iteration)

        if self._limit(budget, depth, bounded=False) is None:
            # go infinite: the proposals (to a fixed depth) first, then its own search until stop
            if proposals:
                self._score(board, proposals, budget, depth, stop, tally)
            if not stop.is_set() or not tally.scores:
                tally.add(
                    board,
                    self.analyse(board, None, stop, report=report, root_moves=moves),
                    best=True,
                )
        else:
            # its own choice first, as it would play alone; then the proposals beside that choice in
            # one search, so that their scores compare with its score in the same search
            tally.add(
                board,
                self.analyse(
                    board,
                    self._limit(budget, depth, bounded=False),
                    stop,
                    report=report,
                    root_moves=moves,
                ),
                best=True,
            )
            if tally.best is not None and proposals != [tally.best] and not stop.is_set():
                self._score(
                    board,
                    [tally.best, *(m for m in proposals if m != tally.best)],
                    budget,
                    depth,
                    stop,
                    tally,
                )
        move, score = tally.top()
        if move is None:
            if not (stop.is_set() and proposals):
                raise JudgeError("it scored no move")
            move = proposals[0]  # stopped before the judge scored anything: the expert's choice
        return SearchResult(
            move=move,
            score=score,
            depth=tally.depth,
            seldepth=tally.seldepth,
            nodes=tally.nodes,
            seconds=time.monotonic() - started,
            pv=tally.pv if move == tally.best else [move],
            scores={m: RootScore(s, True) for m, s in tally.scores.items()},
            tolerance=tolerance,
        )

    def _score(
        self,
        board: chess.Board,
        moves: list[chess.Move],
        budget: Budget,
        depth: int,
        stop: threading.Event,
        tally: _Tally,
    ) -> None:
        """Score ``moves``: one search with a principal variation each (``searchmoves``), or,
        for an engine without MultiPV, one search a move sharing the time."""
        engine = self.process.engine
        assert engine is not None
        if "MultiPV" in engine.protocol.options or len(moves) == 1:
            tally.add(
                board,
                self.analyse(
                    board, self._limit(budget, depth, bounded=True), stop, root_moves=moves
                ),
            )
            return
        share = Budget(
            budget.depth,
            budget.nodes,
            None if budget.movetime is None else budget.movetime / len(moves),
        )
        for move in moves:
            if stop.is_set():
                break
            tally.add(
                board,
                self.analyse(
                    board, self._limit(share, depth, bounded=True), stop, root_moves=[move]
                ),
            )

    def _limit(self, budget: Budget, depth: int, *, bounded: bool) -> chess.engine.Limit | None:
        """The limit of one of the two searches: JudgeDepth or the ``go``'s depth and nodes, and
        :data:`SEARCH_SHARE` of the move's time; None (until stop) when nothing bounds it."""
        # milliseconds, as the go sends them (at least 10)
        movetime = (
            None
            if budget.movetime is None
            else max(round(budget.movetime * SEARCH_SHARE * 1000), 10)
        )
        plies = depth or budget.depth
        nodes = None if depth else budget.nodes
        if plies is None and nodes is None and movetime is None:
            return to_limit(SearchLimits(depth=UNBOUNDED_PROPOSAL_DEPTH)) if bounded else None
        return to_limit(SearchLimits(depth=plies, nodes=nodes, movetime=movetime))

    def analyse(
        self,
        board: chess.Board,
        limit: chess.engine.Limit | None,
        stop: threading.Event,
        *,
        root_moves: Sequence[chess.Move] | None = None,
        report: Callable[[chess.engine.InfoDict], None] | None = None,
        game: object | None = None,
    ) -> list[chess.engine.InfoDict]:
        """One search (in this game, or ``game``: a new one clears the hash); the last info of each
        principal variation, best first."""
        engine = self.process.engine
        if engine is None:
            raise JudgeError("its process has ended")
        seconds = None if limit is None else limit.time
        # Starting a search (after ucinewgame, an isready) must not take longer than the search.
        # Past its time it is told to stop, and killed as hung if it has not answered half its time
        # later (at most KILL_GRACE, at least 0.05 s).
        started = self._call(
            engine.protocol.analysis(
                board,
                limit,
                multipv=len(root_moves) if root_moves else None,
                game=game or self._game,
                root_moves=root_moves,
            ),
            time.monotonic() + (START_TIMEOUT if seconds is None else seconds + KILL_GRACE),
            stop=stop,
        )
        grace = KILL_GRACE if seconds is None else min(KILL_GRACE, max(0.05, seconds / 2))
        # bounded by depth or nodes alone: until it falls silent (go infinite's search: until stop)
        deadline = (
            None
            if limit is None
            else Liveness(SILENCE)
            if seconds is None
            else time.monotonic() + seconds + grace
        )
        self._call(
            _drain(started, report, deadline), deadline, stop=stop, analysis=started, grace=grace
        )
        return [info for info in started.multipv if info]

    def _call(
        self,
        coroutine: Coroutine[Any, Any, T],
        deadline: float | Liveness | None,
        *,
        stop: threading.Event | None = None,
        analysis: chess.engine.AnalysisResult | None = None,
        grace: float = KILL_GRACE,
    ) -> T:
        """The running engine's answer to ``coroutine`` (:meth:`EngineProcess.call`); JudgeError
        when it ended, hung or answered garbage (it is then killed)."""
        try:
            return self.process.call(coroutine, deadline, stop=stop, analysis=analysis, grace=grace)
        except ProcessError as exc:
            raise JudgeError(str(exc)) from None

    def _iteration(
        self,
        info: chess.engine.InfoDict,
        board: chess.Board,
        seconds: float,
        nodes: int,
        tolerance: int,
    ) -> SearchResult:
        """One of the judge's iterations, for the ``info`` lines the GUI shows."""
        move, score = _line(board, info)
        return SearchResult(
            move=move,
            score=score,
            depth=max(int(info.get("depth", 0)), 0),
            seldepth=max(int(info.get("seldepth", 0)), 0),
            nodes=nodes + max(int(info.get("nodes", 0)), 0),
            seconds=seconds,
            pv=_legal_line(board, info.get("pv", [])),
            scores={},
            tolerance=tolerance,
        )

    # -- starting ----------------------------------------------------------------------

    def _collect(self) -> None:
        """Take a finished start's outcome: the engine's name when it runs; a refusal when it never
        ran; JudgeError (a fault) when a restart failed."""
        error = self.process.collect()
        if self.process.engine is not None:
            self.name, self._worked = self.process.name(self.name), True
        elif error is not None and not self._worked:
            self.refused, self._refused_file = error, file_state(self.settings.command)
        elif error is not None:
            raise JudgeError(error)

    def _ready(self, budget: Budget, stop: threading.Event) -> None:
        """Wait for the engine: for its start (begun if none runs), at most :data:`SEARCH_SHARE` of
        the move's time on a clock, else until the start ends or ``stop``. JudgeError if it is not
        ready: a fault, or (then :attr:`_excuse` says so) it is starting or refused."""
        if self.refused is not None and file_state(self.settings.command) != self._refused_file:
            self.refused = None  # the program changed: a new chance
        self.begin()
        until = (
            None if budget.movetime is None else time.monotonic() + budget.movetime * SEARCH_SHARE
        )
        if not self.process.wait(until, stop):
            self._excuse = self._tell(
                JudgeNote(self.name, JudgeEvent.STARTING),
                JudgeNote(self.name, JudgeEvent.STILL_STARTING),
            )
            raise JudgeError("starting")
        self._collect()
        if self.process.engine is not None:
            self._told = None
            return
        if self.refused is None:  # closed while it started: a new start at the next move
            raise JudgeError("its start was cancelled")
        self._excuse = self._tell(
            JudgeNote(self.name, JudgeEvent.REFUSED, self.refused),
            JudgeNote(self.name, JudgeEvent.STILL_REFUSED, self.refused),
        )
        raise JudgeError(self.refused)

    def _tell(self, first: JudgeNote, again: JudgeNote) -> JudgeNote:
        """``first`` the first time in a row, ``again`` after that."""
        told, self._told = self._told, first
        return again if told == first else first


class _Tally:
    """What the judge's searches of one move found: each scored move's score, its own best move
    (with its line), how deep it got and how many nodes it searched."""

    def __init__(self) -> None:
        self.scores: dict[chess.Move, int] = {}
        self.best: chess.Move | None = None
        self.pv: list[chess.Move] = []
        self.depth = self.seldepth = self.nodes = 0

    def add(
        self, board: chess.Board, infos: list[chess.engine.InfoDict], *, best: bool = False
    ) -> None:
        """A search's last info per principal variation (the first its best, when ``best``)."""
        for rank, info in enumerate(infos):
            move, score = _line(board, info)
            if move is None or score is None:
                continue
            self.scores[move] = score
            if best and rank == 0:
                self.best, self.pv = move, list(info.get("pv", []))
                self.seldepth = max(self.seldepth, int(info.get("seldepth", 0)))
        self.nodes += max((int(info.get("nodes", 0)) for info in infos), default=0)
        self.depth = max([self.depth, *(int(info.get("depth", 0)) for info in infos)])

    def top(self) -> tuple[chess.Move | None, int | None]:
        """The best move and score: its own best, unless a proposal scored higher."""
        if not self.scores:
            return None, None
        top = max(self.scores, key=self.scores.__getitem__)
        if self.best is not None and self.scores[self.best] >= self.scores[top]:
            top = self.best
        return top, self.scores[top]


async def _drain(
    analysis: chess.engine.AnalysisResult,
    report: Callable[[chess.engine.InfoDict], None] | None,
    deadline: float | Liveness | None = None,
) -> chess.engine.BestMove:
    """Read a search's infos (handing each to ``report``; a Liveness ``deadline`` hears each) until
    its bestmove."""
    async for info in analysis:
        if isinstance(deadline, Liveness):
            deadline.heard()
        if report is not None:
            report(info)
    return await analysis.wait()


def _legal_line(board: chess.Board, pv: Sequence[chess.Move]) -> list[chess.Move]:
    """The judge's principal variation up to its first move that is not legal (a liar's line is
    cut short, never shown: our ``info`` lines hold only legal lines)."""
    line, after = [], board.copy(stack=False)
    for move in pv:
        if not after.is_legal(move):
            break
        line.append(move)
        after.push(move)
    return line


def _line(board: chess.Board, info: chess.engine.InfoDict) -> tuple[chess.Move | None, int | None]:
    """The first move of an info's principal variation (if legal) and its score."""
    pv = info.get("pv") or []
    move = pv[0] if pv and pv[0] in board.legal_moves else None
    score = info.get("score")
    return move, None if score is None else from_pov_score(score.relative)
