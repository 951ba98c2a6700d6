"""The search the network leads (issue #67, engine/search/puct.py): with an evaluator of our own
making (counted work, no network) it finds what the rules decide, honours its limits exactly, gives
the same tree twice, keeps its tree between moves; through the engine, option Search plays it with
the shipped network and says where it cannot."""

from __future__ import annotations

import threading

import chess
import pytest
from uci_helpers import Engine, strings

from engine.search.limits import Budget
from engine.search.puct import Puct, q_to_cp, terminal_value


class Uniform:
    """Every legal move alike, every position even; counts the boards it is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, boards):
        self.asked += len(boards)
        return [({m: 1.0 for m in board.legal_moves}, 0.0) for board in boards]


def material(boards):
    """A value a little for the side with more material: enough to see a hanging queen."""
    worth = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    out = []
    for board in boards:
        balance = sum(
            v * (len(board.pieces(p, board.turn)) - len(board.pieces(p, not board.turn)))
            for p, v in worth.items()
        )
        out.append(({m: 1.0 for m in board.legal_moves}, max(-0.9, min(0.9, balance / 10))))
    return out


def test_a_mate_in_one_is_found_by_the_rules_not_the_value():
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    result = Puct(Uniform()).search(board, Budget(nodes=400))
    assert result.move == chess.Move.from_uci("a1a8")
    assert result.visits[result.move] > sum(result.visits.values()) / 2


def test_the_value_decides_where_the_prior_does_not():
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")  # Rxd5 wins the queen
    result = Puct(material).search(board, Budget(nodes=300))
    assert result.move == chess.Move.from_uci("d2d5") and result.score > 0


def test_nodes_are_visits_exactly_and_the_same_search_gives_the_same_tree():
    board = chess.Board()
    first, second = Uniform(), Uniform()
    a = Puct(first).search(board, Budget(nodes=137))
    b = Puct(second).search(board, Budget(nodes=137))
    assert a.nodes == b.nodes == 137 and a.visits == b.visits and a.pv == b.pv
    assert first.asked == second.asked <= 137 + 1  # a leaf at most once a visit, and the root


def test_a_depth_alone_searches_a_bounded_number_of_visits():
    result = Puct(Uniform()).search(chess.Board(), Budget(depth=2))
    assert result.nodes == 2 * 64


def test_stop_ends_the_search_with_a_legal_move():
    stop = threading.Event()
    stop.set()
    result = Puct(Uniform()).search(chess.Board(), Budget(), stop=stop)
    assert result.move in chess.Board().legal_moves and result.nodes >= 1


def test_searchmoves_and_the_root_prior_are_the_root():
    board = chess.Board()
    moves = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")]
    result = Puct(Uniform()).search(
        board, Budget(nodes=50), moves=moves, prior={moves[0]: 0.9, moves[1]: 0.1}
    )
    assert set(result.visits) == set(moves) and result.visits[moves[0]] > result.visits[moves[1]]


def test_the_tree_is_kept_for_the_next_move():
    board = chess.Board()
    search = Puct(Uniform())
    first = search.search(board, Budget(nodes=400))
    board.push(first.move)
    reply = first.pv[1]
    board.push(reply)
    kept = search.root
    assert kept is not None
    again = search.search(board, Budget(nodes=10))
    assert again.nodes > 10  # the visits the subtree had, and ten more
    # elsewhere: a new tree
    search.search(chess.Board("8/8/8/8/8/8/k7/7K w - - 0 1"), Budget(nodes=10))
    assert search.root is not kept and search.root.total == 10


def test_the_same_position_asked_about_other_moves_searches_them():
    search, board = Puct(Uniform()), chess.Board()
    e4, d4, nf3, c4 = (chess.Move.from_uci(m) for m in ("e2e4", "d2d4", "g1f3", "c2c4"))
    search.search(board, Budget(nodes=50), moves=[e4, d4])
    again = search.search(board, Budget(nodes=50), moves=[d4, nf3])
    assert set(again.visits) == {d4, nf3} and again.visits[nf3] > 0
    other = search.search(board, Budget(nodes=20), moves=[nf3, c4], prior={nf3: 0.5, c4: 0.5})
    assert other.move in (nf3, c4) and other.visits[c4] > 0


def test_a_network_that_fails_mid_search_leaves_no_tree_behind():
    calls = {"n": 0}

    def failing(boards):
        calls["n"] += 1
        if calls["n"] == 3:
            raise ValueError("the network failed")
        return Uniform()(boards)

    search, board = Puct(failing), chess.Board()
    with pytest.raises(ValueError, match="failed"):
        search.search(board, Budget(nodes=200))
    assert search.root is None
    assert search.search(board, Budget(nodes=40)).nodes == 40  # a fresh tree, its visits its own


def test_vetting_keeps_to_the_gos_nodes_and_depth():
    from engine.search.limits import VET_DEPTH, VET_NODES, vetting

    assert vetting(Budget(nodes=100)) == Budget(depth=VET_DEPTH, nodes=100)
    assert vetting(Budget(depth=2)) == Budget(depth=2, nodes=VET_NODES)
    timed = vetting(Budget(nodes=10**9, movetime=1.0, soft_time=0.5))
    assert (
        timed.movetime == pytest.approx(0.4)
        and timed.soft_time == pytest.approx(0.2)
        and timed.nodes is None
    )


def test_the_rules_decide_terminal_positions():
    assert terminal_value(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), None) == -1.0  # mated
    assert terminal_value(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), None) == 0.0  # stalemate
    assert terminal_value(chess.Board("8/8/8/8/8/8/k7/7K w - - 0 1"), None) == 0.0  # bare kings
    assert terminal_value(chess.Board(), None) is None
    assert q_to_cp(0.0) == 0 and q_to_cp(0.5) > 50 > 0 > q_to_cp(-0.5)


@pytest.mark.slow
def test_the_engine_plays_the_search_the_network_leads_and_says_so():
    engine = Engine()
    lines: list[str] = []
    try:
        for command in [
            "setoption name Search value puct",
            "position startpos moves e2e4",
            "go nodes 64",
            "go nodes 0",
            "setoption name Model value style",
            "go nodes 64",
        ]:
            engine.send(command)
            if command.startswith("go"):
                lines += engine.until("bestmove")
    finally:
        assert engine.close() == 0
    said = strings(lines)
    assert "search led by the network (PUCT): 64 visits" in said
    assert "Search puct: " in said and "no value head" in said and "the alpha-beta searches" in said
    board = chess.Board()
    board.push_uci("e2e4")
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert len(moves) == 3 and all(chess.Move.from_uci(m) in board.legal_moves for m in moves)
