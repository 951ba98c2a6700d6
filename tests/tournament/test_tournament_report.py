"""The results report (experiment.md §2) on hand-made result sets with known answers."""

import csv
import io
import json

import numpy as np
import pytest

from tournament.__main__ import main
from tournament.pgnout import read_results
from tournament.report import Player, analyse, players_of, write_report

ELO = {"a-2600": 2600, "b-2500": 2500, "c-2400": 2400}


def record(config, round_, white, black, result, termination, met=True, weights="0.8 0.8 0.5"):
    return (
        f'[Event "t"]\n[Site "s"]\n[Date "2025.01.01"]\n[Round "{config}.{round_}"]\n'
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
        f'[WhiteElo "{ELO[white]}"]\n[BlackElo "{ELO[black]}"]\n[TimeControl "40/5400"]\n'
        f'[Termination "{termination}"]\n[PlyCount "10"]\n[WeightConfig "{weights}"]\n'
        f'[Mode "pure"]\n[WhiteSeed "1"]\n[BlackSeed "2"]\n'
        f'[TimeRequirementMet "{"yes" if met else "no"}"]\n\n{result}\n\n'
    )


# Configuration 1: A beat B twice, B beat C 1.5-0.5, A and C drew twice (one game too slow).
# Configuration 2: every game drawn.
GAMES = [
    record(1, 1, "a-2600", "b-2500", "1-0", "checkmate"),
    record(1, 1, "b-2500", "a-2600", "0-1", "checkmate"),
    record(1, 1, "b-2500", "c-2400", "1-0", "checkmate"),
    record(1, 1, "c-2400", "b-2500", "1/2-1/2", "threefold repetition"),
    record(1, 1, "a-2600", "c-2400", "1/2-1/2", "threefold repetition", met=False),
    record(1, 1, "c-2400", "a-2600", "1/2-1/2", "fifty-move rule"),
] + [
    record(2, 1, w, b, "1/2-1/2", "threefold repetition", weights="0.5 0.5 0.5")
    for w in ELO
    for b in ELO
    if w != b
]


@pytest.fixture
def run_dir(tmp_path):
    (tmp_path / "results.pgn").write_text("".join(GAMES), encoding="utf-8")
    return tmp_path


def test_thesis_table_crosstable_and_terminations_from_the_pgn(run_dir):
    text = write_report(run_dir)
    assert "| near-from (0.8 0.8 0.5) | no (1 of 6 games missed it) | 1, 2, 3 | yes | 50 |" in text
    assert "| balanced (0.5 0.5 0.5) | yes | none (no player outscored another) | n/a | 0 |" in text
    assert "| 1 a-2600 | · | 2 | 1 | 3/4 |" in text
    assert "| 2 b-2500 | 0 | · | 1.5 | 1.5/4 |" in text
    assert "| 3 c-2400 | 1 | 0.5 | · | 1.5/4 |" in text
    assert "| configuration | threefold repetition | checkmate | fifty-move rule | games |" in text
    assert "| near-from (0.8 0.8 0.5) | 2 | 3 | 1 | 6 |" in text
    assert "| balanced (0.5 0.5 0.5) | 6 | 0 | 0 | 6 |" in text
    assert (run_dir / "report.md").read_text(encoding="utf-8") == text
    assert (run_dir / "strength.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_json_and_csv_hold_the_same_numbers(run_dir):
    write_report(run_dir)
    data = json.loads((run_dir / "results.json").read_text())
    first, second = data["configurations"]
    assert first["longest_ordering"] == [1, 2, 3] and first["matches_elo_order"] is True
    assert first["decisive_percent"] == 50 and first["time_requirement_met"] is False
    assert first["points"]["a-2600"] == {"b-2500": 2.0, "c-2400": 1.0}
    assert second["matches_elo_order"] is None and second["spearman"] is None
    ratings = [r["rating"] for r in first["ratings"]]  # a-2600, b-2500, c-2400
    assert (
        first["slope"] == pytest.approx(np.polyfit([2600, 2500, 2400], ratings, 1)[0])
        and first["slope"] > 0
    )
    assert second["slope"] == pytest.approx(0, abs=0.01)  # all draws: one estimate for all
    assert (
        f"near-from (0.8 0.8 0.5) {first['slope']:+.2f}; balanced"
        in (run_dir / "report.md").read_text()
    )
    rows = list(csv.DictReader((run_dir / "results.csv").open()))
    assert len(rows) == 6
    by = {(r["config_number"], r["player"]): r for r in rows}
    assert by["1", "a-2600"]["points"] == "3.0" and by["1", "a-2600"]["ranking_index"] == "1"
    ratings = {p: float(by["1", p]["estimate"]) for p in ELO}
    # Anchored to the experts' mean Elo; the player with most points is rated highest.
    assert sum(ratings.values()) / 3 == pytest.approx(2500, abs=0.2)
    assert ratings["a-2600"] == max(ratings.values())
    draws = [float(by["2", p]["estimate"]) for p in ELO]
    assert draws == pytest.approx([2500] * 3, abs=0.1)


def test_a_rated_reference_engine_anchors_the_estimates():
    games = list(read_results(io.StringIO("".join(GAMES[:6]))))
    players = [
        Player("a-2600", "A", 2600, rank=1),
        Player("b-2500", "B", 2500, rank=2),
        Player("c-2400", "C", 2400, engine=True),
    ]
    (result,) = analyse(games, players)
    ratings = {b.player: b.estimate for b in result.behaviours}
    assert ratings["c-2400"].rating == ratings["c-2400"].low == 2400
    # C drew with A and scored 0.5 of 2 against B: A above C, B below.
    assert ratings["a-2600"].rating > 2400 > ratings["b-2500"].rating
    # The ordering ranks casebases only (with C it would be 1, 2, 3).
    assert result.ordering == [1, 2]


def test_players_come_from_the_manifest_when_there_is_one():
    manifest = {
        "players": [
            {"id": "c-2400", "kind": "casebase", "name": "Carl", "elo": 2400},
            {"id": "sf", "kind": "engine", "name": "sf", "elo": 1350},
            {"id": "a-2600", "kind": "casebase", "name": "Anna", "elo": 2600},
        ]
    }
    players = players_of([], manifest)
    assert [(p.id, p.rank, p.engine) for p in players] == [
        ("a-2600", 1, False),
        ("c-2400", 2, False),
        ("sf", None, True),
    ]


def test_report_of_an_unfinished_run_reads_the_finished_games(tmp_path, capsys):
    (tmp_path / "games").mkdir()
    for k, text in enumerate(GAMES[:6]):
        (tmp_path / "games" / f"{k:05d}.pgn").write_text(text, encoding="utf-8")
    assert main(["report", str(tmp_path)]) == 0
    assert (
        "| near-from (0.8 0.8 0.5) | no (1 of 6 games missed it) | 1, 2, 3 | yes | 50 |"
        in capsys.readouterr().out
    )


def test_report_of_an_empty_directory_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "no finished game" in capsys.readouterr().err
