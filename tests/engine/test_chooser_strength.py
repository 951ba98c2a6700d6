"""The chooser at a player's strength (issue #40, item 2; search.md §9): the weights of what a
candidate loses at the judge's depth times a strength, set so that the chooser loses on its
reference positions what the player's error model loses there; the reference kept in the chooser's
file and checked."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import chess
import numpy as np
import pytest

from engine.strength.chooser import (
    JUDGED_LOSS,
    MAX_STRENGTH,
    MIN_STRENGTH,
    Chooser,
    ChooserError,
    Reference,
)
from engine.strength.chooser_features import FEATURES, features
from engine.strength.errormodel import PRIOR_FLOOR, ErrorModel


def reference(positions: int = 60, seed: int = 4) -> Reference:
    """Positions of the start position's moves with random scores and prior, their features as the
    engine's."""
    rng = np.random.default_rng(seed)
    board = chess.Board()
    legal = list(board.legal_moves)
    made = []
    for _ in range(positions):
        n = int(rng.integers(2, 8))
        moves = [legal[i] for i in rng.choice(len(legal), size=n, replace=False)]
        scores = [int(s) for s in rng.integers(-300, 300, size=n)]
        prior = list(rng.dirichlet(np.ones(n)))
        made.append((features(board, None, moves, scores, prior)[0], scores, prior))
    return Reference.of(made)


#: A chooser that avoids loss and follows the prior, as a fitted one does.
WEIGHTS = np.zeros(len(FEATURES))
(
    WEIGHTS[FEATURES.index("loss")],
    WEIGHTS[FEATURES.index("sqrt loss")],
    WEIGHTS[FEATURES.index("log prior")],
) = -30, -5, 0.5


def test_the_strength_makes_the_chooser_lose_what_the_error_model_loses_on_the_reference():
    chooser = Chooser(FEATURES, WEIGHTS, reference=reference())
    assert chooser.reference is not None
    losses = [chooser.expected_loss(k) for k in (0.25, 0.5, 1.0, 2.0, 4.0)]
    assert all(a > b for a, b in zip(losses, losses[1:]))  # stronger: loses less
    log_prior = np.log(np.maximum(chooser.reference.prior, PRIOR_FLOOR))
    strengths = []
    for s in (0.03, 0.01, 0.004):
        model = ErrorModel(s, 0.6, 0.5)
        strength = chooser.strength_of(model)
        assert strength is not None and MIN_STRENGTH < strength < MAX_STRENGTH
        target = model.expected_loss(chooser.reference.loss, log_prior)
        assert chooser.expected_loss(strength) == pytest.approx(target, rel=1e-6)
        strengths.append(strength)
    assert strengths == sorted(strengths)  # a sharper player (smaller s), a stronger chooser
    # a player no strength reaches plays its end
    assert chooser.strength_of(ErrorModel(1e-6, 2.0)) == pytest.approx(MAX_STRENGTH)
    assert chooser.strength_of(ErrorModel(10.0, 0.3)) == pytest.approx(MIN_STRENGTH)
    assert Chooser(FEATURES, WEIGHTS).strength_of(ErrorModel(0.01, 0.6)) is None  # no reference


def test_the_strength_multiplies_the_judged_loss_weights_alone():
    matrix = np.random.default_rng(2).normal(size=(5, len(FEATURES)))
    weights = np.random.default_rng(3).normal(size=len(FEATURES))
    scaled = weights.copy()
    scaled[[FEATURES.index(name) for name in JUDGED_LOSS]] *= 1.7
    chooser = Chooser(FEATURES, weights)
    assert np.allclose(chooser.logits(matrix, 1.7), matrix @ scaled)
    assert np.allclose(
        chooser.probabilities(matrix, 1.0), Chooser(FEATURES, weights).probabilities(matrix)
    )
    assert np.array_equal(chooser.weights, weights)  # not changed in place


def test_the_reference_is_kept_in_the_file_and_a_damaged_one_is_refused(tmp_path: Path):
    chooser = Chooser(FEATURES, WEIGHTS, reference=reference(20))
    path = tmp_path / "c.npz"
    chooser.save(path)
    again = Chooser.load(path)
    assert again.reference is not None and chooser.reference is not None
    assert np.allclose(again.reference.features, chooser.reference.features, atol=1e-5)
    assert np.array_equal(np.isnan(again.reference.loss), np.isnan(chooser.reference.loss))
    assert again.expected_loss(1.3) == pytest.approx(chooser.expected_loss(1.3), rel=1e-5)
    assert Chooser.load(tmp_path / "c.npz").strength_of(
        ErrorModel(0.01, 0.6, 0.5)
    ) == pytest.approx(chooser.strength_of(ErrorModel(0.01, 0.6, 0.5)), rel=1e-4)

    def refused(**members: np.ndarray) -> str:
        with np.load(path) as npz:
            arrays = {name: npz[name] for name in npz.files}
        broken = tmp_path / "broken.npz"
        np.savez(
            broken,
            **{name: value for name, value in (arrays | members).items() if value is not None},
        )
        with pytest.raises(ChooserError) as caught:
            Chooser.load(broken)
        return str(caught.value)

    assert chooser.reference is not None
    loss = chooser.reference.loss
    assert "damaged reference positions" in refused(reference_prior=None)  # a member missing
    # shapes that do not agree
    assert "damaged reference positions" in refused(reference_loss=loss[:, :2])
    # no losses
    assert "damaged reference positions" in refused(
        reference_loss=np.where(np.isnan(loss), np.nan, 2.0)
    )
    first_missing = loss.copy()
    first_missing[0, 0] = np.nan
    # a position without candidates
    assert "damaged reference positions" in refused(reference_loss=first_missing)
    nan = chooser.reference.features.copy()
    nan[0, 0, 0] = np.nan
    assert "damaged reference positions" in refused(reference_features=nan)
    with pytest.raises(ValueError, match="shapes"):
        replace(chooser.reference, prior=chooser.reference.prior[:3])
