"""The guided mode's alpha-beta search (search.md §2–4) against plain minimax and known
positions."""

from __future__ import annotations

import random
from collections.abc import Callable

import chess
import chess.pgn
import chess.polyglot
import pytest
from search_helpers import random_positions, shuffled
from uci_helpers import ROOT

from engine.search.alphabeta import Searcher
from engine.search.evaluation import PIECE_VALUES, evaluate, material_white, move_delta
from engine.search.limits import Budget
from engine.search.result import RootScore, SearchResult
from engine.search.scores import MATE, MATE_BOUND
from engine.search.zobrist import board_pieces_key, full_key, pieces_delta
from engine.uci.lines import uci_score


def search(board: chess.Board, depth: int) -> SearchResult:
    """One search to ``depth`` with a fresh searcher."""
    return Searcher().search(board, Budget(depth=depth))


PGN = ROOT / "data" / "experts" / "kosteniuk-2200.pgn"

# -- plain minimax, the reference ------------------------------------------------------


def _ply_adjusted(score: int, ply: int) -> int:
    """A leaf value measured from the leaf, with mates counted from the root instead."""
    return score - ply if score > MATE_BOUND else score + ply if score < -MATE_BOUND else score


def minimax(
    board: chess.Board, depth: int, leaf: Callable[[chess.Board], int], ply: int = 0
) -> int:
    """Negamax without pruning or table, with the search's draw rules (no repetition: the
    positions start from a FEN, and depth <= 3 cannot repeat one)."""
    if ply and board.halfmove_clock >= 100:
        return -MATE + ply if board.is_checkmate() else 0
    if ply and board.is_insufficient_material():
        return 0
    if depth == 0:
        return _ply_adjusted(leaf(board), ply)
    moves = list(board.legal_moves)
    if not moves:
        return -MATE + ply if board.is_check() else 0
    best = -10 * MATE
    for move in moves:
        board.push(move)
        best = max(best, -minimax(board, depth - 1, leaf, ply + 1))
        board.pop()
    return best


def losing_capture(board: chess.Board, move: chess.Move) -> bool:
    """A capture (not a promotion) by a piece worth over 50 cp more than its victim, of a
    piece the opponent defends."""
    attacker = board.piece_type_at(move.from_square)
    victim = board.piece_type_at(move.to_square) or chess.PAWN  # en passant
    return (
        board.is_capture(move)
        and not move.promotion
        and PIECE_VALUES[attacker] > PIECE_VALUES[victim] + 50
        and board.is_attacked_by(not board.turn, move.to_square)
    )


def capture_minimax(board: chess.Board, ply: int = 0) -> int:
    """Quiescence by definition: stand pat, then every capture (no under-promotions, no losing
    captures) and quiet queen promotion; in check, every evasion and no standing pat."""
    if board.is_check():
        moves = list(board.legal_moves)
        if not moves:
            return -MATE + ply
        best = -10 * MATE
    else:
        best = evaluate(board)
        moves = [
            m
            for m in board.legal_moves
            if (
                board.is_capture(m)
                and m.promotion in (None, chess.QUEEN)
                and not losing_capture(board, m)
            )
            or m.promotion == chess.QUEEN
        ]
    for move in moves:
        board.push(move)
        best = max(best, -capture_minimax(board, ply + 1))
        board.pop()
    return best


def _capture_tree_size(board: chess.Board, cap: int) -> int:
    """Nodes of the full quiescence tree (moves as in :func:`capture_minimax`), at most cap + 1."""
    count = 1
    in_check = board.is_check()
    for move in board.legal_moves:
        if count > cap:
            break
        noisy = (
            board.is_capture(move) and not losing_capture(board, move)
        ) or move.promotion == chess.QUEEN
        if in_check or noisy:
            board.push(move)
            count += _capture_tree_size(board, cap - count)
            board.pop()
    return count


# -- positions -------------------------------------------------------------------------


