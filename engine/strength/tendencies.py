"""Each expert's tendencies: how far the expert's choices lean from the shared chooser's on what the
move is (issue #40), and those leanings in words.

A tendency is a deviation ``d`` of the chooser's weight on one of :data:`MOVE_FEATURES` (check,
capture, the piece, castling, …; not the prior's or the losses' columns), fitted on the expert's own
games with a prior that pulls it to zero (``python -m learn.chooser tendencies``): the expert's odds
of a move with the feature are ``exp(d)`` times the average master's, other things equal (the piece
columns against a pawn move; distance per square). Only a deviation whose 95 % interval excludes
odds 1 is said in words.

File (format ``cbr-chess-tendencies``, version 1; shipped as
``engine/strength/models/tendencies.json``): JSON with ``features`` (:data:`MOVE_FEATURES`),
``meta`` (how it was fitted) and ``experts``, by the casebase's name (``carlsen-2800``):
``positions``, ``deviations`` and ``errors`` (the Laplace approximation's standard error of each),
written atomically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common.files import write_atomic
from engine.strength.chooser_features import FEATURES

FORMAT_NAME = "cbr-chess-tendencies"
FORMAT_VERSION = 1
#: The chooser's columns that say what the move is, whose weights an expert's tendencies shift.
MOVE_FEATURES: tuple[str, ...] = FEATURES[FEATURES.index("check") :]
#: The columns of :data:`MOVE_FEATURES` among the chooser's.
MOVE_COLUMNS = np.array([FEATURES.index(name) for name in MOVE_FEATURES])
#: What an expert does with each feature, in words (the piece columns: rather than a pawn).
PHRASES = {
    "check": "gives check",
    "capture": "captures",
    "recapture": "recaptures",
    "piece knight": "moves a knight",
    "piece bishop": "moves a bishop",
    "piece rook": "moves a rook",
    "piece queen": "moves the queen",
    "piece king": "moves the king",
    "pawn advance": "advances a pawn",
    "pawn to 6th/7th": "pushes a pawn to the 6th or 7th rank",
    "castling": "castles",
    "retreat": "retreats a piece",
    "queen trade": "trades queens",
    "distance": "moves far",
    "promotion": "promotes",
}
#: The normal quantile of the intervals said in words (95 %).
Z95 = 1.959964


class TendencyError(Exception):
    """A tendencies file is missing, damaged, foreign or made for other features; the message says
    which."""


@dataclass(frozen=True, eq=False)
class Tendency:
    """One expert's deviations from the shared chooser (log-odds, :data:`MOVE_FEATURES`'s order),
    their standard errors, and the number of positions they were fitted on."""

    positions: int
    deviations: np.ndarray
    errors: np.ndarray

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The 95 % interval of each deviation (log-odds)."""
        return self.deviations - Z95 * self.errors, self.deviations + Z95 * self.errors

    def clear(self) -> list[int]:
        """The features whose interval excludes odds 1, the largest deviation first."""
        low, high = self.interval()
        found = np.flatnonzero((low > 0) | (high < 0))
        return [int(i) for i in found[np.argsort(-np.abs(self.deviations[found]), kind="stable")]]

    def words(self) -> list[str]:
        """Each clear tendency in words, e.g. ``recaptures more often than the average master (odds
        ×1.40, 1.10..1.80)``."""
        low, high = np.exp(self.interval()[0]), np.exp(self.interval()[1])
        said = []
        for i in self.clear():
            name, odds = MOVE_FEATURES[i], float(np.exp(self.deviations[i]))
            more = "more" if odds > 1 else "less"
            what = (
                f"moves {'further' if odds > 1 else 'shorter distances'} than the average master"
                f" (odds ×{odds:.2f} a square"
                if name == "distance"
                else f"{PHRASES[name]} {more} often than the average master (odds ×{odds:.2f}"
            )
            said.append(f"{what}, {low[i]:.2f}..{high[i]:.2f})")
        return said

    def describe(self) -> str:
        """The clear tendencies in one line, or that there is none."""
        return "; ".join(self.words()) or f"no clear tendency (from {self.positions} positions)"


@dataclass(frozen=True, eq=False)
class Tendencies:
    """The shipped experts' tendencies by casebase name; ``meta`` says how they were fitted."""

    experts: Mapping[str, Tendency]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically (:func:`common.files.write_atomic`)."""
        experts = {
            name: {
                "positions": t.positions,
                "deviations": [float(d) for d in t.deviations],
                "errors": [float(e) for e in t.errors],
            }
            for name, t in sorted(self.experts.items())
        }
        document = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "features": list(MOVE_FEATURES),
            "meta": dict(self.meta),
            "experts": experts,
        }
        write_atomic(Path(path), json.dumps(document, indent=1, sort_keys=True) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Tendencies:
        """Read and check a tendencies file; raise :class:`TendencyError` saying what is wrong."""
        path = Path(path)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise TendencyError(f"{path}: no such tendencies file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TendencyError(
                f"{path}: not a tendencies file, or a damaged one ({exc})"
            ) from None
        if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
            raise TendencyError(f"{path}: not a {FORMAT_NAME} file")
        if document.get("version") != FORMAT_VERSION:
            raise TendencyError(
                f"{path}: tendencies format version {document.get('version')},"
                f" this engine reads {FORMAT_VERSION}"
            )
        if document.get("features") != list(MOVE_FEATURES):
            raise TendencyError(
                f"{path}: made for other move features than this engine computes:"
                " fit them again (python -m learn.chooser tendencies)"
            )
        try:
            experts = {str(name): _tendency(entry) for name, entry in document["experts"].items()}
            meta = dict(document.get("meta") or {})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TendencyError(
                f"{path}: damaged tendencies file ({type(exc).__name__}: {exc})"
            ) from None
        return cls(experts, meta)


def _tendency(entry: dict[str, Any]) -> Tendency:
    deviations = np.asarray(entry["deviations"], dtype=np.float64)
    errors = np.asarray(entry["errors"], dtype=np.float64)
    if deviations.shape != (len(MOVE_FEATURES),) or errors.shape != deviations.shape:
        raise ValueError(
            f"{deviations.shape} deviations and {errors.shape} errors for {len(MOVE_FEATURES)}"
            " features"
        )
    if not (np.isfinite(deviations).all() and np.isfinite(errors).all() and (errors >= 0).all()):
        raise ValueError("deviations or errors not finite, or a negative error")
    return Tendency(int(entry["positions"]), deviations, errors)


def shipped_tendencies() -> Path:
    """The shipped experts' tendencies file."""
    return Path(__file__).resolve().parent / "models" / "tendencies.json"


def describe_expert(
    casebase: str | os.PathLike[str], path: str | os.PathLike[str] | None = None
) -> str:
    """The tendencies of the expert of ``casebase`` (by its file's stem, ``carlsen-2800``) in one
    line: from the shipped file unless ``path`` is given; a file that cannot be read, or an expert
    it does not hold, said so."""
    file = Path(shipped_tendencies() if path is None else path)
    try:
        tendencies = Tendencies.load(file)
    except TendencyError as exc:  # named without its folder: the web page shows this line too
        return f"none ({str(exc).replace(str(file), file.name)})"
    tendency = tendencies.experts.get(Path(casebase).stem)
    return (
        "none fitted (python -m learn.chooser tendencies)"
        if tendency is None
        else tendency.describe()
    )
