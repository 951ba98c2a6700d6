"""What a search found (:class:`SearchResult`), and which of its root moves are sound (search.md
§3).

Both the built-in search (:mod:`engine.search.alphabeta`) and an outside judge
(:mod:`engine.outside.judge`) answer with one, so guided mode applies one rule to either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from engine.search import Search
from engine.search.scores import is_mate_score

#: Above this score (centipawns) a position is won: guided mode never lets it slip to a draw.
WINNING = 200


@dataclass(frozen=True)
class RootScore:
    """A root move's score: exact, or (``exact`` False) an upper bound."""

    score: int
    exact: bool


@dataclass(kw_only=True)
class SearchResult:
    """What a search found: the best move and score of the deepest finished iteration.

    ``scores`` holds every searched root move of that iteration; those scoring at least
    ``score - tolerance`` are exact (of the moves the search was asked to score exactly,
    and the best), the others upper bounds. ``depth`` is 0 when not even the first
    iteration finished; the scores are then those of the root moves it did finish.
    """

    move: chess.Move | None
    score: int | None
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    pv: list[chess.Move]
    scores: dict[chess.Move, RootScore]
    tolerance: int = 0
    #: Each root move's visits, where a search the network leads found the move
    #: (:mod:`engine.search.puct`).
    visits: dict[chess.Move, int] = field(default_factory=dict)
    #: The built-in search that found it (None: an outside judge).
    search: Search | None = None

    @classmethod
    def empty(
        cls,
        *,
        score: int | None = None,
        seconds: float = 0.0,
        tolerance: int = 0,
        search: Search | None = None,
    ) -> SearchResult:
        """A result that found no move: no root move to search (``score`` that of the position
        then), or nothing searched."""
        return cls(
            move=None,
            score=score,
            depth=0,
            seldepth=0,
            nodes=0,
            seconds=seconds,
            pv=[],
            scores={},
            tolerance=tolerance,
            search=search,
        )

    def sound(self, tolerance: int | None = None) -> list[chess.Move]:
        """Root moves with an exact score at least ``score - tolerance``, best first.

        When the best score is a mate, only moves with that very score are sound: a slower
        mate within the tolerance, chosen move after move, might never arrive. When it is a
        win (above :data:`WINNING`), a move scoring a draw or worse (a repetition, the fifty-move
        rule) is never sound, whatever the tolerance.
        """
        tolerance = self.tolerance if tolerance is None else tolerance
        if tolerance > self.tolerance:
            raise ValueError(f"tolerance {tolerance} exceeds the search's {self.tolerance}")
        if self.score is None:
            return []
        floor = self.score if is_mate_score(self.score) else self.score - tolerance
        if self.score > WINNING:
            floor = max(floor, 1)
        good = [(s.score, m) for m, s in self.scores.items() if s.exact and s.score >= floor]
        return [m for _, m in sorted(good, key=lambda x: -x[0])]
