"""Weight lists of the adaptation similarity (cbr-agent.md §5) and the thesis's five configurations
(§6)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    """(v1, v2, v3): nearness over content, from over to squares in nearness, and in content."""

    v1: float
    v2: float
    v3: float

    def __post_init__(self) -> None:
        for name in ("v1", "v2", "v3"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= 1):
                raise ValueError(f"weight {name} = {value!r} must be a number in [0, 1]")

    def __str__(self) -> str:
        return f"({self.v1:g}, {self.v2:g}, {self.v3:g})"

    def hundredths(self) -> tuple[int, int, int]:
        """(v1, v2, v3) as whole hundredths, as the UCI options take them; ValueError if one
        is not a whole number of hundredths."""
        return to_hundredths(self.v1), to_hundredths(self.v2), to_hundredths(self.v3)


def to_hundredths(value: float) -> int:
    """A weight as whole hundredths (0.35 -> 35): the UCI engine takes its weights as whole
    percentages, so every weight list the project writes is one. ValueError if ``value`` is
    not a whole number of hundredths in [0, 1]."""
    scaled = round(value * 100)
    if abs(value * 100 - scaled) > 1e-6 or not 0 <= scaled <= 100:
        raise ValueError(
            f"weight {value!r} is not a whole number of hundredths in 0..1 (e.g. 0.35)"
        )
    return scaled


def from_hundredths(hundredths: int) -> float:
    """A weight given in whole hundredths (35 -> 0.35)."""
    return hundredths / 100


#: The thesis's configurations, in the order of cbr-agent.md §6.
WEIGHT_CONFIGS: dict[str, Weights] = {
    "balanced": Weights(0.5, 0.5, 0.5),
    "near-from": Weights(0.8, 0.8, 0.5),
    "near-to": Weights(0.8, 0.2, 0.5),
    "content-from": Weights(0.2, 0.5, 0.8),
    "content-to": Weights(0.2, 0.5, 0.2),
}
