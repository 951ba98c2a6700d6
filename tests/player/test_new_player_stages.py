"""``cbr-chess new``'s parts one at a time (issue #42, player/): the player's folder and opponent,
the stage record and its keys, the progress line, who judges, the casebase stage, the errors said
before any stage, the report's measures (the whole command, killed and rerun:
test_new_player.py)."""

from __future__ import annotations

import io
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from judge_helpers import scripted
from pgn_helpers import few_games

from casebase.embeddings import embeddings_path, read_embeddings
from casebase.format import Casebase
from engine.strength.profile import Profile
from engine.style.loader import default_model
from player import progress, report, run, stages
from player.book import StageBook, key_of
from player.cli import main as new_main
from player.match import nearest_expert
from player.progress import Part, Progress
from player.rating import Estimate
from player.run import STAGES, stage_inputs
from player.stages import Folder, Options, slug_of
from profiling.workers import Where

# -- the fast tier: names, the stage record, the keys, the progress line -------------------------


def test_a_player_s_folder_is_named_after_the_player_and_an_empty_name_is_refused():
    assert slug_of("Carlsen, Magnus") == "carlsen-magnus"
    assert slug_of("  Van Wely,L. ") == "van-wely-l"
    with pytest.raises(Exception, match="give the player's name"):
        slug_of(" ,. ")


def test_the_opponent_is_the_fide_rated_expert_nearest_the_implied_rating():
    assert nearest_expert(2790) == "carlsen-2800"
    # the online players (FICS, Lichess) are on other scales
    assert nearest_expert(1500) == "kosteniuk-2200"
    assert nearest_expert(2650) == "ivanchuk-2700"  # a tie: the first by name


def test_a_stage_is_kept_only_with_the_same_key_and_its_outputs_untouched(tmp_path: Path):
    folder = tmp_path / "player"
    folder.mkdir()
    output = folder / "out.txt"
    output.write_text("made", encoding="utf-8")
    book = StageBook(folder)
    assert book.start("one", "k1")  # never started: afresh
    assert not book.finished("one", "k1")  # started, not finished: resumed
    assert not StageBook(folder).start("one", "k1")
    StageBook(folder).finish("one", "k1", [output])
    assert StageBook(folder).finished("one", "k1")
    assert not StageBook(folder).finished("one", "k2")
    moved = tmp_path / "moved"
    folder.rename(moved)
    assert StageBook(moved).finished("one", "k1")  # outputs are named inside the folder
    (moved / "out.txt").write_text("changed", encoding="utf-8")
    assert not StageBook(moved).finished("one", "k1")
    assert StageBook(moved).start("one", "k2")


def test_a_stage_record_of_something_else_is_refused(tmp_path: Path):
    (tmp_path / "stages.json").write_text("{}", encoding="utf-8")
    with pytest.raises(Exception, match="not a stage record"):
        StageBook(tmp_path)
    StageBook(tmp_path / "alice", "alice").start("one", "k1")
    assert StageBook(tmp_path / "alice", "alice").key("one") == "k1"
    with pytest.raises(
        Exception, match="holds the engine of alice, not of bob: give another --out"
    ):
        # its journals, named alike for every player, would be overwritten
        StageBook(tmp_path / "alice", "bob")


def test_a_changed_flag_changes_the_keys_of_the_stages_that_depend_on_it_and_no_others(
    tmp_path: Path,
):
    pgn = few_games(tmp_path / "games.pgn", 4)
    options = Options(pgn, "Kosteniuk", sys.executable, tmp_path / "out")

    def keys(o: Options) -> list[str]:
        made: list[str] = []
        for k in range(len(STAGES)):
            made.append(key_of(stage_inputs(k, o, made)))
        return made

    base = keys(options)
    assert keys(options) == base
    games = keys(replace(options, games=4))
    assert games[:5] == base[:5] and games[5] != base[5] and games[6] != base[6]
    play = keys(replace(options, play_positions=20))
    assert play[:4] == base[:4] and all(a != b for a, b in zip(play[4:], base[4:]))
    few_games(pgn, 5)  # another PGN: everything again
    assert all(a != b for a, b in zip(keys(options), base))


def test_the_eta_counts_what_is_left_of_this_stage_and_the_next_ones(monkeypatch):
    done = {"a": 0, "b": 0}
    plans = [
        [Part(10, 1.0, "positions", lambda: done["a"])],
        [Part(4, 5.0, "games", lambda: done["b"])],
    ]
    shown = Progress(["judging", "the match"], lambda k: plans[k], stream=io.StringIO())
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    assert shown.eta(0, plans[0], 100.0, 10.0) == pytest.approx(10 + 20)  # the measured seconds
    # twice as slow as measured: this stage's pace, the next one's too once run
    done["a"], now[0] = 5, 110.0
    assert shown.eta(0, plans[0], 100.0, 10.0) == pytest.approx(10 + 20)
    assert "[1/2 judging] 5/10 positions, ETA" in shown.line(0, plans[0], 100.0, 10.0)
    shown.spent, shown.measured = 2.0, 1.0  # a stage of a second says nothing of the pace
    assert shown.eta(0, plans[0], 100.0, 10.0) == pytest.approx(10 + 20)
    shown.spent, shown.measured = 60.0, 30.0  # the stages run so far took twice what was measured
    assert shown.eta(0, plans[0], 100.0, 10.0) == pytest.approx(10 + 2 * 20)
    assert shown.eta(1, plans[1], 110.0, 20.0) == pytest.approx(2 * 20)


