"""The error model: how likely a player is to choose each move given what it loses (docs/strength.md).

A move's *loss* is the expected score it gives away against the judge's best move, on the
win-probability scale of :func:`expected_score` (0 for the best move, at most 1). After Regan
and Haworth ("Intrinsic Chess Ratings", AAAI 2011), the player chooses among the moves judged
in a position with chances

    P(m) ∝ prior(m) ** beta * exp(-(loss(m) / s) ** c)

with the *sensitivity* s (small: a player who sees small differences) and the *consistency* c
(large: few big mistakes). ``beta`` weighs a prior over the moves (the style model's: what this
expert would consider at all); 0 is Regan's model alone. The parameters are fitted by maximum
likelihood of the moves the player chose (:func:`fit`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Lichess's slope of the win probability in centipawns: expected score 1 / (1 + exp(-k cp)).
WIN_SLOPE = 0.00368208
#: Judged scores are clipped to this many centipawns (mates count as this much).
SCORE_CLIP = 2000
#: The least prior a judged move gets (the judge may score a move the prior gave nothing).
PRIOR_FLOOR = 1e-4


def expected_score(cp: np.ndarray | float) -> np.ndarray:
    """The mover's expected score (0..1) of a judged score in centipawns, clipped at ±SCORE_CLIP."""
    return 1 / (1 + np.exp(-WIN_SLOPE * np.clip(np.asarray(cp, dtype=np.float64), -SCORE_CLIP, SCORE_CLIP)))


def losses(scores: np.ndarray) -> np.ndarray:
    """Each move's loss (expected score) against the best of its row; NaN stays NaN (no move)."""
    win = expected_score(scores)
    return np.clip(np.nanmax(win, axis=-1, keepdims=True) - win, 0.0, 1.0)


@dataclass(frozen=True)
class ErrorModel:
    """Regan's sensitivity and consistency, and the prior's weight (0: no prior)."""

    sensitivity: float
    consistency: float
    prior_weight: float = 0.0

    def logits(self, loss: np.ndarray, log_prior: np.ndarray | None = None) -> np.ndarray:
        """Unnormalised log-chances of moves with ``loss`` (NaN: no move, -inf)."""
        with np.errstate(over="ignore"):  # a huge loss over a tiny s: a chance of exactly 0
            x = -np.power(np.nan_to_num(loss, nan=1.0) / self.sensitivity, self.consistency)
        if log_prior is not None and self.prior_weight:
            x = x + self.prior_weight * log_prior
        return np.where(np.isnan(loss), -np.inf, x)

    def probabilities(self, loss: np.ndarray, log_prior: np.ndarray | None = None) -> np.ndarray:
        """The chances of the moves of each row (the last axis)."""
        x = self.logits(loss, log_prior)
        x = np.exp(x - x.max(axis=-1, keepdims=True))
        return x / x.sum(axis=-1, keepdims=True)

    def log_likelihood(self, loss: np.ndarray, chosen: np.ndarray, log_prior: np.ndarray | None = None) -> float:
        """Sum of the log-chances of the ``chosen`` moves (column index per row)."""
        x = self.logits(loss, log_prior)
        top = x.max(axis=-1, keepdims=True)
        norm = top[:, 0] + np.log(np.exp(x - top).sum(axis=-1))
        return float((x[np.arange(len(x)), chosen] - norm).sum())

    def expected_loss(self, loss: np.ndarray, log_prior: np.ndarray | None = None) -> float:
        """The mean loss per move the model expects in these positions."""
        p = self.probabilities(loss, log_prior)
        return float((p * np.nan_to_num(loss)).sum(axis=-1).mean())

    def describe(self) -> str:
        prior = f", prior weight {self.prior_weight:.2f}" if self.prior_weight else ""
        return f"s {self.sensitivity:.4f}, c {self.consistency:.2f}{prior}"


@dataclass(frozen=True)
class Fit:
    """A fitted model and the mean log-likelihood per move it reached."""

    model: ErrorModel
    mean_log_likelihood: float
    moves: int


def fit(loss: np.ndarray, chosen: np.ndarray, log_prior: np.ndarray | None = None) -> Fit:
    """The maximum-likelihood model of the choices ``chosen`` among moves with ``loss``
    (rows of positions, NaN-padded), with the prior's weight fitted too when ``log_prior`` is given."""
    if not len(loss):
        raise ValueError("no positions to fit the error model to")

    def model_of(x: np.ndarray) -> ErrorModel:
        return ErrorModel(float(np.exp(x[0])), float(np.exp(x[1])), float(x[2]) if len(x) > 2 else 0.0)

    def cost(x: np.ndarray) -> float:
        value = -model_of(x).log_likelihood(loss, chosen, log_prior)
        return value if np.isfinite(value) else np.inf

    start = np.array([np.log(0.05), np.log(0.5)] + ([1.0] if log_prior is not None else []))
    best = nelder_mead(cost, start)
    return Fit(model_of(best), -cost(best) / len(loss), len(loss))


def nelder_mead(cost: Callable[[np.ndarray], float], start: np.ndarray, *, step: float = 0.5,
                iterations: int = 400, tolerance: float = 1e-7) -> np.ndarray:
    """The minimum of ``cost`` near ``start`` by the Nelder–Mead simplex (a few parameters, no
    derivatives; numpy only, as the engine's run time has no optimiser)."""
    simplex = np.vstack([start, start + step * np.eye(len(start))])
    values = np.array([cost(x) for x in simplex])
    for _ in range(iterations):
        order = np.argsort(values)
        simplex, values = simplex[order], values[order]
        if abs(values[-1] - values[0]) <= tolerance * (1 + abs(values[0])):
            break
        centre = simplex[:-1].mean(axis=0)
        reflected = centre + (centre - simplex[-1])
        r = cost(reflected)
        if r < values[0]:
            expanded = centre + 2 * (centre - simplex[-1])
            e = cost(expanded)
            simplex[-1], values[-1] = (expanded, e) if e < r else (reflected, r)
        elif r < values[-2]:
            simplex[-1], values[-1] = reflected, r
        else:
            contracted = centre + 0.5 * (simplex[-1] - centre)
            c = cost(contracted)
            if c < values[-1]:
                simplex[-1], values[-1] = contracted, c
            else:  # shrink towards the best
                simplex[1:] = simplex[0] + 0.5 * (simplex[1:] - simplex[0])
                values[1:] = [cost(x) for x in simplex[1:]]
    return simplex[int(np.argmin(values))]
