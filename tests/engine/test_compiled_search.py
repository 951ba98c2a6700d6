"""The compiled search (issue #73): plain alpha-beta equals minimax over the same evaluation, mates
at their distance, the draws, the root's restrictions, multipv's exact scores, and the limits
(depth, nodes, stop) by the work they allow, never by wall time."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

import chess
import chess.polyglot
import pytest

if TYPE_CHECKING:  # the package imports numba: imported by the fixture, not at collection
    from engine.compiled.search import CompiledSearch, Iteration

MATE_IN_1 = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
MATE_IN_2 = "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1"  # Qd8+ Bxd8 Re8#
MATE_IN_3 = "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"  # Ra6, f6, Bxf6+ ...
PERPETUAL = "8/ppp3pk/8/8/8/8/q5PP/3Q3K w - - 0 1"  # three pawns down: Qh5+ Kg8 Qe8+ Kh7 ...
MIDDLEGAME = "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9"
# Positions for the minimax check: few moves each, so that python-chess's minimax stays quick.
SMALL = [
    "8/5pk1/6p1/3R4/r4P2/6KP/8/8 w - - 0 40",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "8/2P5/8/8/8/8/5kp1/7K w - - 0 1",
]


@pytest.fixture(scope="session")
def compiled() -> Iterator[ModuleType]:
    """The search module, compiled (or loaded from the cache) once for the session, under the
    lock that keeps two workers from compiling into one cache folder."""
    from engine.compiled import jit

    why_not = jit.available()
    if why_not is not None:
        pytest.skip(why_not)
    from engine.compiled import search

    with jit.compile_lock():
        search.CompiledSearch(1).search(chess.Board(), depth=2)
        search.CompiledSearch(1, table=False, quiescence=False, selective=False).search(
            chess.Board(), depth=2
        )
    yield search


def plain(search: ModuleType) -> CompiledSearch:
    """Alpha-beta without table, quiescence or selectivity: minimax's value to the depth."""
    return search.CompiledSearch(1, table=False, quiescence=False, selective=False)


def minimax(board: chess.Board, depth: int, mate: int) -> dict[chess.Move, int]:
    """Each root move's value by negamax over python-chess, the compiled evaluation at the leaves,
    with the search's draw rules below the root: the fifty-move rule, repetition (once after the
    root, or twice at or before it), bare kings with at most one minor piece."""
    from engine.compiled.board import state_of
    from engine.compiled.evaluate import evaluate

    line = [chess.polyglot.zobrist_hash(b) for b in _positions(board)]
    root = len(line) - 1

    def value(depth: int, ply: int) -> int:
        if ply > 0:
            if board.halfmove_clock >= 100:
                return -mate + ply if board.is_checkmate() else 0
            now = len(line) - 1
            seen = [
                i for i in range(max(0, now - board.halfmove_clock), now) if line[i] == line[now]
            ]
            if any(i > root for i in seen) or len(seen) >= 2:
                return 0
            heavy = board.pawns | board.rooks | board.queens
            if not heavy and chess.popcount(board.knights | board.bishops) <= 1:
                return 0
        if depth == 0:
            return int(evaluate(state_of(board)))
        moves = list(board.legal_moves)
        if not moves:
            return -mate + ply if board.is_check() else 0
        best = -(10**9)
        for move in moves:
            board.push(move)
            line.append(chess.polyglot.zobrist_hash(board))
            best = max(best, -value(depth - 1, ply + 1))
            line.pop()
            board.pop()
        return best

    values = {}
    for move in list(board.legal_moves):
        board.push(move)
        line.append(chess.polyglot.zobrist_hash(board))
        values[move] = -value(depth - 1, 1)
        line.pop()
        board.pop()
    return values


def _positions(board: chess.Board) -> list[chess.Board]:
    """The board's positions from the start of its move stack to now."""
    replay = board.root()
    out = [replay.copy(stack=False)]
    for move in board.move_stack:
        replay.push(move)
        out.append(replay.copy(stack=False))
    return out


def _moves(*ucis: str) -> list[chess.Move]:
    return [chess.Move.from_uci(u) for u in ucis]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("fen", SMALL)
