"""Which games of a PGN input go into a casebase: the one game filter shared by ``build`` and
``holdout``, and the one definition of an expert's latest games (:func:`latest`).

A game is decided from its headers alone, in this order (each game lands in exactly one
count): no side is the expert -> ``without_expert``; both sides are -> ``both_match``;
a non-standard ``Variant`` tag -> ``variant_skipped``; the expert's own rating outside
``--min-elo``/``--max-elo`` -> ``elo_filtered``; another speed class than ``--speed``'s
(:func:`casebase.speed.speed_of`) -> ``speed_filtered``. The remaining *candidate* games are then
thinned globally: the latest ``--exclude-latest`` fraction by date -> ``held_out``, and
candidates after the first ``--max-games`` -> ``beyond_max_games``. The rest are used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import chess

from casebase.names import NameMatcher
from casebase.speed import SPEEDS, UNKNOWN, speed_of

#: The expert name recorded for an ``--all-players`` casebase.
ALL_PLAYERS = "all players"

#: Outcome of the per-game (headers only) decision, as counted in the casebase metadata.
WITHOUT_EXPERT = "without_expert"
BOTH_MATCH = "both_match"
VARIANT_SKIPPED = "variant_skipped"
ELO_FILTERED = "elo_filtered"
SPEED_FILTERED = "speed_filtered"
HELD_OUT = "held_out"
BEYOND_MAX_GAMES = "beyond_max_games"

_STANDARD_VARIANTS = frozenset(alias.lower() for alias in chess.Board.aliases)


class BuildError(Exception):
    """The input cannot give the casebase asked for; the message says why. Nothing is written."""


@dataclass(frozen=True)
class GameFilter:
    """The builder options that decide which games and moves become cases."""

    player: str = ALL_PLAYERS
    exact_name: bool = False
    all_players: bool = False
    min_elo: int | None = None
    max_elo: int | None = None
    max_games: int | None = None
    exclude_latest: float = 0.0
    speed: str | None = None  # one speed class (casebase.speed), or None for every game

    def __post_init__(self) -> None:
        if not self.all_players:
            try:
                self.matcher()
            except ValueError as exc:
                raise BuildError(
                    f"{exc}: give the expert's name (--player NAME) or --all-players"
                ) from exc
        if not 0.0 <= self.exclude_latest < 1.0:
            raise BuildError(
                f"the fraction of latest games to exclude must lie in [0, 1), "
                f"not {self.exclude_latest}"
            )
        if self.max_games is not None and self.max_games < 1:
            raise BuildError(f"--max-games must be at least 1, not {self.max_games}")
        if self.speed is not None and self.speed not in (*SPEEDS, UNKNOWN):
            raise BuildError(
                f"--speed must be one of {', '.join((*SPEEDS, UNKNOWN))}, not {self.speed!r}"
            )
        if None not in (self.min_elo, self.max_elo) and self.min_elo > self.max_elo:  # type: ignore[operator]
            raise BuildError(f"--min-elo {self.min_elo} is above --max-elo {self.max_elo}")

    @property
    def expert(self) -> str:
        """The expert's name as recorded in the casebase."""
        return ALL_PLAYERS if self.all_players else self.player.strip()

    def as_meta(self) -> dict[str, Any]:
        """The options as stored in the casebase metadata (``speed`` only where one is chosen, so
        that a casebase of every game records what it did before the option, as its personal model
        names it)."""
        return {
            key: value for key, value in asdict(self).items() if key != "speed" or value is not None
        }

    def matcher(self) -> NameMatcher | None:
        """The expert's name matcher (None with ``all_players``)."""
        return None if self.all_players else NameMatcher(self.player, exact=self.exact_name)


def parse_elo(value: str | None) -> int:
    """A rating tag's value as an int, or -1 when missing or not a positive number."""
    value = (value or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else -1


@dataclass(frozen=True)
class Candidate:
    """A game whose expert moves the builder keeps (unless thinned globally)."""

    expert_white: bool
    expert_elo: int


def classify(
    headers: Mapping[str, str], selection: GameFilter, matcher: NameMatcher | None
) -> Candidate | str:
    """A candidate game, or the count (``WITHOUT_EXPERT``, ...) that the game lands in."""
    if matcher is None:
        expert_white = True
        ratings = [
            r
            for r in (parse_elo(headers.get("WhiteElo")), parse_elo(headers.get("BlackElo")))
            if r > 0
        ]
        # A game of all players is as strong as its weaker rated player.
        elo = min(ratings, default=-1)
    else:
        white = matcher(headers.get("White", "?"))
        black = matcher(headers.get("Black", "?"))
        if not (white or black):
            return WITHOUT_EXPERT
        if white and black:
            return BOTH_MATCH
        expert_white = white
        elo = parse_elo(headers.get("WhiteElo" if white else "BlackElo"))
    if headers.get("Variant", "").strip().lower() not in _STANDARD_VARIANTS | {""}:
        return VARIANT_SKIPPED
    if (selection.min_elo is not None or selection.max_elo is not None) and not (
        elo > 0
        and (selection.min_elo is None or elo >= selection.min_elo)
        and (selection.max_elo is None or elo <= selection.max_elo)
    ):
        return ELO_FILTERED
    if (
        selection.speed is not None
        and speed_of(headers.get("TimeControl"), headers.get("Event"), headers.get("Site"))
        != selection.speed
    ):
        return SPEED_FILTERED
    return Candidate(expert_white, elo)


def date_key(date: str) -> str:
    """Sortable form of a PGN date; unknown parts (``??``) sort first."""
    return re.sub(r"[^0-9?]", "", date).replace("?", "0")


def latest(dates: Sequence[str], share: float, *, at_least: int = 0, leave: int = 0) -> list[bool]:
    """Which of the games (given in file order by their Date tags) are the latest ``share``:
    ``share`` of them rounded to the nearest game, at least ``at_least`` and leaving at least
    ``leave`` (where there are that many); sorted by date (unknown parts first), ties broken by
    file order (later counts as latest). The hold-out (``--exclude-latest``) and the personal
    model's check on the expert's latest games both count them so."""
    n = len(dates)
    count = max(int(share * n + 0.5), min(at_least, n))
    count = min(count, max(n - leave, min(at_least, n)))
    order = sorted(range(n), key=lambda i: (date_key(dates[i]), i))
    chosen = set(order[n - count :]) if count else set()
    return [i in chosen for i in range(n)]
