"""The benches' statistics, by scipy: shares with Wilson's interval, the paired difference of two
sets of trials, and Spearman's rank correlation.

scipy.stats takes half a second to import: each function imports it where it is used, so that a
bench's worker processes (which import this module with the replay) do not load it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np

#: The two-sided 95 % quantile of the standard normal distribution (scipy's
#: ``stats.norm.ppf(0.975)``).
Z95 = 1.959963984540054


def wilson(matches: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % interval for a share of ``matches`` in ``n`` (nan, nan when ``n`` is 0)."""
    if n == 0:
        return math.nan, math.nan
    from scipy import stats

    interval = stats.binomtest(matches, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def paired(
    a: Sequence[bool] | np.ndarray, b: Sequence[bool] | np.ndarray
) -> tuple[float, float, float]:
    """The mean of ``a - b`` over paired trials, with its 95 % interval (normal approximation:
    the mean plus or minus :data:`Z95` standard errors); nan without trials, an unbounded
    interval with one."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if not len(d):
        return math.nan, math.nan, math.nan
    mean = float(d.mean())
    from scipy import stats

    half = Z95 * float(stats.sem(d)) if len(d) > 1 else math.inf
    return mean, mean - half, mean + half


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (average ranks for ties); None when undefined (fewer than two
    pairs, or one side constant)."""
    if len(x) != len(y):
        raise ValueError("spearman needs two sequences of the same length")
    if len(x) < 2 or len(set(x)) == 1 or len(set(y)) == 1:
        return None
    from scipy import stats

    return float(stats.spearmanr(x, y).statistic)


def slope(x: Sequence[float], y: Sequence[float]) -> float | None:
    """The least-squares slope of ``y`` on ``x``; None when undefined (fewer than two pairs, or
    ``x`` constant)."""
    if len(x) != len(y):
        raise ValueError("slope needs two sequences of the same length")
    if len(x) < 2 or len(set(x)) == 1:
        return None
    return float(np.polyfit(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64), 1)[0])


class Share(NamedTuple):
    """``matches`` of ``positions`` trials (moves equal to the expert's), with Wilson's interval."""

    matches: int
    positions: int

    @property
    def share(self) -> float:
        return self.matches / self.positions if self.positions else math.nan

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson(self.matches, self.positions)
        return {
            "matches": self.matches,
            "positions": self.positions,
            "share": _number(self.share),
            "ci95": [_number(low), _number(high)],
        }

    def percent(self) -> str:
        """``"31.5 %"``, or an en dash without positions."""
        return f"{100 * self.share:.1f} %" if self.positions else "–"


def _number(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


def chunks_by_group(keys: Sequence[Hashable], size: int) -> list[list[int]]:
    """The indices of ``keys`` split by their key (a game) into chunks of ``size`` keys, in the
    order the keys first appear; a last chunk of fewer than half as many keys joins the one
    before."""
    groups: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    ordered = list(groups.values())
    split = [
        [i for group in ordered[start : start + size] for i in group]
        for start in range(0, len(ordered), size)
    ]
    if len(split) > 1 and len(ordered) % size and len(ordered) % size < size / 2:
        split[-2:] = [split[-2] + split[-1]]
    return split
