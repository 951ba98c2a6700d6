"""Chess0's own options: the declarations :data:`engine.agents.modes.MODES` gives the mode, and
their values typed once (:class:`Chess0Settings`, by :func:`engine.agents.options.settings_of`):
what one of Chess0's engines (:mod:`engine.agents.chess0`) is made with.

Importing this module is cheap (no numpy), as :mod:`engine.agents.modes` is: the UCI loop imports
both before ``uciok``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.agents import defaults
from engine.agents.defaults import Chess0Style
from engine.agents.options import Option, setting

#: The options of Chess0's mode, in the order the engine declares them.
CHESS0_OPTIONS: tuple[Option, ...] = (
    Option(
        "Style",
        "combo",
        defaults.CHESS0_STYLE.value,
        choices=tuple(s.value for s in Chess0Style),
        doc=(
            "chess0: `classic` (fixed depth, static evaluation, no quiescence, no"
            " randomness) or `adaptive`"
        ),
    ),
    Option(
        "Depth",
        "spin",
        defaults.CHESS0_DEPTH,
        1,
        20,
        doc="chess0: the classic depth, the adaptive style's base depth",
    ),
    Option(
        "DepthDeviation",
        "spin",
        defaults.CHESS0_DEPTH_DEVIATION,
        0,
        10,
        doc="chess0, adaptive: the opening's depth is `Depth` minus this",
    ),
    Option(
        "Window",
        "spin",
        defaults.CHESS0_WINDOW,
        0,
        1000,
        doc=(
            "chess0, adaptive: the randomisation window, centipawns; a root move this"
            " close to the best may be drawn"
        ),
    ),
)


@dataclass(frozen=True)
class Chess0Settings:
    """Option by option, what makes one of Chess0's engines."""

    style: str = setting("Style", str)
    depth: int = setting("Depth", int)
    deviation: int = setting("DepthDeviation", int)
    window: int = setting("Window", int)

    def files(self, casebase: str) -> list[str]:
        """The files these settings read: none."""
        return []
