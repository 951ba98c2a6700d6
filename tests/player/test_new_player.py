"""``cbr-chess new`` (issue #42, player/): the whole command on a few games of one player with a
scripted judge; a kill at each stage and a rerun lose no finished position or game, and end where an
unkilled run ends; a rerun keeps what is finished, a changed flag redoes what depends on it."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest
from judge_helpers import scripted
from pgn_helpers import few_games
from uci_helpers import ROOT

from casebase.format import Casebase
from engine.strength.profile import Profile
from player.cli import main as new_main
from player.run import STAGES
from player.shipped import shipped_profile

#: Few positions and games: every stage runs, in about a minute on 2 cores. The clock is long enough
#: that no move waits for a judge the machine's load delays (the games are then the same in every
#: run).
FAST = [
    "--positions",
    "30",
    "--heldout-positions",
    "20",
    "--play-positions",
    "10",
    "--games",
    "2",
    "--tc",
    "40/120",
    "--record-positions",
    "10",
    "--workers",
    "1",
]


def command(pgn: Path, judge: str, out: Path, opponent: Path) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "uci_main.py"),
        "new",
        str(pgn),
        "--player",
        "Kosteniuk",
        "--judge",
        judge,
        "--out",
        str(out),
        "--opponent",
        str(opponent),
        "--cache",
        str(out.parent / "judged"),
        *FAST,
    ]


def entries(path: Path) -> list[str]:
    """A journal's lines (its header first)."""
    return path.read_text(encoding="utf-8").splitlines()


# -- the slow tier: the whole command ------------------------------------------------------------


