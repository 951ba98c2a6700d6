"""The benches' statistics (common/stats.py): Wilson's interval, paired differences, Spearman's
rho."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from common.stats import Z95, Share, paired, spearman, wilson


def test_z95_is_the_normal_quantile():
    # the constant, written out so that importing the module needs no scipy
    assert Z95 == stats.norm.ppf(0.975)


def test_wilson_interval():
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10)[1] == 1.0
    low, high = wilson(392, 724)
    assert low < 392 / 724 < high and high - low < 0.08
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_wilson_interval_is_the_textbook_formula():
    # The closed form the project used before scipy's: the same numbers to rounding.
    for matches, n in [(0, 1), (1, 3), (17, 40), (392, 724), (199, 200)]:
        p, z2 = matches / n, Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        assert wilson(matches, n) == pytest.approx(
            (max(0.0, centre - half), min(1.0, centre + half)), abs=1e-12
        )


def test_a_share_stores_its_interval_rounded():
    assert Share(392, 724).as_dict() == {
        "matches": 392,
        "positions": 724,
        "share": 0.541436,
        "ci95": [0.505018, 0.577418],
    }
    assert Share(0, 0).as_dict()["ci95"] == [None, None] and Share(0, 0).percent() == "–"
    assert Share(63, 200).percent() == "31.5 %"


def test_paired_difference_is_the_mean_with_a_normal_interval():
    a = np.array([1, 1, 0, 1, 0, 1, 1, 0, 1, 1], dtype=bool)
    b = np.array([0, 1, 0, 0, 0, 1, 0, 0, 1, 0], dtype=bool)
    d = a.astype(float) - b
    half = Z95 * d.std(ddof=1) / math.sqrt(len(d))
    mean, low, high = paired(a, b)
    assert (mean, low, high) == pytest.approx((0.4, 0.4 - half, 0.4 + half), abs=1e-12)
    assert paired(list(a), list(b)) == pytest.approx((mean, low, high))
    assert paired([True], [False]) == (1.0, -math.inf, math.inf)
    assert all(math.isnan(x) for x in paired([], []))


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1)
    # With ties: average ranks, then Pearson (0.8660 by hand).
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)
    assert spearman(
        [2275, 2350, 2467, 2565, 2655], [2500, 2400, 2450, 2600, 2550]
    ) == pytest.approx(0.6)
    assert spearman([1], [2]) is None
    assert spearman([1, 2, 3], [5, 5, 5]) is None
    with pytest.raises(ValueError, match="same length"):
        spearman([1, 2], [1, 2, 3])
