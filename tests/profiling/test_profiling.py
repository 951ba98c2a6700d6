"""The expert's error profile (``python -m profiling``): judging, the journal, the profile stored in
the casebase (the command and the report picture: test_profiling_command.py; docs/strength.md
§1)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from judge_helpers import scripted

from casebase.format import Casebase, encode_move
from casebase.info import describe
from casebase.phases import PHASES
from common.files import file_sha256
from engine.strength.profile import MISTAKE_CP, Profile
from parallel.cluster import Failed
from profiling import ProfileError, workers
from profiling.__main__ import main as profiling_main
from profiling.judging import PositionJudge, Settings, sample
from profiling.pipeline import make_profile
from profiling.workers import Verdict, Where, verdicts

# the profile's commands judge positions through outside engines' processes
pytestmark = pytest.mark.slow


@pytest.fixture
def kosteniuk(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    path = tmp_path / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, path)
    return path


# -- judging and the journal -----------------------------------------------------------------


def test_a_judge_that_fails_loses_no_finished_work_and_the_same_command_goes_on(
    kosteniuk, tmp_path
):
    journal = tmp_path / "k.jsonl"
    settings = Settings(positions=12, depth=3, multipv=4)
    crashing = scripted(tmp_path, "--crash-after", "7")
    with pytest.raises(ProfileError, match="kept in .*k.jsonl: run the same command again"):
        make_profile(Casebase.load(kosteniuk), settings, crashing, journal, progress=False)
    kept = journal.read_text().splitlines()
    assert len(kept) >= 4  # the header and the positions finished before the crash
    assert "profile" not in Casebase.load(kosteniuk).meta
    # a killed writer's half line is ignored, and the rest is judged where it stopped
    with open(journal, "a") as f:
        f.write('{"key": "half')
    good = scripted(tmp_path, "--score", "e2e4=30")
    profile = make_profile(Casebase.load(kosteniuk), settings, good, journal, progress=False)
    lines = [
        json.loads(line)
        for line in journal.read_text().splitlines()[1:]
        if line.startswith('{"key": "') and line.endswith("}")
    ]
    assert [json.loads(line) for line in kept[1:]] == lines[: len(kept) - 1]  # kept as they were
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys))  # none judged twice
    assert len(profile.rows) == 12
    loaded = Profile.of(Casebase.load(kosteniuk))
    assert (
        loaded is not None and loaded.meta["judge"] == "Scripted" and loaded.meta["positions"] == 12
    )


def test_the_profile_needs_no_judge_where_the_journal_holds_every_position(kosteniuk, tmp_path):
    journal = tmp_path / "k.jsonl"
    settings = Settings(positions=6, depth=2, multipv=3)
    make_profile(Casebase.load(kosteniuk), settings, scripted(tmp_path), journal, progress=False)
    # all there: no judge
    make_profile(Casebase.load(kosteniuk), settings, None, journal, progress=False)
    with pytest.raises(ProfileError, match="still to be judged: give the engine"):
        make_profile(
            Casebase.load(kosteniuk),
            Settings(positions=9, depth=2, multipv=3),
            None,
            journal,
            progress=False,
        )
    with pytest.raises(ProfileError, match="other settings"):
        make_profile(
            Casebase.load(kosteniuk),
            Settings(positions=6, depth=5, multipv=3),
            None,
            journal,
            progress=False,
        )


def test_a_held_out_casebase_draws_the_same_positions_where_it_has_their_games(kosteniuk, heldout):
    settings = Settings()
    full_rows, full_keys = sample(Casebase.load(kosteniuk), settings)
    held_rows, held_keys = sample(Casebase.load(heldout[0]), settings)
    kept = set(held_keys)
    # the same order, less the held-out games
    assert [k for k in full_keys if k in kept] == held_keys
    assert len(held_keys) < len(full_keys)
    assert sample(Casebase.load(kosteniuk), Settings(seed=1))[1] != full_keys


def journal_entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def test_judging_on_two_workers_writes_the_same_entries_and_profile_as_one(kosteniuk, tmp_path):
    two = tmp_path / "two" / kosteniuk.name
    two.parent.mkdir()
    shutil.copy(kosteniuk, two)
    judge = scripted(tmp_path)
    # seed 25 draws a forced move 7th: its skip entry is the driver's, between judged positions
    flags = [
        "--judge",
        judge,
        "--positions",
        "12",
        "--depth",
        "2",
        "--multipv",
        "3",
        "--seed",
        "25",
        "--quiet",
    ]
    assert profiling_main([str(kosteniuk), *flags, "--journal", str(tmp_path / "one.jsonl")]) == 0
    assert (
        profiling_main(
            [str(two), *flags, "--journal", str(tmp_path / "two.jsonl"), "--workers", "2"]
        )
        == 0
    )
    one_entries, two_entries = (
        journal_entries(tmp_path / "one.jsonl"),
        journal_entries(tmp_path / "two.jsonl"),
    )
    assert sum("skip" in entry for entry in one_entries) == 1 and len(one_entries) == 13
    assert sorted(one_entries, key=lambda e: e["key"]) == sorted(
        two_entries, key=lambda e: e["key"]
    )
    assert (tmp_path / "one.jsonl").read_text().split("\n")[0] == (
        tmp_path / "two.jsonl"
    ).read_text().split("\n")[0]
    one_profile, two_profile = Profile.of(Casebase.load(kosteniuk)), Profile.of(Casebase.load(two))
    assert one_profile is not None and two_profile is not None
    for name in ("rows", "moves", "scores", "played"):
        assert np.array_equal(getattr(one_profile, name), getattr(two_profile, name)), name
    assert (
        one_profile.meta["fit"] == two_profile.meta["fit"]
        and two_profile.meta["judge"] == "Scripted"
    )


def test_a_judge_that_fails_in_a_worker_process_ends_as_in_this_one(kosteniuk, tmp_path):
    journal, settings = tmp_path / "k.jsonl", Settings(positions=12, depth=3, multipv=4)
    with pytest.raises(
        ProfileError,
        match=r"judge Scripted failed \(.*\); the \d+ positions judged are kept in .*k.jsonl",
    ):
        make_profile(
            Casebase.load(kosteniuk),
            settings,
            scripted(tmp_path, "--crash-after", "5"),
            journal,
            progress=False,
            where=Where(workers=2),
        )
    kept = journal_entries(journal)
    assert kept and all("moves" in entry for entry in kept)
    make_profile(
        Casebase.load(kosteniuk),
        settings,
        scripted(tmp_path),
        journal,
        progress=False,
        where=Where(workers=2),
    )
    assert journal_entries(journal)[: len(kept)] == kept


def test_positions_that_fail_on_the_cluster_are_reported_with_their_reason_after_the_others(
    monkeypatch,
):
    done = Verdict("a", "Scripted", {"key": "a"})
    lost = Failed(("b", "c"), "ClusterError: node vm (pid 7): /opt/judge is not there")
    monkeypatch.setattr(
        workers,
        "distribute",
        lambda *args, **kwargs: ("the Ray cluster at auto", iter([lost, done])),
    )
    got = []
    with pytest.raises(
        ProfileError,
        match=r"^2 positions failed on the Ray cluster at auto: ClusterError: node vm"
        r" \(pid 7\): /opt/judge is not there \(1 tasks\); kept$",
    ):
        for verdict in verdicts(
            PositionJudge,
            (),
            ["a", "b", "c"],
            Where(cluster="auto"),
            lambda what: ProfileError(f"{what}; kept"),
        ):
            got.append(verdict)
    assert got == [done]


# -- the profile beside the casebase -----------------------------------------------------------


def test_the_stored_profile_round_trips_and_info_shows_it(kosteniuk, tmp_path):
    casebase = Casebase.load(kosteniuk)
    assert "error profile: none (python -m profiling FILE.npz" in describe(casebase)
    make_profile(
        casebase,
        Settings(positions=8, depth=2, multipv=3),
        scripted(tmp_path, "--score", "e2e4=30"),
        progress=False,
    )
    # the default journal goes once stored
    assert not kosteniuk.with_suffix(".profile.jsonl").exists()
    loaded = Casebase.load(kosteniuk)
    profile = Profile.of(loaded)
    assert profile is not None and len(profile.rows) == 8
    assert profile.moves[np.arange(8), profile.played].tolist() == [
        encode_move(loaded.move(int(r))) for r in profile.rows
    ]
    line = next(x for x in describe(loaded).splitlines() if x.startswith("error profile:"))
    assert "implied rating" in line and "8 positions judged by Scripted at depth 2" in line
    assert f"lose {MISTAKE_CP} cp or more" in line and line.endswith(
        "; no play-time record (python -m profiling FILE.npz --judge PATH --play J.jsonl makes one)"
    )
    made = next(x for x in describe(loaded).splitlines() if x.startswith("profile file:"))
    # the profile's own file, its provenance
    assert made.startswith("profile file:  kosteniuk.profile.npz, made ")
    assert made.endswith(f" for kosteniuk.npz (SHA-256 {file_sha256(kosteniuk)[:12]}…)")
    assert (
        len(loaded) == len(casebase)
        and (np.asarray(loaded.boards) == np.asarray(casebase.boards)).all()
    )
    # the phases are casebase.phases's: every judged position in one of them
    stats = profile.meta["phases"]
    assert set(stats) == {str(p) for p in PHASES}
    assert sum(stats[p]["positions"] for p in stats) == 8
    assert [stats[str(p)]["positions"] for p in PHASES] == [
        int((profile.phases == p).sum()) for p in PHASES
    ]


def test_an_old_casebase_is_read_and_says_it_has_no_profile(kosteniuk, tmp_path):
    old = tmp_path / "old.npz"
    with zipfile.ZipFile(kosteniuk) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "version.npy":
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, np.array(1, dtype=np.int64))
                data = buffer.getvalue()
            dst.writestr(item, data)
    casebase = Casebase.load(old)
    assert casebase.profile is None and Profile.of(casebase) is None
    assert "error profile: none" in describe(casebase)


def test_a_damaged_profile_is_refused_with_what_is_wrong(kosteniuk, tmp_path, capsys):
    make_profile(
        Casebase.load(kosteniuk),
        Settings(positions=5, depth=2, multipv=3),
        scripted(tmp_path),
        progress=False,
    )
    broken = tmp_path / "broken.npz"
    shutil.copy(kosteniuk, broken)
    with (
        zipfile.ZipFile(kosteniuk.with_suffix(".profile.npz")) as src,
        zipfile.ZipFile(broken.with_suffix(".profile.npz"), "w") as dst,
    ):
        for item in src.infolist():
            if item.filename != "profile_played.npy":
                dst.writestr(item, src.read(item))
    casebase = Casebase.load(broken)  # the cases are sound: read, without the profile, saying why
    assert casebase.profile is None and Profile.of(casebase) is None
    assert casebase.profile_problem == (
        "broken.profile.npz: error profile incomplete (has only profile_row, profile_moves,"
        " profile_scores)"
    )
    assert len(casebase) == len(Casebase.load(kosteniuk))
    before = broken.with_suffix(".profile.npz").read_bytes()
    assert profiling_main([str(broken), "--judge", scripted(tmp_path), "--quiet"]) == 1
    assert (
        "error profile refused: broken.profile.npz: error profile incomplete"
        in capsys.readouterr().err
    )
    assert broken.with_suffix(".profile.npz").read_bytes() == before  # left as it is
