"""The numbers fitted across the shipped experts' error profiles, read from their generated file.

``engine/strength/models/fitted.json`` (package data, format ``cbr-chess-fitted``) holds the rating
line (:data:`engine.strength.rating.RATING_LINE`, ``RATING_SPREAD``) and the shipped experts'
typical parameters of the calibrated choice (``SHIPPED_*`` of :mod:`engine.strength.calibration`),
with their provenance: which profiles (the casebases and their judged positions' journals, by
SHA-256), which judge, the command that made the file and when. ``python -m profiling.fitted``
(``make fitted``) makes it; docs/strength.md §2. Read once at import, with :mod:`json` alone (no
numpy).
"""

from __future__ import annotations

import importlib.resources
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FITTED_FORMAT = "cbr-chess-fitted"
FITTED_VERSION = 1


class FittedError(Exception):
    """The fitted numbers' file is missing, damaged or of another kind; the message says which."""


@dataclass(frozen=True)
class Fitted:
    """The fitted numbers and where they come from."""

    #: rating = A + B ln(100 loss): the implied rating of a model's expected loss per move (§2).
    rating_line: tuple[float, float]
    #: The spread of the rated experts' ratings about the line (Elo, one standard deviation).
    rating_spread: float
    #: Without a profile: the median of the experts' fitted prior weight and consistency, and the
    #: line of their fitted log-sensitivity in rating, ln s = a + b (rating - r0), as (a, b, r0).
    prior_weight: float
    consistency: float
    sensitivity_line: tuple[float, float, float]
    #: Which profiles, which judge, which command and when (JSON, as written).
    provenance: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The file's contents."""
        return {
            "format": FITTED_FORMAT,
            "version": FITTED_VERSION,
            "rating_line": list(self.rating_line),
            "rating_spread": self.rating_spread,
            "shipped_prior_weight": self.prior_weight,
            "shipped_consistency": self.consistency,
            "shipped_sensitivity_line": list(self.sensitivity_line),
            "provenance": self.provenance,
        }


def fitted_path() -> Path:
    """The shipped file of fitted numbers (package data of :mod:`engine.style`)."""
    return Path(str(importlib.resources.files("engine.strength") / "models" / "fitted.json"))


def read_fitted(path: Path) -> Fitted:
    """The fitted numbers of the file ``path``; :class:`FittedError` saying what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FittedError(f"{path}: cannot be read as the fitted numbers' JSON ({exc})") from exc
    if (
        not isinstance(data, dict)
        or data.get("format") != FITTED_FORMAT
        or data.get("version") != FITTED_VERSION
    ):
        raise FittedError(f"{path}: not a {FITTED_FORMAT} file of version {FITTED_VERSION}")
    numbers = {
        "rating_line": 2,
        "rating_spread": 0,
        "shipped_prior_weight": 0,
        "shipped_consistency": 0,
        "shipped_sensitivity_line": 3,
    }
    for key, length in numbers.items():
        value = data.get(key)
        values = value if length else [value]
        if (
            not isinstance(values, list)
            or len(values) != (length or 1)
            or not all(_finite(x) for x in values)
        ):
            raise FittedError(
                f"{path}: {key} is {value!r}, not {length or 'a'} finite"
                f" number{'s' if length else ''}"
            )
    if not isinstance(data.get("provenance"), dict):
        raise FittedError(f"{path}: no provenance")
    a, b = data["rating_line"]
    s_a, s_b, r0 = data["shipped_sensitivity_line"]
    return Fitted(
        (float(a), float(b)),
        float(data["rating_spread"]),
        float(data["shipped_prior_weight"]),
        float(data["shipped_consistency"]),
        (float(s_a), float(s_b), float(r0)),
        data["provenance"],
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


#: The shipped numbers, read at import.
FITTED = read_fitted(fitted_path())
