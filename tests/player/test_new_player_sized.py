"""``cbr-chess new`` sized to what the estimate needs (issue #62): the profile judged in rounds
until the stated rating's interval is within a few percent of what ``--positions`` would give, the
progress line's count settled as it goes, and each stage's time in the stage record and the
report."""

from __future__ import annotations

import io
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from test_player_rating import _profiled, _rated
from uci_helpers import ROOT

from casebase.format import Casebase
from common.stats import Z95
from engine.strength.profile import Profile
from engine.strength.rating import RATING_SPREAD
from player import rating, report, run, stages
from player.book import StageBook
from player.progress import Part, Progress
from player.rating import PRIOR_SPREAD
from player.stages import Folder, Options


def _half(boot: float, prior: bool) -> float:
    """The stated interval's half width for the bootstrap's standard deviation ``boot`` (strength.md
    §2)."""
    spread = 1 / math.sqrt(1 / boot**2 + 1 / PRIOR_SPREAD**2) if prior else boot
    return Z95 * math.hypot(spread, RATING_SPREAD)


def test_the_positions_needed_are_the_fewest_whose_interval_is_within_the_share_of_the_full_count_s():  # noqa: E501
    # 200 positions with a bootstrap sd of 120 Elo: at n positions it is 120 sqrt(200 / n)
    for prior in (True, False):
        casebase = _rated([2500] * 3 if prior else [-1] * 3)
        needed = rating.positions_needed(casebase, _profiled(2400, 120, positions=200), 1200, 0.05)
        target = 1.05 * _half(120 * math.sqrt(200 / 1200), prior)
        assert (
            _half(120 * math.sqrt(200 / needed), prior)
            <= target
            < _half(120 * math.sqrt(200 / (needed - 1)), prior)
        )
    with_prior = rating.positions_needed(
        _rated([2500]), _profiled(2400, 120, positions=200), 1200, 0.05
    )
    alone = rating.positions_needed(_rated([-1]), _profiled(2400, 120, positions=200), 1200, 0.05)
    assert 200 < with_prior < alone < 1200  # the headers' rating makes the interval narrow sooner
    assert (
        rating.positions_needed(_rated([2500]), _profiled(2400, 120, positions=200), 1200, 0.0)
        == 1200
    )
    assert (
        rating.positions_needed(_rated([2500]), _profiled(2400, 120, positions=200), 1200, 10.0)
        == 200
    )
    # a bootstrap that never moved says nothing of the spread at more positions: all of them
    assert (
        rating.positions_needed(_rated([2500]), _profiled(2400, 0.0, positions=200), 1200, 0.05)
        == 1200
    )
    assert (
        rating.positions_needed(_rated([2500]), _profiled(2400, 60, positions=1200), 1200, 0.05)
        == 1200
    )


def test_a_shipped_expert_s_first_200_positions_ask_for_about_half_of_the_1200():
    path = ROOT / "casebases" / "kosteniuk-2200.npz"
    if not path.is_file():  # make demo builds two others only
        pytest.skip("the shipped casebases are made by make casebases")
    casebase = Casebase.load(path)
    profile = Profile.of(casebase)
    assert profile is not None
    first = profile.first(200)
    first.meta = first.summary()
    # measured on the ten shipped profiles: 600 to 680 (player.run.EXPECTED_SHARE)
    assert 500 <= rating.positions_needed(casebase, first, 1200, 0.05) <= 800


#: Whether each :func:`_rounds` stopped because the interval was narrow enough (the stop stored with
#: the profile).
narrow: list[bool] = []


def _rounds(
    monkeypatch: pytest.MonkeyPatch, options: Options, available: int, needed: list[int]
) -> list[int]:
    """The positions each round of the profile's judging asked for, the judge having ``available``
    usable positions and the intervals asking ``needed`` in turn."""
    asked: list[int] = []

    def judged(
        casebase: object, settings: SimpleNamespace, *args: object, **kwargs: object
    ) -> SimpleNamespace:
        asked.append(settings.positions)
        return SimpleNamespace(rows=np.arange(min(settings.positions, available)), meta={})

    monkeypatch.setattr(stages.Casebase, "load", lambda path: None)
    monkeypatch.setattr(stages, "make_profile", judged)
    monkeypatch.setattr(stages, "eligible", lambda casebase, options: available)
    monkeypatch.setattr(
        stages, "positions_needed", lambda casebase, profile, most, within: needed.pop(0)
    )
    monkeypatch.setattr(stages, "judge_heldout", lambda options, folder, judge: None)
    monkeypatch.setattr(
        stages, "store", lambda casebase, profile: stored.append(profile.meta["stop"])
    )
    stored: list[dict[str, object]] = []
    stages.judge_profile(options, Folder(options.out, "someone"))
    assert [{key: stop[key] for key in ("most", "within")} for stop in stored] == [
        {"most": min(options.positions, available), "within": options.stop_within}
    ]
    narrow.append(bool(stored[0]["narrow"]))
    return asked


