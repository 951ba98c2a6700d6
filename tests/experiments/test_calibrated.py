"""``make strength`` (python -m experiments.calibrated): the spread of the figures over runs, the
steps skipped once finished, run 1's records shipped only when asked, and a tiny run end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import chess.pgn
import pytest
from judge_helpers import scripted
from profile_helpers import PLAYED, PROFILE

import experiments.calibrated as calibrated
from casebase.format import Casebase
from casebase.profilefile import profile_path
from engine.strength.profile import Profile
from experiments.calibrated import Plan, main, remake, ship
from experiments.spread import Spread, markdown, read_run
from profiling.pipeline import add_play, make_profile

#: Per fake run: (engine, expert's Elo, points of 4 games, Elo, intrinsic own, on the expert's,
#: against).
RUNS = [
    [
        ("carlsen", 2855, 3.0, 2800.0, 3000.0, 2790.0, 25.0),
        ("kosteniuk", 2290, 1.0, 2345.0, 2800.0, 2450.0, 50.0),
    ],
    [
        ("carlsen", 2855, 3.5, 2900.0, 3100.0, 2800.0, 35.0),
        ("kosteniuk", 2290, 0.5, 2245.0, 2900.0, 2400.0, -10.0),
    ],
    [
        ("carlsen", 2855, 2.5, 2700.0, 3200.0, 2810.0, 15.0),
        ("kosteniuk", 2290, 1.5, 2445.0, 2700.0, 2350.0, 20.0),
    ],
]
EXPERT_RATING = {"carlsen": 2776.0, "kosteniuk": 2422.0}


def fake_run(
    directory: Path,
    rows: list[tuple[str, int, float, float, float, float, float]],
    rho: float,
    slope: float,
    *,
    rated: bool = True,
) -> Path:
    """A run directory as the tournament's report and the intrinsic step leave it."""
    directory.mkdir(parents=True, exist_ok=True)
    results = {
        "players": [
            {"id": e, "name": e, "elo": elo, "engine": False, "rank": k}
            for k, (e, elo, *_) in enumerate(rows, start=1)
        ],
        "configurations": [
            {
                "spearman": rho,
                "slope": slope,
                "ratings": [
                    {"player": e, "games": 4, "points": p, "rating": r} for e, _, p, r, *_ in rows
                ],
            }
        ],
    }
    (directory / "results.json").write_text(json.dumps(results))
    if rated:
        (directory / "intrinsic.json").write_text(
            json.dumps(
                [
                    {
                        "player": e,
                        "expert": e,
                        "note": "",
                        "moves": 100,
                        "own": own,
                        "expert_rating": EXPERT_RATING[e],
                        "on_expert": on,
                        "against": against,
                    }
                    for e, _, _, _, own, on, against in rows
                ]
            )
        )
    return directory


def test_the_spread_of_a_figure_is_its_mean_sd_least_and_most():
    spread = Spread.of([2800.0, 2900.0, 2700.0])
    assert (spread.mean, spread.sd, spread.low, spread.high, spread.runs) == (
        2800.0,
        100.0,
        2700.0,
        2900.0,
        3,
    )
    assert spread.text(".0f") == "2800 (2700..2900, sd 100)"
    # one run: no spread
    assert Spread.of([0.5]).text("+.2f") == "+0.50" and Spread.of([0.5]).sd is None


def test_the_summary_gives_each_engine_s_readings_and_each_run_s_spearman_over_the_runs(tmp_path):
    runs = [
        read_run(fake_run(tmp_path / f"run-{k + 1}", rows, rho, slope))
        for k, (rows, rho, slope) in enumerate(
            zip(RUNS, (1.0, 0.9, 0.8), (0.78, 0.7, 0.9), strict=True)
        )
    ]
    assert all(run is not None for run in runs)
    text = markdown([r for r in runs if r is not None])
    lines = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    # score %: 75, 87.5, 62.5; Elo 2800, 2900, 2700; on the expert's positions −2776: +14, +24, +34
    assert lines["| carlsen"] == (
        "| carlsen | 2855 | 75.0 (62.5..87.5, sd 12.5) | 2800 (2700..2900, sd 100)"
        " | 3100 (3000..3200, sd 100) | +24 (+14..+34, sd 10) | +25 (+15..+35, sd 10) |"
    )
    assert text.index("| carlsen") < text.index("| kosteniuk")  # by the expert's Elo
    assert (
        "**Spearman** of engine Elo against expert's Elo: +0.90 (+0.80..+1.00, sd 0.10)"
        " (run-1 +1.00, run-2 +0.90, run-3 +0.80)." in text
    )
    assert "**Slope** of engine Elo against expert's Elo: +0.79 (+0.70..+0.90, sd 0.10)" in text


