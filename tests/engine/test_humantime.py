"""Option HumanTime (issue #41 item 18): the time a person at the clock would take, by the kind of
move and the position (counted from the clock, not timed), the UCI loop's wait that ``stop`` ends,
and the web page's games that turn it on."""

from __future__ import annotations

import io

import chess
import pytest
from web_helpers import EXPERT, client, no_engines_left, until

from engine.search.humantime import KNOWN, ONLY_MOVE, QUIET, RECAPTURE, RESERVE_MS, Kind, human_pace
from engine.search.limits import SearchLimits
from engine.uci.protocol import UciEngine

MINUTE = 60_000
#: 40 moves in 30 minutes, the clock of the issue: 45 s a move.
CLOCK = SearchLimits(wtime=30 * MINUTE, btime=30 * MINUTE, movestogo=40)
PER_MOVE = 45.0
#: Kiwipete: captures and checks everywhere.
SHARP = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def pace(board: chess.Board, uci: str, limits: SearchLimits = CLOCK, **kwargs):
    return human_pace(limits, board, chess.Move.from_uci(uci), **kwargs)


def after(*moves: str) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


def test_a_recapture_the_only_move_and_the_experts_own_move_are_quick():
    board = after("e2e4", "d7d5", "e4d5")
    recapture = pace(board, "d8d5")
    assert recapture.kind is Kind.RECAPTURE and recapture.seconds == pytest.approx(
        PER_MOVE * RECAPTURE
    )
    assert pace(after("e2e4", "d7d5", "d2d3", "d5e4"), "d3e4").kind is Kind.RECAPTURE
    # a capture, not back
    assert pace(after("e2e4", "d7d5", "e4d5", "c7c6", "g1f3"), "d8d5").kind is Kind.POSITION
    only = pace(chess.Board("k7/8/8/8/8/8/1q6/K7 w - - 0 1"), "a1b2")
    assert only.kind is Kind.ONLY and only.seconds == pytest.approx(PER_MOVE * ONLY_MOVE)
    known = pace(board, "g8f6", known=True)
    assert known.kind is Kind.KNOWN and known.seconds == pytest.approx(PER_MOVE * KNOWN)
    assert pace(board, "g8f6").seconds > known.seconds > recapture.seconds > only.seconds


def test_a_sharp_middlegame_with_close_scores_takes_longest():
    quiet = pace(chess.Board(), "g1f3", scores=[40, -10])
    assert quiet.kind is Kind.POSITION and quiet.seconds == pytest.approx(PER_MOVE * QUIET)
    tense = pace(chess.Board(SHARP), "e2a6", scores=[40, -10])
    sharp = pace(chess.Board(SHARP), "e2a6", scores=[40, 35, 20, 15, -100])
    assert sharp.scale == pytest.approx(2.0) and sharp.seconds == pytest.approx(2 * PER_MOVE)
    assert sharp.seconds > tense.seconds > quiet.seconds


def test_the_clock_sets_the_time_and_the_last_seconds_are_never_spent():
    board = chess.Board(SHARP)
    scores = [40, 35, 20, 15]
    with_increment = SearchLimits(wtime=3 * MINUTE, btime=MINUTE, winc=2000, overhead=100)
    assert pace(board, "e2a6", with_increment, scores=scores).seconds == pytest.approx(
        2 * (180 / 30 + 2)
    )
    # a third of what is left, at most
    last_move = SearchLimits(wtime=MINUTE, btime=MINUTE, movestogo=1)
    assert pace(board, "e2a6", last_move, scores=scores).seconds == pytest.approx(20)
    short = SearchLimits(wtime=RESERVE_MS + 2000, btime=MINUTE, movestogo=1)  # never the reserve
    assert pace(board, "e2a6", short, scores=scores).seconds == pytest.approx(2)
    assert (
        pace(board, "e2a6", SearchLimits(wtime=RESERVE_MS - 1, btime=MINUTE, movestogo=1)).seconds
        == 0
    )
    black = after("e2e4")
    assert pace(black, "g8f6", SearchLimits(wtime=0, btime=3 * MINUTE)).seconds == pytest.approx(
        6 * QUIET
    )


@pytest.mark.parametrize(
    "limits",
    [
        SearchLimits(depth=3),
        SearchLimits(nodes=100),
        SearchLimits(movetime=5000),
        SearchLimits(wtime=MINUTE, btime=MINUTE, depth=3),
        SearchLimits(wtime=MINUTE, btime=MINUTE, nodes=100),
        SearchLimits(wtime=MINUTE, btime=MINUTE, infinite=True),
        SearchLimits(wtime=MINUTE, btime=MINUTE, ponder=True),
    ],
)
def test_without_a_clock_to_follow_no_time_is_added(limits):
    assert pace(chess.Board(), "g1f3", limits).seconds == 0


#: A clock of days: a person's pace on it is hours.
DAYS = "go wtime 900000000 btime 900000000"


def engine(**options: str) -> tuple[UciEngine, io.StringIO]:
    out = io.StringIO()
    uci = UciEngine({"Casebase": "", "Mode": "pure", **options}, out=out)
    uci.handle("isready")  # the agent made before the clock starts
    return uci, out


def test_without_humantime_the_engine_answers_at_once_whatever_the_clock():
    uci, out = engine()
    uci.handle(DAYS)
    assert uci._worker is not None
    uci._worker.join(30)  # generous: the pace would be hours
    assert "bestmove" in out.getvalue() and "HumanTime" not in out.getvalue()
    uci.run([])


def test_with_humantime_the_engine_waits_on_the_clock_until_stop_which_ends_the_wait_at_once():
    uci, out = engine(HumanTime="true")
    uci.handle(DAYS)
    assert uci._worker is not None
    uci._worker.join(0.5)
    # the move is chosen, held back
    assert uci._worker.is_alive() and "bestmove" not in out.getvalue()
    uci.handle("stop")
    uci._worker.join(30)
    lines = out.getvalue().splitlines()
    assert not uci._worker.is_alive() and lines[-1].startswith("bestmove")
    assert any(line.startswith("info string HumanTime: ") for line in lines)
    uci.handle("go depth 1")  # no clock: no wait
    uci._worker.join(30)
    assert out.getvalue().count("bestmove") == 2
    uci.run([])


@pytest.mark.slow  # an engine process plays a move on a real clock
def test_the_web_pages_games_take_a_persons_time(kosteniuk_casebase):
    with (
        client(kosteniuk_casebase.parent, limit=None) as app,
        app.websocket_connect("/api/play") as ws,
    ):
        ws.send_json(
            {"type": "new", "expert": EXPERT, "colour": "black", "minutes": 0.5, "moves": 0}
        )
        reasons = until(ws, lambda m: m["type"] == "reasons")[-1]
        # a second a move on this clock
        paced = [s for s in reasons["strings"] if s.startswith("HumanTime: ")]
        assert len(paced) == 1 and paced[0].endswith("of a move's time on this clock)"), reasons[
            "strings"
        ]
    assert no_engines_left()
