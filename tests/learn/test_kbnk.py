"""Bergbom's study (docs/results/2026-11-22-kbnk-networks.md), tested on its KRK prototype: the KRK
table is made in a second."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from endgame.tablebase import Tablebase
from learn.kbnk import (
    Design,
    Network,
    choose,
    features,
    play,
    plies_of,
    sample,
    target,
    train,
)

pytestmark = pytest.mark.slow  # it trains Bergbom's networks (torch)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tablebase:
    return Tablebase(tmp_path_factory.mktemp("tables"))


def test_targets_lie_in_the_sigmoids_range_and_invert():
    plies = np.array([0, 10, 33, 66])
    assert target(plies, 66).min() == pytest.approx(0.1) and target(
        plies, 66
    ).max() == pytest.approx(0.9)
    assert plies_of(target(plies, 66), 66) == pytest.approx(plies)


def test_samples_are_won_legal_and_not_drawn_at_once(tables: Tablebase):
    boards, plies = sample(tables, "KRK", 300, False, np.random.default_rng(0))
    for board, distance in zip(boards, plies):
        assert board.is_valid() and board.turn == chess.BLACK
        verdict = tables.probe(board)
        assert verdict is not None and verdict.wins is False and verdict.plies == distance
        rook = next(iter(board.pieces(chess.ROOK, chess.WHITE)))
        assert not (
            board.is_attacked_by(chess.BLACK, rook) and not board.is_attacked_by(chess.WHITE, rook)
        )


def test_features_follow_the_studys_designs():
    board = chess.Board("8/8/8/8/8/2k5/8/R3K3 b - - 0 1")
    coordinates = features([board], "coordinates", "KRK")[0]
    # rank and file of the white king, the rook, the black king (/7), then the bias
    assert coordinates.tolist() == pytest.approx([0, 4 / 7, 0, 0, 2 / 7, 2 / 7, 1])
    distances = features([board], "distances", "KRK")[0]
    # the black king's distance to the nearest corner, then each white man's Manhattan distance to
    # it
    assert distances.tolist() == pytest.approx([2 / 7, 4 / 14, 4 / 14, 1])
    assert features([board], "squares", "KRK").shape == (1, 6 + 1 + 2 + 1 + 3 * 64 + 1)


def test_training_learns_and_a_perfect_valuer_mates(tables: Tablebase):
    design = Design(inputs="both", hidden=20, examples=5000, epochs=80, lr=0.01)
    trained = train(tables, "KRK", design, validation=500)
    boards, plies = sample(tables, "KRK", 500, False, np.random.default_rng(99))
    baseline = float(np.abs(plies - plies.mean()).mean())
    assert trained.error_black < 0.85 * baseline  # it learned something (about 0.75 measured)

    # the play loop: with the table itself as the value, every game is a mate
    def exact(boards: list[chess.Board]) -> np.ndarray:
        return np.array([tables.probe(b).plies for b in boards])  # type: ignore[union-attr]

    report = play(exact, "KRK", tables, 10)
    assert report.mates == 10 and report.mates_first(10) == 10
    assert all(p <= 2 * m for p, m in zip(report.plies, report.optimal_moves))
    board = chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1")
    assert choose(exact, board, "KRK") == chess.Move.from_uci("h1h8")


def test_the_network_gradient_is_right():
    rng = np.random.default_rng(1)
    net = Network.new(4, 3, 10, rng)
    x, y = rng.random((5, 4)).astype(np.float64), rng.random(5)
    net.w1, net.w2 = net.w1.astype(np.float64), net.w2.astype(np.float64)

    def loss() -> float:
        return float(0.5 * ((net.forward(x)[1] - y) ** 2).mean())

    before = loss()
    net.fit(x, y, Design(epochs=50, batch=5, lr=0.01), rng)
    assert loss() < before
