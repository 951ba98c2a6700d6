"""The chooser: the expert's chance of each move the engine could play, from what it knows of each
(issue #40).

A conditional logit over the candidates the engine already has (the judge's exactly scored moves
with the prior proposed for each, :func:`engine.strength.calibration.judged_candidates`): each
candidate is a row of :func:`features` (the prior, the cases' vote, what it loses at the judge's
depth and at shallow depths, its rank, the position's score, and the move itself), and the chance
of a move is the softmax over the position's candidates of ``features @ weights``. The weights are
fitted by ``python -m learn.chooser fit`` on master games judged by an outside engine.

Each loss enters as itself and as its square root, and the log prior as itself and its square: the
logit's curve in each, as the error model's consistency bends its curve in the loss (a linear logit
over the judge's loss and prior alone is near that model; these columns and the rest are what it
adds). A column that is the same for every candidate of a position cancels in the softmax: so the
score band enters only through its products with the loss, the pawn is the pieces' reference, and a
feature a record does not hold (no shallow depths, no cases' vote) is 0 for every candidate and
plays no part in that position.

Drawn at a player's strength (``Selection calibrated``, issue #40), the weights of what each
candidate loses at the judge's depth (:data:`JUDGED_LOSS`) are multiplied by the chooser's
*strength*, set so that the chooser loses a move on its *reference positions* (:class:`Reference`:
judged positions of masters' games, shipped in the file) what the player's error model loses there
(:meth:`Chooser.strength_of`).

File (format ``cbr-chess-chooser``, version 1): an ``.npz`` with ``format``, ``version``, ``names``
(the features, in :data:`FEATURES`'s order), ``weights`` (float64, one a feature) and ``meta``
(JSON: how it was fitted), and where it has reference positions ``reference_features`` (positions x
candidates x features), ``reference_loss`` and ``reference_prior`` (positions x candidates, NaN and
0 past a position's candidates), written atomically.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common.bounded import read_npz
from common.files import atomic_file
from common.text import clip
from engine.strength.chooser_features import FEATURES
from engine.strength.errormodel import PRIOR_FLOOR, ErrorModel, increasing_root, losses
from engine.style.model import softmax

FORMAT_NAME = "cbr-chess-chooser"
FORMAT_VERSION = 1
#: The most a chooser file's arrays may take together (issue #69): the shipped one takes 0.3 MiB.
CHOOSER_MOST = 16 << 20
#: What a candidate loses at the judge's depth: the columns the chooser's *strength* multiplies, as
#: the error model's sensitivity divides the loss (1: the chooser as fitted, a master of about 2500;
#: larger, a player who loses less; issue #40, item 2).
JUDGED_LOSS = ("loss", "sqrt loss", "loss winning", "loss losing")


def shipped_chooser() -> Path:
    """The shipped chooser (``python -m learn.chooser fit``), package data of
    :mod:`engine.style`."""
    return Path(str(importlib.resources.files("engine.strength") / "models" / "chooser.npz"))


def chooser_path(setting: str) -> Path | None:
    """The file option Chooser names: ``auto``, the shipped chooser where there is one; ``off`` (or
    empty: a GUI's cleared field), none; else the file named."""
    if setting in ("off", ""):
        return None
    if setting == "auto":
        path = shipped_chooser()
        return path if path.is_file() else None
    return Path(setting)


class ChooserError(Exception):
    """A chooser file is missing, damaged, foreign or made for other features; the message says
    which."""


#: The strengths :meth:`Chooser.strength_of` searches (the judged-loss weights times this much).
MIN_STRENGTH, MAX_STRENGTH = 0.05, 20.0
#: The reference members of a chooser file.
REFERENCE = ("reference_features", "reference_loss", "reference_prior")


@dataclass(frozen=True, eq=False)
class Reference:
    """The positions a chooser's strength is measured on: each position's candidates' ``features``
    (rows of :func:`features`, zero past its candidates), their ``loss`` at the judge's depth (NaN
    past them) and the ``prior`` proposed for each."""

    features: np.ndarray
    loss: np.ndarray
    prior: np.ndarray

    def __post_init__(self) -> None:
        n, width = self.loss.shape
        if (
            self.features.shape != (n, width, len(FEATURES))
            or self.prior.shape != (n, width)
            or not n
        ):
            raise ValueError(
                f"reference positions of shapes {self.features.shape}, {self.loss.shape},"
                f" {self.prior.shape}"
            )
        present = ~np.isnan(self.loss)
        if (
            not present[:, 0].all()
            or not np.isfinite(self.features).all()
            or not np.isfinite(self.prior).all()
            or (present & ((self.loss < 0) | (self.loss > 1))).any()
        ):
            raise ValueError(
                "reference positions with no candidate, or values that are not losses or numbers"
            )

    @classmethod
    def of(
        cls, positions: Sequence[tuple[np.ndarray, Sequence[int], Sequence[float]]]
    ) -> Reference:
        """The reference of ``positions``: each its candidates' features, scores and prior."""
        width = max(len(scores) for _, scores, _ in positions)
        x, loss, prior = (
            np.zeros((len(positions), width, len(FEATURES))),
            np.full((len(positions), width), np.nan),
            np.zeros((len(positions), width)),
        )
        for i, (matrix, scores, proposed) in enumerate(positions):
            x[i, : len(scores)] = matrix
            loss[i, : len(scores)] = losses(np.asarray(scores, dtype=np.float64)[None])[0]
            prior[i, : len(scores)] = proposed
        return cls(x, loss, prior)


@dataclass(frozen=True, eq=False)
class Chooser:
    """The features' names, their weights (on the raw features of :func:`features`), and the file's
    version; ``meta`` says how it was fitted."""

    names: tuple[str, ...]
    weights: np.ndarray
    version: int = FORMAT_VERSION
    meta: Mapping[str, Any] = field(default_factory=dict)
    #: The positions its strength is measured on (None: it plays ``Selection likely`` only).
    reference: Reference | None = None

    def __post_init__(self) -> None:
        if tuple(self.names) != FEATURES:
            raise ValueError(
                f"a chooser of the features {list(self.names)}, not this engine's {list(FEATURES)}"
            )
        if np.shape(self.weights) != (len(FEATURES),):
            raise ValueError(f"{np.shape(self.weights)} weights for {len(FEATURES)} features")

    def logits(self, matrix: np.ndarray, strength: float = 1.0) -> np.ndarray:
        """The unnormalised log-chance of each candidate (a row of ``matrix``), the weights of
        :data:`JUDGED_LOSS` times ``strength``."""
        weights = self.weights
        if strength != 1.0:
            weights = weights.copy()
            weights[[FEATURES.index(name) for name in JUDGED_LOSS]] *= strength
        return np.asarray(matrix @ weights)

    def probabilities(self, matrix: np.ndarray, strength: float = 1.0) -> np.ndarray:
        """The chance of each candidate of one position (rows of :func:`features`) at
        ``strength``."""
        return softmax(self.logits(matrix, strength))

    def expected_loss(self, strength: float = 1.0) -> float:
        """The mean loss a move of the chooser's draw at ``strength`` on its reference positions
        (ValueError without them)."""
        if self.reference is None:
            raise ValueError("the chooser has no reference positions")
        z = np.where(
            np.isnan(self.reference.loss), -np.inf, self.logits(self.reference.features, strength)
        )
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return float((p * np.nan_to_num(self.reference.loss)).sum(axis=1).mean())

    def strength_of(self, model: ErrorModel) -> float | None:
        """The strength at which the chooser loses on its reference positions what ``model`` (a
        player's error model, the prior weighed as it weighs it) loses there; None without reference
        positions. Within :data:`MIN_STRENGTH`..:data:`MAX_STRENGTH`: a player weaker or stronger
        than that plays its end."""
        if self.reference is None:
            return None
        log_prior = np.log(np.maximum(self.reference.prior, PRIOR_FLOOR))
        target = model.expected_loss(self.reference.loss, log_prior)
        log_strength = increasing_root(
            lambda x: target - self.expected_loss(float(np.exp(x))),
            float(np.log(MIN_STRENGTH)),
            float(np.log(MAX_STRENGTH)),
        )
        return float(np.exp(log_strength))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the chooser atomically (:func:`common.files.atomic_file`)."""
        members: dict[str, Any] = {
            "format": np.array(FORMAT_NAME),
            "version": np.array(self.version),
            "names": np.array(self.names),
            "weights": np.asarray(self.weights, np.float64),
            "meta": np.array(json.dumps(dict(self.meta), sort_keys=True)),
        }
        if self.reference is not None:
            members |= dict(
                zip(
                    REFERENCE,
                    (
                        self.reference.features.astype(np.float32),
                        self.reference.loss,
                        self.reference.prior.astype(np.float32),
                    ),
                    strict=True,
                )
            )
        with atomic_file(path) as f:
            np.savez(f, **members)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Chooser:
        """Read and check a chooser file; raise :class:`ChooserError` saying what is wrong."""
        path = Path(path)
        try:
            found = path.is_file()
        # a name the system refuses (too long, a NUL) names no file
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ChooserError(
                f"a name this system refuses for a file ({reason}): {clip(str(path), 60)}"
            ) from exc
        if not found:
            raise ChooserError(f"{path}: no such chooser file")
        if not zipfile.is_zipfile(path):  # else numpy takes it for a pickle and says so
            raise ChooserError(
                f"{path}: not a chooser file, or a damaged one (not an .npz archive)"
            )
        try:
            arrays = read_npz(path, CHOOSER_MOST, "chooser")
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
            raise ChooserError(f"{path}: not a chooser file, or a damaged one ({exc})") from exc
        if "format" not in arrays or str(arrays["format"]) != FORMAT_NAME:
            raise ChooserError(f"{path}: not a {FORMAT_NAME} file (another program's .npz?)")
        try:
            version = int(arrays["version"])
            names = tuple(str(name) for name in arrays["names"].tolist())
            weights = np.asarray(arrays["weights"], dtype=np.float64)
            meta = json.loads(str(arrays["meta"]))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ChooserError(f"{path}: damaged chooser file ({exc})") from exc
        if version != FORMAT_VERSION:
            raise ChooserError(
                f"{path}: chooser format version {version}, this engine reads {FORMAT_VERSION}"
            )
        if names != FEATURES:
            unknown, missing = (
                sorted(set(names) - set(FEATURES)),
                sorted(set(FEATURES) - set(names)),
            )
            detail = (
                "; ".join(
                    f"{what}: {', '.join(which)}"
                    for what, which in (("unknown", unknown), ("missing", missing))
                    if which
                )
                or "in another order"
            )
            raise ChooserError(
                f"{path}: made for other features than this engine computes ({detail}):"
                " fit it again (python -m learn.chooser fit)"
            )
        if (
            weights.shape != (len(FEATURES),)
            or not np.isfinite(weights).all()
            or not isinstance(meta, dict)
        ):
            raise ChooserError(
                f"{path}: damaged chooser file (weights of shape {weights.shape},"
                f" {'finite' if np.isfinite(weights).all() else 'not all finite'})"
            )
        reference = None
        if any(name in arrays for name in REFERENCE):
            try:
                reference = Reference(
                    *(np.asarray(arrays[name], dtype=np.float64) for name in REFERENCE)
                )
            except (KeyError, ValueError, TypeError) as exc:
                raise ChooserError(f"{path}: damaged reference positions ({exc})") from exc
        return cls(names, weights, version, meta, reference)
