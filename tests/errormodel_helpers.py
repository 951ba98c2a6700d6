"""Judged positions for the error model's tests: synthetic losses and the moves the error model
itself draws in them (tests/engine/test_errormodel.py's fits, test_calibration.py's profile)."""

from __future__ import annotations

import numpy as np

from engine.strength.errormodel import ErrorModel


def choices(
    model: ErrorModel,
    loss: np.ndarray,
    rng: np.random.Generator,
    log_prior: np.ndarray | None = None,
) -> np.ndarray:
    """Moves drawn by ``model`` itself, one per row."""
    p = model.probabilities(loss, log_prior)
    return np.array([rng.choice(len(row), p=row) for row in p])


def synthetic(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """n positions of k judged moves: the best loses nothing, the others up to a pawn or more."""
    loss = np.sort(rng.exponential(0.08, (n, k)), axis=1)
    loss[:, 0] = 0
    loss[rng.random((n, k)) < 0.1] = np.nan  # fewer moves in some positions
    loss[:, 0] = 0
    return np.minimum(loss, 1)
