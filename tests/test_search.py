"""The guided mode's alpha-beta search (search.md §2–4) against plain minimax and known positions."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from search_helpers import random_positions, shuffled

from engine.search import alphabeta as search_module
from engine.search.alphabeta import CHECK_EVERY, Searcher
from engine.search.evaluation import PIECE_VALUES, evaluate, material_white, move_delta
from engine.search.limits import SearchLimits, after_ponderhit, pondering, search_budget, time_budget
from engine.search.result import RootScore, SearchResult
from engine.search.scores import MATE, MATE_BOUND
from engine.search.zobrist import board_pieces_key, full_key, pieces_delta
from engine.uci.lines import iteration_info, uci_score


def search(board: chess.Board, **limits: object) -> SearchResult:
    """One search with a fresh searcher."""
    return Searcher().search(board, **limits)  # type: ignore[arg-type]

PGN = Path(__file__).resolve().parent.parent / "data" / "experts" / "kosteniuk-2200.pgn"

# -- plain minimax, the reference ------------------------------------------------------


def _ply_adjusted(score: int, ply: int) -> int:
    """A leaf value measured from the leaf, with mates counted from the root instead."""
    return score - ply if score > MATE_BOUND else score + ply if score < -MATE_BOUND else score


def minimax(board: chess.Board, depth: int, leaf: Callable[[chess.Board], int], ply: int = 0) -> int:
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
    return (board.is_capture(move) and not move.promotion
            and PIECE_VALUES[attacker] > PIECE_VALUES[victim] + 50
            and board.is_attacked_by(not board.turn, move.to_square))


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
            m for m in board.legal_moves
            if (board.is_capture(m) and m.promotion in (None, chess.QUEEN) and not losing_capture(board, m))
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
        noisy = (board.is_capture(move) and not losing_capture(board, move)) or move.promotion == chess.QUEEN
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


@pytest.mark.parametrize(("depth", "step"), [(1, 1), (2, 1), (3, 10)])
def test_alpha_beta_equals_minimax_with_static_leaves(
    positions: list[chess.Board], depth: int, step: int
) -> None:
    with_table, without_table = Searcher(quiescence=False), Searcher(table=False, quiescence=False)
    for board in positions[::step]:
        expected = minimax(board, depth, evaluate)
        assert with_table.search(board, depth=depth).score == expected, board.fen()
        assert without_table.search(board, depth=depth).score == expected, board.fen()


def test_quiescence_equals_capture_minimax(positions: list[chess.Board]) -> None:
    # The full tree explodes in about half the positions: compare where it stays small.
    sizes = {board.fen(): _capture_tree_size(board, 1000) for board in positions}
    boards = [b for b in positions if sizes[b.fen()] <= 1000]
    assert len(boards) >= 60
    assert sum(sizes[b.fen()] > 50 for b in boards) >= 10  # not only trivial trees
    searcher = Searcher()
    for board in boards:
        assert searcher.quiescence(board) == capture_minimax(board), board.fen()


@pytest.mark.parametrize(("depth", "count"), [(1, 40), (2, 4)])
def test_alpha_beta_equals_minimax_with_quiescence(
    positions: list[chess.Board], depth: int, count: int
) -> None:
    # The quiescence value (checked against its definition above) is minimax's leaf. Expert
    # positions only: in random ones the leaves' capture trees make minimax too slow.
    leaf = Searcher().quiescence
    for board in positions[:count]:
        expected = minimax(board, depth, leaf)
        assert Searcher().search(board, depth=depth).score == expected, board.fen()


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
            board, depth=2, tolerance=tolerance, exact=wanted if only_some else None
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
            special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion]
            move = rng.choice(special if special and rng.random() < 0.5 else moves)
            seen["castling"] += board.is_castling(move)
            seen["en passant"] += board.is_en_passant(move)
            seen["promotion"] += bool(move.promotion)
            piece, captured = board.piece_type_at(move.from_square), board.piece_type_at(move.to_square)
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
    result = Searcher().search(board, depth=3, prior={rb1: 1.0}, tolerance=1000)
    assert result.scores[rb1] == RootScore(0, True)
    assert result.move != rb1
    assert result.score > 400


def test_twofold_repetition_of_the_game_is_not_a_draw_at_the_root() -> None:
    # After one shuffle Rb1 repeats a position only once: not a draw yet, so it keeps its value.
    board = shuffled(1)
    rb1 = chess.Move.from_uci("a1b1")
    result = Searcher().search(board, depth=3, prior={rb1: 1.0}, tolerance=1000)
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
    result = Searcher().search(board, depth=2, tolerance=2000)
    assert result.scores[chess.Move.from_uci("b1b6")] == RootScore(0, True)  # stalemate
    assert result.score > 800 and result.move != chess.Move.from_uci("b1b6")
    assert search(chess.Board("8/8/4k3/8/8/3BK3/8/8 w - - 0 1"), depth=3).score == 0


def test_no_legal_move() -> None:
    mated = chess.Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    result = search(mated, depth=3)
    assert result.move is None and result.score == -MATE
    stalemated = chess.Board("k7/8/1QK5/8/8/8/8/8 b - - 0 1")
    assert search(stalemated, depth=3).score == 0


def test_searchmoves_restrict_the_root() -> None:
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("b2b3")]
    result = search(board, depth=2, moves=only)
    assert result.move in only and set(result.scores) == set(only)


# -- limits ------------------------------------------------------------------------------


def test_node_limit_is_exact_and_reproducible() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    first = search(board, nodes=5000, tolerance=50)
    second = search(board, nodes=5000, tolerance=50)
    assert first.nodes == second.nodes == 5000
    assert (first.move, first.score, first.depth, first.pv, first.scores) == (
        second.move, second.score, second.depth, second.pv, second.scores
    )
    assert first.depth >= 2


def test_tiny_node_limit_still_gives_a_legal_move() -> None:
    board = chess.Board()
    for nodes in (1, 2, 10, 50):
        result = search(board, nodes=nodes)
        assert result.move in board.legal_moves
        assert result.nodes <= nodes


class StopAfter(threading.Event):
    """A stop event that another thread sets once ``searcher`` has counted ``nodes`` nodes."""

    def __init__(self, searcher: Searcher, nodes: int) -> None:
        super().__init__()
        self.searcher, self.nodes = searcher, nodes

    def is_set(self) -> bool:
        return self.searcher.nodes >= self.nodes or super().is_set()


@pytest.mark.parametrize("after", [1, 3000, 20_000])
def test_stop_is_seen_within_check_every_nodes(after: int) -> None:
    board = chess.Board("r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9")
    searcher = Searcher()
    result = searcher.search(board, stop=StopAfter(searcher, after), tolerance=50)
    assert after <= result.nodes <= after + CHECK_EVERY  # counted work, not seconds
    assert result.move in board.legal_moves


def test_stop_from_another_thread_ends_the_search() -> None:
    board = chess.Board("r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9")
    stop = threading.Event()
    out: list[SearchResult] = []
    thread = threading.Thread(target=lambda: out.append(search(board, stop=stop)))
    thread.start()
    stop.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and out[0].move in board.legal_moves


class FakeClock:
    """``time.monotonic`` for the search: every look at the clock advances it by ``step`` seconds."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.looks = 0.0, step, 0

    def monotonic(self) -> float:
        self.now += self.step
        self.looks += 1
        return self.now


