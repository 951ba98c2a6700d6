"""The player's rating as ``cbr-chess new`` states it and chooses the match's opponent by: the
implied rating of the judged positions (engine.strength.rating), with the player's own ratings in
the games' headers as a prior (issue #62), so that a player of few judged positions is not read from
them alone.

Both read the strength the player's moves show on the experts' rating line. The positions say it
with the bootstrap's spread (the stored profile's ``bootstrap_low..high``: 95 %); the headers'
rating (the median of the player's own WhiteElo/BlackElo in the casebase's games, ``Casebase.elo``)
says it with the spread of rated players' ratings about the line, :data:`PRIOR_SPREAD`. The two are
weighed by their precisions (a Gaussian prior times a Gaussian likelihood), and the interval is
widened by the line's spread as the profile's own is (where a rated player of that strength lies):
without rated games it is the profile's implied rating and interval unchanged.

The same reading says when the profile has judged enough (:func:`positions_needed`): the bootstrap's
spread shrinks as one over the square root of the positions, so the interval the full count would
give is known from a part of it, and the judging stops once the stated interval is within a few
percent of that (issue #62: 650 to 700 of the shipped experts' 1,200 positions,
docs/results/2026-11-25-any-players-engine.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from casebase.format import Casebase
from common.stats import Z95
from engine.strength.profile import Profile
from engine.strength.rating import RATING_SPREAD
from profiling.intrinsic import rated_summary

#: The prior's width (Elo, one standard deviation): the spread of the rated experts' ratings about
#: the line (RATING_SPREAD, fitted across the eight FIDE experts' profiles of 1,200 positions, 98
#: Elo). The shipped experts' implied ratings lie 85 Elo (root mean square) from their headers'
#: median, of which their positions' bootstrap is 54 (so 65 between the headers and the strength
#: itself): 98 leaves room for ratings of other scales, 118 from the headers with the two online
#: players (FICS, Lichess) in.
PRIOR_SPREAD = RATING_SPREAD


@dataclass(frozen=True)
class Estimate:
    """The rating stated: with its 95 % interval, how many positions and rated games it is read
    from, and the positions' reading alone."""

    rating: float
    low: float
    high: float
    positions: int
    # the median of the player's own ratings in the games' headers (None: no rated game)
    header: int | None
    rated_games: int
    alone: tuple[float, float, float]  # the positions' implied rating and interval

    def as_json(self) -> dict[str, Any]:
        """As report.json holds it."""
        return {
            "implied": self.rating,
            "low": self.low,
            "high": self.high,
            "positions": self.positions,
            "header": self.header,
            "rated_games": self.rated_games,
            "prior_spread": PRIOR_SPREAD,
            "positions_alone": dict(zip(("implied", "low", "high"), self.alone, strict=True)),
        }

    @classmethod
    def of_json(cls, made: dict[str, Any]) -> Estimate:
        """Read back from :meth:`as_json`'s."""
        alone = made["positions_alone"]
        return cls(
            made["implied"],
            made["low"],
            made["high"],
            made["positions"],
            made["header"],
            made["rated_games"],
            (alone["implied"], alone["low"], alone["high"]),
        )


def estimate(casebase: Casebase, profile: Profile) -> Estimate:
    """The player's rating from the profile's summary (its ``rating`` and ``positions``:
    :func:`profiling.intrinsic.rated_summary`) and the ratings in the headers of ``casebase``'s
    games."""
    summary = rated_summary(profile)
    rating, positions = summary["rating"], int(summary["positions"])
    alone = (float(rating["implied"]), float(rating["low"]), float(rating["high"]))
    rated = rated_games(casebase)
    header = headers_rating(casebase)
    if header is None:
        return Estimate(*alone, positions, None, 0, alone)
    boot = _bootstrap_sd(summary)
    if boot > 0:
        # the prior's share
        weight = (1 / PRIOR_SPREAD**2) / (1 / boot**2 + 1 / PRIOR_SPREAD**2)
        mean = alone[0] + weight * (header - alone[0])
    # a bootstrap that never moved (every resample refitted alike): the positions fix it alone
    else:
        mean = alone[0]
    half = _half_width(boot, prior=True)
    return Estimate(mean, mean - half, mean + half, positions, header, rated, alone)


def rated_games(casebase: Casebase) -> int:
    """The casebase's games whose headers give the player a rating."""
    return int(np.count_nonzero(np.asarray(casebase.games["expert_elo"]) > 0))


def headers_rating(casebase: Casebase) -> int | None:
    """The prior: the median of the player's own ratings in the games' headers (None: no rated
    game)."""
    return casebase.elo if rated_games(casebase) else None


def _bootstrap_sd(summary: dict[str, Any]) -> float:
    """The standard deviation of the positions' implied rating over the bootstrap's resamples."""
    rating = summary["rating"]
    return (float(rating["bootstrap_high"]) - float(rating["bootstrap_low"])) / (2 * Z95)


def _half_width(boot: float, *, prior: bool) -> float:
    """The stated interval's half width for the positions' bootstrap spread ``boot``, with the
    headers' rating as a prior or without: the line's spread added to what the two (or the positions
    alone) leave."""
    spread = (1 / boot**2 + 1 / PRIOR_SPREAD**2) ** -0.5 if prior and boot > 0 else boot
    return Z95 * math.hypot(spread, RATING_SPREAD)


def positions_needed(casebase: Casebase, profile: Profile, most: int, within: float) -> int:
    """The judged positions after which the stated interval is at most ``within`` (a share) wider
    than ``most`` positions would make it, the bootstrap's spread read on ``profile``'s positions
    and taken to shrink as one over their square root: the profile's own count where it is already
    that narrow."""
    summary = rated_summary(profile)
    judged, boot, prior = (
        int(summary["positions"]),
        _bootstrap_sd(summary),
        headers_rating(casebase) is not None,
    )
    if judged >= most:
        return judged
    if boot <= 0:  # every resample refitted alike: it says nothing of the spread at more positions
        return most
    target = (1 + within) * _half_width(boot * math.sqrt(judged / most), prior=prior)
    # the half width falls as the count grows: the least count at or under the target
    low, high = judged, most
    while low < high:
        middle = (low + high) // 2
        if _half_width(boot * math.sqrt(judged / middle), prior=prior) <= target:
            high = middle
        else:
            low = middle + 1
    return low


def in_words(estimate: Estimate) -> str:
    """The report's line: ``2516 (95 % interval 2250..2782) from 31 judged positions and the rating
    2540 in the games' headers ...``."""
    e = estimate
    said = (
        f"{e.rating:.0f} (95 % interval {e.low:.0f}..{e.high:.0f}) from {e.positions} judged"
        " positions"
    )
    if e.header is None:
        return f"{said}; no rating in the games' headers"
    return (
        f"{said} and the rating {e.header} in the games' headers (the median of {e.rated_games}"
        f" rated games; the positions alone: {e.alone[0]:.0f}, {e.alone[1]:.0f}..{e.alone[2]:.0f})"
    )
