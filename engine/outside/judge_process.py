"""A judge's process and its life (search.md §7): started on a thread of its own (the UCI loop
never waits for it), *refused* when it never started as a UCI engine (until its file changes),
closed at a fault, started again at its next use and retired after a second fault in a game; what
became of it during a move (:class:`JudgeNote`, which the UCI layer words).
:class:`engine.outside.judge.Judge` is a :class:`JudgeProcess` and scores the proposals with it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from common.paths import file_state
from common.text import clip
from engine.outside.process import EngineProcess
from engine.search.limits import Budget

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

    #: not ready yet: the built-in search judges until it answers uciok
    STARTING = "starting"
    STILL_STARTING = "still starting"
    #: its first start failed: not tried again until option Judge or its program's file changes
    REFUSED = "refused"
    STILL_REFUSED = "still refused"
    #: a fault closed it: it is restarted at the next move
    FAILED = "failed"
    #: its second fault this game: the built-in search judges the rest of the game
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


class JudgeProcess:
    """The process of a :class:`~engine.outside.judge.Judge` (documented there): its start in the
    background, its refusal, its faults this game."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.process = EngineProcess(
            settings.command, {"Threads": settings.threads, "Hash": settings.hash_mb}
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
        """Whether the judge failed twice this game (the built-in search judges until the next)."""
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
