"""The chooser's features by hand (issue #40): recaptures, castling, queen trades, retreats, pawns'
advances, and the judge's scores read as loss, rank and band."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.strength.chooser_features import FEATURES, features
from engine.strength.errormodel import losses

COLUMN = {name: i for i, name in enumerate(FEATURES)}


def move_row(fen: str, uci: str, last: str | None = None) -> dict[str, float]:
    """The features of one move alone, by name."""
    board = chess.Board(fen)
    x, names = features(
        board, chess.Move.from_uci(last) if last else None, [chess.Move.from_uci(uci)], [0], [1.0]
    )
    return dict(zip(names, x[0].tolist()))


def test_a_recapture_on_the_square_the_opponent_just_took_on():
    board = chess.Board()
    for uci in ("e2e4", "d7d5", "e4d5"):
        board.push_uci(uci)
    row = move_row(board.fen(), "d8d5", last="e4d5")
    assert (
        row["capture"],
        row["recapture"],
        row["piece queen"],
        row["distance"],
        row["retreat"],
    ) == (1, 1, 1, 3, 0)
    # the last move unknown: no recapture
    assert move_row(board.fen(), "d8d5", last=None)["recapture"] == 0


def test_a_check_that_captures_elsewhere_is_no_recapture():
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    row = move_row(fen, "h5f7", last="g8f6")
    assert (row["check"], row["capture"], row["recapture"], row["queen trade"]) == (1, 1, 0, 0)
    assert move_row(fen, "d2d3")["check"] == 0 and move_row(fen, "d2d3")["pawn advance"] == 1


def test_castling_is_a_king_move_and_no_retreat():
    fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    row = move_row(fen, "e1g1")
    assert (row["castling"], row["piece king"], row["distance"], row["retreat"]) == (1, 1, 2, 0)
    assert move_row(fen, "e1f1")["castling"] == 0


def test_a_queen_trade_for_either_side():
    assert move_row("4k3/8/8/3q4/8/8/8/3QK3 w - - 0 1", "d1d5")["queen trade"] == 1
    black = move_row("3qk3/8/8/8/8/8/8/3QK3 b - - 0 1", "d8d1")
    assert (black["queen trade"], black["check"], black["capture"]) == (1, 1, 1)
    # a queen takes a rook
    assert move_row("4k3/8/8/3r4/8/8/8/3QK3 w - - 0 1", "d1d5")["queen trade"] == 0
    # a rook takes the queen
    assert move_row("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", "d1d5")["queen trade"] == 0


def test_a_retreat_is_toward_the_movers_own_side():
    white = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    assert move_row(white, "c4b3")["retreat"] == 1 and move_row(white, "c4b5")["retreat"] == 0
    black = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"
    assert move_row(black, "f6g8")["retreat"] == 1 and move_row(black, "f6g4")["retreat"] == 0
    assert move_row(black, "d7d6")["retreat"] == 0  # a pawn never retreats


def test_pawns_to_the_sixth_and_seventh_and_promotion():
    assert move_row("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1", "e5e6")["pawn to 6th/7th"] == 1
    assert move_row("4k3/8/8/8/4p3/8/8/4K3 b - - 0 1", "e4e3")["pawn to 6th/7th"] == 1
    assert move_row("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", "e4e5")["pawn to 6th/7th"] == 0
    row = move_row("8/4P3/8/8/8/2k5/8/4K3 w - - 0 1", "e7e8q")
    assert (row["promotion"], row["pawn advance"]) == (1, 1)


def test_the_scores_give_loss_rank_and_band():
    board = chess.Board()
    moves = [chess.Move.from_uci(m) for m in ("e2e4", "d2d4", "g1f3")]
    x, _ = features(
        board,
        None,
        moves,
        [250, 300, 100],
        [0.5, 0.3, 0.0],
        votes=[0.2, 0.8, 0.0],
        shallow={2: [0, 10, 10], 6: [40, 30, 0]},
    )
    loss = losses(np.array([[250.0, 300.0, 100.0]]))[0]
    assert np.allclose(x[:, COLUMN["loss"]], loss) and np.allclose(
        x[:, COLUMN["loss winning"]], loss
    )
    assert not x[:, COLUMN["loss losing"]].any()
    assert x[:, COLUMN["rank"]].tolist() == [1, 0, 2] and x[:, COLUMN["best"]].tolist() == [0, 1, 0]
    assert x[2, COLUMN["log prior"]] == pytest.approx(np.log(1e-4))  # floored
    assert x[:, COLUMN["log prior squared"]] == pytest.approx(x[:, COLUMN["log prior"]] ** 2)
    assert x[:, COLUMN["sqrt loss"]] ** 2 == pytest.approx(loss)
    assert x[:, COLUMN["sqrt loss d6"]] ** 2 == pytest.approx(x[:, COLUMN["loss d6"]])
    assert x[:, COLUMN["vote"]].tolist() == [0.2, 0.8, 0.0]
    assert (
        x[0, COLUMN["loss d2"]] > 0 and x[1, COLUMN["loss d2"]] == 0 and x[2, COLUMN["loss d6"]] > 0
    )
    level, _ = features(board, None, moves, [50, 100, -100], [0.5, 0.3, 0.2])
    assert not level[
        :, [COLUMN["loss winning"], COLUMN["loss losing"], COLUMN["loss d2"], COLUMN["vote"]]
    ].any()
