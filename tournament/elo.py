"""Elo estimates from game results: maximum likelihood under the logistic (Bradley–Terry) model.

A player rated r scores against one rated s, on average, E = 1 / (1 + 10 ** ((s - r) / 400));
a draw counts as half a point (score 0.5 in the likelihood s·log E + (1 − s)·log(1 − E)).

A behaviour that won or lost every game has no finite maximum; so every free player also
gets one virtual draw against a virtual opponent at the anchor rating (the "tiny prior",
as in BayesElo's virtual draws). Its weight next to dozens of real games is small.

Ratings are anchored either to fixed players (reference engines with a given rating) or,
without any, so that the mean of a chosen group equals a given value (the experts' mean
Elo). 95 % intervals come from the curvature at the optimum (the observed information),
for the anchored ratings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from common.stats import Z95

SCALE = math.log(10) / 400


@dataclass(frozen=True)
class Estimate:
    """One player's rating and its 95 % interval (equal to the rating for a fixed player)."""

    rating: float
    low: float
    high: float


def fit_ratings(
    n: int,
    games: Sequence[tuple[int, int, float]],
    *,
    fixed: Mapping[int, float] | None = None,
    mean_of: Sequence[int] | None = None,
    mean: float = 0.0,
) -> list[Estimate]:
    """Ratings of players 0..n-1 from ``games`` = (i, j, score of i against j).

    With ``fixed`` ratings those anchor the scale; otherwise the players ``mean_of``
    (default: all) average ``mean``.
    """
    fixed = dict(fixed or {})
    free = [i for i in range(n) if i not in fixed]
    if mean_of is None:
        mean_of = range(n)
    group = [i for i in mean_of if i in free]
    if not fixed and not group:
        raise ValueError("nothing anchors the ratings: give fixed players or a group for the mean")
    centre = float(np.mean(list(fixed.values()))) if fixed else mean
    data = np.array([g for g in games if g[0] != g[1]], dtype=float).reshape(-1, 3)
    i_idx, j_idx, score = data[:, 0].astype(int), data[:, 1].astype(int), data[:, 2]
    if ((score < 0) | (score > 1)).any():
        raise ValueError("a game score lies outside 0..1")

    ratings = np.full(n, centre, dtype=float)
    for player, rating in fixed.items():
        ratings[player] = rating
    position = {player: k for k, player in enumerate(free)}
    hessian = np.eye(len(free))
    for _ in range(200):
        gradient, hessian = _derivatives(ratings, i_idx, j_idx, score, free, centre)
        # Newton steps on a concave log-likelihood; clipped because far from the optimum
        # (lopsided scores) the curvature is tiny and a full step would overshoot.
        step = np.clip(np.linalg.solve(hessian, gradient), -400, 400)
        ratings[free] += step
        if np.abs(step).max() < 1e-9:
            break
    covariance = np.linalg.inv(hessian)
    if not fixed:
        # Shift to the anchor exactly, and take the variances of ratings minus the group mean.
        ratings[free] += mean - ratings[group].mean()
        weights = np.zeros(len(free))
        weights[[position[g] for g in group]] = 1 / len(group)
        projection = np.eye(len(free)) - np.outer(np.ones(len(free)), weights)
        covariance = projection @ covariance @ projection.T
    result = []
    for player in range(n):
        if player in fixed:
            result.append(Estimate(fixed[player], fixed[player], fixed[player]))
            continue
        k = position[player]
        half = Z95 * math.sqrt(max(covariance[k, k], 0.0))
        result.append(
            Estimate(
                float(ratings[player]), float(ratings[player] - half), float(ratings[player] + half)
            )
        )
    return result


def _derivatives(
    ratings: np.ndarray,
    i_idx: np.ndarray,
    j_idx: np.ndarray,
    score: np.ndarray,
    free: list[int],
    centre: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and negative Hessian of the log-likelihood (with the virtual draws), free
    players."""
    expected = 1 / (1 + np.power(10.0, (ratings[j_idx] - ratings[i_idx]) / 400))
    residual = SCALE * (score - expected)
    weight = SCALE**2 * expected * (1 - expected)
    full_gradient = np.zeros(len(ratings))
    np.add.at(full_gradient, i_idx, residual)
    np.add.at(full_gradient, j_idx, -residual)
    full_hessian = np.zeros((len(ratings), len(ratings)))
    np.add.at(full_hessian, (i_idx, i_idx), weight)
    np.add.at(full_hessian, (j_idx, j_idx), weight)
    np.add.at(full_hessian, (i_idx, j_idx), -weight)
    np.add.at(full_hessian, (j_idx, i_idx), -weight)
    gradient = full_gradient[free]
    hessian = full_hessian[np.ix_(free, free)]
    prior = 1 / (1 + np.power(10.0, (centre - ratings[free]) / 400))
    gradient += SCALE * (0.5 - prior)
    hessian += np.diag(SCALE**2 * prior * (1 - prior))
    return gradient, hessian
