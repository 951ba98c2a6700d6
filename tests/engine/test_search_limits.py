"""The search's limits: searchmoves, nodes, stop, the clock and pondering, and what each finished
iteration tells the GUI (search.md §4; split from test_search.py)."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from typing import Any

import chess
import pytest

from engine.search import alphabeta as search_module
from engine.search.alphabeta import CHECK_EVERY, Searcher
from engine.search.limits import (
    Budget,
    SearchLimits,
    after_ponderhit,
    pondering,
    search_budget,
    time_budget,
)
from engine.search.result import SearchResult
from engine.search.scores import MATE
from engine.uci.lines import iteration_info, uci_score


def search(board: chess.Board, budget: Budget | None = None, **options: Any) -> SearchResult:
    return Searcher().search(board, budget, **options)


def test_searchmoves_restrict_the_root() -> None:
    board = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    only = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("b2b3")]
    result = search(board, Budget(depth=2), moves=only)
    assert result.move in only and set(result.scores) == set(only)


# -- limits ------------------------------------------------------------------------------


def test_node_limit_is_exact_and_reproducible() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    first = search(board, Budget(nodes=5000), tolerance=50)
    second = search(board, Budget(nodes=5000), tolerance=50)
    assert first.nodes == second.nodes == 5000
    assert (first.move, first.score, first.depth, first.pv, first.scores) == (
        second.move,
        second.score,
        second.depth,
        second.pv,
        second.scores,
    )
    assert first.depth >= 2


def test_tiny_node_limit_still_gives_a_legal_move() -> None:
    board = chess.Board()
    for nodes in (1, 2, 10, 50):
        result = search(board, Budget(nodes=nodes))
        assert result.move in board.legal_moves
        assert result.nodes <= nodes


class StopAfter(threading.Event):
    """A stop event that another thread sets once ``searcher`` has counted ``nodes`` nodes."""

    def __init__(self, searcher: Searcher, nodes: int) -> None:
        super().__init__()
        self.searcher, self.nodes = searcher, nodes

    def is_set(self) -> bool:
        return self.searcher.nodes >= self.nodes or super().is_set()


@pytest.mark.slow
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
    """``time.monotonic`` for the search: every look at the clock advances it by ``step``
    seconds."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.looks = 0.0, step, 0

    def monotonic(self) -> float:
        self.now += self.step
        self.looks += 1
        return self.now


@pytest.mark.slow
def test_movetime_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    board = chess.Board("r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9")
    clock = FakeClock(0.001)
    monkeypatch.setattr(search_module, "time", clock)
    result = search(board, Budget(movetime=0.2))
    # 0.2 s at 1 ms a look: the search ends by the 200th look, looking every CHECK_EVERY nodes.
    assert clock.looks <= 200 + 10 and result.nodes <= (clock.looks + 1) * CHECK_EVERY
    assert result.move in board.legal_moves and result.depth >= 1


def test_clocked_search_stops_at_an_only_move() -> None:
    board = chess.Board("7k/8/8/8/8/8/6q1/7K w - - 0 1")  # Kxg2 is forced
    assert board.legal_moves.count() == 1
    result = search(board, Budget(movetime=5.0, soft_time=3.0))
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
    plain, kept = (
        search_budget(clock, chess.WHITE, 0.1),
        search_budget(replace(clock, overhead=250), chess.WHITE, 0.1),
    )
    assert plain.movetime == pytest.approx(60 / 32 - 0.1) and kept.movetime == pytest.approx(
        60 / 32 - 0.35
    )
    assert kept.soft_time == pytest.approx(kept.movetime / 2)
    fixed = SearchLimits(movetime=1000, overhead=250)
    assert search_budget(fixed, chess.BLACK, 0.0).movetime == pytest.approx(0.75)
    # never below 0
    assert search_budget(replace(fixed, overhead=5000), chess.BLACK, 0.0).movetime == 0.0
    unbounded = SearchLimits(depth=3, overhead=250)  # no clock: nothing to keep back
    assert search_budget(unbounded, chess.WHITE, 0.0) == search_budget(
        SearchLimits(depth=3), chess.WHITE, 0.0
    )


def test_every_iteration_is_reported_and_becomes_a_uci_info_line() -> None:
    results: list[SearchResult] = []
    final = search(chess.Board(), Budget(depth=3), on_iteration=results.append)
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
    [
        (0, "cp 0"),
        (-35, "cp -35"),
        (MATE - 1, "mate 1"),
        (MATE - 3, "mate 2"),
        (-(MATE - 2), "mate -1"),
    ],
)
def test_uci_score(score: int, text: str) -> None:
    assert uci_score(score) == text


def test_pondering_searches_without_a_time_limit_until_ponderhit_starts_the_clock() -> None:
    clock = SearchLimits(
        wtime=60_000, btime=30_000, movestogo=10, depth=9, ponder=True, overhead=100
    )
    searched = pondering(clock)
    assert searched.infinite and (searched.wtime, searched.btime, searched.movetime) == (
        None,
        None,
        None,
    )
    assert searched.depth == 9 and search_budget(searched, chess.BLACK, 0.0).movetime is None
    assert after_ponderhit(clock, chess.BLACK) == pytest.approx(30 / 12 - 0.1)
    # no clock: the depth ends it, and ponderhit adds nothing
    bounded = SearchLimits(depth=5, ponder=True)
    assert not pondering(bounded).infinite and after_ponderhit(bounded, chess.WHITE) is None