def test_movetime_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    board = chess.Board("r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9")
    clock = FakeClock(0.001)
    monkeypatch.setattr(search_module, "time", clock)
    result = search(board, movetime=0.2)
    # 0.2 s at 1 ms a look: the search ends by the 200th look, looking every CHECK_EVERY nodes.
    assert clock.looks <= 200 + 10 and result.nodes <= (clock.looks + 1) * CHECK_EVERY
    assert result.move in board.legal_moves and result.depth >= 1


def test_clocked_search_stops_at_an_only_move() -> None:
    board = chess.Board("7k/8/8/8/8/8/6q1/7K w - - 0 1")  # Kxg2 is forced
    assert board.legal_moves.count() == 1
    result = search(board, movetime=5.0, soft_time=3.0)
    assert result.depth == 1 and result.move == chess.Move.from_uci("h1g2")


@pytest.mark.parametrize(
    ("remaining", "increment", "movestogo", "seconds"),
    [
        (60_000, 0, None, 60 / 32),
        (60_000, 0, 38, 60 / 40),
        (60_000, 2_000, None, 60 / 32 + 1.6),
        (3_000, 10_000, None, 1.0),  # never more than a third of what remains
        (0, 0, None, 0.0),
    ],
)
def test_time_budget(remaining: int, increment: int, movestogo: int | None, seconds: float) -> None:
    assert time_budget(remaining, increment, movestogo) == pytest.approx(seconds)


