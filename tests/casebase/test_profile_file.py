"""The error profile is a file of its own beside the casebase, ``X.profile.npz``, with its
provenance: refused when foreign, damaged, made for other cases or (its records) for another style
model; a casebase holding its profile inside, as before, is read and said once to be split (issue
#39)."""

from __future__ import annotations

import logging
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from damaged import profile_arrays, rewrite_npz
from uci_helpers import converse

from casebase.__main__ import main as casebase_main
from casebase.builder import build
from casebase.format import Casebase
from casebase.games import GameFilter
from casebase.profilefile import profile_path, write_profile
from common.files import file_sha256
from engine.strength.calibration import calibrate
from engine.style.loader import load_model
from engine.style.model import StyleModel, generic_model
from engine.style.personal import choose_model


def inside(profiled: Path, target: Path) -> Path:
    """The profiled casebase as the format before issue #39 kept it: the profile's arrays and
    description inside the casebase file (without the provenance), no profile file beside."""
    description = Casebase.load(profiled).meta["profile"]
    old = {key: value for key, value in description.items() if key != "provenance"}
    with zipfile.ZipFile(profiled) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item))
    rewrite_npz(target, target.with_suffix(".tmp"), meta=lambda meta: {**meta, "profile": old})
    with zipfile.ZipFile(target.with_suffix(".tmp"), "a") as zf:
        for name, array in profile_arrays(profile_path(profiled)).items():
            with zf.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    target.with_suffix(".tmp").replace(target)
    return target


def test_the_casebase_holds_cases_only_and_its_profile_file_its_provenance(profiled):
    path = profiled[0]
    with np.load(path) as npz:
        assert [k for k in npz.files if "profile" in k] == [] and "profile" not in str(npz["meta"])
    casebase = Casebase.load(path)
    made = casebase.meta["profile"]["provenance"]
    assert made["casebase"] == path.name and made["casebase_sha256"] == file_sha256(path)
    assert made["judge"] == "Stockfish 15.1" and (made["depth"], made["multipv"]) == (12, 10)
    assert (made["play_judge_depth"], made["games_judge_depth"]) == (10, 10)
    played = choose_model(casebase)  # the records were made with the model Model auto plays
    assert (
        made["model_sha256"]
        == file_sha256(played.path)
        == casebase.meta["profile"]["play"]["fit"]["model"]
    )


def test_a_casebase_built_again_is_the_same_file_and_keeps_its_profile(
    kosteniuk_casebase, expert_names, data_dir, profiled, tmp_path
):
    again = tmp_path / profiled[0].name
    build(
        [data_dir / "experts" / "kosteniuk-2200.pgn"],
        GameFilter(expert_names["kosteniuk-2200"]),
        workers=1,
        progress=False,
    ).save(again)
    assert again.read_bytes() == kosteniuk_casebase.read_bytes() == profiled[0].read_bytes()
    shutil.copy(profile_path(profiled[0]), profile_path(again))
    assert Casebase.load(again).profile_problem is None and Casebase.load(again).profile is not None


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (
            lambda sound, bad: bad.write_bytes(sound.read_bytes()[:1000]),
            "kosteniuk-2200.profile.npz: not a profile file",
        ),
        (lambda sound, bad: bad.write_bytes(b"not a zip"), "not a profile file (not a zip file"),
        (
            lambda sound, bad: shutil.copy(generic_model(), bad),
            "format 'cbr-chess-model' is not 'cbr-chess-profile'",
        ),
        (
            lambda sound, bad: np.savez(bad, x=np.zeros(3)),
            "without a 'format' entry: another program's file",
        ),
        (
            lambda sound, bad: rewrite_npz(sound, bad, format=np.array("cbr-chess-casebase")),
            "format 'cbr-chess-casebase' is not 'cbr-chess-profile'",
        ),
        (
            lambda sound, bad: rewrite_npz(sound, bad, version=np.array(2, np.int64)),
            "format version 2 is newer than",
        ),
    ],
)
def test_a_foreign_or_damaged_profile_file_costs_the_profile_only(profiled, tmp_path, make, says):
    path = tmp_path / profiled[0].name
    shutil.copy(profiled[0], path)
    make(profile_path(profiled[0]), profile_path(path))
    casebase = Casebase.load(path)
    assert casebase.profile is None and "profile" not in casebase.meta and len(casebase) == 5613
    assert casebase.profile_problem is not None and says in casebase.profile_problem


def test_a_profile_beside_a_casebase_built_otherwise_is_refused_saying_so(profiled, tmp_path):
    path = tmp_path / profiled[0].name
    cases = Casebase.load(profiled[0])
    cases.meta["options"] = {**cases.meta.get("options", {}), "note": "built otherwise"}
    cases.save(path)
    shutil.copy(profile_path(profiled[0]), profile_path(path))
    casebase = Casebase.load(path)
    assert casebase.profile is None and casebase.profile_stale
    assert casebase.profile_problem == (
        f"kosteniuk-2200.profile.npz: made for another casebase (kosteniuk-2200.npz, SHA-256"
        f" {file_sha256(profiled[0])[:12]}…) than this one (SHA-256 {file_sha256(path)[:12]}…): the"
        " casebase was built again or changed since; profile it again"
    )


