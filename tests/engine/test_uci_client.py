"""The engine driven by a real UCI client (python-chess's chess.engine): games, options, stop."""

from __future__ import annotations

import time

import chess
import chess.engine
import pytest
from uci_helpers import popen

pytestmark = pytest.mark.slow  # games through python-chess's client and the engine's process

MAX_PLIES = 200


def test_options_as_a_client_sees_them(kosteniuk_casebase):
    with popen(
        "--mode", "pure", "--casebase", str(kosteniuk_casebase), "--weights", "near-from"
    ) as engine:
        assert engine.id["name"] == "cbr-chess"
        options = engine.options
        assert options["Mode"].type == "combo" and options["Mode"].var == [
            "pure",
            "guided",
            "chess0",
        ]
        assert options["DistanceWeight"].default == 80 and options["DistanceWeight"].max == 100
        assert options["Seed"].type == "spin" and options["Casebase"].type == "string"
        assert (options["MultiPV"].default, options["Move Overhead"].default) == (1, 10)
        assert (options["Threads"].default, options["Hash"].default) == (1, 16)
        engine.configure(
            {
                "DistanceWeight": 20,
                "FromContentWeight": 80,
                "Seed": 42,
                "Move Overhead": 30,
                "Threads": 2,
                "Hash": 32,
            }
        )
        board = chess.Board()
        first = [engine.play(board, chess.engine.Limit(time=0.05)).move for _ in range(3)]
        assert len(set(first)) == 1  # Seed 42 fixed, the same position: the same draw each game
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"DistanceWeight": 101})  # the client checks declared ranges


def test_self_play_two_casebases_under_a_clock(kosteniuk_casebase, gaprindashvili_casebase):
    """A whole game: every move legal, the game ends by a rule (or the ply cap)."""
    white = popen("--mode", "pure", "--casebase", str(kosteniuk_casebase), "--seed", "1")
    black = popen(
        "--mode",
        "pure",
        "--casebase",
        str(gaprindashvili_casebase),
        "--seed",
        "2",
        "--weights",
        "content-from",
    )
    clock = {chess.WHITE: 60.0, chess.BLACK: 60.0}
    board = chess.Board()
    try:
        for engine in (white, black):
            engine.ping()
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            engine = white if board.turn else black
            started = time.monotonic()
            result = engine.play(
                board,
                chess.engine.Limit(
                    white_clock=clock[chess.WHITE],
                    black_clock=clock[chess.BLACK],
                    white_inc=1,
                    black_inc=1,
                ),
                info=chess.engine.INFO_ALL,
            )
            clock[board.turn] += 1 - (time.monotonic() - started)
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        white.quit()
        black.quit()
    assert min(clock.values()) > 0
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None or board.ply() == MAX_PLIES


def test_stop_during_go_infinite(kosteniuk_casebase):
    with popen("--mode", "pure", "--casebase", str(kosteniuk_casebase)) as engine:
        board = chess.Board()
        board.push_san("e4")
        with engine.analysis(board) as analysis:
            for info in analysis:
                if "pv" in info:  # thought done; the engine holds its move until stop
                    break
            time.sleep(0.2)
            analysis.stop()
            best = analysis.wait()
        assert best.move in board.legal_moves
        assert engine.play(board, chess.engine.Limit(time=0.05)).move in board.legal_moves
