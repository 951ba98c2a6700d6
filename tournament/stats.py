"""Shares with their intervals: how the benches report a proportion."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

#: The two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson(matches: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % interval for a share of ``matches`` in ``n`` (nan, nan when ``n`` is 0)."""
    if n == 0:
        return math.nan, math.nan
    p, z2 = matches / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


class Share(NamedTuple):
    """``matches`` of ``positions`` moves equal to the expert's."""

    matches: int
    positions: int

    @property
    def share(self) -> float:
        return self.matches / self.positions if self.positions else math.nan

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson(self.matches, self.positions)
        return {"matches": self.matches, "positions": self.positions,
                "share": _number(self.share), "ci95": [_number(low), _number(high)]}

    def percent(self) -> str:
        """``"31.5 %"``, or an en dash without positions."""
        return f"{100 * self.share:.1f} %" if self.positions else "–"


def _number(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)
