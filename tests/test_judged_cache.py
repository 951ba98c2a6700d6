"""The judged positions shared by every run (profiling/cache.py, issue #62): a position judged once by a
judge at a depth and MultiPV is taken from the cache by any later run, whatever its journal (cbr-chess
new's stage made again, another folder), and gives the entry its judge gives; another judge, depth or
MultiPV judges again."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_new_player import few_games
from test_profiling import scripted

from casebase.format import Casebase
from player import stages
from player.run import STAGES
from player.stages import Folder, Options
from profiling import ProfileError, judging
from profiling.cache import JUDGED, JudgedCache
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
    return {entry["key"]: entry for entry in map(json.loads, journal.read_text(encoding="utf-8").splitlines()[1:])}


def test_a_position_judged_once_is_never_judged_again_by_that_judge(kosteniuk: Path, tmp_path: Path, handed: list[int]):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    few, more = Settings(positions=8, depth=3, multipv=4), Settings(positions=14, depth=3, multipv=4)
    make_profile(Casebase.load(kosteniuk), few, judge, tmp_path / "one.jsonl", progress=False, cache=cache)
    assert handed == [8]
    # another run's journal (another --out), more positions: only the new ones are judged
    make_profile(Casebase.load(kosteniuk), more, judge, tmp_path / "two.jsonl", progress=False, cache=cache)
    assert handed == [8, 6]
    make_profile(Casebase.load(kosteniuk), more, judge, tmp_path / "three.jsonl", progress=False, cache=cache)
    assert handed == [8, 6, 0]  # none handed to a judge
    # what the cache gave is what the judge gives: the same positions judged afresh, without it
    make_profile(Casebase.load(kosteniuk), more, judge, tmp_path / "fresh.jsonl", progress=False)
    assert entries(tmp_path / "three.jsonl") == entries(tmp_path / "fresh.jsonl")
    assert entries(tmp_path / "two.jsonl") == entries(tmp_path / "fresh.jsonl")
    [kept] = cache.iterdir()
    header = json.loads(kept.read_text(encoding="utf-8").splitlines()[0])
    assert header["journal"] == JUDGED and header["judge"] == "Scripted" and (header["depth"], header["multipv"]) == (3, 4)
    assert len(JudgedCache(cache, judge, more.header())) == 14


def test_another_judge_depth_or_number_of_lines_judges_again(kosteniuk: Path, tmp_path: Path, handed: list[int]):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    settings = Settings(positions=6, depth=3, multipv=4)
    make_profile(Casebase.load(kosteniuk), settings, judge, tmp_path / "a.jsonl", progress=False, cache=cache)
    other = tmp_path / "other"
    other.mkdir()
    another = scripted(other, "--score", "e2e4=35")  # another executable (its SHA-256), though it says the same name
    for name, (settings_now, judge_now) in {"depth": (Settings(positions=6, depth=4, multipv=4), judge),
                                            "lines": (Settings(positions=6, depth=3, multipv=5), judge),
                                            "judge": (settings, another)}.items():
        make_profile(Casebase.load(kosteniuk), settings_now, judge_now, tmp_path / f"{name}.jsonl", progress=False,
                     cache=cache)
    assert handed == [6, 6, 6, 6]
    assert len(list(cache.iterdir())) == 4


def test_a_damaged_cache_is_refused_with_its_name(kosteniuk: Path, tmp_path: Path):
    judge, cache = scripted(tmp_path), tmp_path / "cache"
    settings = Settings(positions=4, depth=3, multipv=4)
    make_profile(Casebase.load(kosteniuk), settings, judge, tmp_path / "a.jsonl", progress=False, cache=cache)
    [kept] = cache.iterdir()
    with open(kept, "a", encoding="utf-8") as f:
        f.write("not json\n")
    with pytest.raises(ProfileError, match=f"{kept.name}:.*not a JSON line"):
        make_profile(Casebase.load(kosteniuk), Settings(positions=5, depth=3, multipv=4), judge, tmp_path / "b.jsonl",
                     progress=False, cache=cache)


def test_cbr_chess_new_judges_only_what_no_run_judged_when_a_stage_is_made_again_or_in_another_folder(
        tmp_path: Path, handed: list[int]):
    pgn, judge = few_games(tmp_path / "games.pgn", 8), scripted(tmp_path)
    options = Options(pgn, "Kosteniuk", judge, tmp_path / "one", positions=6, heldout_positions=4, workers=1,
                      cache=tmp_path / "judged")
    for folder, now in ((Folder(tmp_path / "one", "kosteniuk"), options),
                        (Folder(tmp_path / "one", "kosteniuk"), replace(options, positions=9)),  # a stage made again
                        (Folder(tmp_path / "two", "kosteniuk"), replace(options, positions=9))):  # another --out
        folder.root.mkdir(exist_ok=True)
        stages.build_casebase(now, folder)
        stages.hold_out(now, folder)
        stages.clear(STAGES[3].fresh(folder))  # as the stage record does when the stage's key changed
        stages.judge_profile(now, folder)
        assert len(entries(folder.journal("profile"))) == now.positions
    assert handed == [6, 4, 3, 0, 0, 0]  # the profile's and the held-out games' positions handed to judges, each run