def test_plain_alpha_beta_is_minimax(compiled: ModuleType, fen: str, depth: int) -> None:
    board = chess.Board(fen)
    result = plain(compiled).search(board, depth=depth)
    values = minimax(board, depth, compiled.MATE)
    # (a mate found stops the deepening: no deeper search can shorten it)
    assert result.depth == depth or result.lines[0].score > compiled.MATE_BOUND
    assert result.lines[0].score == max(values.values())
    assert values[result.lines[0].move] == result.lines[0].score


def test_plain_alpha_beta_is_minimax_in_a_middlegame(compiled: ModuleType) -> None:
    board = chess.Board(MIDDLEGAME)
    result = plain(compiled).search(board, depth=2)
    values = minimax(board, 2, compiled.MATE)
    assert result.lines[0].score == max(values.values())
    assert values[result.lines[0].move] == result.lines[0].score


def test_a_second_process_loads_the_compiled_search_from_the_cache(
    compiled: ModuleType,
) -> None:
    """numba's cache of a recursive function can crash the process that loads it (a literal
    argument's compile left unresolved): a fresh process must load and search."""
    script = (
        "import chess; from engine.compiled.search import CompiledSearch; "
        "print(CompiledSearch(1).search(chess.Board(), depth=3).lines[0].move)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert chess.Move.from_uci(done.stdout.strip()) in chess.Board().legal_moves


def test_plain_alpha_beta_with_the_games_past_is_minimax(compiled: ModuleType) -> None:
    """The game's past counts: after the knights' dance the start position has been seen twice,
    and a third time is a draw."""
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(uci)
    values = minimax(board, 2, compiled.MATE)
    assert values[chess.Move.from_uci("f6g8")] == 0
    result = plain(compiled).search(board, depth=2)
    assert result.lines[0].score == max(values.values())
    back = plain(compiled).search(board, depth=2, root_moves=_moves("f6g8"))
    assert back.lines[0].score == 0


@pytest.mark.parametrize(
    ("fen", "plies", "first"),
    [(MATE_IN_1, 1, "a1a8"), (MATE_IN_2, 3, "d5d8"), (MATE_IN_3, 5, "f6a6")],
)
def test_mates_are_found_at_their_distance(
    compiled: ModuleType, fen: str, plies: int, first: str
) -> None:
    board = chess.Board(fen)
    result = compiled.CompiledSearch(1).search(board, depth=plies + 2)
    line = result.lines[0]
    assert line.score == compiled.MATE - plies
    assert line.move == chess.Move.from_uci(first)
    for move in line.pv[:plies]:
        board.push(move)
    assert board.is_checkmate()


def test_the_mated_side_sees_its_mate(compiled: ModuleType) -> None:
    board = chess.Board(MATE_IN_2)
    board.push_uci("d5d8")  # Black must take (Bxd8), then Re8#
    result = compiled.CompiledSearch(1).search(board, depth=4)
    assert result.lines[0].score == -(compiled.MATE - 2)


def test_stalemate_scores_zero(compiled: ModuleType) -> None:
    board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    stalemate = compiled.CompiledSearch(1).search(board, depth=3, root_moves=_moves("f1f7"))
    assert stalemate.lines[0].score == 0
    best = compiled.CompiledSearch(1).search(board, depth=3)
    assert best.lines[0].score == compiled.MATE - 1


def test_a_perpetual_check_is_a_draw_by_repetition_in_the_search(compiled: ModuleType) -> None:
    result = compiled.CompiledSearch(1).search(chess.Board(PERPETUAL), depth=8)
    assert result.lines[0].move == chess.Move.from_uci("d1h5")
    assert result.lines[0].score == 0


def test_the_fifty_move_rule_draws_but_a_mate_on_that_move_counts(compiled: ModuleType) -> None:
    board = chess.Board(MATE_IN_1.replace(" 0 1", " 99 80"))
    quiet = compiled.CompiledSearch(1).search(board, depth=3, root_moves=_moves("g1f1"))
    assert quiet.lines[0].score == 0
    mate = compiled.CompiledSearch(1).search(board, depth=3)
    assert mate.lines[0].score == compiled.MATE - 1


def test_root_moves_restrict_the_choice(compiled: ModuleType) -> None:
    allowed = _moves("a2a3", "h2h3")
    result = compiled.CompiledSearch(1).search(chess.Board(), depth=4, root_moves=allowed)
    assert result.lines[0].move in allowed
    no_mate = compiled.CompiledSearch(1).search(
        chess.Board(MATE_IN_1), depth=3, root_moves=_moves("g1f1", "h2h3")
    )
    assert no_mate.lines[0].move in _moves("g1f1", "h2h3")
    assert no_mate.lines[0].score < compiled.MATE_BOUND


def test_multipv_scores_are_each_moves_own(compiled: ModuleType) -> None:
    """Each line's score is the score of its move searched alone (without the table and the
    selective parts, whose choices depend on what was searched before, so must match exactly)."""
    board = chess.Board(MIDDLEGAME)

    def exact() -> CompiledSearch:
        return compiled.CompiledSearch(1, table=False, selective=False)

    result = exact().search(board, depth=3, multipv=4)
    assert len(result.lines) == 4
    scores = [line.score for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    assert len({line.move for line in result.lines}) == 4
    for line in result.lines:
        alone = exact().search(board, depth=3, root_moves=[line.move])
        assert alone.lines[0].score == line.score
    few = compiled.CompiledSearch(1).search(
        board, depth=2, multipv=5, root_moves=_moves("a2a3", "h2h3")
    )
    assert len(few.lines) == 2


def test_stop_from_another_thread_ends_a_deep_search(compiled: ModuleType) -> None:
    search = compiled.CompiledSearch(1)
    stop = threading.Event()
    started = threading.Event()
    results: list[Iteration] = []
    thread = threading.Thread(
        target=lambda: results.append(
            search.search(
                chess.Board(MIDDLEGAME),
                depth=100,
                stop=stop,
                on_iteration=lambda it: started.set() if it.depth >= 3 else None,
            )
        )
    )
    thread.start()
    assert started.wait(120)
    stop.set()
    thread.join(120)
    assert not thread.is_alive()
    (result,) = results
    assert 3 <= result.depth < 100
    assert result.nodes < 50_000_000


def test_a_stop_before_the_search_still_gives_a_move(compiled: ModuleType) -> None:
    stop = threading.Event()
    stop.set()
    board = chess.Board(MIDDLEGAME)
    result = compiled.CompiledSearch(1).search(board, depth=100, stop=stop)
    assert result.nodes <= compiled.POLL_EVERY
    assert result.lines[0].move in board.legal_moves
    late = compiled.CompiledSearch(1).search(board, deadline=0.0)
    assert late.lines[0].move in board.legal_moves


def test_nodes_limit_the_search(compiled: ModuleType) -> None:
    board = chess.Board(MIDDLEGAME)
    result = compiled.CompiledSearch(1).search(board, nodes=20_000)
    assert result.nodes <= 20_000
    assert result.depth >= 3
    tiny = compiled.CompiledSearch(1).search(board, nodes=1)
    assert tiny.lines[0].move in board.legal_moves


def test_no_legal_move_raises_no_move(compiled: ModuleType) -> None:
    mated = chess.Board()
    for uci in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        mated.push_uci(uci)
    with pytest.raises(compiled.NoMove):
        compiled.CompiledSearch(1).search(mated, depth=2)
    with pytest.raises(compiled.NoMove):
        compiled.CompiledSearch(1).search(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))


def test_the_search_is_deterministic(compiled: ModuleType) -> None:
    board = chess.Board(MIDDLEGAME)
    iterations: list[list[Iteration]] = [[], []]
    results = [
        compiled.CompiledSearch(1).search(board, depth=7, on_iteration=iterations[i].append)
        for i in range(2)
    ]
    assert results[0] == results[1]
    assert iterations[0] == iterations[1]
    assert [it.depth for it in iterations[0]] == list(range(1, 8))
    again = compiled.CompiledSearch(1)
    first = again.search(board, nodes=30_000)
    again.new_game()
    assert again.search(board, nodes=30_000) == first


def test_the_evaluation_is_symmetric(compiled: ModuleType) -> None:
    from engine.compiled.board import state_of
    from engine.compiled.evaluate import TEMPO, evaluate

    assert evaluate(state_of(chess.Board())) == TEMPO
    for fen in [MIDDLEGAME, PERPETUAL, *SMALL]:
        board = chess.Board(fen)
        assert evaluate(state_of(board)) == evaluate(state_of(board.mirror()))
