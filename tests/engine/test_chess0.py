"""Chess0's classic and adaptive engines (endgames.md §3): mode chess0, Style classic or
adaptive."""

from __future__ import annotations

import json
import subprocess
import sys

import chess
import chess.engine
import pytest
from uci_helpers import ROOT, popen

from engine.agents.chess0 import (
    Chess0Agent,
    adaptive_evaluation,
    classic_evaluation,
    phase_depth,
)
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget

MIDDLEGAME = [
    "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "2r2rk1/pp1b1ppp/2n1pn2/q2p4/3P4/P1PBPN2/2Q2PPP/R1B2RK1 b - - 0 14",
]


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, *MIDDLEGAME])
def test_the_evaluations_are_colour_symmetric(fen):
    board = chess.Board(fen)
    for evaluation in (classic_evaluation, adaptive_evaluation):
        assert evaluation(board) == evaluation(board.mirror())


def test_the_classic_values_favour_the_centre_and_the_adaptive_ones_the_enemy_king():
    centre, rim = (
        chess.Board("4k3/8/8/8/3N4/8/8/4K3 b - - 0 1"),
        chess.Board("4k3/8/8/8/8/8/8/N3K3 b - - 0 1"),
    )
    # Black to move: White's knight is better centred
    assert classic_evaluation(centre) < classic_evaluation(rim)
    near, far = (
        chess.Board("4k3/3N4/8/8/8/8/8/4K3 w - - 0 1"),
        chess.Board("4k3/8/8/8/8/8/3N4/4K3 w - - 0 1"),
    )
    assert classic_evaluation(near) == classic_evaluation(far)  # the same ring
    assert adaptive_evaluation(near) > adaptive_evaluation(far)  # nearer the black king


def test_depth_follows_the_phase():
    assert phase_depth(chess.Board(), 4, 2) == 2  # the opening: base - deviation
    assert phase_depth(chess.Board(MIDDLEGAME[2]), 4, 2) == 4
    # 2 pieces: 4 + 6, at most 8
    assert phase_depth(chess.Board("8/5pk1/6p1/3R4/r4P2/6KP/8/8 w - - 0 40"), 4, 2) == 8
    assert phase_depth(chess.Board("8/5pk1/6p1/3R4/r2B1P2/6KP/8/4n3 w - - 0 40"), 4, 2) == 8
    assert phase_depth(chess.Board("8/5pk1/6p1/3R4/r2B1P2/6KP/8/4n3 w - - 0 40"), 3, 2) == 6


def test_the_classic_style_is_deterministic():
    for fen in MIDDLEGAME:
        board = chess.Board(fen)
        moves = {
            Chess0Agent("classic", depth=3, seed=seed).choose(board).move for seed in (1, 2, 3)
        }
        assert len(moves) == 1


@pytest.mark.slow
def test_the_adaptive_style_draws_within_its_threshold():
    seen: dict[str, set[chess.Move]] = {}
    for fen in MIDDLEGAME:
        board = chess.Board(fen)
        depth = phase_depth(board, 3, 1)
        reference = Searcher(evaluation=adaptive_evaluation).search(
            board, Budget(depth=depth), tolerance=50
        )
        assert reference.score is not None
        allowed = set(reference.sound())
        for seed in range(8):
            move = (
                Chess0Agent("adaptive", depth=3, deviation=1, window=50, seed=seed)
                .choose(board)
                .move
            )
            assert move in allowed, f"{fen}: {move} not within 50 cp of {reference.score}"
            assert reference.scores[move].score >= reference.score - 50
            seen.setdefault(fen, set()).add(move)
    assert any(len(moves) > 1 for moves in seen.values())  # it does draw
    # threshold 0: only the best moves
    board = chess.Board(MIDDLEGAME[0])
    best = Searcher(evaluation=adaptive_evaluation).search(board, Budget(depth=3), tolerance=0)
    assert (
        Chess0Agent("adaptive", depth=3, deviation=1, window=0).choose(board).move in best.sound()
    )


@pytest.mark.slow
def test_search_mode_over_uci_plays_the_same_classic_game_twice():
    games = []
    for _ in range(2):
        with popen("--mode", "chess0") as engine:
            engine.configure({"Style": "classic", "Depth": 2})
            board = chess.Board()
            for _ in range(12):
                board.push(engine.play(board, chess.engine.Limit(depth=10)).move)
        games.append(board.move_stack)
    assert games[0] == games[1]


@pytest.mark.slow
def test_a_match_of_two_engines_needs_no_casebase(tmp_path):
    engine = f"cmd='{sys.executable} {ROOT / 'uci_main.py'} --mode chess0'"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tournament",
            "run",
            "--rounds",
            "1",
            "--tc",
            "40/60",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "m"),
            "--engine",
            f"name=classic {engine} option.Style=classic option.Depth=1",
            "--engine",
            f"name=adaptive {engine} option.Style=adaptive option.Depth=1 option.DepthDeviation=0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    configurations = json.loads((tmp_path / "m" / "results.json").read_text())["configurations"]
    # no --configs: outside engines alone play one, not the thesis's five
    assert len(configurations) == 1
    assert configurations[0]["games"] == 2  # each engine had White once
