"""Retrieval (cbr-agent.md §4): colour filter, all tied best cases, k nearest."""

import random

import chess
import numpy as np
import pytest
from engine_helpers import cases_casebase, pgn_casebase
from uci_helpers import ROOT

from engine.cbr.retrieval import CaseIndex
from engine.cbr.similarity import board_similarity

DATA = ROOT / "data" / "experts"


def after(*sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def case(board: chess.Board, uci: str) -> tuple[chess.Board, chess.Move]:
    return board, chess.Move.from_uci(uci)


@pytest.fixture(scope="module")
def small():
    """Rows 0..5: White, White, Black, White (duplicate of 0), Black, White."""
    return cases_casebase(
        [
            case(chess.Board(), "e2e4"),
            case(chess.Board(), "d2d4"),
            case(after("e4"), "e7e5"),
            case(chess.Board(), "e2e4"),
            case(after("d4"), "d7d5"),
            case(after("e4", "e5"), "g1f3"),
        ]
    )


@pytest.fixture(scope="module")
def kosteniuk():
    return pgn_casebase(DATA / "kosteniuk-2200.pgn", "Kosteniuk", max_games=40)


def test_most_similar_keeps_all_ties_and_duplicates_in_casebase_order(small):
    rows, sim = CaseIndex(small).most_similar(chess.Board())
    assert rows.tolist() == [0, 1, 3] and sim == 256


def test_colour_filter(small):
    index = CaseIndex(small)
    rows, sim = index.most_similar(after("e4"))
    assert rows.tolist() == [2] and sim == 256
    rows, sim = index.most_similar(after("c4"))  # Black to move: only rows 2 and 4 count
    assert set(rows.tolist()) <= {2, 4} and sim == board_similarity(after("c4"), after("d4"))
    assert (index.count(chess.WHITE), index.count(chess.BLACK)) == (4, 2)


def test_no_case_of_the_colour():
    white_only = cases_casebase([case(chess.Board(), "e2e4")])
    rows, sim = CaseIndex(white_only).most_similar(after("e4"))
    assert rows.size == 0 and sim == -1
    rows, sims = CaseIndex(white_only).nearest(after("e4"), 5, np.random.default_rng(0))
    assert rows.size == 0 and sims.size == 0


def test_similarities_match_reference(kosteniuk):
    index = CaseIndex(kosteniuk)
    rng = random.Random(4)
    for _ in range(5):
        board = chess.Board()
        for _ in range(rng.randrange(40)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        rows, sims = index.similarities(board)
        assert (kosteniuk.turn[rows] == board.turn).all()
        assert len(rows) == index.count(board.turn)
        for row in rows[:: max(1, len(rows) // 50)]:
            assert sims[list(rows).index(row)] == board_similarity(board, kosteniuk.board(row))
        best_rows, best = index.most_similar(board)
        assert best == sims.max() and best_rows.tolist() == rows[sims == best].tolist()


def test_nearest_is_the_k_best(kosteniuk):
    index = CaseIndex(kosteniuk)
    board = after("e4", "c5", "Nf3", "d6")
    rows, sims = index.similarities(board)
    for k in (1, 7, 64, 500):
        got_rows, got_sims = index.nearest(board, k, np.random.default_rng(k))
        assert len(got_rows) == k
        assert got_sims.tolist() == sorted(sims.tolist(), reverse=True)[:k]
        assert (np.diff(got_sims) <= 0).all()
        for s in set(got_sims.tolist()):  # casebase order within one Sim
            level = got_rows[got_sims == s]
            assert (np.diff(level) > 0).all()
            assert set(level.tolist()) <= set(rows[sims == s].tolist())
    everything, _ = index.nearest(board, 10**6, np.random.default_rng(0))
    assert sorted(everything.tolist()) == rows.tolist()


def test_nearest_draws_ties_at_the_kth_place_with_the_generator(small):
    index = CaseIndex(small)
    draws = {tuple(index.nearest(chess.Board(), 2, np.random.default_rng(s))[0]) for s in range(50)}
    assert draws == {(0, 1), (0, 3), (1, 3)}
    same = [index.nearest(chess.Board(), 2, np.random.default_rng(9))[0].tolist() for _ in range(2)]
    assert same[0] == same[1]
    with pytest.raises(ValueError):
        index.nearest(chess.Board(), 0, np.random.default_rng(0))


def test_index_is_fitted_once_per_casebase(small):
    assert CaseIndex.of(small) is CaseIndex.of(small)


def test_a_held_out_game_is_never_retrieved_and_the_rest_are_the_k_best(kosteniuk):
    index = CaseIndex(kosteniuk)
    board = after("e4", "c5", "Nf3", "d6")
    rows, sims = index.similarities(board)
    game = int(kosteniuk.game[rows[np.argmax(sims)]])  # the game of the most similar case
    held = np.flatnonzero(np.asarray(kosteniuk.game) == game)
    others = ~np.isin(rows, held)
    for k in (1, 7, 64):
        got_rows, got_sims = index.nearest(board, k, np.random.default_rng(k), held)
        assert not np.isin(got_rows, held).any()
        assert got_sims.tolist() == sorted(sims[others].tolist(), reverse=True)[:k]
