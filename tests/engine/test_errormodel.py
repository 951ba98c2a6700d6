"""The error model and its fit and the rating line (engine/style: errormodel, rating, profile;
docs/strength.md §2–4); the calibrated choice that plays by them is test_calibration.py's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from errormodel_helpers import choices, synthetic

from engine.strength.errormodel import (
    MAX_CONSISTENCY,
    MAX_SENSITIVITY,
    ErrorModel,
    expected_score,
    fit,
    losses,
)
from engine.strength.rating import implied_rating, loss_at, rating_of

pytestmark = pytest.mark.slow  # fits and calibrated games through the engine and judges


# -- the error model ---------------------------------------------------------------------


@pytest.mark.parametrize("s, c", [(0.03, 0.5), (0.08, 0.9)])
def test_the_fit_recovers_the_parameters_of_the_moves_the_model_itself_drew(s, c):
    rng = np.random.default_rng(1)
    loss = synthetic(4000, 10, rng)
    truth = ErrorModel(s, c)
    fitted = fit(loss, choices(truth, loss, rng)).model
    assert fitted.sensitivity == pytest.approx(s, rel=0.15)
    assert fitted.consistency == pytest.approx(c, rel=0.15)
    assert fitted.prior_weight == 0


def test_a_fit_that_wanders_to_a_sensitivity_of_zero_warns_nothing():
    # the likeliest model of these four choices has c -> 0, where s no longer matters and the
    # simplex drifts until exp(log s) is 0: RuntimeWarnings on stderr, as in a tiny strength run
    loss = np.array(
        [
            [0.0, 0.03, 0.034, 0.034],
            [0.0, 0.034, 0.045, 0.052],
            [0.0, 0.043, 0.049, 0.057],
            [0.0, 0.002, 0.036, 0.048],
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = fit(loss, np.array([0, 0, 0, 3]))
    assert np.isfinite(fitted.mean_log_likelihood)
    assert np.isfinite(fitted.model.probabilities(loss)).all()


def test_a_player_whose_likelihood_grows_without_end_is_fitted_at_the_bound_and_said_so():
    # choices drawn by the prior alone, whatever they lose: the likelihood grows as s grows (the
    # loss term flattens), as rivergrove's does with the prior (issue #74), where the fit ran to
    # the largest float; it stops at the bound, a model that plays, and its words say so
    rng = np.random.default_rng(3)
    loss = synthetic(1000, 6, rng)
    log_prior = np.log(rng.dirichlet(np.ones(6), 1000))
    prior = np.where(np.isnan(loss), 0.0, np.exp(log_prior))
    chosen = np.array([rng.choice(6, p=row / row.sum()) for row in prior])
    fitted = fit(loss, chosen, log_prior)
    model = fitted.model
    assert model.sensitivity == pytest.approx(MAX_SENSITIVITY) or model.consistency == (
        pytest.approx(MAX_CONSISTENCY)
    )
    assert np.isfinite(fitted.mean_log_likelihood)
    assert np.isfinite(model.probabilities(loss, log_prior)).all()
    assert "its bound" in model.describe()
    assert "bound" not in ErrorModel(0.05, 0.6).describe()
    assert "bound" in ErrorModel(MAX_SENSITIVITY, 0.6).describe()


def test_the_fit_recovers_the_prior_weight_too():
    rng = np.random.default_rng(2)
    loss = synthetic(4000, 8, rng)
    log_prior = np.log(rng.dirichlet(np.ones(8), 4000))
    truth = ErrorModel(0.05, 0.7, 0.6)
    fitted = fit(loss, choices(truth, loss, rng, log_prior), log_prior).model
    assert fitted.prior_weight == pytest.approx(0.6, abs=0.1)
    assert fitted.sensitivity == pytest.approx(0.05, rel=0.2)


def test_the_fit_is_the_likeliest_model_its_neighbours_included():
    rng = np.random.default_rng(5)
    loss = synthetic(600, 8, rng)
    chosen = choices(ErrorModel(0.04, 0.6), loss, rng)
    result = fit(loss, chosen)
    best = result.model
    assert result.mean_log_likelihood == pytest.approx(
        best.log_likelihood(loss, chosen) / len(loss)
    )
    for factor in (0.98, 1.02):  # a step either way in s or c is no likelier
        for other in (
            ErrorModel(best.sensitivity * factor, best.consistency),
            ErrorModel(best.sensitivity, best.consistency * factor),
        ):
            assert other.log_likelihood(loss, chosen) <= best.log_likelihood(loss, chosen) + 1e-6


def test_chances_fall_with_the_loss_and_sum_to_one():
    model = ErrorModel(0.05, 0.6)
    p = model.probabilities(np.array([[0.0, 0.02, 0.2, np.nan]]))[0]
    assert p.sum() == pytest.approx(1) and p[3] == 0
    assert p[0] > p[1] > p[2] > 0
    assert losses(np.array([[100.0, 0.0, np.nan]]))[0, 1] == pytest.approx(
        expected_score(100) - expected_score(0)
    )
    # the log-likelihood is the log of these chances
    assert model.log_likelihood(
        np.array([[0.0, 0.02, 0.2, np.nan]]), np.array([1])
    ) == pytest.approx(np.log(p[1]))


def test_the_rating_line_and_its_inverse_agree():
    for rating in (1500, 2300, 2800):
        assert rating_of(loss_at(rating)) == pytest.approx(rating)
    assert loss_at(1800) > loss_at(2600)  # weaker players lose more


def test_a_fit_read_on_a_reference_set_rates_the_player_not_the_positions(monkeypatch):
    # one model plays easy positions and hard ones: read on its own positions it rates higher in the
    # easy ones; read on one reference set both fits rate alike, within their bootstrap intervals
    rng = np.random.default_rng(3)
    truth = ErrorModel(0.03, 0.6)
    hard, easy = synthetic(1500, 10, rng), synthetic(1500, 10, rng)
    # the same kind of position with the others far worse
    easy[:, 1:] = np.minimum(easy[:, 1:] * 20, 1)
    reference = synthetic(1500, 10, rng)
    readings = {}
    for name, loss in (("hard", hard), ("easy", easy)):
        chosen = choices(truth, loss, rng)
        model = fit(loss, chosen).model
        # read on its own positions only the rating counts, which no resample
        with monkeypatch.context() as few:
            # changes: two of the four bootstraps were half the test
            few.setattr("engine.strength.rating.RESAMPLES", 2)
            own = implied_rating(loss, chosen, model)
        readings[name] = (own, implied_rating(loss, chosen, model, reference=reference))
    own_gap = readings["easy"][0].rating - readings["hard"][0].rating
    common = [r for _, r in readings.values()]
    assert own_gap > 150
    assert abs(common[0].rating - common[1].rating) < max(
        r.bootstrap_high - r.rating for r in common
    )
    assert common[0].rating == pytest.approx(rating_of(truth.expected_loss(reference)), abs=60)
    # the default reads each fit on its own positions (the rating only: few resamples will do)
    monkeypatch.setattr("engine.strength.rating.RESAMPLES", 2)
    loss, chosen = hard, choices(truth, hard, rng)
    model = fit(loss, chosen).model
    assert implied_rating(loss, chosen, model).rating == pytest.approx(
        implied_rating(loss, chosen, model, reference=loss).rating
    )


def test_the_root_is_found_within_its_tolerance_and_a_nan_is_refused():
    from engine.strength.errormodel import ROOT_XTOL, increasing_root

    assert increasing_root(lambda x: x**3 - 0.125, 0.0, 2.0) == pytest.approx(0.5, abs=ROOT_XTOL)
    assert increasing_root(lambda x: x + 1.0, 0.0, 1.0) == 0.0  # above 0 already: the low end
    assert increasing_root(lambda x: x - 5.0, 0.0, 1.0) == 1.0  # still below: the high end
    # a record whose losses give NaN: refused (the calibration says it is not usable), as brentq did
    with pytest.raises(ValueError, match="NaN"):
        increasing_root(lambda x: x - 0.5 if x != 1.0 else float("nan"), 0.0, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        increasing_root(lambda x: float("nan") if 0.2 < x < 0.8 else x - 0.5, 0.0, 1.0)
