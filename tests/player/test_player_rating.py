"""The player's rating in ``cbr-chess new``'s report and its choice of the match's opponent
(player/rating.py, issue #62): the judged positions' implied rating and the ratings in the games'
headers, weighed by their precisions."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from common.stats import Z95
from engine.strength.rating import RATING_SPREAD
from player import match, rating
from player.rating import PRIOR_SPREAD
from player.stages import Folder, Options


def _rated(elos: list[int]) -> SimpleNamespace:
    """A casebase as the rating reads it: its games' own header ratings (-1: none) and their
    median."""
    rated = [elo for elo in elos if elo > 0]
    return SimpleNamespace(
        games={"expert_elo": np.array(elos)}, elo=int(np.median(rated)) if rated else None
    )


def _summary(implied: float, boot: float, positions: int = 31) -> dict[str, object]:
    """A profile's summary: the implied rating, the bootstrap's standard deviation ``boot``."""
    wide = Z95 * math.hypot(boot, RATING_SPREAD)
    return {
        "positions": positions,
        "rating": {
            "implied": implied,
            "low": implied - wide,
            "high": implied + wide,
            "bootstrap_low": implied - Z95 * boot,
            "bootstrap_high": implied + Z95 * boot,
        },
    }


def _profiled(implied: float, boot: float, positions: int = 31) -> SimpleNamespace:
    """A profile as the rating reads it: its stored summary (:func:`_summary`)."""
    return SimpleNamespace(meta=_summary(implied, boot, positions))


def test_the_headers_ratings_are_a_prior_weighed_against_the_judged_positions_by_their_precisions():
    headers = _rated([2540, -1, 2500, 2600])  # the median of the three rated games
    # as precise as the prior: half way; the interval widened by the line's spread, as the profile's
    # is
    even = rating.estimate(headers, _profiled(2240, PRIOR_SPREAD))
    assert even.rating == pytest.approx(2390) and even.header == 2540 and even.rated_games == 3
    assert even.high - even.rating == pytest.approx(
        Z95 * math.hypot(PRIOR_SPREAD / math.sqrt(2), RATING_SPREAD)
    )
    # nine times less precise: a tenth of the way
    few = rating.estimate(headers, _profiled(2240, 3 * PRIOR_SPREAD))
    assert few.rating == pytest.approx(2540 - 300 / 10)
    # a tenth of the way to 2540
    many = rating.estimate(headers, _profiled(2240, PRIOR_SPREAD / 3, positions=1200))
    assert (
        many.rating == pytest.approx(2240 + 300 / 10)
        and many.high - many.low < even.high - even.low
    )
    assert many.alone == (
        2240,
        *(2240 + s * Z95 * math.hypot(PRIOR_SPREAD / 3, RATING_SPREAD) for s in (-1, 1)),
    )
    said = rating.in_words(even)
    assert (
        said.startswith("2390 (95 % interval ")
        and "from 31 judged positions and the rating 2540 in the games'"
        " headers (the median of 3 rated games; the positions alone: 2240, "
        in said
    )
    # no rated game: the positions alone
    unrated = rating.estimate(_rated([-1, -1]), _profiled(2240, 50))
    assert (unrated.rating, unrated.low, unrated.high) == unrated.alone and unrated.header is None
    assert rating.in_words(unrated).endswith(
        "from 31 judged positions; no rating in the games' headers"
    )
    # a bootstrap that never moved: the positions fix it
    still = rating.estimate(headers, _profiled(2240, 0.0))
    assert still.rating == 2240 and still.high - still.rating == pytest.approx(Z95 * RATING_SPREAD)
    assert rating.Estimate.of_json(even.as_json()) == even


def test_a_profile_stored_without_its_bootstrap_interval_is_summarised_again():
    headers = _rated([2540])
    stored = _summary(2240, PRIOR_SPREAD)
    old = {
        **stored,
        "rating": {k: v for k, v in stored["rating"].items() if not k.startswith("bootstrap")},
    }
    # a profile stored before its summary held them
    profile = SimpleNamespace(meta=old, summary=lambda: stored)
    assert rating.estimate(headers, profile) == rating.estimate(
        headers, _profiled(2240, PRIOR_SPREAD)
    )


def test_the_opponent_is_chosen_by_the_rating_with_the_headers_prior(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(match.Casebase, "load", lambda path: _rated([2790] * 5))
    monkeypatch.setattr(match.Profile, "of", lambda casebase: _profiled(2230, 200))
    monkeypatch.setattr(match, "casebase_folder", lambda: tmp_path)
    for expert in ("kosteniuk-2200", "ivanchuk-2700"):
        (tmp_path / f"{expert}.npz").touch()
    options = Options(tmp_path / "x.pgn", "Someone", sys.executable, tmp_path)
    # 31 positions say 2230 (kosteniuk-2200's band), the headers 2790: the estimate lies at 2681
    assert match.opponent(options, Folder(tmp_path, "someone")) == tmp_path / "ivanchuk-2700.npz"
