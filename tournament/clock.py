"""Time controls and game clocks: thinking time is measured by the caller and charged here.

A :class:`TimeControl` is written as in the PGN ``TimeControl`` tag: ``"40/5400"`` (40 moves
in 5400 s, repeating: the thesis's 40 moves in 90 minutes), ``"300"`` (sudden death) or
``"300+2"`` (sudden death with a 2 s increment per move).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import chess

_SPEC = re.compile(r"^(?:(?P<moves>\d+)/)?(?P<seconds>\d+(?:\.\d+)?)(?:\+(?P<inc>\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class TimeControl:
    """``moves`` moves (None: the whole game) in ``seconds``, plus ``increment`` per move."""

    moves: int | None
    seconds: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read ``"40/5400"``, ``"300"`` or ``"300+2"``; raise ValueError saying what is accepted."""
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
        text = f"{self.seconds:g}"
        if self.moves is not None:
            return f"{self.moves}/{text}"
        return f"{text}+{self.increment:g}" if self.increment else text


@dataclass
class Clock:
    """Both sides' remaining time under one :class:`TimeControl`.

    ``first_period_met`` records, per colour, that the side has not overstepped the first
    period (the thesis's "first 40 moves within 90 minutes"; the whole game for sudden death).
    """

    control: TimeControl
    remaining: dict[chess.Color, float] = field(init=False)
    moves_made: dict[chess.Color, int] = field(init=False)
    used: dict[chess.Color, float] = field(init=False)
    first_period_met: dict[chess.Color, bool] = field(init=False)

    def __post_init__(self) -> None:
        self.remaining = {chess.WHITE: self.control.seconds, chess.BLACK: self.control.seconds}
        self.moves_made = {chess.WHITE: 0, chess.BLACK: 0}
        self.used = {chess.WHITE: 0.0, chess.BLACK: 0.0}
        self.first_period_met = {chess.WHITE: True, chess.BLACK: True}

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

    @property
    def requirement_met(self) -> bool:
        """Both sides stayed within the first period (PGN tag ``TimeRequirementMet``)."""
        return all(self.first_period_met.values())