def test_the_profile_is_judged_in_rounds_until_its_interval_is_narrow_enough(
    tmp_path: Path, monkeypatch
):
    options = Options(tmp_path / "x.pgn", "Someone", sys.executable, tmp_path, play_positions=200)
    assert _rounds(monkeypatch, options, 5000, [612, 640]) == [200, 650]  # rounded up to the step
    # the new count asks more
    assert _rounds(monkeypatch, options, 5000, [612, 690, 700]) == [200, 650, 700]
    assert _rounds(monkeypatch, options, 5000, [2000]) == [200, 1200]  # never past --positions
    # never past the player's positions
    assert _rounds(monkeypatch, options, 600, [900]) == [200, 600]
    assert _rounds(monkeypatch, options, 5000, [150]) == [200]  # narrow enough at once
    # all of them
    assert _rounds(monkeypatch, replace(options, stop_within=0.0), 5000, []) == [1200]
    # the first round covers the play-time record's positions (stage 5 plays the profile's first
    # 400)
    assert _rounds(monkeypatch, replace(options, play_positions=400), 5000, [300]) == [400]
    # stored with the profile: the report says which
    assert narrow == [True, True, False, False, True, False, True]


def test_the_progress_line_counts_to_where_the_profile_s_judging_is_expected_to_stop(
    tmp_path: Path, monkeypatch
):
    options, folder = (
        Options(tmp_path / "x.pgn", "Someone", sys.executable, tmp_path),
        Folder(tmp_path, "someone"),
    )
    # before the first round says
    assert run.profile_total(options, folder) == round(run.EXPECTED_SHARE * 1200)
    assert run.profile_total(replace(options, stop_within=0.0), folder) == 1200
    total = [700]
    stream = io.StringIO()
    shown = Progress(
        ["judging"], lambda k: [Part(total[0], 1.0, "positions", lambda: 0)], stream=stream
    )
    monkeypatch.setattr(shown, "live", True)
    monkeypatch.setattr("player.progress.REDRAW", 0.01)
    with shown.stage(0):
        total[0] = 650  # the first round's interval settled the count
        # a bound for a stuck thread only: the line is redrawn within milliseconds
        deadline = time.monotonic() + 60
        while "0/650 positions" not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "0/700 positions" in stream.getvalue() and "0/650 positions" in stream.getvalue()


def test_a_count_planned_again_before_any_unit_is_done_keeps_the_eta_at_the_measured_seconds(
    monkeypatch,
):
    games = [1000]  # the casebase's games guessed, then read (its embedding part's count)

    def plans(k: int) -> list[Part]:
        return [Part(1, 2e-8 * 901445 + 1.0, "", lambda: 0), Part(1, 0.1 * games[0], "", lambda: 0)]

    shown = Progress(["the casebase"], plans, stream=io.StringIO())
    started = plans(0)
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    games[0] = 2419
    line = shown.redrawn(0, started, 990.0, sum(part.left() for part in started))
    assert line == "[1/1 the casebase], ETA 4:03"  # 1.02 + 241.9 s: float noise is no pace


def test_the_stage_record_adds_up_each_run_s_seconds_on_a_stage_and_starts_again_with_its_key(
    tmp_path: Path,
):
    book = StageBook(tmp_path)
    assert book.start("one", "k1") and book.seconds("one") == 0.0
    book.spent("one", 12.5)  # a run stopped in it
    assert not StageBook(tmp_path).start("one", "k1")  # resumed: its seconds kept
    book = StageBook(tmp_path)
    book.spent("one", 7.5)
    book.finish("one", "k1", [])
    assert StageBook(tmp_path).seconds("one") == 20.0
    # another key
    assert StageBook(tmp_path).start("one", "k2") and StageBook(tmp_path).seconds("one") == 0.0
    assert StageBook(tmp_path).seconds("never") is None


def test_the_report_says_each_stage_s_time_and_where_the_profile_s_judging_stopped():
    seconds = {
        "the casebase": 4.0,
        "judging the profile": 312.0,
        "the personal model": None,
        "the report": 9.4,
    }
    assert report._times(seconds) == (
        "Made in 5:25 (the stages recorded): the casebase 0:04, judging the profile 5:12,"
        " the personal model not recorded, the report 0:09."
    )
    assert report._times({"the casebase": 4.0}) == "Made in 0:04: the casebase 0:04."
    stopped = report._judged({"positions": 650, "most": 1200, "stop_within": 0.05, "narrow": True})
    assert stopped == (
        "the profile's judging stopped at 650 of at most 1200 positions, the rating's interval then"
        " within 5 % of what they would give"
    )
    ran_out = report._judged({"positions": 310, "most": 1200, "stop_within": 0.05, "narrow": False})
    # not the interval's doing
    assert ran_out == "the profile judged 310 of the player's positions (at most 1200)"
