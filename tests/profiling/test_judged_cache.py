"""The judged positions shared by every run (profiling/cache.py, issue #62): a position judged once
by a judge at a depth and MultiPV is taken from the cache by any later run, whatever its journal
(cbr-chess new's stage made again, another folder), and gives the entry its judge gives; another
judge, depth or MultiPV judges again."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_helpers import scripted
from pgn_helpers import few_games

from casebase.format import Casebase
from player import stages
from player.cli import _parser
from player.progress import Part, Progress
from player.run import STAGES
from player.stages import Folder, Options
from profiling import ProfileError, judging
from profiling.cache import JUDGED, JudgedCache, taken
from profiling.judging import Settings
from profiling.pipeline import make_profile

pytestmark = pytest.mark.slow  # positions judged through outside engines' processes


@pytest.fixture
def kosteniuk(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    path = tmp_path / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, path)
    return path


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many positions each judging hands to its judges (the work, counted)."""
    counts: list[int] = []
    real = judging.verdicts

    def counted(make: Any, args: Any, items: Sequence[Any], *rest: Any) -> Any:
        counts.append(len(items))
        return real(make, args, items, *rest)

    monkeypatch.setattr(judging, "verdicts", counted)
    return counts


def entries(journal: Path) -> dict[str, dict[str, Any]]:
    """A journal's entries by case key."""
    return {
        entry["key"]: entry
        for entry in map(json.loads, journal.read_text(encoding="utf-8").splitlines()[1:])
    }


def test_a_position_judged_once_is_never_judged_again_by_that_judge(
    kosteniuk: Path, tmp_path: Path, handed: list[int]
):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    few, more = (
        Settings(positions=8, depth=3, multipv=4),
        Settings(positions=14, depth=3, multipv=4),
    )
    make_profile(
        Casebase.load(kosteniuk), few, judge, tmp_path / "one.jsonl", progress=False, cache=cache
    )
    assert handed == [8]
    # another run's journal (another --out), more positions: only the new ones are judged
    make_profile(
        Casebase.load(kosteniuk), more, judge, tmp_path / "two.jsonl", progress=False, cache=cache
    )
    assert handed == [8, 6]
    make_profile(
        Casebase.load(kosteniuk), more, judge, tmp_path / "three.jsonl", progress=False, cache=cache
    )
    assert handed == [8, 6, 0]  # none handed to a judge
    # what the cache gave is what the judge gives: the same positions judged afresh, without it
    make_profile(Casebase.load(kosteniuk), more, judge, tmp_path / "fresh.jsonl", progress=False)
    assert entries(tmp_path / "three.jsonl") == entries(tmp_path / "fresh.jsonl")
    assert entries(tmp_path / "two.jsonl") == entries(tmp_path / "fresh.jsonl")
    [kept] = cache.iterdir()
    header = json.loads(kept.read_text(encoding="utf-8").splitlines()[0])
    assert (
        header["journal"] == JUDGED
        and header["judge"] == "Scripted"
        and (header["depth"], header["multipv"]) == (3, 4)
    )
    assert len(JudgedCache(cache, judge, more.header())) == 14


def test_another_judge_depth_or_number_of_lines_judges_again(
    kosteniuk: Path, tmp_path: Path, handed: list[int]
):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    settings = Settings(positions=6, depth=3, multipv=4)
    make_profile(
        Casebase.load(kosteniuk), settings, judge, tmp_path / "a.jsonl", progress=False, cache=cache
    )
    other = tmp_path / "other"
    other.mkdir()
    # another executable (its SHA-256), though it says the same name
    another = scripted(other, "--score", "e2e4=35")
    for name, (settings_now, judge_now) in {
        "depth": (Settings(positions=6, depth=4, multipv=4), judge),
        "lines": (Settings(positions=6, depth=3, multipv=5), judge),
        "judge": (settings, another),
    }.items():
        make_profile(
            Casebase.load(kosteniuk),
            settings_now,
            judge_now,
            tmp_path / f"{name}.jsonl",
            progress=False,
            cache=cache,
        )
    assert handed == [6, 6, 6, 6]
    assert len(list(cache.iterdir())) == 4


