"""The calibrated choice's likelihood fit (docs/strength.md §3): the error model's β, s and c
fitted together by likelihood on the positions of the casebase's error profile with the style
model's prior, or the fit the profile's play-time record stored for the very model played.
:func:`engine.strength.calibration.calibrate` starts from it; ``python -m profiling`` and
``profiling.fitted`` make it too.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from common.files import file_sha256
from engine.strength.errormodel import PRIOR_FLOOR, ErrorModel, fit
from engine.strength.profile import Profile
from engine.style.loader import PriorModel

#: The profile's positions the calibrated choice is fitted on with a style model's prior: the
#: first ones of its seeded order (without a model, all of them).
#: The fit needs the style model's prior in each, about 5 ms a position on one core, and is made
#: when the agent is (a GUI's isready): 400 keep that near 2 s, where the 1,200 of the shipped
#: profiles took 6 to 10 s (issue #29); the implied rating and its intervals use them all.
CALIBRATION_POSITIONS = 400


class LikelihoodFit(NamedTuple):
    """The calibrated choice's likelihood fit: the model, its expected loss on the positions it was
    fitted on (the implied rating's), how many, and their losses and log-prior (None where read
    from the profile's play-time record, :func:`stored_fit`)."""

    model: ErrorModel
    expected: float
    positions: int
    loss: np.ndarray | None = None
    log_prior: np.ndarray | None = None


def likelihood_fit(profile: Profile, model: PriorModel | None) -> LikelihoodFit:
    """β, s and c fitted together by likelihood on the profile's positions with ``model``'s prior
    (the first :data:`CALIBRATION_POSITIONS`; all of them, and no prior, without a model)."""
    fitted_on = profile if model is None else profile.first(CALIBRATION_POSITIONS)
    loss, chosen = fitted_on.loss, fitted_on.played.astype(np.int64)
    log_prior = None
    if model is not None:
        log_prior = np.full(loss.shape, np.log(PRIOR_FLOOR))
        moves = fitted_on.judged_moves()
        for i, prior in enumerate(model.priors(fitted_on.positions(), moves)):
            log_prior[i, : len(moves[i])] = np.log(
                np.maximum([prior[m] for m in moves[i]], PRIOR_FLOOR)
            )
    fitted = fit(loss, chosen, log_prior).model
    return LikelihoodFit(
        fitted, fitted.expected_loss(loss, log_prior), len(chosen), loss, log_prior
    )


def stored_fit(profile: Profile, model: PriorModel | None) -> LikelihoodFit | None:
    """The likelihood fit the play-time record stored for the model it was made with
    (``meta["profile"]["play"]["fit"]``), where ``model`` is that very file: the prior's forward
    passes then need not be made again at every isready; None otherwise."""
    stored = profile.meta.get("play", {}).get("fit")
    if (
        model is None
        or profile.play is None
        or not stored
        or model.path is None
        or stored.get("model") != file_sha256(model.path)
    ):
        return None
    return LikelihoodFit(
        ErrorModel(stored["sensitivity"], stored["consistency"], stored["prior_weight"]),
        stored["expected_loss"],
        stored["positions"],
    )