def test_a_log_file_gets_a_line_of_progress_now_and_then(monkeypatch):
    monkeypatch.setattr(progress, "LOG_EVERY", 0.01)
    stream, done = io.StringIO(), {"a": 0}
    shown = Progress(
        ["judging"], lambda k: [Part(10, 1.0, "positions", lambda: done["a"])], stream=stream
    )
    with shown.stage(0):
        done["a"] = 3
        # a bound for a stuck thread only: two lines come within milliseconds
        deadline = time.monotonic() + 60
        while stream.getvalue().count("3/10 positions") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert stream.getvalue().count("3/10 positions") >= 2 and "\r" not in stream.getvalue()


def test_the_judging_stages_judge_on_every_core_by_default_and_say_on_how_many(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    options = Options(tmp_path / "x.pgn", "Someone", sys.executable, tmp_path)
    assert stages.judging_where(options) == Where(3, None)
    assert stages.judging_where(replace(options, workers=1)) == Where(1, None)
    folder = Folder(tmp_path, "someone")
    for k, unit in (
        (3, "positions judged by 3 workers"),
        (4, "positions played by 3 workers"),
        (5, "games' positions judged and played by 3 workers"),
    ):
        part = STAGES[k].parts(options, folder)[-1]
        assert part.unit.endswith(unit)
        assert part.seconds == pytest.approx(
            run.SECONDS["played" if k == 4 else "judged" if k == 3 else "recorded"] / 3
        )
    # more workers than cores: no faster
    one = STAGES[3].parts(replace(options, workers=5), folder)[0]
    assert one.unit == "positions judged by 5 workers" and one.seconds == pytest.approx(
        run.SECONDS["judged"] / 3
    )
    line = Progress(["judging"], lambda k: [one], stream=io.StringIO()).line(
        0, [one], time.monotonic(), 1.0
    )
    # where the profile is expected to stop
    assert line.startswith("[1/1 judging] 0/660 positions judged by 5 workers, ETA")
    assert (
        STAGES[3].parts(replace(options, cluster="auto"), folder)[0].unit
        == "positions judged on the cluster"
    )


def test_a_finished_stage_says_done_kept():
    stream = io.StringIO()
    Progress(["the casebase", "x"], lambda k: [], stream=stream).kept(0)
    assert stream.getvalue() == "[1/2 the casebase] done (kept)\n"


def test_speed_builds_the_engine_of_one_speed_class_s_games(tmp_path: Path):
    pgn = few_games(tmp_path / "games.pgn", 8)
    text = pgn.read_text(encoding="utf-8").split("\n\n[Event ")
    # every other game a blitz one, by its TimeControl tag (3+2)
    text = [
        part.replace("\n", '\n[TimeControl "180+2"]\n', 1) if i % 2 else part
        for i, part in enumerate(text)
    ]
    pgn.write_text("\n\n[Event ".join(text), encoding="utf-8")
    folder = Folder(tmp_path, "kosteniuk")
    for speed, games in (("blitz", 4), ("all", 8)):
        options = Options(pgn, "Kosteniuk", sys.executable, tmp_path, speed=speed, holdout=0.0)
        stages.build_casebase(options, folder)
        casebase = Casebase.load(folder.casebase)
        assert casebase.num_games == games
        assert speed == "all" or set(casebase.game_speeds().tolist()) == {"blitz"}


def test_the_casebase_stage_embeds_its_cases_for_the_precedents(tmp_path: Path):
    folder = Folder(tmp_path, "kosteniuk")
    options = Options(
        few_games(tmp_path / "games.pgn", 3), "Kosteniuk", sys.executable, tmp_path, holdout=0.0
    )
    outputs = stages.build_casebase(options, folder)
    casebase = Casebase.load(folder.casebase)
    # the stage's book keeps both
    assert outputs == [folder.casebase, embeddings_path(folder.casebase)]
    assert read_embeddings(casebase, default_model()[0]).vectors.shape == (len(casebase), 256)


def test_a_network_that_cannot_embed_leaves_the_casebase_made_and_says_so(
    tmp_path: Path, monkeypatch, capsys
):
    damaged = tmp_path / "damaged.pb.gz"
    damaged.write_bytes(b"not a network")
    monkeypatch.setattr(stages, "default_model", lambda: (damaged, "damaged"))
    folder = Folder(tmp_path, "kosteniuk")
    options = Options(
        few_games(tmp_path / "games.pgn", 2), "Kosteniuk", sys.executable, tmp_path, holdout=0.0
    )
    # the precedents only are lost
    assert stages.build_casebase(options, folder) == [folder.casebase]
    assert "no embeddings of the cases (cannot embed with" in capsys.readouterr().err


def test_a_name_that_matches_no_game_is_a_clear_error(tmp_path: Path, capsys):
    pgn = few_games(tmp_path / "games.pgn", 4)
    assert (
        new_main(
            [
                str(pgn),
                "--player",
                "Nobody Atall",
                "--judge",
                scripted(tmp_path),
                "--out",
                str(tmp_path / "p"),
                "--quiet",
            ]
        )
        == 1
    )
    assert "no game in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--tc", "40 moves"], "time control '40 moves'"),
        (["--opponent", "none.npz"], "--opponent none.npz: no such casebase"),
        (["--judge", "/bin/true"], "--judge /bin/true: /bin/true does not start as a UCI"),
    ],
)
def test_a_bad_flag_is_an_error_before_any_stage(
    tmp_path: Path, capsys, flags: list[str], said: str
):
    pgn = few_games(tmp_path / "games.pgn", 4)
    assert (
        new_main(
            [
                str(pgn),
                "--player",
                "Kosteniuk",
                "--judge",
                scripted(tmp_path),
                "--out",
                str(tmp_path / "p"),
                "--quiet",
                *flags,
            ]
        )
        == 1
    )
    assert said in capsys.readouterr().err and not (tmp_path / "p").exists()