def test_records_made_with_another_style_model_are_refused_naming_both(profiled):
    casebase = Casebase.load(profiled[0])
    # the shipped network, or without lc0's backend the personal 8x96
    chosen = choose_model(casebase)
    assert chosen.path != str(generic_model())
    assert calibrate(casebase, load_model(chosen.path)).source.startswith(
        "Alexandra Kosteniuk's error profile"
    )
    generic = StyleModel.load(generic_model())
    source = calibrate(casebase, generic).source
    assert source.startswith(
        "error profile of kosteniuk-2200.npz refused: its records of the engine's own choices were"
        f" made with another style model (SHA-256 {file_sha256(chosen.path)[:12]}…) than the one it"
        f" plays now, {generic_model().name} ({file_sha256(generic_model())[:12]}…)"
    )
    assert source.endswith("the shipped experts' typical parameters")


def test_a_casebase_holding_its_profile_inside_is_read_said_once_and_split(
    profiled, tmp_path, caplog, capsys
):
    path = inside(profiled[0], tmp_path / profiled[0].name)
    with caplog.at_level(logging.WARNING, logger="casebase"):
        old = Casebase.load(path)
        Casebase.load(path)
    assert (
        old.profile_inside
        and old.profile_problem is None
        and "provenance" not in old.meta["profile"]
    )
    told = [
        r.getMessage() for r in caplog.records if "holds its error profile inside" in r.getMessage()
    ]
    assert told == [old.profile_notice] and f"python -m casebase split {path}" in told[0]
    assert casebase_main(["split", str(path)]) == 0
    assert (
        capsys.readouterr().out
        == f"{path}: the cases stay, the error profile is now in {profile_path(path)}.\n"
    )
    assert path.read_bytes() == profiled[0].read_bytes()  # the cases as the new format writes them
    split = Casebase.load(path)
    assert not split.profile_inside and split.profile_problem is None
    made = split.meta["profile"].pop("provenance")
    assert split.meta["profile"] == old.meta["profile"] and made["casebase_sha256"] == file_sha256(
        path
    )
    assert made["model_sha256"] == old.meta["profile"]["play"]["fit"]["model"]
    assert split.profile is not None and old.profile is not None
    assert split.profile.keys() == old.profile.keys()
    assert all(np.array_equal(split.profile[k], old.profile[k]) for k in old.profile)
    assert (
        casebase_main(["split", str(path)]) == 1
        and "holds no error profile inside" in capsys.readouterr().err
    )


def test_the_engine_plays_a_profile_held_inside_and_says_once_to_split_it(profiled, tmp_path):
    path = inside(profiled[0], tmp_path / profiled[0].name)
    lines = converse(
        [
            "uci",
            "setoption name Selection value calibrated",
            "isready",
            "position startpos",
            "go depth 1",
            "ucinewgame",
            "isready",
            "position startpos",
            "go depth 1",
        ],
        "--casebase",
        str(path),
    )
    told = [line for line in lines if "holds its error profile inside" in line]
    assert told == [f"info string {Casebase.load(path, tell=False).profile_notice}"]
    assert any("Alexandra Kosteniuk's error profile" in line for line in lines)


def test_a_profile_file_whose_provenance_is_not_an_object_is_refused(profiled, tmp_path):
    path = tmp_path / profiled[0].name
    shutil.copy(profiled[0], path)
    casebase = Casebase.load(profiled[0])
    assert casebase.profile is not None
    write_profile(
        profile_path(path), casebase.profile, {**casebase.meta["profile"], "provenance": "garbage"}
    )
    assert Casebase.load(path).profile_problem == (
        "kosteniuk-2200.profile.npz: the error profile's provenance is a str, not a JSON object"
    )


@pytest.mark.parametrize("casebase", ["", "."])
def test_a_casebase_option_without_a_file_name_has_no_profile_beside_it_to_look_for(casebase):
    lines = converse(["uci", "isready", "position startpos", "go depth 1"], "--casebase", casebase)
    assert not [line for line in lines if "error in" in line or "cannot make the agent" in line], (
        lines
    )
    assert lines[-1].startswith("bestmove ")


def test_a_folders_casebases_leave_out_the_profiles_and_models_beside_them(tmp_path):
    # `tournament run --casebases casebases/*.npz` and the web's expert list read a folder this way
    from engine.style.personal import casebase_files

    names = ["a.npz", "a.profile.npz", "a.model.npz", "a.embed.npz", "b.npz"]
    assert casebase_files([tmp_path / n for n in names]) == [tmp_path / "a.npz", tmp_path / "b.npz"]