def _pgn_positions(count: int) -> list[chess.Board]:
    rng = random.Random(1)
    boards = []
    with open(PGN, encoding="utf-8") as f:
        while len(boards) < count and (game := chess.pgn.read_game(f)) is not None:
            moves = list(game.mainline_moves())
            board = game.board()
            for move in moves[: rng.randrange(len(moves))]:
                board.push(move)
            boards.append(chess.Board(board.fen()))
    return boards


@pytest.fixture(scope="module")
def positions() -> list[chess.Board]:
    """200 positions: 100 from an expert's games, 100 from random play."""
    return _pgn_positions(100) + [chess.Board(b.fen()) for b in random_positions(100, 2, (10, 120))]


# -- correctness against minimax ---------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("depth", "step"), [(1, 1), (2, 1), (3, 10)])
def test_alpha_beta_equals_minimax_with_static_leaves(
    positions: list[chess.Board], depth: int, step: int
) -> None:
    with_table, without_table = Searcher(quiescence=False), Searcher(table=False, quiescence=False)
    for board in positions[::step]:
        expected = minimax(board, depth, evaluate)
        assert with_table.search(board, Budget(depth=depth)).score == expected, board.fen()
        assert without_table.search(board, Budget(depth=depth)).score == expected, board.fen()


@pytest.mark.slow
def test_quiescence_equals_capture_minimax(positions: list[chess.Board]) -> None:
    # The full tree explodes in about half the positions: compare where it stays small.
    sizes = {board.fen(): _capture_tree_size(board, 1000) for board in positions}
    boards = [b for b in positions if sizes[b.fen()] <= 1000]
    assert len(boards) >= 60
    assert sum(sizes[b.fen()] > 50 for b in boards) >= 10  # not only trivial trees
    searcher = Searcher()
    for board in boards:
        assert searcher.quiescence(board) == capture_minimax(board), board.fen()


@pytest.mark.slow
@pytest.mark.parametrize(("depth", "count"), [(1, 40), (2, 4)])
def test_alpha_beta_equals_minimax_with_quiescence(
    positions: list[chess.Board], depth: int, count: int
) -> None:
    # The quiescence value (checked against its definition above) is minimax's leaf. Expert
    # positions only: in random ones the leaves' capture trees make minimax too slow.
    leaf = Searcher().quiescence
    for board in positions[:count]:
        expected = minimax(board, depth, leaf)
        assert Searcher().search(board, Budget(depth=depth)).score == expected, board.fen()