def test_a_run_not_yet_rated_gives_its_games_alone_and_one_not_played_nothing(tmp_path):
    run = read_run(fake_run(tmp_path / "run-1", RUNS[0], 1.0, 0.8, rated=False))
    assert run is not None and run.readings["carlsen"] == {"score": 75.0, "elo": 2800.0}
    assert read_run(tmp_path / "run-2") is None
    line = next(x for x in markdown([run]).splitlines() if x.startswith("| carlsen"))
    assert line == "| carlsen | 2855 | 75.0 | 2800 |  |  |  |"


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """The steps replaced by fakes that count their calls and leave a run's files."""
    calls: list[tuple[str, str]] = []

    def play(plan, directory, seed):
        calls.append(("round-robin", directory.name))
        shutil.rmtree(directory)
        fake_run(directory, RUNS[seed], 1.0, 0.8, rated=False)

    def rate(plan, directory):
        calls.append(("intrinsic", directory.name))
        fake = fake_run(tmp_path / "rated" / directory.name, RUNS[0], 1.0, 0.8)
        shutil.copy(fake / "intrinsic.json", directory / "intrinsic.json")

    monkeypatch.setattr(calibrated, "play", play)
    monkeypatch.setattr(calibrated, "rate", rate)
    return calls


def test_each_finished_step_is_skipped_when_run_again_and_one_with_other_settings_is_done_again(
    counted, tmp_path
):
    plan, out = (
        Plan((tmp_path / "carlsen.npz", tmp_path / "kosteniuk.npz"), progress=False),
        tmp_path / "out",
    )
    remake(plan, out, 2)
    assert counted == [
        ("round-robin", "run-1"),
        ("intrinsic", "run-1"),
        ("round-robin", "run-2"),
        ("intrinsic", "run-2"),
    ]
    counted.clear()
    text = remake(plan, out, 3)  # one more run: the first two are done
    assert counted == [("round-robin", "run-3"), ("intrinsic", "run-3")]
    assert "Over 3 runs (run-1, run-2, run-3)" in text and (out / "summary.md").read_text() == text
    counted.clear()
    # more moves rated: the ratings again
    remake(Plan(plan.casebases, positions=500, progress=False), out, 1)
    assert counted == [("intrinsic", "run-1")]


def test_a_step_that_stops_is_not_recorded_and_is_done_again(counted, tmp_path, monkeypatch):
    plan, out = (
        Plan((tmp_path / "carlsen.npz", tmp_path / "kosteniuk.npz"), progress=False),
        tmp_path / "out",
    )

    def stopped(plan, directory):
        raise KeyboardInterrupt

    monkeypatch.setattr(calibrated, "rate", stopped)
    with pytest.raises(KeyboardInterrupt):
        remake(plan, out, 1)
    assert json.loads((out / "run-1" / "steps.json").read_text()).keys() == {"round-robin"}
    monkeypatch.undo()
    counted.clear()
    monkeypatch.setattr(
        calibrated, "rate", lambda plan, directory: counted.append(("intrinsic", directory.name))
    )
    remake(plan, out, 1)
    assert counted == [("intrinsic", "run-1")]


