"""The numbers fitted across the shipped experts' profiles (the rating line, the shipped experts'
typical parameters) are data: a generated file with its provenance, read by the engine, made by
``python -m profiling.fitted``, and recomputed here from the shipped journals (issue #39, item
3)."""

from __future__ import annotations

import json
import math
import re
import shutil

import pytest

from casebase.builder import build
from casebase.format import Casebase
from casebase.games import GameFilter
from common.files import file_sha256
from engine.strength import calibration, rating
from engine.strength.fitted import FITTED, FittedError, fitted_path, read_fitted
from profiling.fitted import SYSTEM, _unchanged, expert_fits, fitted_numbers, main, rating_systems
from profiling.judging import Settings
from profiling.pipeline import make_profile


def test_the_engine_plays_the_generated_file_s_numbers(data_dir):
    shipped = read_fitted(fitted_path())
    assert (
        rating.RATING_LINE == shipped.rating_line and rating.RATING_SPREAD == shipped.rating_spread
    )
    assert calibration.SHIPPED_PRIOR_WEIGHT == shipped.prior_weight
    assert calibration.SHIPPED_CONSISTENCY == shipped.consistency
    assert calibration.SHIPPED_SENSITIVITY_LINE == shipped.sensitivity_line
    made = shipped.provenance  # which profiles, which judge, which command
    assert made["judge"] == "Stockfish 15.1 at depth 12, MultiPV 10" and made["command"].startswith(
        "python -m profiling.fitted"
    )
    assert sorted(p["casebase"] for p in made["profiles"]) == sorted(
        f"{id_}.npz"
        for id_, system in rating_systems(data_dir / "experts.tsv").items()
        if system == SYSTEM
    )
    assert all(
        p["journal"]["name"] == p["casebase"].replace(".npz", ".jsonl") for p in made["profiles"]
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "cannot be read as the fitted numbers' JSON"),
        ('{"format": "cbr-chess-model", "version": 1}', "not a cbr-chess-fitted file of version 1"),
        ("RATING_LINE", "rating_line is [2931.0], not 2 finite numbers"),
        ("NAN", "rating_spread is nan, not a finite number"),
        ("PROVENANCE", "no provenance"),
    ],
)
def test_a_damaged_fitted_file_is_refused_saying_what(tmp_path, text, says):
    good = FITTED.to_json()
    text = {
        "RATING_LINE": json.dumps({**good, "rating_line": [2931.0]}),
        "NAN": json.dumps({**good, "rating_spread": math.nan}),
        "PROVENANCE": json.dumps({**good, "provenance": None}),
    }.get(text, text)
    (tmp_path / "fitted.json").write_text(text)
    with pytest.raises(FittedError, match=re.escape(says)):
        read_fitted(tmp_path / "fitted.json")


def test_the_command_needs_three_rated_profiles_and_says_so(profiled, tmp_path, capsys):
    out = tmp_path / "fitted.json"
    assert main([str(profiled[0]), "--out", str(out)]) == 1 and not out.exists()
    assert capsys.readouterr().err == (
        "profiling.fitted: error: 1 FIDE-rated profiled casebases: the line needs three at least\n"
    )


@pytest.mark.slow
@pytest.mark.scenario  # seven casebases built and their profiles fitted: make test-all
def test_the_shipped_numbers_are_recomputed_from_the_shipped_journals(
    data_dir, expert_names, kosteniuk_casebase, gaprindashvili_casebase, tmp_path
):
    """The FIDE experts' casebases built and their profiles fitted from data/profiles (as ``make
    casebases`` does: minutes), then the command's fits: each number as the file rounds it, within
    one unit of its last digit (a least-squares fit's last bit may round either way)."""
    # the two the session has built already, copied: the profile is written beside the casebase
    session = {"kosteniuk-2200": kosteniuk_casebase, "gaprindashvili-2300": gaprindashvili_casebase}
    fits = []
    for id_, system in rating_systems(data_dir / "experts.tsv").items():
        if system != SYSTEM:
            continue
        path, journal = tmp_path / f"{id_}.npz", tmp_path / f"{id_}.jsonl"
        if id_ in session:
            shutil.copy(session[id_], path)
        else:
            build(
                [data_dir / "experts" / f"{id_}.pgn"],
                GameFilter(expert_names[id_]),
                workers=1,
                progress=False,
            ).save(path)
        shutil.copy(data_dir / "profiles" / f"{id_}.jsonl", journal)
        make_profile(Casebase.load(path), Settings(), None, journal, progress=False)
        fits.append(expert_fits(Casebase.load(path)))
        assert fits[-1]["journal"]["sha256"] == file_sha256(data_dir / "profiles" / f"{id_}.jsonl")
    again = fitted_numbers(fits, "test")
    assert again.rating_line == pytest.approx(FITTED.rating_line, abs=1)
    assert again.rating_spread == pytest.approx(FITTED.rating_spread, abs=1)
    assert (again.prior_weight, again.consistency) == pytest.approx(
        (FITTED.prior_weight, FITTED.consistency), abs=0.01
    )
    assert again.sensitivity_line[0] == pytest.approx(FITTED.sensitivity_line[0], abs=0.01)
    assert again.sensitivity_line[1] == pytest.approx(FITTED.sensitivity_line[1], abs=1e-6)
    shipped = {p["casebase"]: p for p in FITTED.provenance["profiles"]}
    for fit in fits:  # the same casebases (a build is byte for byte the same) and journals
        assert (fit["casebase_sha256"], fit["journal"]) == (
            shipped[fit["casebase"]]["casebase_sha256"],
            shipped[fit["casebase"]]["journal"],
        )


def test_the_same_numbers_leave_the_file_as_it_was(tmp_path, capsys):
    """Only the time would differ: the file is not rewritten, so `make fitted` makes no profile
    stale (PROFILE_CODE holds the file) and `make casebases` settles."""
    out = tmp_path / "fitted.json"
    shutil.copy(fitted_path(), out)
    made = read_fitted(out)
    again = fitted_numbers(list(made.provenance["profiles"]), made.provenance["command"])
    before = out.stat().st_mtime_ns
    assert _unchanged(out, again.to_json())
    changed = again.to_json() | {"rating_spread": again.rating_spread + 1}
    assert not _unchanged(out, changed)
    assert out.stat().st_mtime_ns == before
