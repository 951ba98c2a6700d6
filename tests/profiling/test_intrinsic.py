"""The intrinsic rating of any games (``python -m profiling.intrinsic``): the rating a known error
model's moves are given, the command end to end with a scripted judge, and input it refuses
(docs/strength.md, "The intrinsic rating of any games")."""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
from judge_helpers import SCRIPT

from casebase.builder import build
from casebase.games import GameFilter
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import MISTAKE_CP, Profile
from engine.strength.rating import rating_of
from profiling.intrinsic import main, rate

pytestmark = pytest.mark.slow  # ratings of games judged through an outside engine

PLAYER = "Tester, Tina"


def judge(tmp_path: Path) -> str:
    """The scripted engine (tests/scripted_engine.py) as one executable, scoring each move by its
    squares so that the judged moves differ."""
    scores = [
        f"--score={chess.square_name(a)}{chess.square_name(b)}={(37 * a + 11 * b) % 200 - 100}"
        for a in range(64)
        for b in range(64)
        if a != b
    ]
    path = tmp_path / "judge"
    path.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv = ['scripted'] + {scores!r}\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return str(path)


def game(seed: int, plies: int, white: str, black: str) -> chess.pgn.Game:
    """A game of ``plies`` random legal moves (seeded), without mate or stalemate before its end."""
    rng = random.Random(seed)
    board = chess.Board()
    while len(board.move_stack) < plies:
        moves = [m for m in board.legal_moves if _goes_on(board, m)] or list(board.legal_moves)
        board.push(rng.choice(moves))
    pgn = chess.pgn.Game.from_board(board)
    pgn.headers["White"], pgn.headers["Black"], pgn.headers["Result"] = white, black, "*"
    return pgn


