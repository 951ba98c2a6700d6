"""The error model: how likely a player is to choose each move given what it loses
(docs/strength.md).

A move's *loss* is the expected score it gives away against the judge's best move, on the
win-probability scale of :func:`expected_score` (0 for the best move, at most 1). After Regan
and Haworth ("Intrinsic Chess Ratings", AAAI 2011), the player chooses among the moves judged
in a position with chances

    P(m) ∝ prior(m) ** beta * exp(-(loss(m) / s) ** c)

with the *sensitivity* s (small: a player who sees small differences) and the *consistency* c
(large: few big mistakes). ``beta`` weighs a prior over the moves (the style model's: what this
expert would consider at all); 0 is Regan's model alone. The parameters are fitted by maximum
likelihood of the moves the player chose (:func:`fit`).

scipy's optimiser fits the model, imported where it is used: playing by the model (its chances, a
sensitivity found by :func:`increasing_root`) needs numpy alone, so that an engine does not take the
half second scipy's import costs at each start.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Lichess's slope of the win probability in centipawns: expected score 1 / (1 + exp(-k cp)).
WIN_SLOPE = 0.00368208
#: Judged scores are clipped to this many centipawns (mates count as this much).
SCORE_CLIP = 2000
#: The least prior a judged move gets (the judge may score a move the prior gave nothing).
PRIOR_FLOOR = 1e-4
#: The fit's Nelder–Mead: the initial simplex's step in each parameter (log s, log c, beta), and
#: when it stops (the simplex within FIT_XATOL in each parameter and within FIT_FATOL of
#: log-likelihood).
SIMPLEX_STEP = 0.5
FIT_XATOL, FIT_FATOL = 1e-4, 1e-5
FIT_ITERATIONS = 2000
#: The sensitivities a fit, and the calibration's search for a sensitivity, may take, and the
#: consistencies a fit may take. A player whose choices follow the judge's losses barely at all
#: (rivergrove, Lichess 1800, with the prior: issue #74) has a likelihood that grows without end
#: towards a flat loss term: s to infinity as c shrinks, or c to infinity with s above every loss
#: (a handful of positions did that). At s = 10 a whole point of loss weighs less than the prior's
#: smallest odds, and c = 10 is fifteen times the experts' (0.4 to 0.7): the fit stops at the bound
#: and says so (:meth:`ErrorModel.describe`).
MIN_SENSITIVITY, MAX_SENSITIVITY = 1e-5, 10.0
MIN_CONSISTENCY, MAX_CONSISTENCY = 0.05, 10.0


def expected_score(cp: np.ndarray | float) -> np.ndarray:
    """The mover's expected score (0..1) of a judged score in centipawns, clipped at ±SCORE_CLIP."""
    return 1 / (
        1 + np.exp(-WIN_SLOPE * np.clip(np.asarray(cp, dtype=np.float64), -SCORE_CLIP, SCORE_CLIP))
    )


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
        return self._logits(np.nan_to_num(loss, nan=1.0), np.isnan(loss), log_prior)

    def _logits(
        self, filled: np.ndarray, missing: np.ndarray, log_prior: np.ndarray | None
    ) -> np.ndarray:
        """:meth:`logits` of losses whose NaNs are ``missing`` and 1.0 in ``filled``."""
        with np.errstate(over="ignore"):  # a huge loss over a tiny s: a chance of exactly 0
            x = -np.power(filled / self.sensitivity, self.consistency)
        if log_prior is not None and self.prior_weight:
            x = x + self.prior_weight * log_prior
        return np.where(missing, -np.inf, x)

    def probabilities(self, loss: np.ndarray, log_prior: np.ndarray | None = None) -> np.ndarray:
        """The chances of the moves of each row (the last axis)."""
        x = self.logits(loss, log_prior)
        # the softmax as scipy's makes it (shifted by each row's largest value: nothing overflows)
        shifted = np.exp(x - np.amax(x, axis=-1, keepdims=True))
        return np.asarray(shifted / np.sum(shifted, axis=-1, keepdims=True))

    def log_likelihood(
        self, loss: np.ndarray, chosen: np.ndarray, log_prior: np.ndarray | None = None
    ) -> float:
        """Sum of the log-chances of the ``chosen`` moves (column index per row)."""
        return Choices(loss, chosen, log_prior).log_likelihood(self)

    def expected_loss(
        self,
        loss: np.ndarray,
        log_prior: np.ndarray | None = None,
        judged: np.ndarray | None = None,
    ) -> float:
        """The mean loss per move the model expects in these positions; with ``judged``, the same
        moves' losses as another judge measures them, drawn with the chances ``loss`` gives."""
        p = self.probabilities(loss, log_prior)
        return float((p * np.nan_to_num(loss if judged is None else judged)).sum(axis=-1).mean())

    def describe(self) -> str:
        prior = f", prior weight {self.prior_weight:.2f}" if self.prior_weight else ""
        s_bound = " (its bound: the choices barely follow the losses)"
        c_bound = " (its bound)"
        at_s = s_bound if self.sensitivity >= MAX_SENSITIVITY * (1 - 1e-9) else ""
        c = self.consistency
        at_c = (
            c_bound
            if c >= MAX_CONSISTENCY * (1 - 1e-9) or c <= MIN_CONSISTENCY * (1 + 1e-9)
            else ""
        )
        return f"s {self.sensitivity:.4f}{at_s}, c {c:.2f}{at_c}{prior}"


