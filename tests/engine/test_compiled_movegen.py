"""The compiled move generator (engine/compiled/movegen.py) held to python-chess: perft on the
Chess Programming Wiki's six positions, the legal moves and the states ``make`` writes on random
positions, and the boards the compiled search refuses."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import chess
import chess.polyglot
import chess.variant
import numpy as np
import pytest

pytest.importorskip("numba")

from engine.compiled import board as cb  # noqa: E402

# The six positions of https://www.chessprogramming.org/Perft_Results and their published counts
# from depth 1 (depth 5 of each is bench/compiled.py's).
PERFT = {
    "initial": (chess.STARTING_FEN, [20, 400, 8902, 197281]),
    "kiwipete": (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        [48, 2039, 97862, 4085603],
    ),
    "position 3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624]),
    "position 4": (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        [6, 264, 9467, 422333],
    ),
    "position 5": (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        [44, 1486, 62379, 2103487],
    ),
    "position 6": (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        [46, 2079, 89890, 3894594],
    ),
}


@pytest.fixture(scope="session")
def movegen() -> Iterator[ModuleType]:
    """The module, compiled (or loaded from the cache) once per worker, under the cache's lock."""
    from engine.compiled import jit, movegen

    with jit.compile_lock():
        assert movegen.perft_board(chess.Board(), 2) == 400
    yield movegen


@pytest.mark.parametrize("name", list(PERFT))
def test_perft_is_the_published_count(movegen: ModuleType, name: str) -> None:
    fen, counts = PERFT[name]
    board = chess.Board(fen)
    for depth, count in enumerate(counts, start=1):
        assert movegen.perft_board(board, depth) == count, depth
    assert movegen.perft_board(board, 3) == cb.reference_perft(board, 3)


def test_divide_splits_perft_by_the_root_moves(movegen: ModuleType) -> None:
    board = chess.Board(PERFT["kiwipete"][0])
    divided = movegen.divide_board(board, 3)
    assert {move for move, _ in divided} == set(board.legal_moves)
    for move, count in divided:
        board.push(move)
        assert count == movegen.perft_board(board, 2), move.uci()
        board.pop()
    assert sum(count for _, count in divided) == PERFT["kiwipete"][1][2]


def _random_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions reached by random legal play from the start and from the six, each game's
    positions in turn until ``count``."""
    rng = random.Random(seed)
    starts = [fen for fen, _ in PERFT.values()]
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(starts[len(boards) % len(starts)])
        for _ in range(rng.randrange(1, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


POSITIONS = _random_positions(300, seed=73)


def _codes(movegen: ModuleType, state: np.ndarray, captures: bool = False) -> list[int]:
    moves = np.zeros(cb.MAX_MOVES, dtype=np.int32)
    generate = movegen.generate_captures if captures else movegen.generate
    return [int(code) for code in moves[: generate(state, moves)]]


def test_legal_moves_are_python_chess_s(movegen: ModuleType) -> None:
    for board in POSITIONS:
        state = cb.state_of(board)
        codes = _codes(movegen, state)
        assert sorted(cb.move_of(code, board).uci() for code in codes) == sorted(
            move.uci() for move in board.legal_moves
        ), board.fen()
        assert movegen.in_check(state) == board.is_check(), board.fen()


def test_captures_are_the_legal_captures_and_queen_promotions(movegen: ModuleType) -> None:
    for board in POSITIONS:
        expected = {
            move.uci()
            for move in board.legal_moves
            if move.promotion in (None, chess.QUEEN)
            and (board.is_capture(move) or move.promotion == chess.QUEEN)
        }
        codes = _codes(movegen, cb.state_of(board), captures=True)
        assert len(codes) == len(expected), board.fen()
        assert {cb.move_of(code, board).uci() for code in codes} == expected, board.fen()


def test_make_writes_the_state_of_the_board_after_the_move(movegen: ModuleType) -> None:
    """Every word, the hash kept by the keys of what changed included: the same as the state made
    from scratch, and as python-chess's polyglot hash."""
    after = np.zeros(cb.STATE, dtype=np.uint64)
    made = 0
    for board in POSITIONS:
        state = cb.state_of(board)
        assert int(state[cb.HASH]) == chess.polyglot.zobrist_hash(board)
        for code in _codes(movegen, state):
            move = cb.move_of(code, board)
            assert cb.code_of(move, state) == code, move.uci()
            movegen.make(state, code, after)
            board.push(move)
            expected = cb.state_of(board)
            board.pop()
            assert after.tolist() == expected.tolist(), (board.fen(), move.uci())
            assert after[cb.HASH] == cb.hash_of(after)
            made += 1
    assert made > 5000


def test_the_null_move_passes_the_turn(movegen: ModuleType) -> None:
    after = np.zeros(cb.STATE, dtype=np.uint64)
    passed = 0
    for board in POSITIONS:
        if board.is_check():
            continue  # a null move is never made in check, and leaves an invalid board
        movegen.make_null(cb.state_of(board), after)
        board.push(chess.Move.null())
        assert after.tolist() == cb.state_of(board).tolist(), board.fen()
        board.pop()
        passed += 1
    assert passed > 200


def test_en_passant_that_uncovers_a_check_along_the_rank_is_not_generated(
    movegen: ModuleType,
) -> None:
    board = chess.Board("8/8/8/K2pP2r/8/8/8/7k w - d6 0 2")
    codes = _codes(movegen, cb.state_of(board))
    assert "e5d6" not in {cb.move_of(code, board).uci() for code in codes}
    assert len(codes) == board.legal_moves.count()


def test_castling_through_an_attacked_square_is_not_generated(movegen: ModuleType) -> None:
    board = chess.Board("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1")  # f1 attacked, d1 and c1 not
    ucis = {cb.move_of(code, board).uci() for code in _codes(movegen, cb.state_of(board))}
    assert "e1g1" not in ucis
    assert "e1c1" in ucis


def test_history_is_the_hashes_since_the_last_irreversible_move(movegen: ModuleType) -> None:
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3"]:
        board.push_uci(uci)
    history = cb.history_of(board)
    replay = chess.Board()
    replay.push_uci("e2e4")
    replay.push_uci("e7e5")  # the last pawn move: history starts at the position after it
    expected = []
    for move in board.move_stack[2:]:
        expected.append(chess.polyglot.zobrist_hash(replay))
        replay.push(move)
    assert history.tolist() == expected
    assert history[0] == history[4]  # the position after 2... c6b8 repeats the one after e7e5


@pytest.mark.parametrize(
    "board",
    [
        chess.Board(chess960=True),
        chess.Board("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1", chess960=True),
        chess.variant.AtomicBoard(),
        chess.variant.CrazyhouseBoard(),
        chess.Board("4k3/8/8/8/8/8/8/8 w - - 0 1"),  # no white king
        chess.Board("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"),  # the side not to move is in check
    ],
    ids=["chess960 start", "chess960", "atomic", "crazyhouse", "no king", "opponent in check"],
)
def test_a_board_the_search_cannot_hold_is_unsupported(board: chess.Board) -> None:
    with pytest.raises(cb.Unsupported):
        cb.state_of(board)


def test_a_standard_board_from_any_position_is_held() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 99 300")
    state = cb.state_of(board)
    assert cb.side_to_move(state) == cb.WHITE
    assert cb.halfmove_clock(state) == 99
