"""Time controls and game clocks, as whoever drives the engines keeps them: the tournament charges
the thinking time it measured and adjudicates flag falls; the web's live game runs the side to
move's clock (:meth:`Clock.start`, :meth:`Clock.stop`) and shows it. Both tell an engine its time
as a ``go`` would (:meth:`Clock.limits`).

A :class:`TimeControl` is written as in the PGN ``TimeControl`` tag: ``"40/5400"`` (40 moves
in 5400 s, repeating: the thesis's 40 moves in 90 minutes), ``"300"`` (sudden death) or
``"300+2"`` (sudden death with a 2 s increment per move).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import chess

from engine.search.limits import SearchLimits

_SPEC = re.compile(r"^(?:(?P<moves>\d+)/)?(?P<seconds>\d+(?:\.\d+)?)(?:\+(?P<inc>\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class TimeControl:
    """``moves`` moves (None: the whole game) in ``seconds``, plus ``increment`` per move."""

    moves: int | None
    seconds: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read ``"40/5400"``, ``"300"`` or ``"300+2"``; raise ValueError saying what is
        accepted."""
        match = _SPEC.match(text.strip())
        if match is None or float(match["seconds"]) <= 0 or match["moves"] == "0":
            raise ValueError(
                f"time control {text!r}: expected MOVES/SECONDS (e.g. 40/5400), SECONDS"
                " or SECONDS+INCREMENT, with positive numbers"
            )
        if match["moves"] and match["inc"]:
            raise ValueError(f"time control {text!r}: an increment goes with sudden death only")
        return cls(
            moves=int(match["moves"]) if match["moves"] else None,
            seconds=float(match["seconds"]),
            increment=float(match["inc"] or 0),
        )

    def __str__(self) -> str:
        """As the PGN tag writes it (a period with an increment, as the web's games have,
        ``40/900+2``)."""
        text = f"{self.seconds:g}" if self.moves is None else f"{self.moves}/{self.seconds:g}"
        return f"{text}+{self.increment:g}" if self.increment else text


@dataclass
class Clock:
    """Both sides' remaining time under one :class:`TimeControl`.

    ``first_period_met`` records, per colour, that the side has not overstepped the first
    period (the thesis's "first 40 moves within 90 minutes"; the whole game for sudden death).
    ``running`` is the side whose time runs (a live game), since the monotonic time ``since``.
    """

    control: TimeControl
    remaining: dict[chess.Color, float] = field(init=False)
    moves_made: dict[chess.Color, int] = field(init=False)
    used: dict[chess.Color, float] = field(init=False)
    first_period_met: dict[chess.Color, bool] = field(init=False)
    running: chess.Color | None = field(default=None, init=False)
    since: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self.remaining = {chess.WHITE: self.control.seconds, chess.BLACK: self.control.seconds}
        self.moves_made = {chess.WHITE: 0, chess.BLACK: 0}
        self.used = {chess.WHITE: 0.0, chess.BLACK: 0.0}
        self.first_period_met = {chess.WHITE: True, chess.BLACK: True}

    def saved(self, now: float | None = None) -> dict[str, list[Any]]:
        """Both sides' state at ``now``, white then black (JSON), the running side's time charged so
        far."""
        return {
            "left": [self.left(c, now) for c in chess.COLORS],
            "moves_made": [self.moves_made[c] for c in chess.COLORS],
            "used": [self.used[c] for c in chess.COLORS],
            "met": [self.first_period_met[c] for c in chess.COLORS],
        }

    def restore(self, saved: dict[str, list[Any]]) -> None:
        """Both sides' state as :meth:`saved` gave it (no side running)."""
        for i, colour in enumerate(chess.COLORS):
            self.remaining[colour], self.moves_made[colour] = (
                saved["left"][i],
                saved["moves_made"][i],
            )
            self.used[colour], self.first_period_met[colour] = saved["used"][i], saved["met"][i]

    def moves_to_go(self, colour: chess.Color) -> int | None:
        """Moves ``colour`` still has to make before its next time control, or None."""
        if self.control.moves is None:
            return None
        return self.control.moves - self.moves_made[colour] % self.control.moves

    def charge(self, colour: chess.Color, elapsed: float) -> bool:
        """Charge ``elapsed`` seconds for one move of ``colour``; False when its flag fell.

        A side whose flag fell has not completed the move: the move is neither counted
        nor credited with the next period's time.
        """
        self.used[colour] += elapsed
        self.remaining[colour] -= elapsed
        in_first_period = self.control.moves is None or self.moves_made[colour] < self.control.moves
        if self.remaining[colour] < 0:
            if in_first_period:
                self.first_period_met[colour] = False
            return False
        self.moves_made[colour] += 1
        self.remaining[colour] += self.control.increment
        if self.control.moves is not None and self.moves_made[colour] % self.control.moves == 0:
            self.remaining[colour] += self.control.seconds
        return True

    def left(self, colour: chess.Color, now: float | None = None) -> float:
        """Seconds left to ``colour`` at the monotonic time ``now`` (default: now), its running time
        counted."""
        if colour != self.running:
            return self.remaining[colour]
        return self.remaining[colour] - ((time.monotonic() if now is None else now) - self.since)

    def start(self, colour: chess.Color, now: float | None = None) -> None:
        """Run ``colour``'s time from the monotonic time ``now`` (default: now)."""
        self.running, self.since = colour, time.monotonic() if now is None else now

    def stop(self, now: float | None = None) -> bool:
        """Charge the running side (if any) for one move, its time from :meth:`start` to ``now``
        (default: now); False when its flag fell."""
        colour, self.running = self.running, None
        return colour is None or self.charge(
            colour, (time.monotonic() if now is None else now) - self.since
        )

    def limits(self, colour: chess.Color) -> SearchLimits:
        """The ``go`` parameters (milliseconds) that tell ``colour``, to move, about both clocks."""
        inc = round(self.control.increment * 1000)
        return SearchLimits(
            wtime=max(0, round(self.left(chess.WHITE) * 1000)),
            btime=max(0, round(self.left(chess.BLACK) * 1000)),
            winc=inc,
            binc=inc,
            movestogo=self.moves_to_go(colour),
        )

    @property
    def requirement_met(self) -> bool:
        """Both sides stayed within the first period (PGN tag ``TimeRequirementMet``)."""
        return all(self.first_period_met.values())
