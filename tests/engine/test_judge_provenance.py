"""The engine says once when its judge is not the engine the expert's error profile was judged by
(issue #42, item 3; docs/strength.md §3, "Another judge"): the calibrated choice was set on that
judge's scores, and another version scores on another scale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import chess
import chess.engine
import pytest
from judge_helpers import scripted
from profile_helpers import PLAYED, PROFILE
from uci_helpers import popen

from casebase.format import Casebase
from engine.strength.profile import Profile
from profiling import ProfileError
from profiling.journal import Journal
from profiling.pipeline import add_play, make_profile
from profiling.play import PlaySettings, record_play

pytestmark = [
    # a profile judged and played by a scripted judge, then games through the engine
    pytest.mark.slow,
    # its module fixture is built once, on one worker
    pytest.mark.xdist_group("judge-provenance"),
]

#: What the note says, whatever the judges' names.
SAID = "error profile was judged by"


@pytest.fixture(scope="module")
def judged(kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Kosteniuk's casebase profiled and played by the scripted judge, whose ``id name`` is
    ``Scripted``: the file and the judge."""
    folder = tmp_path_factory.mktemp("judged")
    path = folder / "kosteniuk-2200.npz"
    shutil.copy(kosteniuk_casebase, path)
    judge = scripted(folder)
    make_profile(Casebase.load(path), PROFILE, judge, progress=False)
    add_play(Casebase.load(path), PLAYED, judge, folder / "play.jsonl", progress=False)
    return path, judge


def said_at_each_move(casebase: Path, judge: str, explain: str, moves: int = 3) -> list[list[str]]:
    """The ``info string`` lines of each of ``moves`` moves the engine plays from the start, with
    ``judge`` (Selection auto: calibrated, with a judge and a profiled casebase)."""
    engine = popen("--casebase", str(casebase), "--judge", judge)
    board, said = chess.Board(), []
    try:
        engine.configure({"Seed": 1, "Explain": explain})
        for _ in range(moves):
            with engine.analysis(board, chess.engine.Limit(depth=2)) as analysis:
                said.append([info["string"] for info in analysis if "string" in info])
                best = analysis.wait().move
            assert best is not None
            board.push(best)
    finally:
        engine.quit()
    return said


def test_a_judge_of_another_name_than_the_profile_s_is_told_once(judged, tmp_path):
    judge = scripted(tmp_path, "--name", "Stockfish 18")
    said = said_at_each_move(judged[0], judge, "text")
    notes = [[line for line in lines if SAID in line] for lines in said]
    assert notes == [
        [
            "the judge is Stockfish 18 but Alexandra Kosteniuk's error profile was judged by"
            " Scripted: the calibrated strength may differ (strength.md §3, another judge)"
        ],
        [],
        [],
    ], said
    # it played calibrated
    assert any("drawn by the chooser at strength" in line for line in said[0]), said[0]


def test_the_note_is_a_typed_json_note(judged, tmp_path):
    judge = scripted(tmp_path, "--name", "Stockfish 18")
    records = [
        [json.loads(line.removeprefix("json ")) for line in lines if line.startswith("json ")]
        for lines in said_at_each_move(judged[0], judge, "json", moves=2)
    ]
    notes = [
        [note for record in move for note in record["notes"] if note["kind"] == "other_judge"]
        for move in records
    ]
    assert [len(n) for n in notes] == [1, 0], records
    note = notes[0][0]
    assert (note["judge"], note["profile_judge"], note["expert"]) == (
        "Stockfish 18",
        "Scripted",
        "Alexandra Kosteniuk",
    )
    assert SAID in note["text"]


def test_the_profile_s_own_judge_is_not_told(judged, tmp_path):
    said = said_at_each_move(judged[0], scripted(tmp_path), "text")
    assert not any(SAID in line for lines in said for line in lines), said
    assert any("drawn by the chooser at strength" in line for line in said[0]), said[0]


def test_the_choices_made_with_another_judge_are_scored_by_the_profile_s(judged, tmp_path):
    # experiments.judges: the engine plays with another judge, its moves' losses stay on the
    # profile's scale
    path, own_judge = judged
    casebase = Casebase.load(path)
    profile = Profile.of(casebase)
    assert profile is not None
    other, settings = (
        scripted(tmp_path, "--name", "Stockfish 18"),
        PlaySettings(positions=4, judge_depth=2),
    )
    with pytest.raises(ProfileError, match="judged by Scripted, not Stockfish 18"):
        record_play(
            casebase,
            profile,
            settings,
            other,
            Journal(tmp_path / "alone.jsonl", settings.header(casebase, profile)),
            progress=False,
        )
    journal = Journal(tmp_path / "refereed.jsonl", settings.header(casebase, profile))
    entries = record_play(
        casebase, profile, settings, other, journal, referee=own_judge, progress=False
    )
    assert len(entries) == 4 and journal.header["judge"] == "Scripted"
    assert all(len(e["moves"]) == len(e["judged"]) > 0 for e in entries)


def test_an_engine_judge_that_cannot_start_is_refused_before_any_position_is_played(
    judged, tmp_path
):
    # not left to the built-in search, which at the record's depth (10) would take hours a position
    path, own_judge = judged
    casebase = Casebase.load(path)
    profile = Profile.of(casebase)
    assert profile is not None
    settings = PlaySettings(positions=2, judge_depth=2)
    journal = Journal(tmp_path / "none.jsonl", settings.header(casebase, profile))
    with pytest.raises(ProfileError, match="judge .*no-such-engine could not be started"):
        record_play(
            casebase,
            profile,
            settings,
            str(tmp_path / "no-such-engine"),
            journal,
            referee=own_judge,
            progress=False,
        )
    assert not journal.entries and not journal.path.exists()