def test_the_move_overhead_is_kept_back_from_every_time_limit() -> None:
    clock = SearchLimits(wtime=60_000, btime=1_000)
    plain, kept = search_budget(clock, chess.WHITE, 0.1), search_budget(replace(clock, overhead=250), chess.WHITE, 0.1)
    assert plain.movetime == pytest.approx(60 / 32 - 0.1) and kept.movetime == pytest.approx(60 / 32 - 0.35)
    assert kept.soft_time == pytest.approx(kept.movetime / 2)
    fixed = SearchLimits(movetime=1000, overhead=250)
    assert search_budget(fixed, chess.BLACK, 0.0).movetime == pytest.approx(0.75)
    assert search_budget(replace(fixed, overhead=5000), chess.BLACK, 0.0).movetime == 0.0  # never below 0
    unbounded = SearchLimits(depth=3, overhead=250)  # no clock: nothing to keep back
    assert search_budget(unbounded, chess.WHITE, 0.0) == search_budget(SearchLimits(depth=3), chess.WHITE, 0.0)


def test_every_iteration_is_reported_and_becomes_a_uci_info_line() -> None:
    results: list[SearchResult] = []
    final = search(chess.Board(), depth=3, on_iteration=results.append)
    assert [r.depth for r in results] == [1, 2, 3] and results[-1].move == final.move
    pattern = re.compile(
        r"info depth (\d+) seldepth \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ time \d+"
        r" pv( [a-h][1-8][a-h][1-8][qrbn]?)+"
    )
    for depth, result in enumerate(results, start=1):
        match = pattern.fullmatch(iteration_info(result))
        assert match, iteration_info(result)
        assert int(match.group(1)) == depth


@pytest.mark.parametrize(
    ("score", "text"),
    [(0, "cp 0"), (-35, "cp -35"), (MATE - 1, "mate 1"), (MATE - 3, "mate 2"), (-(MATE - 2), "mate -1")],
)
def test_uci_score(score: int, text: str) -> None:
    assert uci_score(score) == text


def test_pondering_searches_without_a_time_limit_until_ponderhit_starts_the_clock() -> None:
    clock = SearchLimits(wtime=60_000, btime=30_000, movestogo=10, depth=9, ponder=True, overhead=100)
    searched = pondering(clock)
    assert searched.infinite and (searched.wtime, searched.btime, searched.movetime) == (None, None, None)
    assert searched.depth == 9 and search_budget(searched, chess.BLACK, 0.0).movetime is None
    assert after_ponderhit(clock, chess.BLACK) == pytest.approx(30 / 12 - 0.1)
    bounded = SearchLimits(depth=5, ponder=True)  # no clock: the depth ends it, and ponderhit adds nothing
    assert not pondering(bounded).infinite and after_ponderhit(bounded, chess.WHITE) is None
