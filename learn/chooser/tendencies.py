"""Each expert's tendencies fitted on the expert's own records (issue #40), and "who played these?".

The model of an expert's choice is the shared chooser's logit as a fixed offset plus ``d`` times the
move's features (:data:`engine.strength.tendencies.MOVE_FEATURES`); ``d`` has a Gaussian prior of
mean 0 and deviation ``prior_sd`` (log-odds), so that few positions leave it near 0, the shared
chooser. Its maximum a posteriori is found by L-BFGS-B on the log-likelihood of
:mod:`learn.chooser.fit`; each deviation's standard error is the Laplace approximation's (the
inverse Hessian of the penalised cost at the optimum).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.files import file_sha256
from common.stats import chunks_by_group
from engine.strength.chooser import Chooser
from engine.strength.tendencies import (
    MOVE_COLUMNS,
    MOVE_FEATURES,
    Tendencies,
    Tendency,
    TendencyError,
)
from learn.chooser.fit import Stacked, chances, log_likelihood, stack
from learn.chooser.records import Record

#: The prior's deviation of each tendency, in log-odds: odds ×1.35 either way is one deviation.
DEFAULT_PRIOR_SD = 0.3


def offset_stack(chooser: Chooser, positions: Sequence[Record]) -> Stacked:
    """The positions whose played move is a candidate, as the shared chooser's logit (first column,
    its weight fixed at 1) beside the move's features."""
    data = stack(positions)
    return Stacked(
        np.column_stack([chooser.logits(data.x), data.x[:, MOVE_COLUMNS]]), data.starts, data.chosen
    )


def _hessian(d: np.ndarray, data: Stacked) -> np.ndarray:
    """The negative log-likelihood's Hessian in ``d``: the sum over positions of the covariance of
    the move features under the position's chances."""
    x = data.x[:, 1:]
    p, _ = chances(data.x @ np.concatenate([[1.0], d]), data.starts)
    means = np.add.reduceat(p[:, None] * x, data.starts)
    return np.asarray((x * p[:, None]).T @ x - means.T @ means)


