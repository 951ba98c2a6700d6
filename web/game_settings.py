"""What the page asks a game for (:class:`Settings`): the expert, the human's colour, the clock and
the strength, and the engine's UCI options of that strength."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from web.reasons import OPTIONS


@dataclass
class Settings:
    """What the page asked for: the expert, the human's colour, the clock and the strength."""

    expert: str
    human: chess.Color = chess.WHITE
    minutes: float = 15.0
    moves: int = 40  # moves per period (0: the whole game); the engine is told movestogo
    increment: float = 0.0  # seconds
    elo: int | None = None  # None: the expert's own strength (Selection calibrated)
    fen: str | None = None  # a position to start from

    def options(self) -> dict[str, str | int | bool]:
        """The UCI options of this strength (option names as the engine declares them), and the
        record of every move as JSON (the page's reasons)."""
        if self.elo is None:
            return {"Selection": "calibrated", "UCI_LimitStrength": False, **OPTIONS}
        return {
            "Selection": "calibrated",
            "UCI_LimitStrength": True,
            "UCI_Elo": self.elo,
            **OPTIONS,
        }
