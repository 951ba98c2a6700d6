"""The rating line: a model's expected loss per move read as a rating, and back (docs/strength.md
§2, §4).

After Regan's AE_e, the rating is a line in the log of the fitted model's expected loss per
move on the expert's positions: rating = A + B ln(100 loss). :func:`implied_rating` is the
rating an expert's profile implies, with its interval; :func:`loss_at` is the loss
``UCI_Elo`` asks the calibrated choice for (:mod:`engine.strength.calibration`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from engine.strength.errormodel import ErrorModel, fit
from engine.strength.fitted import FITTED

#: The implied rating as a line in the log of the fitted model's expected loss per move
#: (expected score, percent): rating = A + B ln(loss). Fitted across the eight FIDE-rated
#: shipped experts' profiles (Stockfish 15.1, depth 12), with the spread of their ratings about
#: the line (Elo, one standard deviation): data, made by ``python -m profiling.fitted``
#: (:mod:`engine.strength.fitted`, which says from which profiles and judge).
RATING_LINE = FITTED.rating_line
RATING_SPREAD = FITTED.rating_spread
#: The bootstrap resamples of the implied rating's interval.
RESAMPLES = 100


def rating_of(expected_loss: float) -> float:
    """The rating :data:`RATING_LINE` gives a model expecting ``expected_loss`` (expected score) a
    move."""
    a, b = RATING_LINE
    return a + b * math.log(max(100 * expected_loss, 1e-6))


def loss_at(rating: float) -> float:
    """The expected loss per move (expected score) of a player of ``rating`` on that line."""
    a, b = RATING_LINE
    return math.exp((rating - a) / b) / 100


class ImpliedRating(NamedTuple):
    """An implied rating, its 95 % interval from the positions' bootstrap alone (to compare two
    sets of moves read on the same line), and that interval widened by the spread of rated players
    about the line (to read it as a rating)."""

    rating: float
    low: float
    high: float
    bootstrap_low: float
    bootstrap_high: float


def implied_rating(
    loss: np.ndarray,
    chosen: np.ndarray,
    model: ErrorModel,
    *,
    seed: int = 0,
    reference: np.ndarray | None = None,
) -> ImpliedRating:
    """The rating the fitted model implies and its 95 % intervals: the positions resampled and
    refitted, and that widened by the spread of rated players about the line. With ``reference``
    (the losses of other positions' moves) each fit is read there instead of on its own positions:
    Regan's reading on one reference set, so that easier positions do not count as skill."""
    rating = rating_of(model.expected_loss(loss if reference is None else reference))
    # A loop of refits, not scipy.stats.bootstrap: the statistic is a maximum-likelihood fit of
    # the resampled rows, which bootstrap would call as often and which it cannot vectorise.
    rng = np.random.default_rng(seed)
    resampled = []
    for _ in range(RESAMPLES):
        pick = rng.integers(0, len(loss), len(loss))
        refit = fit(loss[pick], chosen[pick]).model
        resampled.append(
            rating_of(refit.expected_loss(loss[pick] if reference is None else reference))
        )
    boot = 1.96 * float(np.std(resampled))
    half = math.hypot(boot, 1.96 * RATING_SPREAD)
    return ImpliedRating(rating, rating - half, rating + half, rating - boot, rating + boot)
