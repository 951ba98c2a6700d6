"""The speed class a game is played at, as the agent learns it from the ``go``s (option Speed;
docs/strength.md §3): the one option Speed names, none for ``all``, else (``auto``) the class the
game's clock implies (:func:`casebase.speed.clock_speed`: on Lichess's bands for a casebase of
lichess.org games, as its games' classes are, else FIDE's).

The clock says its class at the start of a game (and with each ``movestogo`` cycle); late in a
sudden-death game it no longer does, so the class of the game's first ``go`` that implies one is
kept until the next game: ``ucinewgame`` (:meth:`GameSpeed.new_game`), or a position among a game's
first moves earlier than the last ``go``'s whose clock implies a class again (a new game without
``ucinewgame``; a takeback later in the game keeps its class, a ``movestogo`` clock's too). A ``go``
that says more than the clock (``depth``, ``nodes``, ``movetime``, ``infinite``) implies none: it
plays all the expert's games. A ``go ponder`` (the search gets no clock until ``ponderhit``) and a
``go`` that gives no time to the side to move say nothing of the clock but are moves of the game:
they play the game's class.
"""

from __future__ import annotations

from collections.abc import Hashable

import chess

from casebase.speed import SPEEDS, START_PLIES, clock_speed
from engine.agents import defaults
from engine.search.limits import SearchLimits, on_clock


class GameSpeed:
    """The speed class of the game in play, by option Speed's ``setting``, and what was told of
    it."""

    def __init__(self, setting: str = defaults.SPEED, *, lichess: bool = False) -> None:
        if setting not in defaults.SPEED_SETTINGS:
            raise ValueError(
                f"Speed must be one of {', '.join(defaults.SPEED_SETTINGS)}, not {setting!r}"
            )
        self.setting = setting
        # the clock on Lichess's bands (a casebase of lichess.org games), else FIDE's
        self.lichess = lichess
        self.new_game()

    @property
    def forced(self) -> bool:
        """Whether option Speed names the class (the clock is not asked)."""
        return self.setting in SPEEDS

    def new_game(self) -> None:
        """Forget the last game's class, its last position and what was told of it."""
        self._clock: str | None = None
        self._ply = -1
        self._told: set[Hashable] = set()

    def of(self, board: chess.Board, limits: SearchLimits | None) -> str | None:
        """The class the ``go`` on ``board`` with ``limits`` plays at (None: no class, all
        games)."""
        if self.setting != defaults.SPEED_AUTO:
            return self.setting if self.forced else None
        earlier, self._ply = board.ply() < self._ply, board.ply()
        if limits is not None and (limits.ponder or _no_clock_of(limits, board.turn)):
            return self._clock  # says nothing of the clock, but is a move of the game in play
        if limits is None or (clock := on_clock(limits, board.turn)) is None:
            return None
        implied = clock_speed(
            clock[0] / 1000, clock[1] / 1000, limits.movestogo, board.ply(), lichess=self.lichess
        )
        if implied is not None and (
            self._clock is None or (earlier and board.ply() <= START_PLIES)
        ):
            self._clock = implied
        return self._clock

    def first(self, news: Hashable) -> bool:
        """Whether ``news`` is new this game (then it is remembered as told)."""
        if news in self._told:
            return False
        self._told.add(news)
        return True


def _no_clock_of(limits: SearchLimits, turn: chess.Color) -> bool:
    """Whether the ``go`` gives the side to move no time, and says nothing more than a clock
    would."""
    return (limits.wtime if turn else limits.btime) is None and not any(
        (limits.movetime is not None, limits.depth, limits.nodes, limits.mate, limits.infinite)
    )
