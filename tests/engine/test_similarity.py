"""Square and position similarity (cbr-agent.md §3) and the vectorised scan against the
reference."""

import random

import chess
import numpy as np
import pytest

from casebase.format import encode_board
from engine.cbr.similarity import (
    CHUNK,
    SimilarityScanner,
    board_similarity,
    square_similarity,
)

WP, WN = chess.Piece(chess.PAWN, chess.WHITE), chess.Piece(chess.KNIGHT, chess.WHITE)
BP, BN = chess.Piece(chess.PAWN, chess.BLACK), chess.Piece(chess.KNIGHT, chess.BLACK)
CONTENTS = [None] + [chess.Piece(t, c) for c in chess.COLORS for t in chess.PIECE_TYPES]


@pytest.mark.parametrize(
    ("a", "b", "r"),
    [(None, None, 4), (WP, WP, 4), (WP, WN, 3), (WP, None, 2), (WP, BP, 1), (WP, BN, 0)],
)
def test_square_similarity_vectors(a, b, r):
    assert square_similarity(a, b) == r
    assert square_similarity(b, a) == r


def test_square_similarity_symmetric_over_all_contents():
    for a in CONTENTS:
        for b in CONTENTS:
            assert square_similarity(a, b) == square_similarity(b, a) in (0, 1, 2, 3, 4)


def test_sim_vectors():
    start = chess.Board()
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    assert board_similarity(start, start) == 256
    assert board_similarity(start, after_e4) == 252


def random_board(rng: random.Random) -> chess.Board:
    """Any placement of up to 40 pieces (legality plays no part in Sim)."""
    board = chess.Board(None)
    for square in rng.sample(chess.SQUARES, rng.randint(0, 40)):
        board.set_piece_at(square, rng.choice(CONTENTS[1:]))
    board.turn = rng.choice(chess.COLORS)
    return board


def test_scanner_matches_reference_on_random_boards():
    rng = random.Random(1)
    cases = [random_board(rng) for _ in range(300)] + [chess.Board()]
    scanner = SimilarityScanner(np.array([encode_board(b) for b in cases]))
    for _ in range(30):
        query = random_board(rng)
        sims = scanner.similarities(query)
        assert sims.dtype == np.int16
        assert sims.tolist() == [board_similarity(query, case) for case in cases]
    assert scanner.similarities(chess.Board())[-1] == 256


def square_codes(boards: np.ndarray) -> np.ndarray:
    """N×64 content codes (0 empty, 1..6 white, 7..12 black) of N×8 bitboards, square by square."""
    bits = (boards[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    kinds = (bits[:, 2:, :].astype(np.int64) * np.arange(1, 7)[None, :, None]).sum(axis=1)
    return kinds + 6 * bits[:, 1, :].astype(np.int64)


def test_scanner_across_chunk_boundaries_with_rows():
    """Several chunks and a row subset, checked square by square with a lookup table of R."""
    rng = random.Random(2)
    pool = np.array([encode_board(random_board(rng)) for _ in range(500)])
    picks = np.random.default_rng(3).integers(0, len(pool), 2 * CHUNK + 123)
    rows = np.flatnonzero(np.arange(len(picks)) % 3 != 1)
    table = np.array([[square_similarity(a, b) for b in CONTENTS] for a in CONTENTS])
    scanner = SimilarityScanner(pool[picks], rows)
    assert len(scanner) == len(rows)
    codes = square_codes(pool)[picks[rows]]
    for _ in range(3):
        query = random_board(rng)
        expected = table[square_codes(encode_board(query)[None])[0], codes].sum(axis=1)
        assert np.array_equal(scanner.similarities(query), expected)


def test_scanner_with_no_cases():
    scanner = SimilarityScanner(np.empty((0, 8), dtype=np.uint64))
    assert len(scanner) == 0
    assert scanner.similarities(chess.Board()).shape == (0,)


def test_scanner_writes_into_out():
    scanner = SimilarityScanner(np.array([encode_board(chess.Board())] * 3))
    out = np.zeros(3, dtype=np.int16)
    assert scanner.similarities(chess.Board(), out=out) is out
    assert out.tolist() == [256] * 3
