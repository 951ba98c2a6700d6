"""What a round robin's report says of its players and configurations (the report's data)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.cbr.configurations import Configuration
from tournament.elo import Estimate
from tournament.ordering import follows_elo


@dataclass(frozen=True)
class Player:
    """A player as the report shows it; ``rank`` is the ranking index (1 = highest Elo)."""

    id: str
    name: str
    elo: int | None
    engine: bool = False
    rank: int | None = None


@dataclass
class Behaviour:
    """One player in one configuration: its score and Elo estimate."""

    player: str
    games: int
    points: float
    estimate: Estimate


@dataclass
class ConfigResult:
    """Everything the report says about one configuration."""

    number: int
    config: Configuration
    games: int
    time_met: int
    ordering: list[int]
    decisive: int
    points: dict[str, dict[str, float]]
    played: dict[str, dict[str, int]]
    behaviours: list[Behaviour]
    spearman: float | None
    #: The least-squares slope of the estimates against the experts' Elo (1: as far apart as they).
    slope: float | None = None
    terminations: Counter[str] = field(default_factory=Counter)

    @property
    def title(self) -> str:
        c = self.config
        return c.label if c.name == c.label else f"{c.name} ({c.label})"

    @property
    def time_text(self) -> str:
        if self.time_met == self.games:
            return "yes"
        return f"no ({self.games - self.time_met} of {self.games} games missed it)"

    @property
    def ordering_text(self) -> str:
        if len(self.ordering) < 2:
            return "none (no player outscored another)"
        return ", ".join(map(str, self.ordering))

    @property
    def matches_text(self) -> str:
        return {True: "yes", False: "no", None: "n/a"}[follows_elo(self.ordering)]

    @property
    def decisive_percent(self) -> int:
        return round(100 * self.decisive / self.games) if self.games else 0
