"""The chooser measured on an expert's records beside today's ``Selection likely`` (issue #40), and
each expert measured by the chooser fitted on the others' records (:func:`cross`).

On the same positions: the chooser's likeliest move against the likeliest of the expert's calibrated
chances (:func:`engine.strength.calibration.calibrate` with the casebase and the style model the
engine plays that expert with by default), each counting a played move that is not a candidate as a
miss and leaving out nothing else; and the mean log-likelihood of the played move under each, over
the positions where it is a candidate (elsewhere both give it no chance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from casebase.format import Casebase
from casebase.phases import PHASES
from common.stats import paired, wilson
from engine.strength.calibration import Calibration, calibrate
from engine.strength.chooser import Chooser
from engine.style.loader import load_model
from engine.style.personal import choose_model
from learn.chooser.fit import DEFAULT_L2, fit
from learn.chooser.records import Record


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Per position: whether each reading's likeliest move is the move played, the log-chance each
    gives it (NaN where it is not a candidate), and the position's phase."""

    expert: str
    likely: np.ndarray
    chooser: np.ndarray
    likely_log: np.ndarray
    chooser_log: np.ndarray
    phases: np.ndarray

    def where(self, mask: np.ndarray, expert: str) -> Evaluation:
        return Evaluation(
            expert,
            self.likely[mask],
            self.chooser[mask],
            self.likely_log[mask],
            self.chooser_log[mask],
            self.phases[mask],
        )


def default_calibration(casebase_path: Path) -> Calibration:
    """The expert's calibrated choice as the engine plays the casebase by default: its profile, and
    its personal model where one is found (else the generic model)."""
    casebase = Casebase.load(casebase_path)
    return calibrate(casebase, load_model(choose_model(casebase).path))


def likely_chances(calibration: Calibration, position: Record) -> np.ndarray:
    """The chances ``Selection likely`` gives the position's candidates (the likelihood fit's,
    :meth:`Calibration.likeliest`), whose likeliest it plays."""
    return calibration.likeliest().chances(position.scores, position.prior)


def evaluate(
    chooser: Chooser, positions: Sequence[Record], calibration: Calibration, expert: str
) -> Evaluation:
    """The chooser and ``likely`` (``calibration``'s argmax) on ``positions``."""
    n = len(positions)
    hits = np.zeros((2, n), dtype=bool)
    logs = np.full((2, n), np.nan)
    for i, position in enumerate(positions):
        for j, p in enumerate(
            (likely_chances(calibration, position), chooser.probabilities(position.matrix))
        ):
            hits[j, i] = int(np.argmax(p)) == position.played
            if position.played >= 0:
                logs[j, i] = np.log(max(float(p[position.played]), 1e-300))
    return Evaluation(
        expert, hits[0], hits[1], logs[0], logs[1], np.array([str(p.phase) for p in positions])
    )


def cross(
    records: Mapping[str, Sequence[Record]], casebase_folder: Path, l2: float = DEFAULT_L2
) -> list[Evaluation]:
    """Each expert's positions measured by the chooser fitted on the other experts' (leave one
    out)."""
    return [
        evaluate(
            fit([p for other, ps in records.items() if other != name for p in ps], l2).chooser,
            positions,
            default_calibration(casebase_folder / f"{name}.npz"),
            name,
        )
        for name, positions in records.items()
    ]


def pooled(evaluations: Sequence[Evaluation], expert: str = "all") -> Evaluation:
    """The evaluations of several experts as one."""

    def join(name: str) -> np.ndarray:
        return np.concatenate([getattr(e, name) for e in evaluations])

    return Evaluation(
        expert,
        join("likely"),
        join("chooser"),
        join("likely_log"),
        join("chooser_log"),
        join("phases"),
    )


def _share(hits: np.ndarray) -> str:
    low, high = wilson(int(hits.sum()), len(hits))
    return f"{100 * hits.mean():.1f} [{100 * low:.1f}, {100 * high:.1f}]" if len(hits) else "-"


def row(e: Evaluation) -> str:
    """A table row: positions, the played move among the candidates, each top-1 with its Wilson
    interval, their paired difference, and each mean log-likelihood."""
    diff, low, high = paired(e.chooser, e.likely)
    candidate = ~np.isnan(e.likely_log)
    ll = [
        f"{np.mean(x[candidate]):.3f}" if candidate.any() else "-"
        for x in (e.likely_log, e.chooser_log)
    ]
    return (
        f"| {e.expert} | {len(e.likely)} | {100 * candidate.mean():.1f} | {_share(e.likely)} |"
        f" {_share(e.chooser)} | {100 * diff:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] | {ll[0]}"
        f" | {ll[1]} |"
    )


def table(evaluations: Sequence[Evaluation]) -> str:
    """The experts' table (and all of them pooled), then the pooled positions by phase."""
    head = (
        "| expert | positions | played a candidate % | likely top-1 % | chooser top-1 % |"
        " difference, points | log-lik. calibrated | log-lik. chooser |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    every = pooled(evaluations)
    lines = [head, *(row(e) for e in evaluations)]
    if len(evaluations) > 1:
        lines.append(row(every))
    lines += ["", head.replace("| expert |", "| phase |", 1)]
    lines += [
        row(every.where(every.phases == str(name), str(name)))
        for name in PHASES
        if (every.phases == str(name)).any()
    ]
    return "\n".join(lines)