@pytest.fixture(scope="module")
def unkilled(
    kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, Path]:
    """The whole command run once without a stop: the PGN, the judge and the player's folder."""
    folder = tmp_path_factory.mktemp("new")
    pgn, judge = few_games(folder / "games.pgn"), scripted(folder)
    out = folder / "player"
    done = subprocess.run(
        command(pgn, judge, out, kosteniuk_casebase), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return pgn, judge, out


@pytest.mark.slow
@pytest.mark.xdist_group("new-player")  # one worker makes the module's unkilled run once
@pytest.mark.scenario  # the whole command run, and killed at each stage: make test-all
def test_the_command_makes_the_engine_and_its_report(unkilled: tuple[Path, str, Path]):
    _, _, out = unkilled
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["player"] == "Kosteniuk" and report["judge"] == "Scripted"
    # the latest 15 %
    assert report["games"] + report["heldout_games"] == 24 and report["heldout_games"] == 4
    assert report["rating"]["low"] < report["rating"]["implied"] < report["rating"]["high"]
    # her games' headers
    assert report["rating"]["rated_games"] == 20 and report["rating"]["positions"] == 30
    assert report["top1"]["positions"] > 0 and report["top1"]["personal"] is not None
    assert report["engine"]["games"] == 2 and report["engine"]["positions"] > 0
    assert report["player_heldout"]["all"]["positions"] > 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert (
        "judged positions and the rating" in text
        and "the engine, its match" in text
        and "\nMade in " in text
    )
    # each stage's time
    assert [name for name in report["seconds"]] == [stage.name for stage in STAGES]
    profile = Profile.of(Casebase.load(out / "kosteniuk.npz"))
    # stored with the profile
    assert profile is not None and profile.play is not None and profile.games is not None


@pytest.mark.slow
@pytest.mark.xdist_group("new-player")  # one worker makes the module's unkilled run once
@pytest.mark.scenario  # the whole command run, and killed at each stage: make test-all
def test_a_rerun_keeps_every_finished_stage(
    unkilled: tuple[Path, str, Path], kosteniuk_casebase: Path
):
    pgn, judge, out = unkilled
    before = {path: path.stat().st_mtime_ns for path in out.rglob("*") if path.is_file()}
    stream = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        assert new_main(command(pgn, judge, out, kosteniuk_casebase)[3:]) == 0
    assert stream.getvalue().count("done (kept)") == len(STAGES)
    assert {path: path.stat().st_mtime_ns for path in out.rglob("*") if path.is_file()} == before


@pytest.mark.slow
def test_an_opponent_made_here_plays_as_the_shipped_calibrated_engine(
    kosteniuk_casebase: Path, tmp_path: Path
):
    path = tmp_path / "kosteniuk-2200.npz"
    path.write_bytes(kosteniuk_casebase.read_bytes())
    shipped_profile(path, "kosteniuk-2200")  # no judge: from the judged positions that ship
    profile = Profile.of(Casebase.load(path))
    assert profile is not None and profile.play is not None and profile.games is not None
    assert len(profile.rows) == 1200 and profile.meta["judge"].startswith("Stockfish")


def _stage_started(out: Path, name: str) -> Callable[[], bool]:
    def started() -> bool:
        try:
            stages = json.loads((out / "stages.json").read_text(encoding="utf-8"))["stages"]
        except (OSError, ValueError, KeyError):
            return False
        return name in stages and "outputs" not in stages[name]

    return started


def _lines(path: Path, k: int) -> Callable[[], bool]:
    return lambda: path.exists() and len(entries(path)) > k


@pytest.mark.slow
@pytest.mark.xdist_group("new-player")  # one worker makes the module's unkilled run once
@pytest.mark.scenario  # the whole command run, and killed at each stage: make test-all
def test_a_kill_at_each_stage_loses_at_most_the_unit_under_way(
    unkilled: tuple[Path, str, Path], kosteniuk_casebase: Path, tmp_path: Path
):
    pgn, judge, reference = unkilled
    out = tmp_path / "player"
    journals = out / "journals"
    stops = [
        _stage_started(out, STAGES[0].name),
        _stage_started(out, STAGES[1].name),
        _stage_started(out, STAGES[2].name),
        _lines(journals / "profile.jsonl", 5),
        _lines(journals / "heldout.jsonl", 5),
        _lines(journals / "play.jsonl", 3),
        lambda: len(list((out / "match" / "games").glob("*.pgn"))) >= 1,
        _lines(journals / "games.play.jsonl", 3),
        _stage_started(out, STAGES[6].name),
    ]
    # Each file of finished units (a journal, a game) as the last kill left it, held open: the same
    # file (its inode, which no other file can take while it is open) with the same first lines
    # after the rerun was only appended to, so no unit in it was made again.
    kept: dict[Path, tuple[list[bytes], BinaryIO]] = {}

    def nothing_redone() -> None:
        for path, (lines, held) in kept.items():
            assert os.stat(path).st_ino == os.fstat(held.fileno()).st_ino, (
                f"{path.name} was made again"
            )
            held.close()
            after = path.read_bytes().splitlines()
            # the last line may have been cut by the kill
            assert after[: len(lines) - 1] == lines[:-1], path.name
            if path.suffix == ".jsonl":
                keys = [json.loads(line)["key"] for line in after[1:] if line.endswith(b"}")]
                assert len(keys) == len(set(keys)), path.name

    for stop in stops:  # each run killed in a later stage than the one before
        process = subprocess.Popen(
            command(pgn, judge, out, kosteniuk_casebase),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while not stop():
            assert process.poll() is None, (
                "the command finished before the stage it was to be killed in"
            )
            time.sleep(0.01)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        nothing_redone()
        kept = {
            path: (path.read_bytes().splitlines(), open(path, "rb"))  # closed by nothing_redone
            for path in [*journals.glob("*.jsonl"), *out.glob("match/games/*.pgn")]
        }
    done = subprocess.run(
        command(pgn, judge, out, kosteniuk_casebase), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    nothing_redone()
    for name in ("kosteniuk.npz", "heldout.pgn", "heldout.npz", "match/results.pgn"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    made, unkilled_made = (
        json.loads((where / "report.json").read_text(encoding="utf-8"))
        for where in (out, reference)
    )
    assert (
        made.pop("seconds").keys() == unkilled_made.pop("seconds").keys() and made == unkilled_made
    )  # but the times
    for path in (reference / "journals").glob("*.jsonl"):
        assert sorted(entries(out / "journals" / path.name)) == sorted(entries(path)), path.name
