"""One progress display for the whole command, on stderr: the stage (k/7 and its name), its own
progress, and an ETA for everything left.

Each stage is made of parts (positions judged, games played), each with a count of units and
the seconds a unit took on 2 cores when the command was measured (:data:`player.stages.STAGES`).
The ETA is those seconds for what is left, scaled by how much faster or slower this run has
been than the measurement so far: so it is refined as it goes. The counts are read from the
stage's own files (its journal's lines, the match's saved games) by a thread that redraws the
line twice a second, so the stages' own code needs no hook. The units a cache gave (judged positions
taken from :mod:`profiling.cache`, written within milliseconds of the stage's start) count as done
but not as worked: the pace is measured on the units worked for alone.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

#: How often the line is redrawn on a terminal (seconds).
REDRAW = 0.5
#: Seconds between the progress lines written to a file or a pipe (not a terminal): a log of a long
#: stage shows it moving without a line a second.
LOG_EVERY = 60.0
#: The measured seconds of the stages run before their pace scales the ETA (a stage of a second says
#: little).
SCALE_AFTER = 30.0


def _none() -> int:
    return 0


@dataclass(frozen=True)
class Part:
    """Some units of one stage's work: how many, the seconds one took when measured, what they
    are called, how many are done now (read from the stage's files), and how many of those came
    without work (a cache's, counted as they come)."""

    total: int
    seconds: float
    unit: str
    done: Callable[[], int]
    taken: Callable[[], int] = _none

    def left(self) -> float:
        """The measured seconds of the units not yet done."""
        return max(self.total - min(self.done(), self.total), 0) * self.seconds


def given(parts: Sequence[Part]) -> float:
    """The measured seconds of the units taken without work."""
    return sum(part.taken() * part.seconds for part in parts)


def planned(parts: Sequence[Part]) -> float:
    """The measured seconds of all the parts' units."""
    return sum(part.total * part.seconds for part in parts)


def owed(parts: Sequence[Part]) -> float:
    """The measured seconds of the units not done yet and of those taken without work: what falls as
    the stage works, so the pace is the work's alone."""
    return sum(part.left() for part in parts) + given(parts)


def clock(seconds: float) -> str:
    """``seconds`` as h:mm:ss or m:ss."""
    s = int(round(seconds))
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class Progress:
    """The display of ``count`` stages; :meth:`stage` runs one, :meth:`kept` skips one."""

    def __init__(
        self,
        names: Sequence[str],
        plans: Callable[[int], Sequence[Part]],
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
    ) -> None:
        self.names, self.plans = list(names), plans
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.live = enabled and self.stream.isatty()
        self.spent = 0.0  # seconds this run spent on the stages it ran
        self.measured = 0.0  # what the measurement says those stages' units take

    def _scale(self) -> float:
        """How this run's pace compares with the measurement (1 until enough has run)."""
        return self.spent / self.measured if self.measured >= SCALE_AFTER else 1.0

    def eta(self, k: int, parts: Sequence[Part], started: float, owed_at_start: float) -> float:
        """Seconds left for the whole command in stage ``k`` (counted from 0), :func:`owed` at its
        start ``owed_at_start``."""
        left_here = sum(part.left() for part in parts)
        # a count planned again leaves float noise, not progress
        done_here = round(owed_at_start - owed(parts), 6)
        elapsed = time.monotonic() - started
        if done_here > 0 and elapsed > 1.0:  # this stage's own pace, once it has one
            here = left_here * elapsed / done_here
        else:
            here = left_here * self._scale()
        later = sum(part.left() for j in range(k + 1, len(self.names)) for part in self.plans(j))
        return here + later * self._scale()

    def line(self, k: int, parts: Sequence[Part], started: float, owed_at_start: float) -> str:
        current = next((p for p in parts if p.done() < p.total), parts[-1] if parts else None)
        own = (
            ""
            if current is None or current.total <= 1
            else f" {min(current.done(), current.total)}/{current.total} {current.unit}"
        )
        return (
            f"[{k + 1}/{len(self.names)} {self.names[k]}]{own}, ETA"
            f" {clock(self.eta(k, parts, started, owed_at_start))}"
        )

    def replanned(
        self, k: int, parts: Sequence[Part], owed_at_start: float
    ) -> tuple[Sequence[Part], float]:
        """Stage ``k``'s parts planned again (``parts`` as it started) and what was owed at its
        start with their counts now: a part's count may be settled as the stage goes (the profile's
        judging, the casebase's games)."""
        now = self.plans(k)
        return now, owed_at_start + planned(now) - planned(parts)

    def redrawn(self, k: int, parts: Sequence[Part], started: float, owed_at_start: float) -> str:
        """:meth:`line` with stage ``k``'s parts planned again (:meth:`replanned`)."""
        now, owed_then = self.replanned(k, parts, owed_at_start)
        return self.line(k, now, started, owed_then)

    def say(self, text: str) -> None:
        """A line of its own (a note of a stage), kept above the progress line."""
        if self.enabled:
            self.stream.write(("\r\x1b[K" if self.live else "") + text + "\n")
            self.stream.flush()

    def kept(self, k: int) -> None:
        """Stage ``k`` was finished by an earlier run with the same inputs."""
        self.say(f"[{k + 1}/{len(self.names)} {self.names[k]}] done (kept)")

    @contextmanager
    def stage(self, k: int) -> Iterator[None]:
        """Show stage ``k`` while it runs; count its time and measured seconds toward the scale."""
        parts = self.plans(k)
        owed_at_start = owed(parts)
        started = time.monotonic()
        self.say(self.line(k, parts, started, owed_at_start))
        stop = threading.Event()
        drawer = threading.Thread(
            target=self._draw, args=(k, parts, started, owed_at_start, stop), daemon=True
        )
        if self.enabled:
            drawer.start()
        try:
            yield
        finally:
            stop.set()
            if drawer.is_alive():
                drawer.join()
        self.spent += time.monotonic() - started
        final, owed_then = self.replanned(k, parts, owed_at_start)
        # what was left at the start, as the counts ended, but a cache's
        self.measured += owed_then - given(final)
        self.say(
            f"[{k + 1}/{len(self.names)} {self.names[k]}] done in"
            f" {clock(time.monotonic() - started)}"
        )

    def _draw(
        self,
        k: int,
        parts: Sequence[Part],
        started: float,
        owed_at_start: float,
        stop: threading.Event,
    ) -> None:
        """Redraw the line on a terminal; elsewhere (a log file) write it as a line of its own now
        and then."""
        while not stop.wait(REDRAW if self.live else LOG_EVERY):
            try:
                text = self.redrawn(k, parts, started, owed_at_start)
            except OSError:  # a file read while it is replaced: the next redraw reads it
                continue
            self.stream.write("\r\x1b[K" + text if self.live else text + "\n")
            self.stream.flush()