def test_another_engine_behind_the_same_file_gets_a_cache_of_its_own(
    kosteniuk: Path, tmp_path: Path, handed: list[int]
):
    """A wrapper script (a snap's launcher, a script around an upgraded Stockfish) stays the same
    file while the engine it starts changes: the name the engine gives tells them apart."""
    behind = tmp_path / "behind"
    wrapper = tmp_path / "fish"
    wrapper.write_text(f'#!/bin/sh\nexec "$(cat {behind})" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    engines = {}
    for name in ("Fish 15", "Fish 16"):
        (tmp_path / name).mkdir()
        engines[name] = scripted(tmp_path / name, "--name", name)
    cache, journal, settings = (
        tmp_path / "cache",
        tmp_path / "a.jsonl",
        Settings(positions=4, depth=3, multipv=4),
    )
    behind.write_text(engines["Fish 15"], encoding="utf-8")
    make_profile(
        Casebase.load(kosteniuk), settings, str(wrapper), journal, progress=False, cache=cache
    )
    behind.write_text(engines["Fish 16"], encoding="utf-8")  # upgraded behind the same wrapper
    more = Settings(positions=6, depth=3, multipv=4)
    with pytest.raises(ProfileError, match="a.jsonl: judged by Fish 15, not Fish 16: delete it"):
        make_profile(
            Casebase.load(kosteniuk), more, str(wrapper), journal, progress=False, cache=cache
        )
    # as the message says: and the run starts over, none of Fish 15's verdicts fed again
    journal.unlink()
    make_profile(Casebase.load(kosteniuk), more, str(wrapper), journal, progress=False, cache=cache)
    assert handed[0] == 4 and handed[-1] == 6
    assert json.loads(journal.read_text(encoding="utf-8").splitlines()[0])["judge"] == "Fish 16"
    assert sorted(
        json.loads(path.read_text(encoding="utf-8").splitlines()[0])["judge"]
        for path in cache.iterdir()
    ) == ["Fish 15", "Fish 16"]


def test_a_damaged_cache_entry_is_a_miss_said_once(
    kosteniuk: Path, tmp_path: Path, handed: list[int], capsys: pytest.CaptureFixture[str]
):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    settings = Settings(positions=5, depth=3, multipv=4)
    make_profile(
        Casebase.load(kosteniuk), settings, judge, tmp_path / "a.jsonl", progress=False, cache=cache
    )
    [kept] = cache.iterdir()
    lines = kept.read_text(encoding="utf-8").splitlines()
    cut = json.loads(lines[1])
    del cut["scores"]  # valid JSON, a key, a field missing
    wrong = {**json.loads(lines[2]), "played": 99}  # the move played not among those scored
    kept.write_text(
        "\n".join([lines[0], json.dumps(cut), json.dumps(wrong), "not json", *lines[3:]]) + "\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    for name in ("b", "c"):
        make_profile(
            Casebase.load(kosteniuk),
            settings,
            judge,
            tmp_path / f"{name}.jsonl",
            progress=False,
            cache=cache,
        )
    assert handed == [5, 2, 0]  # the two damaged entries' positions judged again, then kept
    assert entries(tmp_path / "b.jsonl") == entries(tmp_path / "a.jsonl")
    said = capsys.readouterr().err
    assert said.count(f"{kept}: 3 damaged entries passed over") == 1


def test_a_cache_that_cannot_be_written_is_said_once_and_the_run_goes_on(
    kosteniuk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    judge, cache = scripted(tmp_path), tmp_path / "not a folder"
    # a folder that cannot be made (read-only $HOME alike, even as root)
    cache.write_text("", encoding="utf-8")
    settings = Settings(positions=5, depth=3, multipv=4)
    make_profile(
        Casebase.load(kosteniuk), settings, judge, tmp_path / "a.jsonl", progress=False, cache=cache
    )
    assert len(entries(tmp_path / "a.jsonl")) == 5
    assert capsys.readouterr().err.count("the judged positions' cache cannot be written") == 1


def test_cache_none_turns_the_cache_off():
    assert _parser().parse_args(["x.pgn", "--player", "X", "--cache", "none"]).cache is None
    assert _parser().parse_args(["x.pgn", "--player", "X", "--cache", "there"]).cache == Path(
        "there"
    )


def test_the_positions_a_cache_gives_leave_the_pace_to_the_positions_judged(
    monkeypatch: pytest.MonkeyPatch,
):
    done, given, now = [0], [0], [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    part = Part(100, 1.0, "positions", lambda: done[0], lambda: given[0])
    shown = Progress(
        ["judging", "the match"],
        lambda k: [part] if k == 0 else [Part(40, 1.0, "games", lambda: 0)],
        enabled=False,
    )
    with shown.stage(0):
        done[0] = given[0] = 60  # the cache's, within milliseconds
        now[0], done[0] = 10.0, 61  # one judged in 10 s: 39 left at that pace
        assert shown.eta(0, [part], 0.0, 100.0) == pytest.approx(39 * 10 + 40)
        now[0], done[0] = 100.0, 100
    # 40 positions judged in 100 s: 2.5 times the measurement
    assert (shown.spent, shown.measured) == (100.0, 40.0)
    assert shown.eta(1, [Part(40, 1.0, "games", lambda: 0)], 100.0, 40.0) == pytest.approx(40 * 2.5)


def test_cbr_chess_new_judges_only_what_no_run_judged_when_a_stage_is_made_again_or_in_another_folder(  # noqa: E501
    tmp_path: Path, handed: list[int]
):
    pgn, judge = few_games(tmp_path / "games.pgn", 8), scripted(tmp_path)
    options = Options(
        pgn,
        "Kosteniuk",
        judge,
        tmp_path / "one",
        positions=6,
        heldout_positions=4,
        workers=1,
        cache=tmp_path / "judged",
    )
    for folder, now in (
        (Folder(tmp_path / "one", "kosteniuk"), options),
        # a stage made again
        (Folder(tmp_path / "one", "kosteniuk"), replace(options, positions=9)),
        # another --out
        (Folder(tmp_path / "two", "kosteniuk"), replace(options, positions=9)),
    ):
        folder.root.mkdir(exist_ok=True)
        stages.build_casebase(now, folder)
        stages.hold_out(now, folder)
        # as the stage record does when the stage's key changed
        stages.clear(STAGES[3].fresh(folder))
        stages.judge_profile(now, folder)
        assert len(entries(folder.journal("profile"))) == now.positions
    # the profile's and the held-out games' positions handed to judges, each run
    assert handed == [6, 4, 3, 0, 0, 0]
    # the progress line's pace leaves them out
    assert taken(Folder(tmp_path / "two", "kosteniuk").journal("profile")) == 9
