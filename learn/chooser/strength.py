"""The chooser drawn at the engine's strength (issue #40, item 2), measured on experts' records.

``Selection calibrated`` draws at the expert's strength because the error model's sensitivity was
set for it (strength.md §3). The chooser, fitted on masters, draws as a master of about 2500 whoever
the expert is; with a judge the engine draws from it at the *strength* that makes it lose, on the
chooser's reference positions, what the expert's calibrated error model loses there
(:meth:`engine.strength.chooser.Chooser.strength_of`). Here both draws are measured on an expert's
held-out records: the mean log-likelihood of the expert's moves, and what each loses a move.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.strength.calibration import Calibration
from engine.strength.chooser import Chooser, Reference
from engine.strength.errormodel import losses
from learn.chooser.records import Record

#: The positions of a fit's records a chooser keeps as its reference (the first ones).
REFERENCE_POSITIONS = 400


def reference_of(positions: Sequence[Record], count: int = REFERENCE_POSITIONS) -> Reference:
    """The first ``count`` of ``positions`` as a chooser's reference positions."""
    if not positions or count < 1:
        raise ValueError("no positions to make the chooser's reference of")
    return Reference.of([(p.matrix, p.scores, p.prior) for p in positions[:count]])


def mean_log_likelihood(chances: Sequence[np.ndarray], positions: Sequence[Record]) -> float:
    """The mean log-chance of the moves played, over the positions where the move played is a
    candidate."""
    logs = [
        math.log(max(float(p[position.played]), 1e-300))
        for p, position in zip(chances, positions, strict=True)
        if position.played >= 0
    ]
    return float(np.mean(logs)) if logs else math.nan


#: The draws read on the held-out records, in the table's order.
DRAWS = ("calibrated", "likelihood fit", "chooser", "chooser at strength")


@dataclass(frozen=True)
class StrengthReading:
    """One expert: the chooser's strength for the expert's calibration, and on the held-out records
    the mean log-likelihood of the expert's moves and the loss a move (at the records' judge depth)
    of each draw."""

    expert: str
    strength: float
    positions: int
    log_likelihood: dict[str, float]
    loss: dict[str, float]


def reading(
    chooser: Chooser, calibration: Calibration, heldout: Sequence[Record], expert: str
) -> StrengthReading:
    """Every draw of :data:`DRAWS` on ``heldout``, the chooser's at the strength of
    ``calibration``."""
    strength = chooser.strength_of(calibration.model)
    if strength is None:
        raise ValueError(
            "the chooser has no reference positions to set its strength on"
            " (python -m learn.chooser reference)"
        )
    fitted = calibration.likeliest()
    chances = {
        "calibrated": [calibration.chances(p.scores, p.prior) for p in heldout],
        "likelihood fit": [fitted.chances(p.scores, p.prior) for p in heldout],
        "chooser": [chooser.probabilities(p.matrix) for p in heldout],
        "chooser at strength": [chooser.probabilities(p.matrix, strength) for p in heldout],
    }
    lost = {
        name: float(
            np.mean(
                [
                    c @ losses(np.asarray(p.scores, dtype=np.float64)[None])[0]
                    for c, p in zip(chances[name], heldout, strict=True)
                ]
            )
        )
        for name in DRAWS
    }
    return StrengthReading(
        expert,
        strength,
        len(heldout),
        {name: mean_log_likelihood(chances[name], heldout) for name in DRAWS},
        lost,
    )


def strength_table(readings: Sequence[StrengthReading]) -> str:
    """The experts' table: the strength, then each draw's log-likelihood and loss, and their
    means."""
    lines = [
        "| expert | positions | strength | "
        + " | ".join(f"log-lik. {name}" for name in DRAWS)
        + " | "
        + " | ".join(f"loss % {name}" for name in DRAWS)
        + " |",
        "|" + "---|" * (3 + 2 * len(DRAWS)),
    ]
    for r in readings:
        lines.append(
            f"| {r.expert} | {r.positions} | {r.strength:.2f} | "
            + " | ".join(f"{r.log_likelihood[name]:.3f}" for name in DRAWS)
            + " | "
            + " | ".join(f"{100 * r.loss[name]:.2f}" for name in DRAWS)
            + " |"
        )
    if len(readings) > 1:
        lines.append(
            "| mean of the experts | | | "
            + " | ".join(
                f"{np.mean([r.log_likelihood[name] for r in readings]):.3f}" for name in DRAWS
            )
            + " | "
            + " | ".join(f"{100 * np.mean([r.loss[name] for r in readings]):.2f}" for name in DRAWS)
            + " |"
        )
    return "\n".join(lines)
