"""A casebase whose error profile is damaged keeps its cases: the engine plays them without
calibration and says why in one ``info string``, never random moves or a traceback; ``casebase
info`` and ``python -m profiling`` refuse the file in one line and leave it as it is (issue #28,
item 5; docs/strength.md §1, §3). A profile file made for another casebase is refused as a damaged
one is, and replaced when the casebase is profiled again (issue #39)."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import chess
import numpy as np
import pytest
from damaged import PROFILE_DAMAGE, STALE, damage_profile
from uci_helpers import ROOT, bestmoves, converse, strings

from casebase.__main__ import main as casebase_main
from casebase.format import Casebase
from casebase.profilefile import profile_path
from common.files import file_sha256
from engine.strength.calibration import calibrate
from engine.strength.profile import Profile
from profiling.__main__ import main as profiling_main
from profiling.judging import POSITIONS

pytestmark = [
    pytest.mark.slow,  # its fixture fits a shipped profile, and the tests play through the engine
    pytest.mark.xdist_group("damaged-profile"),
]  # its module fixture is built once, on one worker

DATA = ROOT / "data"
#: After 1. e4 e5 2. Nf3, where the calibrated choice draws among the judged replies.
MOVES = ["e2e4", "e7e5", "g1f3"]


@pytest.fixture(params=list(PROFILE_DAMAGE))
def damaged(
    request: pytest.FixtureRequest, profiled: tuple[Path, Path], tmp_path: Path
) -> tuple[Path, str]:
    """A copy of the profiled casebase, its profile damaged one way, and what the refusal says."""
    path = damage_profile(
        profiled[0], tmp_path / request.param.replace(" ", "_") / profiled[0].name, request.param
    )
    return path, PROFILE_DAMAGE[request.param]


def after(moves: list[str]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


def test_the_sound_profile_is_read_and_played(profiled, capsys):
    casebase = Casebase.load(profiled[0])
    assert casebase.profile_problem is None and Profile.of(casebase) is not None
    assert (
        f"Alexandra Kosteniuk's error profile ({POSITIONS} positions"
        in calibrate(casebase, None).source
    )
    assert (
        casebase_main(["info", str(profiled[0])]) == 0
        and "implied rating" in capsys.readouterr().out
    )


def test_the_engine_plays_the_cases_uncalibrated_and_says_why_once(damaged):
    path, reason = damaged
    # a low rating: without a judge the error model draws only below the built-in search's own
    # strength (strength.md §7)
    lines = converse(
        [
            "uci",
            "setoption name Selection value calibrated",
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1200",
            "setoption name Seed value 1",
            "isready",
            f"position startpos moves {' '.join(MOVES)}",
            "go depth 2",
        ],
        "--casebase",
        str(path),
    )
    said = strings(lines)
    told = [
        line
        for line in lines
        if line.startswith(f"info string error profile of {path.name} refused: ")
    ]
    assert (
        len(told) == 1
        and reason in told[0]
        and told[0].endswith(
            "; playing without calibration (Selection calibrated and likely, and"
            " UCI_LimitStrength, take the shipped experts' typical parameters)"
        )
    )
    assert (
        "info string error in " not in said and "error while" not in said and "random" not in said
    )
    assert "guided mode: casebase Alexandra Kosteniuk (5613 cases" in said  # the cases play
    assert "vote" in said and "drawn by the error model" in said
    assert (
        f"(error profile of {path.name} refused: " in said
        and "the shipped experts' typical parameters" in said
    )
    assert chess.Move.from_uci(bestmoves(lines)[-1]) in after(MOVES).legal_moves


def test_the_casebase_is_read_for_its_cases_without_the_profile(damaged, kosteniuk_casebase):
    path, reason = damaged
    casebase = Casebase.load(path)
    assert (
        casebase.profile is None and "profile" not in casebase.meta and Profile.of(casebase) is None
    )
    assert casebase.profile_problem is not None and reason in casebase.profile_problem
    assert len(casebase) == len(Casebase.load(kosteniuk_casebase))
    # UCI_LimitStrength: the shipped line, at the rating asked for
    calibration = calibrate(casebase, None, 1800)
    assert calibration.source.startswith(
        f"error profile of {path.name} refused: {casebase.profile_problem}:"
        " the shipped experts' typical parameters, set to 1800"
    )
    assert calibration.loss is None and calibration.rating == 1800


def test_casebase_info_exits_1_in_one_line(damaged, capsys):
    path, reason = damaged
    assert casebase_main(["info", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith(
        f"casebase: error: {path}: error profile refused:"
    )
    assert reason in captured.err and "Traceback" not in captured.err
    # the cases described
    assert f"error profile: refused: {Casebase.load(path).profile_problem}" in captured.out


@pytest.mark.parametrize("damage", [damage for damage in PROFILE_DAMAGE if damage != STALE])
def test_profiling_exits_1_in_one_line_and_leaves_the_files(damage, profiled, tmp_path, capsys):
    path = damage_profile(profiled[0], tmp_path / profiled[0].name, damage)
    before = path.read_bytes(), profile_path(path).read_bytes()
    assert profiling_main([str(path), "--journal", str(profiled[1]), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"profiling: error: {path}: error profile refused:"
    )
    assert PROFILE_DAMAGE[damage] in err
    assert (path.read_bytes(), profile_path(path).read_bytes()) == before


def test_profiling_replaces_the_profile_of_another_casebase(profiled, tmp_path):
    path = damage_profile(profiled[0], tmp_path / profiled[0].name, STALE)
    assert Casebase.load(path).profile_stale
    assert profiling_main([str(path), "--journal", str(profiled[1]), "--quiet"]) == 0
    again = Casebase.load(path)
    assert again.profile_problem is None and again.meta["profile"]["provenance"][
        "casebase_sha256"
    ] == file_sha256(path)


def test_uci_limit_strength_plays_the_shipped_line_on_a_refused_profile(profiled, tmp_path):
    path = damage_profile(profiled[0], tmp_path / profiled[0].name, "NaN fit")
    lines = converse(
        [
            "uci",
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1800",
            "setoption name Seed value 2",
            f"position startpos moves {' '.join(MOVES)}",
            "go depth 2",
        ],
        "--casebase",
        str(path),
    )
    said = strings(lines)
    told = [
        line
        for line in lines
        if line.startswith("info string strength limited to 1800: without a judge, ")
    ]
    # no judge: 1800 loses more than the search alone (strength.md §7)
    assert len(told) == 1 and told[0].endswith(
        f": error profile of {path.name} refused: {profile_path(path).name}: the error profile's"
        " fit sensitivity is nan, not a finite number: the shipped experts' typical parameters,"
        " set to 1800"
    ), lines
    assert "info string error in " not in said and "error while" not in said
    assert chess.Move.from_uci(bestmoves(lines)[-1]) in after(MOVES).legal_moves


def test_a_fit_the_engine_cannot_use_falls_back_to_the_shipped_parameters(profiled, monkeypatch):
    import engine.strength.calibration as calibration
    import engine.strength.likelihood as likelihood
    from engine.strength.errormodel import ErrorModel, Fit

    monkeypatch.setattr(
        likelihood, "fit", lambda *args: Fit(ErrorModel(float("nan"), 0.5), float("nan"), 1)
    )
    monkeypatch.setattr(calibration, "_CACHE", {})
    casebase = Casebase.load(profiled[0])
    source = calibrate(casebase, None).source
    assert source.startswith(
        f"error profile of {profiled[0].name} refused: its fit is not usable (s nan"
    )
    assert source.endswith("the shipped experts' typical parameters")


def test_a_profile_member_numpy_cannot_read_costs_the_profile_only(profiled, tmp_path):
    header = io.BytesIO()  # profile_scores claiming sixteen terabytes
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<i4", "fortran_order": False, "shape": (2**42,)}
    )
    path = tmp_path / profiled[0].name
    shutil.copy(profiled[0], path)
    with (
        zipfile.ZipFile(profile_path(profiled[0])) as src,
        zipfile.ZipFile(profile_path(path), "w") as dst,
    ):
        for item in src.infolist():
            dst.writestr(
                item, header.getvalue() if item.filename == "profile_scores.npy" else src.read(item)
            )
    casebase = Casebase.load(path)
    assert casebase.profile is None and len(casebase) == 5613
    assert casebase.profile_problem is not None
    assert casebase.profile_problem.startswith(
        f"{profile_path(path).name}: error profile damaged ("
    )