def test_run_1_s_records_replace_the_shipped_ones_only_when_shipped(tmp_path):
    run, data = tmp_path / "run-1", tmp_path / "data"
    (run / "records").mkdir(parents=True)
    (run / "results.pgn").write_text('[Event "new"]\n\n*\n')
    for name in (
        "carlsen.games.jsonl",
        "carlsen.games.play.jsonl",
        "carlsen.heldout.games.play.jsonl",
    ):
        (run / "records" / name).write_text(name)
    written = ship(run, data)
    assert (data / "games" / "round-robin-40-20.pgn").read_text() == '[Event "new"]\n\n*\n'
    assert sorted(p.name for p in (data / "profiles").iterdir()) == [
        "carlsen.games.jsonl",
        "carlsen.games.play.jsonl",
        "carlsen.heldout.games.play.jsonl",
    ]
    assert len(written) == 4


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["--casebases", str(tmp_path / "none.npz"), "--out", str(tmp_path / "out")]) == 2
    assert "no casebase" in capsys.readouterr().err and not (tmp_path / "out").exists()
    with pytest.raises(SystemExit):
        main(["--ship"])
    assert "--ship needs --games-records" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--games-records", "--ship", "--tc", "40/10"])
    assert "--ship needs --tc 40/20" in capsys.readouterr().err


@pytest.mark.slow  # two guided engines' games and their moves judged
def test_a_tiny_run_end_to_end(kosteniuk_casebase, gaprindashvili_casebase, tmp_path, capsys):
    folder = tmp_path / "casebases"
    folder.mkdir()
    for path in (kosteniuk_casebase, gaprindashvili_casebase):
        shutil.copy(path, folder / path.name)
    out = tmp_path / "out"
    args = [
        "--casebases",
        str(folder / kosteniuk_casebase.name),
        str(folder / gaprindashvili_casebase.name),
        "--runs",
        "1",
        "--rounds",
        "1",
        "--tc",
        "40/4",
        "--judge",
        scripted(tmp_path),
        "--positions",
        "20",
        "--workers",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args) == 0
    run = out / "run-1"
    with open(run / "results.pgn", encoding="utf-8") as f:
        games = [g for g in iter(lambda: chess.pgn.read_game(f), None)]
    assert len(games) == 2 and {g.headers["Mode"] for g in games} == {"guided"}
    rated = json.loads((run / "intrinsic.json").read_text())
    assert {r["player"] for r in rated} == {kosteniuk_casebase.stem, gaprindashvili_casebase.stem}
    assert all(r["moves"] and r["own"] for r in rated)
    assert (run / "intrinsic.png").exists() and (out / "summary.png").exists()
    assert "Over 1 run (run-1)" in capsys.readouterr().out
    assert json.loads((run / "steps.json").read_text()).keys() == {"round-robin", "intrinsic"}


@pytest.mark.slow  # a profile judged, the engine's choices played, in its own games too
def test_the_games_records_go_into_copies_of_the_casebases_never_the_shipped_ones(
    kosteniuk_casebase, tmp_path
):
    folder, run = tmp_path / "casebases", tmp_path / "out" / "run-1"
    folder.mkdir()
    path, judge = folder / kosteniuk_casebase.name, scripted(tmp_path)
    shutil.copy(kosteniuk_casebase, path)
    make_profile(Casebase.load(path), PROFILE, judge, progress=False)
    add_play(Casebase.load(path), PLAYED, judge, tmp_path / "play.jsonl", progress=False)
    shipped = profile_path(path).read_bytes()
    run.mkdir(parents=True)
    shutil.copy(calibrated.ROOT / "data" / "games" / "round-robin-40-20.pgn", run / "results.pgn")
    calibrated.records(Plan((path,), judge=judge, record_positions=6, progress=False), run)
    copy = Profile.of(Casebase.load(run / "casebases" / path.name))
    assert copy is not None and copy.games is not None and len(copy.games.moves) == 6
    # the play-time record kept
    assert copy.play is not None and len(copy.play.moves) == PLAYED.positions
    # the casebase the run was given is left as it was
    assert profile_path(path).read_bytes() == shipped
    assert sorted(p.name for p in (run / "records").iterdir()) == [
        "kosteniuk-2200.games.jsonl",
        "kosteniuk-2200.games.play.jsonl",
    ]