def test_without_torch_the_default_model_plays_and_the_command_says_so(
    tmp_path: Path, monkeypatch, capsys
):
    folder = Folder(tmp_path, "someone")
    folder.model.write_bytes(b"a model of other games")
    monkeypatch.setattr(stages, "torch_installed", lambda: False)
    assert (
        stages.personal_model(
            Options(tmp_path / "x.pgn", "Someone", sys.executable, tmp_path), folder
        )
        == []
    )
    assert not folder.model.exists()
    assert "the default model plays" in capsys.readouterr().err


def test_the_balanced_loss_counts_the_positions_the_judge_puts_within_200_cp_by_the_game_s_speed(
    kosteniuk_casebase: Path,
):
    casebase = Casebase.load(kosteniuk_casebase)
    games = np.asarray(casebase.game)
    # one position of each of 4 games
    rows = np.array([np.flatnonzero(games == g)[10] for g in range(4)])
    best = np.array([0, 300, -200, 50])  # the second is not balanced, the third just is
    played = np.array([0, 1, 1, 1])
    scores = np.stack([best, best - np.array([0, 100, 60, 20])], axis=1).astype(np.int32)
    profile = Profile(
        casebase, rows, np.ones((4, 2), np.uint16), scores, played.astype(np.int16), {}
    )
    stats = report.balanced(profile)
    assert stats["positions"] == 3 and stats["mean_cp_loss"] == pytest.approx((0 + 60 + 20) / 3)
    assert stats["mistakes"] == pytest.approx(1 / 3) and stats["first_choice"] == pytest.approx(
        1 / 3
    )
    events = np.array(casebase.games["event"]).astype(object)
    events[games[rows[:2]]] = "World Blitz Championship"
    events[games[rows[2:]]] = "Olympiad"
    casebase.games["event"] = events.astype(str)
    speeds = report.by_speed(profile)
    assert list(speeds) == ["blitz", "unknown", "all"]
    assert (
        speeds["blitz"]["positions"] == 1
        and speeds["unknown"]["positions"] == 2
        and speeds["all"] == stats
    )


def test_the_report_leaves_blank_what_has_no_balanced_position(kosteniuk_casebase: Path):
    casebase = Casebase.load(kosteniuk_casebase)
    rows = np.array([np.flatnonzero(np.asarray(casebase.game) == 0)[10]])
    scores = np.array([[900, 700]], np.int32)  # no balanced position: a lost game's moves
    none = report.balanced(
        Profile(casebase, rows, np.ones((1, 2), np.uint16), scores, np.ones(1, np.int16), {})
    )
    # JSON, not NaN
    assert none == {"positions": 0, "mean_cp_loss": None, "mistakes": None, "first_choice": None}
    some = {"positions": 10, "mean_cp_loss": 20.0, "mistakes": 0.1, "first_choice": 0.5}
    made: dict[str, Any] = {
        "player": "P",
        "games": 10,
        "heldout_games": 2,
        "judge": "J",
        "depth": 12,
        "multipv": 10,
        "rating": Estimate(2000, 1900, 2100, 30, None, 0, (2000, 1900, 2100)).as_json(),
        "top1": {"positions": 5, "generic": 0.4, "personal": None},
        "balanced_cp": 200,
        "mistake_cp": 50,
        "player_heldout": {"all": some},
        "engine": {
            "opponent": "x",
            "time_control": "40/20",
            "points": 1,
            "games": 2,
            "speed": "bullet",
            **none,
        },
        "profile": {"positions": 30, "most": 30, "stop_within": 0.05, "narrow": False},
        "seconds": {},
    }
    text = report.markdown(made)
    assert "nan" not in text.lower() and "| the engine, its match (bullet) | 0 | | | |" in text
    made["engine"].update(some, mean_cp_loss=30.0, mistakes=0.15)
    assert (
        "| the player, held-out games, all | 10 | 20.0 | 10.0 % | +50 %, +5.0 points |"
        in report.markdown(made)
    )