class Choices:
    """The moves chosen among judged moves, made ready once for the many models a fit tries (a
    profile's bootstrap asks ~60,000 of them): the losses' gaps and the chosen columns found
    once."""

    def __init__(
        self, loss: np.ndarray, chosen: np.ndarray, log_prior: np.ndarray | None = None
    ) -> None:
        self.filled, self.missing, self.log_prior = (
            np.nan_to_num(loss, nan=1.0),
            np.isnan(loss),
            log_prior,
        )
        self.rows, self.chosen = np.arange(len(loss)), np.asarray(chosen)

    def log_likelihood(self, model: ErrorModel) -> float:
        """Sum of the log-chances ``model`` gives the chosen moves."""
        # the log-softmax as scipy's log_softmax makes it (x - max - log(sum(exp(x - max))), as
        # stable), at the chosen column only; scipy's own took twice as long on these small rows
        x = model._logits(self.filled, self.missing, self.log_prior)
        top = x.max(axis=-1)
        # s = 0 (0 / 0) or a row of -inf: NaN, an infinite cost to the fit
        with np.errstate(invalid="ignore"):
            return float(
                (
                    (x[self.rows, self.chosen] - top)
                    - np.log(np.exp(x - top[:, None]).sum(axis=-1))
                ).sum()
            )


@dataclass(frozen=True)
class Fit:
    """A fitted model and the mean log-likelihood per move it reached."""

    model: ErrorModel
    mean_log_likelihood: float
    moves: int


def fit(loss: np.ndarray, chosen: np.ndarray, log_prior: np.ndarray | None = None) -> Fit:
    """The maximum-likelihood model of the choices ``chosen`` among moves with ``loss``
    (rows of positions, NaN-padded), with the prior's weight fitted too when ``log_prior`` is given.

    Nelder–Mead in (log s, log c, beta): a few parameters, no derivatives needed; s within
    [:data:`MIN_SENSITIVITY`, :data:`MAX_SENSITIVITY`] and c within [:data:`MIN_CONSISTENCY`,
    :data:`MAX_CONSISTENCY`], so that a likelihood growing without end stops at the bound: a fit
    that stays inside them is the unbounded search's, exactly.
    """
    from scipy.optimize import minimize  # here: an agent that never fits never loads scipy

    if not len(loss):
        raise ValueError("no positions to fit the error model to")

    def model_of(x: np.ndarray) -> ErrorModel:
        # a simplex wandering off (few positions): an infinite cost
        with np.errstate(over="ignore"):
            s, c = np.exp(x[:2])
        return ErrorModel(float(s), float(c), float(x[2]) if len(x) > 2 else 0.0)

    choices = Choices(loss, chosen, log_prior)

    def cost(x: np.ndarray) -> float:
        # a simplex wandering off (a few positions whose likeliest model has c -> 0) reaches s = 0,
        # where 0 / 0 is NaN: an infinite cost, not a warning on the user's terminal
        with np.errstate(divide="ignore", invalid="ignore"):
            value = -choices.log_likelihood(model_of(x))
        return value if np.isfinite(value) else np.inf

    def search(start: np.ndarray, bounded: bool) -> Any:
        # the simplex's first steps go inwards from a bound it starts on
        step = SIMPLEX_STEP * np.where(start[:2] >= high, -1.0, 1.0)
        steps = np.concatenate([step, [SIMPLEX_STEP] * (len(start) - 2)])
        return minimize(
            cost,
            start,
            method="Nelder-Mead",
            bounds=list(zip(low, high)) + [(None, None)] * (len(start) - 2) if bounded else None,
            options={
                "initial_simplex": np.vstack([start, start + np.diag(steps)]),
                "xatol": FIT_XATOL,
                "fatol": FIT_FATOL,
                "maxiter": FIT_ITERATIONS,
            },
        )

    low = np.log([MIN_SENSITIVITY, MIN_CONSISTENCY])
    high = np.log([MAX_SENSITIVITY, MAX_CONSISTENCY])
    start = np.array([np.log(0.05), np.log(0.5)] + ([1.0] if log_prior is not None else []))
    result = search(start, bounded=False)
    if np.any(result.x[:2] < low) or np.any(result.x[:2] > high):
        # it ran off towards a likelihood growing without end: the likeliest model within the
        # bounds, searched from where it left them (a search bounded from the start can be caught
        # in a corner far less likely: Nelder-Mead's points are clipped onto the bounds)
        inside = np.concatenate([np.clip(result.x[:2], low, high), result.x[2:]])
        result = search(inside, bounded=True)
    return Fit(model_of(result.x), -float(result.fun) / len(loss), len(loss))


#: How close to the crossing :func:`increasing_root` brackets it (the sensitivity's log: far below
#: what any figure shows).
ROOT_XTOL = 1e-12


def increasing_root(f: Callable[[float], float], low: float, high: float) -> float:
    """Where the increasing ``f`` crosses 0 between ``low`` and ``high``, within :data:`ROOT_XTOL`
    (by halving the bracket: some 45 calls of ``f``, a millisecond each here); ``low`` where ``f``
    is at or above 0 there already, ``high`` where it is still at or below 0 there. ValueError
    where ``f`` is NaN (a record it cannot solve), as scipy's ``brentq`` says."""

    def value(x: float) -> float:
        y = f(x)
        if math.isnan(y):
            raise ValueError(f"The function value at x={x} is NaN")
        return y

    if value(low) >= 0:
        return low
    if value(high) <= 0:
        return high
    while high - low > ROOT_XTOL:
        middle = (low + high) / 2
        if middle in (low, high):  # no float lies between them
            break
        if value(middle) < 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2