@pytest.mark.slow
@pytest.mark.parametrize("only_some", [False, True])
@pytest.mark.parametrize("tolerance", [0, 60])
def test_root_scores_exact_down_to_tolerance(
    positions: list[chess.Board], tolerance: int, only_some: bool
) -> None:
    rng = random.Random(tolerance)
    for board in positions[::7]:
        legal = list(board.legal_moves)
        wanted = set(rng.sample(legal, len(legal) // 3)) if only_some else set(legal)
        result = Searcher(quiescence=False).search(
            board, Budget(depth=2), tolerance=tolerance, exact=wanted if only_some else None
        )
        truth = {}
        for move in legal:
            board.push(move)
            truth[move] = -minimax(board, 1, evaluate, ply=1)
            board.pop()
        best = max(truth.values())
        assert result.score == best and truth[result.move] == best
        assert result.scores.keys() == truth.keys()
        for move, got in result.scores.items():
            if got.exact:
                assert got.score == truth[move]
            else:
                assert truth[move] <= got.score  # an upper bound...
                # ...below the tolerance, or at most the best for the moves not wanted exactly
                assert got.score < best - tolerance or (move not in wanted and got.score <= best)
        floor = best if abs(best) > MATE_BOUND else best - tolerance
        sound = {m for m, v in truth.items() if v >= floor and m in wanted | {result.move}}
        assert sound <= set(result.sound()) <= {m for m, v in truth.items() if v >= floor}


@pytest.mark.slow
def test_incremental_key_and_material_are_recomputed_ones() -> None:
    rng = random.Random(3)
    seen = {"castling": 0, "en passant": 0, "promotion": 0}
    for _ in range(40):
        board = chess.Board()
        pieces, material = board_pieces_key(board), material_white(board)
        for _ in range(200):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer the rare moves so that every kind of move gets checked.
            special = [
                m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion
            ]
            move = rng.choice(special if special and rng.random() < 0.5 else moves)
            seen["castling"] += board.is_castling(move)
            seen["en passant"] += board.is_en_passant(move)
            seen["promotion"] += bool(move.promotion)
            piece, captured = (
                board.piece_type_at(move.from_square),
                board.piece_type_at(move.to_square),
            )
            assert piece is not None
            pieces ^= pieces_delta(board, move, piece, captured)
            material += move_delta(board, move, piece, captured)
            board.push(move)
            assert full_key(board, pieces) == chess.polyglot.zobrist_hash(board), board.fen()
            assert material == material_white(board), board.fen()
    assert min(seen.values()) >= 5, seen


# -- known positions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "best", "score"),
    [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", MATE - 1),  # back rank
        ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7", MATE - 1),
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6", MATE - 3),  # 1.Ra6 bxa6 2.b7#
    ],
)
def test_mates_are_found(fen: str, best: str, score: int) -> None:
    result = search(chess.Board(fen), depth=4)
    assert result.move == chess.Move.from_uci(best)
    assert result.score == score


def test_mated_side_sees_it_coming() -> None:
    # Black's only move 1...Kb8 allows 2.Rh8#.
    result = search(chess.Board("k7/8/1K6/8/8/8/8/7R b - - 0 1"), depth=3)
    assert result.score == -(MATE - 2)
    assert uci_score(result.score) == "mate -1"


def test_hanging_queen_is_taken() -> None:
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    result = search(board, depth=3)
    assert result.move == chess.Move.from_uci("f3h4")
    assert result.score > 700


def test_side_ahead_avoids_threefold_repetition() -> None:
    # Rb1 would bring the position after it about for the third time: a draw.
    board = shuffled(2)
    rb1 = chess.Move.from_uci("a1b1")
    result = Searcher().search(board, Budget(depth=3), prior={rb1: 1.0}, tolerance=1000)
    assert result.scores[rb1] == RootScore(0, True)
    assert result.move != rb1
    assert result.score > 400


def test_twofold_repetition_of_the_game_is_not_a_draw_at_the_root() -> None:
    # After one shuffle Rb1 repeats a position only once: not a draw yet, so it keeps its value.
    board = shuffled(1)
    rb1 = chess.Move.from_uci("a1b1")
    result = Searcher().search(board, Budget(depth=3), prior={rb1: 1.0}, tolerance=1000)
    assert result.scores[rb1].exact and result.scores[rb1].score > 400


def test_fifty_move_rule_draws_unless_the_move_mates() -> None:
    no_mate = chess.Board("7k/8/8/6K1/8/8/8/1Q6 w - - 99 80")
    assert search(no_mate, depth=2).score == 0
    mate = chess.Board("7k/8/6K1/8/8/8/8/1Q6 w - - 99 80")  # Qb8# or Qh7# on the hundredth ply
    result = search(mate, depth=2)
    assert result.score == MATE - 1
    mate.push(result.move)
    assert mate.is_checkmate()


def test_stalemate_and_insufficient_material_score_zero() -> None:
    board = chess.Board("k7/8/8/2K5/8/8/8/1Q6 w - - 0 1")
    result = Searcher().search(board, Budget(depth=2), tolerance=2000)
    assert result.scores[chess.Move.from_uci("b1b6")] == RootScore(0, True)  # stalemate
    assert result.score > 800 and result.move != chess.Move.from_uci("b1b6")
    assert search(chess.Board("8/8/4k3/8/8/3BK3/8/8 w - - 0 1"), depth=3).score == 0


def test_no_legal_move() -> None:
    mated = chess.Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    result = search(mated, depth=3)
    assert result.move is None and result.score == -MATE
    stalemated = chess.Board("k7/8/1QK5/8/8/8/8/8 b - - 0 1")
    assert search(stalemated, depth=3).score == 0
