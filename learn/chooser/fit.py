"""The chooser's fit: a conditional logit by maximum likelihood with an L2 penalty (issue #40).

The features are standardised inside the fit (each column to mean 0 and deviation 1 over every
candidate), so that one penalty weighs them alike and L-BFGS-B sees a well-scaled problem; the
stored weights are those of the raw features (a column's mean is the same for every candidate of a
position and cancels in the softmax). Positions whose played move is not a candidate say nothing
of the choice among the candidates: they are left out, and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.strength.chooser import Chooser
from engine.strength.chooser_features import FEATURES
from learn.chooser.records import Record

#: The default L2 penalty on the standardised weights, per position.
DEFAULT_L2 = 1e-3


class Stacked(NamedTuple):
    """The candidates of many positions as one matrix: ``starts`` of each position's rows, and the
    row of the move played in each."""

    x: np.ndarray
    starts: np.ndarray
    chosen: np.ndarray


def stack(positions: Sequence[Record]) -> Stacked:
    """The positions whose played move is a candidate, stacked (:class:`Stacked`)."""
    used = [p for p in positions if p.played >= 0]
    sizes = np.array([len(p.moves) for p in used], dtype=np.int64)
    starts = (
        np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        if len(used)
        else np.zeros(0, np.int64)
    )
    x = np.concatenate([p.matrix for p in used]) if used else np.zeros((0, len(FEATURES)))
    return Stacked(x, starts, starts + np.array([p.played for p in used], dtype=np.int64))


def chances(s: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The softmax of the logits ``s`` within each position (rows from ``starts``), and each
    position's log normaliser."""
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(s))))
    top = np.maximum.reduceat(s, starts)
    e = np.exp(s - top[group])
    sums = np.add.reduceat(e, starts)
    return e / sums[group], top + np.log(sums)


def log_likelihood(w: np.ndarray, data: Stacked) -> tuple[float, np.ndarray]:
    """The sum over positions of the log-chance of the move played under weights ``w``, and its
    gradient."""
    s = data.x @ w
    p, normaliser = chances(s, data.starts)
    value = float(s[data.chosen].sum() - normaliser.sum())
    return value, data.x[data.chosen].sum(axis=0) - p @ data.x


@dataclass(frozen=True)
class Fitted:
    """The fitted chooser, the positions it was fitted on and those left out (played move not a
    candidate), and the mean log-likelihood per position it reached."""

    chooser: Chooser
    positions: int
    left_out: int
    mean_log_likelihood: float


def fit(positions: Sequence[Record], l2: float = DEFAULT_L2, sources: Sequence[str] = ()) -> Fitted:
    """The conditional logit's maximum-likelihood weights with the penalty ``l2`` (L-BFGS-B, the
    analytic gradient); ValueError without a position to fit on."""
    from scipy.optimize import minimize

    data = stack(positions)
    n = len(data.starts)
    if not n:
        raise ValueError(
            "no position whose played move is among its candidates: nothing to fit the chooser on"
        )
    mean, scale = data.x.mean(axis=0), data.x.std(axis=0)
    scale[scale == 0] = 1.0
    standard = Stacked((data.x - mean) / scale, data.starts, data.chosen)

    def cost(v: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = log_likelihood(v, standard)
        return -value / n + 0.5 * l2 * float(v @ v), -gradient / n + l2 * v

    result = minimize(
        cost, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B", options={"maxiter": 1000}
    )
    weights = result.x / scale
    mean_log_likelihood = -float(result.fun) + 0.5 * l2 * float(result.x @ result.x)
    meta = {
        "positions": n,
        "left_out": len(positions) - n,
        "l2": l2,
        "sources": list(sources),
        "mean_log_likelihood": mean_log_likelihood,
    }
    return Fitted(Chooser(FEATURES, weights, meta=meta), n, len(positions) - n, mean_log_likelihood)