def _goes_on(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return not board.is_game_over()
    finally:
        board.pop()


def write_pgn(path: Path, games: list[chess.pgn.Game], extra: str = "") -> Path:
    path.write_text("".join(f"{g}\n\n" for g in games) + extra, encoding="utf-8")
    return path


# -- a known model's moves -----------------------------------------------------------------------


def known_model_profile(tmp_path: Path, model: ErrorModel, n: int = 240, seed: int = 3) -> Profile:
    """A profile of ``n`` synthetic positions (10 judged moves each, best first) whose played moves
    are drawn from ``model``: the judging made by hand, the rest as the command does it."""
    casebase = build(
        [write_pgn(tmp_path / "one.pgn", [game(0, 30, PLAYER, "Other")])],
        GameFilter(PLAYER),
        workers=1,
        progress=False,
    )
    rng = np.random.default_rng(seed)
    drops = np.sort(rng.exponential(80, (n, 10)), axis=1)
    drops[:, 0] = 0
    scores = np.round(rng.uniform(-150, 150, (n, 1)) - drops).astype(np.int32)
    moves = np.tile(np.arange(1, 11, dtype=np.uint16), (n, 1))  # any codes: a judged move is not 0
    profile = Profile(casebase, np.zeros(n, np.int32), moves, scores, np.zeros(n, np.int16), {})
    chances = model.probabilities(profile.loss)
    profile.played = np.array([rng.choice(10, p=row) for row in chances], np.int16)
    return profile


def test_a_known_models_moves_get_its_rating_and_a_looser_model_a_clearly_lower_one(tmp_path):
    ratings = []
    for model in (ErrorModel(0.015, 0.6), ErrorModel(0.08, 0.6)):
        profile = known_model_profile(tmp_path, model)
        true = rating_of(model.expected_loss(profile.loss))
        got = rate(profile)
        assert got.low <= true <= got.high, (model, true, got)
        assert got.wide_low < got.low < got.rating < got.high < got.wide_high
        assert got.moves == 240 and got.mean_loss > 0
        played = profile.cp_loss
        assert got.mistakes == pytest.approx((played >= MISTAKE_CP).mean())
        assert got.first_choice == pytest.approx((profile.played == 0).mean())
        ratings.append((true, got))
    (sharp_true, sharp), (loose_true, loose) = ratings
    assert sharp_true - loose_true > 300  # the two models are far apart on the line ...
    assert loose.high < sharp.low  # ... and so are the ratings their moves are given


# -- the command end to end ----------------------------------------------------------------------


def test_the_command_rates_a_players_games_prints_and_writes_the_numbers_and_goes_on_from_its_journal(  # noqa: E501
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    # the interval's bootstrap, cut short: not the point here
    monkeypatch.setattr("engine.strength.rating.RESAMPLES", 20)
    (tmp_path / "tmp").mkdir()
    cut = game(9, 30, "Other", PLAYER)  # its 14th move cannot be read: the 13 before it are kept
    cut_moves = str(cut.accept(chess.pgn.StringExporter(headers=False))).rsplit(" 14.", 1)[0]
    damaged = (
        f'[White "Other"]\n[Black "{PLAYER}"]\n[Result "*"]\n\n{cut_moves} 14. Kh1h8 Nf6 *\n\n'
    )
    pgn = write_pgn(
        tmp_path / "games.pgn",
        [game(1, 36, PLAYER, "Other"), game(2, 34, "Third", PLAYER), game(3, 40, "Other", "Third")],
        damaged,
    )
    out_json, journal = tmp_path / "out.json", tmp_path / "j.jsonl"
    args = [
        str(pgn),
        "--player",
        "Tina Tester",
        "--judge",
        judge(tmp_path),
        "--depth",
        "2",
        "--multipv",
        "4",
    ]
    assert main([*args, "--json", str(out_json), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    numbers = json.loads(out_json.read_text())
    # from move 9 on: game 1's plies 16, 18, .. 34, game 2's 17, .. 33, the damaged game's 17, .. 25
    assert (
        numbers["player"] == "Tina Tester"
        and numbers["games"] == 3
        and numbers["games_damaged"] == 1
    )
    assert numbers["eligible_moves"] == 10 + 9 + 5
    assert numbers["moves"] == numbers["eligible_moves"] - numbers["skipped"] >= 18
    assert numbers["judge"] == "Scripted" and (numbers["depth"], numbers["multipv"]) == (2, 4)
    assert (
        numbers["wide_low"]
        < numbers["low"]
        < numbers["rating"]
        < numbers["high"]
        < numbers["wide_high"]
    )
    for key in ("mean_loss", "mean_cp_loss", "mistakes", "first_choice", "expected_loss"):
        assert np.isfinite(numbers[key])
    # the default journal goes once the rating is made
    assert not list((tmp_path / "tmp").iterdir())

    assert main([*args, "--positions", "5", "--journal", str(journal)]) == 0
    text = capsys.readouterr().out
    assert (
        "judged moves: 5 (a sample (seed 0) of the" in text
        and "judged by Scripted at depth 2, MultiPV 4" in text
    )
    assert "(1 damaged: cut at the move that could not be read" in text
    for field in (
        "intrinsic rating: ",
        "on the experts' rating line",
        "95 % interval of the positions' bootstrap: ",
        "95 % interval widened by the line's spread",
        f"mistakes (moves losing {MISTAKE_CP} cp or more): ",
        "first choice (the judge's best move played): ",
        "mean loss: ",
        " cp",
    ):
        assert field in text
    # the journal holds every position: the same command goes on (here: ends) without a judge
    assert (
        main(
            [
                str(pgn),
                "--player",
                "Tina Tester",
                "--depth",
                "2",
                "--multipv",
                "4",
                "--positions",
                "5",
                "--journal",
                str(journal),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == text
    assert (
        main([*args[:-4], "--depth", "3", "--positions", "5", "--journal", str(journal), "--quiet"])
        == 1
    )
    assert "a journal of other settings" in capsys.readouterr().err


# -- what it refuses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, message",
    [
        ("binary", "binary data, not a PGN file"),
        ("garbage", "not a PGN file"),
        ("empty", "not a PGN file"),
        (
            "unknown player",
            "no game of .* has a player matching 'Tina Tester'; the names that occur most"
            r" \(games\): Other \(2\), Third \(1\), Fourth \(1\)",
        ),
        ("short games", "no position to judge: none of Tina Tester's 2 games reaches move 9"),
        ("no judge", "judge .*nothing could not be started"),
        ("not a judge", "judge .*true could not be started: .* does not start as a UCI engine"),
    ],
)
def test_input_that_gives_no_rating_exits_1_with_one_line(tmp_path, capsys, kind, message):
    pgn, judge_path = tmp_path / "in.pgn", judge(tmp_path)
    if kind == "binary":
        pgn.write_bytes(bytes(range(256)) * 4)
    elif kind == "garbage":
        pgn.write_bytes(b"\xff\xfe garbage { not [a pgn\n" * 20)
    elif kind == "empty":
        pgn.write_bytes(b"")
    elif kind == "unknown player":
        write_pgn(pgn, [game(1, 20, "Other", "Third"), game(2, 20, "Fourth", "Other")])
    elif kind == "short games":
        write_pgn(pgn, [game(1, 14, PLAYER, "Other"), game(2, 15, "Other", PLAYER)])
    else:
        write_pgn(pgn, [game(1, 24, PLAYER, "Other")])
        judge_path = str(tmp_path / "nothing") if kind == "no judge" else "/bin/true"
    assert main([str(pgn), "--player", "Tina Tester", "--judge", judge_path, "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and captured.err.startswith(
        "profiling.intrinsic: error: "
    )
    assert re.search(message, captured.err), captured.err
