"""The expert's error profile's command (``python -m profiling``): its report picture, its message
and exit status on a bad judge, the report of every profile of a folder (docs/strength.md §1)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from judge_helpers import scripted

from casebase.format import Casebase
from casebase.phases import PHASES
from engine.strength.profile import MISTAKE_CP, Profile
from profiling import ProfileError
from profiling.__main__ import main as profiling_main
from profiling.judging import POSITIONS, Settings
from profiling.pipeline import make_profile
from profiling.report import LOSS_AXIS, report_figure

# the profile's commands judge positions through outside engines' processes
pytestmark = pytest.mark.slow


@pytest.fixture
def kosteniuk(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    path = tmp_path / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, path)
    return path


# -- the command and the picture -------------------------------------------------------------


def test_the_command_reports_a_picture_and_exits_1_with_a_message_on_a_bad_judge(
    kosteniuk, tmp_path, capsys
):
    assert (
        profiling_main(
            [str(kosteniuk), "--judge", str(tmp_path / "nothing"), "--positions", "3", "--quiet"]
        )
        == 1
    )
    assert (
        "profiling: error: judge " in (err := capsys.readouterr().err)
        and "could not be started" in err
    )
    # no profile, no judge
    assert profiling_main([str(kosteniuk), "--report", str(tmp_path / "none.png")]) == 1
    assert (
        f"{POSITIONS} positions are still to be judged: give the engine" in capsys.readouterr().err
    )
    assert profiling_main([str(tmp_path / "missing.npz"), "--quiet"]) == 1
    assert "no such casebase file" in capsys.readouterr().err
    assert (
        profiling_main(
            [
                str(kosteniuk),
                "--judge",
                scripted(tmp_path),
                "--positions",
                "5",
                "--depth",
                "2",
                "--multipv",
                "3",
                "--report",
                str(tmp_path / "k.png"),
            ]
        )
        == 0
    )
    assert (tmp_path / "k.png").read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    assert "implied rating" in out and "report written to" in out
    # the profile is there: the picture again without a judge
    assert profiling_main([str(kosteniuk), "--report", str(tmp_path / "again.png"), "--quiet"]) == 0
    assert (tmp_path / "again.png").exists()


def test_the_report_draws_each_profile_of_the_folder(kosteniuk, tmp_path):
    judge = scripted(tmp_path, "--score", "e2e4=30", "--others", "-60")
    with pytest.raises(ProfileError, match="no error profile to draw"):
        report_figure(Casebase.load(kosteniuk))
    other = tmp_path / "other.npz"
    shutil.copy(kosteniuk, other)
    make_profile(
        Casebase.load(other),
        Settings(positions=7, depth=2, multipv=3, seed=1),
        judge,
        progress=False,
    )
    make_profile(
        Casebase.load(kosteniuk), Settings(positions=9, depth=2, multipv=3), judge, progress=False
    )
    (tmp_path / "model.npz").write_bytes(b"not a casebase")  # passed over
    own, neighbour = (Profile.of(Casebase.load(p)) for p in (kosteniuk, other))
    assert own is not None and neighbour is not None
    profiles = [own, neighbour]  # this one first

    figure = report_figure(Casebase.load(kosteniuk))
    axes = figure.get_axes()
    assert [ax.get_title() for ax in axes] == [
        *(f"{p}: moves losing at least x" for p in PHASES),
        "the judge's first choice (% of moves)",
        f"moves losing {MISTAKE_CP} cp or more (%)",
        "implied rating",
    ]
    # one line a profile with moves in the phase
    for ax, phase in zip(axes[:3], PHASES, strict=True):
        drawn = [p for p in profiles if (p.phases == phase).any()]
        assert len(ax.get_lines()) == len(drawn)
        for line, profile in zip(ax.get_lines(), drawn, strict=True):
            lost = profile.cp_loss[profile.phases == phase]
            assert line.get_xdata().tolist() == LOSS_AXIS.tolist()
            assert np.allclose(line.get_ydata(), [100 * (lost >= x).mean() for x in LOSS_AXIS])
        if drawn and drawn[0] is own:
            assert ax.get_lines()[0].get_color() == "C3"  # this expert in red, the others grey
    for ax, key in ((axes[3], "first_choice"), (axes[4], "mistakes")):
        assert [bar.get_width() for bar in ax.patches] == pytest.approx(
            [100 * p.meta["all"][key] for p in profiles]
        )
        assert [t.get_text() for t in ax.get_yticklabels()] == [p.casebase.expert for p in profiles]
    points = [
        c.get_offsets()
        for c in axes[5].collections
        if c.get_offsets().shape[0] and type(c).__name__ == "PathCollection"
    ]
    assert np.allclose(points[0][:, 0], [p.meta["rating"]["implied"] for p in profiles])
    assert np.allclose(points[1][:, 0], [p.casebase.elo for p in profiles])
    assert (
        "Error profile of Alexandra Kosteniuk: 9 positions judged by Scripted"
        in figure.get_suptitle()
    )


def test_without_matplotlib_the_picture_says_how_to_install_it(kosteniuk, tmp_path, monkeypatch):
    make_profile(
        Casebase.load(kosteniuk),
        Settings(positions=4, depth=2, multipv=3),
        scripted(tmp_path),
        progress=False,
    )
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    with pytest.raises(ProfileError, match=r"pip install 'cbr-chess\[plots\]'"):
        report_figure(Casebase.load(kosteniuk))