def fit_tendency(
    chooser: Chooser, positions: Sequence[Record], prior_sd: float = DEFAULT_PRIOR_SD
) -> Tendency:
    """The expert's deviations (maximum a posteriori) and their Laplace standard errors."""
    from scipy.optimize import minimize

    data = offset_stack(chooser, positions)
    precision = 1.0 / prior_sd**2

    def cost(d: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = log_likelihood(np.concatenate([[1.0], d]), data)
        return -value + 0.5 * precision * float(d @ d), -gradient[1:] + precision * d

    result = minimize(
        cost, np.zeros(len(MOVE_FEATURES)), jac=True, method="L-BFGS-B", options={"maxiter": 1000}
    )
    covariance = np.linalg.inv(_hessian(result.x, data) + precision * np.eye(len(MOVE_FEATURES)))
    return Tendency(len(data.starts), result.x, np.sqrt(np.diag(covariance)))


def fit_tendencies(
    chooser: Chooser,
    records: Mapping[str, Sequence[Record]],
    prior_sd: float = DEFAULT_PRIOR_SD,
    sources: Mapping[str, str] | None = None,
    chooser_sha256: str | None = None,
) -> Tendencies:
    """Each expert's tendencies (by casebase name) from that expert's records, over the shared
    ``chooser`` (its file's SHA-256 kept, where given, for :func:`load_pair`)."""
    meta = {
        "prior_sd": prior_sd,
        "chooser": dict(chooser.meta),
        "chooser_sha256": chooser_sha256,
        "sources": dict(sources or {}),
    }
    return Tendencies(
        {name: fit_tendency(chooser, positions, prior_sd) for name, positions in records.items()},
        meta,
    )


def load_pair(chooser_path: Path, tendencies_path: Path) -> tuple[Chooser, Tendencies]:
    """The shared chooser and the tendencies fitted over it; TendencyError where they were fitted
    over another chooser file (deviations from other weights rank nothing)."""
    chooser, tendencies = Chooser.load(chooser_path), Tendencies.load(tendencies_path)
    made_over, digest = tendencies.meta.get("chooser_sha256"), file_sha256(chooser_path)
    if made_over is not None and made_over != digest:
        raise TendencyError(
            f"{tendencies_path}: fitted over another chooser (SHA-256 {str(made_over)[:12]}…) than"
            f" {chooser_path} ({digest[:12]}…): fit them again over it (python -m learn.chooser"
            " tendencies)"
        )
    return chooser, tendencies


def log_likelihoods(
    chooser: Chooser, tendencies: Tendencies, positions: Sequence[Record]
) -> dict[str, float]:
    """The log-likelihood of the played moves of ``positions`` (those among their candidates) under
    the shared chooser plus each expert's tendencies, by expert."""
    data = offset_stack(chooser, positions)
    return {
        name: log_likelihood(np.concatenate([[1.0], t.deviations]), data)[0]
        for name, t in tendencies.experts.items()
    }


@dataclass(frozen=True)
class Ranking:
    """The experts by the log-likelihood of the played moves, likeliest first, over
    ``positions``."""

    experts: list[tuple[str, float]]
    positions: int

    def report(self) -> str:
        """The ranking as lines: each expert's log-likelihood (total and per position), and how much
        likelier the first is than the second."""
        lines = [
            f"{rank}. {name}: log-likelihood {value:.2f}"
            f" ({value / max(self.positions, 1):+.4f} a position)"
            for rank, (name, value) in enumerate(self.experts, 1)
        ]
        if len(self.experts) > 1:
            (first, a), (second, b) = self.experts[:2]
            lines.append(
                f"{first} is {np.exp(min(a - b, 700.0)):.3g} times as likely as {second} to have"
                f" played these {self.positions} moves (log-likelihood {a - b:+.2f})"
            )
        return "\n".join(lines)


def rank(chooser: Chooser, tendencies: Tendencies, positions: Sequence[Record]) -> Ranking:
    """The shipped experts ranked for ``positions`` (:class:`Ranking`)."""
    values = log_likelihoods(chooser, tendencies, positions)
    ordered = sorted(values.items(), key=lambda item: (-item[1], item[0]))
    return Ranking(ordered, sum(p.played >= 0 for p in positions))


def chunks(positions: Sequence[Record], games: int) -> list[list[Record]]:
    """The positions split by game (their key's source and game) into chunks of ``games`` games, in
    the order the games first appear; a last chunk of fewer than half as many joins the one
    before."""
    split = chunks_by_group([position.key.rsplit("/", 1)[0] for position in positions], games)
    return [[positions[i] for i in chunk] for chunk in split]


def identification(
    chooser: Chooser, tendencies: Tendencies, records: Mapping[str, Sequence[Record]], games: int
) -> str:
    """How often each expert's chunks of ``games`` held-out games rank the true expert first, where
    the true expert ranks on all of them, and the table of the mean log-likelihood per position of
    each expert's moves (rows) under each expert's tendencies (columns) and under the shared chooser
    alone."""
    names = list(tendencies.experts)
    head = (
        "| records \\ tendencies | chunks | first | rank on all | "
        + " | ".join(names)
        + " | shared |"
    )
    lines = [head, "|" + "---|" * (len(names) + 5)]
    total = right = 0
    for truth, positions in records.items():
        parts = chunks(positions, games)
        hits = sum(rank(chooser, tendencies, part).experts[0][0] == truth for part in parts)
        total, right = total + len(parts), right + hits
        whole = rank(chooser, tendencies, positions)
        means = {name: value / max(whole.positions, 1) for name, value in whole.experts}
        means["shared"] = log_likelihood(
            np.eye(1, 1 + len(MOVE_FEATURES))[0], offset_stack(chooser, positions)
        )[0] / max(whole.positions, 1)
        place = next((str(i) for i, (name, _) in enumerate(whole.experts, 1) if name == truth), "-")
        lines.append(
            f"| {truth} | {len(parts)} | {hits}/{len(parts)} | {place} | "
            + " | ".join(f"{means[name]:+.4f}" for name in [*names, "shared"])
            + " |"
        )
    lines.append(
        f"\nthe true expert ranked first in {right} of {total} chunks of about {games} games"
    )
    return "\n".join(lines)
