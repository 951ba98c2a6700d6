"""A damaged personal model beside a copy of a shipped casebase is refused with its reason, and the
generic model plays: never, silently, the shipped personal model (issue #28, item 4;
docs/personal.md §2)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import chess
import numpy as np
import pytest
from damaged import MODEL_DAMAGE, damaged_model, npz_bytes
from uci_helpers import bestmoves, converse, strings

from casebase.format import Casebase
from engine.style.model import generic_model
from engine.style.personal import beside, choose_model, personal_folder


@pytest.fixture
def shipped_copy(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    """A copy of a shipped casebase (built as ``make casebases`` builds it), under its own name."""
    path = tmp_path / "kosteniuk-2200.npz"
    shutil.copy(kosteniuk_casebase, path)
    # the shipped personal model the engine could fall back on
    assert (personal_folder() / path.name).is_file()
    return path


#: The personal 8x96 plays where no lc0 network is shipped (with one, Model auto plays it).
pytestmark = pytest.mark.usefixtures("without_networks")

GAME = [
    "uci",
    "setoption name Seed value 1",
    "isready",
    "position startpos moves e2e4 e7e5",
    "go depth 1",
]


def test_without_a_model_beside_it_the_shipped_personal_model_plays(shipped_copy):
    choice = choose_model(Casebase.load(shipped_copy))
    assert choice.personal and choice.path == str(personal_folder() / shipped_copy.name)


@pytest.mark.parametrize("damage", MODEL_DAMAGE)
def test_a_damaged_model_beside_the_casebase_is_refused_and_the_generic_model_plays(
    shipped_copy, damage
):
    beside(shipped_copy).write_bytes(damaged_model(personal_folder() / shipped_copy.name, damage))
    lines = converse(GAME, "--casebase", str(shipped_copy))
    said = strings(lines)
    assert "personal model of" not in said and "personal 8x96" not in said
    refused = [
        line
        for line in lines
        if line.startswith("info string model: the generic model (cannot load")
    ]
    assert len(refused) == 1 and MODEL_DAMAGE[damage] in refused[0]  # told once, with its reason
    choice = choose_model(Casebase.load(shipped_copy))
    assert (
        not choice.personal
        and choice.path == str(generic_model())
        and refused[0] == f"info string {choice.note}"
    )
    assert choice.note.startswith(
        f"model: the generic model (cannot load the personal model: {beside(shipped_copy)}:"
    )
    assert choice.note.endswith("; the shipped personal model is not played in its place)")
    assert "the style model (8x96" in said  # the generic model proposes
    # no error said (the strength line names "the expert's error model" and "an error profile")
    assert "error" not in said.lower().replace("error model", "").replace("error profile", "")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(bestmoves(lines)[-1]) in board.legal_moves


@pytest.mark.parametrize(
    ("key", "value"), [("top1", "high"), ("generic_top1", None), ("top1", float("nan"))]
)
def test_a_personal_model_whose_numbers_are_damaged_is_refused_too(shipped_copy, key, value):
    with np.load(personal_folder() / shipped_copy.name) as npz:
        arrays = dict(npz)
    meta = json.loads(str(arrays["meta"]))
    meta["personal"][key] = value
    arrays["meta"] = np.array(json.dumps(meta))
    beside(shipped_copy).write_bytes(npz_bytes(arrays))
    choice = choose_model(Casebase.load(shipped_copy))
    assert not choice.personal and f"damaged metadata (personal {key} is" in choice.note


def test_what_numpy_itself_raises_on_a_damaged_model_is_a_refusal_too(shipped_copy):
    with np.load(personal_folder() / shipped_copy.name) as npz:
        arrays = dict(npz)
    # not a number
    beside(shipped_copy).write_bytes(npz_bytes({**arrays, "version": np.array([1, 2, 3])}))
    choice = choose_model(Casebase.load(shipped_copy))
    assert not choice.personal
    assert (
        f"cannot load the personal model: {beside(shipped_copy)}: not a model file, or a damaged"
        " one (" in choice.note
    )
    header = io.BytesIO()  # an array claiming four terabytes
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f2", "fortran_order": False, "shape": (2**41,)}
    )
    with zipfile.ZipFile(beside(shipped_copy), "w") as zf:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array)
            zf.writestr(f"{name}.npy", header.getvalue() if name == "head.b" else buffer.getvalue())
    choice = choose_model(Casebase.load(shipped_copy))
    # refused unread
    assert not choice.personal and "head.b.npy declares (2199023255552,) float16" in choice.note


def test_a_model_beside_it_made_from_another_casebase_is_passed_over_and_named(shipped_copy):
    shutil.copy(personal_folder() / "gaprindashvili-2300.npz", beside(shipped_copy))
    choice = choose_model(Casebase.load(shipped_copy))
    assert choice.personal and choice.path == str(personal_folder() / shipped_copy.name)
    assert f"; passed over: {beside(shipped_copy)} was made from another casebase (" in choice.note
