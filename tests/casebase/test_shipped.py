"""The shipped experts without make (casebase/shipped.py, player/shipped.py, ``cbr-chess setup``),
and an installed engine making a shipped expert's casebase on its first use
(engine/uci/resources.py): fast, in this tree; tests/docs/test_install.py does it with the wheel in
a fresh environment."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

import common.paths
import engine.uci.resources
from casebase.format import Casebase
from casebase.shipped import JOURNALS, shipped_data, shipped_experts, shipped_name
from engine.strength.errormodel import MAX_SENSITIVITY, ErrorModel
from engine.style.loader import default_model
from engine.style.personal import casebase_digest, provenance
from engine.uci.protocol import UciEngine
from player.shipped import current_casebase, current_embeddings, current_profile, setup


def test_the_shipped_experts_are_the_registry_s_with_their_games_and_journals(data_dir):
    experts = shipped_experts()
    assert shipped_data() == data_dir  # a clone reads data/, where make does
    assert (
        list(experts)[:3] == ["kosteniuk-2200", "gaprindashvili-2300", "paehtz-2400"]
        and len(experts) == 10
    )
    assert (
        experts["carlsen-2800"].player == "Magnus Carlsen" and experts["carlsen-2800"].pgn.is_file()
    )
    assert set(experts["carlsen-2800"].journals()) == set(JOURNALS)
    # no games record ships for him
    assert set(experts["postny-2600"].journals()) == {"journal", "play"}
    assert shipped_experts(data_dir / "nowhere") == {}


def test_a_shipped_name_is_a_casebase_of_the_casebase_folder(tmp_path):
    assert shipped_name(tmp_path / "carlsen-2800.npz", tmp_path) == "carlsen-2800"
    assert shipped_name(tmp_path / "carlsen-2800.npz", tmp_path / "other") is None
    assert shipped_name(tmp_path / "carlsen-2800.profile.npz", tmp_path) is None
    assert shipped_name(tmp_path / "nobody-2000.npz", tmp_path) is None


@pytest.mark.slow
@pytest.mark.scenario  # builds a casebase of 28,000 cases and fits its profile with the network
def test_rivergrove_s_profile_fit_is_finite_and_said_to_be_at_its_bound(tmp_path):
    # rivergrove's likelihood with the prior grows without end as s grows: the fit ran to the
    # largest float (s 1.8e308, c 0.00) before it was bounded (issue #74)
    assert setup(["rivergrove-lichess1800"], workers=1, folder=tmp_path, tell=lambda _: None) == []
    casebase = Casebase.load(tmp_path / "rivergrove-lichess1800.npz")
    fitted = casebase.meta["profile"]["play"]["fit"]
    assert fitted["sensitivity"] == pytest.approx(MAX_SENSITIVITY)
    assert 0 < fitted["consistency"] < 1 and 0 < fitted["prior_weight"] < 1
    model = ErrorModel(fitted["sensitivity"], fitted["consistency"], fitted["prior_weight"])
    assert "s 10.0000 (its bound: the choices barely follow the losses)" in model.describe()


@pytest.mark.slow  # it fits a profile (seconds)
@pytest.mark.scenario  # and makes the embeddings of a casebase: twenty seconds, make test-all
def test_setup_makes_the_casebase_the_expert_s_own_network_names(tmp_path):
    assert setup(["kosteniuk-2200"], workers=1, folder=tmp_path, tell=lambda _: None) == []
    path = tmp_path / "kosteniuk-2200.npz"
    casebase = Casebase.load(path)
    network = Path(str(engine.style.personal.personal_folder())) / "kosteniuk-2200.pb.gz"
    # make's options, exactly
    assert provenance(network)["personal"]["casebase"] == casebase_digest(casebase)
    assert current_casebase(shipped_experts()["kosteniuk-2200"], path) and current_profile(path)
    told: list[str] = []
    assert setup(["kosteniuk-2200"], folder=tmp_path, tell=told.append) == []
    assert [line.split(": ", 1)[1].split(" (")[0] for line in told] == [
        "casebase kept",
        "error profile kept",
    ]
    # made only when asked: minutes for a large casebase
    assert not current_embeddings(path, default_model()[0])
    told.clear()
    assert setup(["kosteniuk-2200"], workers=2, folder=tmp_path, embed=True, tell=told.append) == []
    assert current_embeddings(path, default_model()[0]) and any(
        ": embeddings (" in line for line in told
    )
    told.clear()
    assert setup(["kosteniuk-2200"], folder=tmp_path, embed=True, tell=told.append) == []
    assert [line.split(": ", 1)[1].split(" (")[0] for line in told] == [
        "casebase kept",
        "embeddings kept",
        "error profile kept",
    ]
    assert setup(["nobody-2000"], folder=tmp_path) == [
        f"no shipped expert 'nobody-2000': choose among {', '.join(shipped_experts())}"
    ]


@pytest.fixture
def installed_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The engine as an installed one sees it: the casebase folder in the user's data folder (here,
    empty)."""
    monkeypatch.setattr(common.paths, "data_folder", lambda: tmp_path)
    monkeypatch.setattr(engine.uci.resources, "in_source_tree", lambda: False)
    return tmp_path / "casebases"


def test_an_installed_engine_makes_a_shipped_expert_on_first_use_saying_so_first(
    installed_engine, kosteniuk_casebase
):
    asked: list[str] = []

    def provide(name: str) -> str | None:
        asked.append(name)
        installed_engine.mkdir(exist_ok=True)
        shutil.copy(kosteniuk_casebase, installed_engine / f"{name}.npz")
        return None

    out = io.StringIO()
    engine_ = UciEngine({"Casebase": "kosteniuk-2200", "Mode": "pure"}, out=out, provide=provide)
    engine_.run(["isready", "isready", "position startpos", "go nodes 10"])
    lines = out.getvalue().splitlines()
    assert asked == ["kosteniuk-2200"]
    assert lines[0].startswith(
        "info string kosteniuk-2200: its casebase is not made yet: making it"
    )
    assert (
        lines[1].startswith("info string kosteniuk-2200: casebase made in")
        and lines[2] == "readyok"
    )
    assert "pure mode: casebase Alexandra Kosteniuk (5613 cases" in out.getvalue()


def test_a_first_use_that_fails_is_told_once_with_the_command_that_makes_it(installed_engine):
    asked: list[str] = []

    def provide(name: str) -> str | None:
        asked.append(name)
        return f"`cbr-chess setup {name}` failed (exit status 1; why: on stderr)"

    out = io.StringIO()
    UciEngine({"Casebase": "kosteniuk-2200"}, out=out, provide=provide).run(["isready", "isready"])
    assert asked == ["kosteniuk-2200"]
    assert (
        "(`cbr-chess setup kosteniuk-2200` failed (exit status 1; why: on stderr); make it with"
        " `cbr-chess setup kosteniuk-2200`); the style model proposes alone"
    ) in out.getvalue()
    out = io.StringIO()
    UciEngine({"Casebase": "nobody"}, out=out, provide=provide).run(["isready"])
    assert (
        asked == ["kosteniuk-2200"]
        and "python -m casebase build GAMES.pgn --player NAME -o nobody" in out.getvalue()
    )
