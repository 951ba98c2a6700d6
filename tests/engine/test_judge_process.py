"""The judge's process in a UCI session (search.md §7): a judge that fails is reported, restarted
once, then retired for the game; one killed mid-search is replaced for the move and restarted; none
outlives the session, and an empty option Judge stops it; stop reaches one that never answers."""

from __future__ import annotations

import os
import signal
import threading
import time

import chess
import pytest
from engine_helpers import guided_agent
from judge_helpers import (
    HANGS,
    STOCKFISH,
    answering_go,
    children,
    fake_engine,
    gone,
    needs_stockfish,
)
from uci_helpers import PROTOCOL, Engine

from engine.cbr.weights import Weights
from engine.outside.judge import Judge, JudgeSettings
from engine.search.limits import SearchLimits
from engine.uci.explain import explain

# games and searches judged through outside engines' processes (Stockfish)
pytestmark = pytest.mark.slow

#: A UCI engine that answers every go with an illegal move.
GARBAGE = answering_go(
    '        print("info depth 1 score cp x pv zz\\nbestmove zzzz", flush=True)\n'
)


def judged_engine(judge: str = STOCKFISH) -> tuple[Engine, list[str]]:
    """Our guided engine with ``judge`` set and ready; the lines up to readyok."""
    engine = Engine("--mode", "guided")
    engine.send(f"setoption name Judge value {judge}")
    engine.send("isready")
    return engine, engine.until("readyok")


def judge_process(engine: Engine) -> int:
    """The pid of the engine's judge, once its process runs (it starts on a thread of its own)."""
    deadline = time.monotonic() + 10
    while not (found := children(engine.proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.01)
    [pid] = found
    return pid


#: What a judge that is retired says (the Python search judges from then on).
RETIRED = "Python search judges for the rest of the game"


def _faulty_conversation(
    judge: str, limit: str = "go movetime 1000", most: int = 8
) -> tuple[list[str], float]:
    """Moves with ``judge`` until it is retired (``most`` at most); the lines and the longest wait
    for a bestmove. A judge still starting when a move's share of the clock is up is no fault (the
    Python search judges that move), so on a busy machine its faults may come a move or two
    later."""
    engine, lines = judged_engine(judge)
    try:
        longest = 0.0
        for ply in range(most):
            engine.send(f"position startpos{' moves e2e4' if ply % 2 else ''}")
            started = time.monotonic()
            engine.send(limit)
            lines += engine.until("bestmove")
            longest = max(longest, time.monotonic() - started)
            if any(RETIRED in line for line in lines):
                break
    finally:
        assert engine.close() == 0
    assert all(line.split()[0] in PROTOCOL for line in lines), lines
    return lines, longest


@pytest.mark.parametrize("kind", ["hangs", "garbage"])
def test_a_faulty_judge_is_reported_restarted_once_then_replaced(tmp_path, kind):
    """A judge that started, then failed (a program that never starts is refused:
    test_judge_faults.py)."""
    path = {
        "hangs": fake_engine(tmp_path, "hang", HANGS),
        "garbage": fake_engine(tmp_path, "junk", GARBAGE),
    }[kind]
    lines, longest = _faulty_conversation(path)
    text = "\n".join(lines)
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert all(chess.Move.from_uci(m) in chess.Board().legal_moves for m in moves[::2])
    # movetime 1000: the fault costs no more than the move's time (a hung judge is given STOP_GRACE,
    # 0.2 s, then killed); 3 s of room for a busy machine, below a restarted judge's start timeout
    # (5 s)
    assert longest < 1.0 + 3.0, longest
    # one restart, then retired (within 8 moves, however long its starts take)
    assert text.count("will be restarted") == 1, text
    assert text.count(RETIRED) == 1, text
    assert "search depth" in text  # the Python search judged the moves


@needs_stockfish
def test_a_judge_killed_mid_search_is_replaced_for_the_move_and_restarted(tmp_path):
    engine, _ = judged_engine()
    try:
        judge_pid = judge_process(engine)
        engine.send("position startpos")
        # without a clock a move waits for the judge's start: ready after it, however busy
        engine.send("go depth 1")
        engine.until("bestmove")
        engine.send("position startpos moves e2e4")
        engine.send("go movetime 2000")
        engine.until("info depth")  # the judge is searching
        os.kill(judge_pid, signal.SIGKILL)
        lines = engine.until("bestmove")
        text = "\n".join(lines)
        assert (
            "judge Stockfish 15.1 failed: its process ended" in text and "will be restarted" in text
        ), text
        assert (
            chess.Move.from_uci(lines[-1].split()[1])
            in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
        )
        # A new judge process judges the next move. Without a clock its start may take the full
        # START_TIMEOUT, however busy the machine (with one, a restart gets half the move's time).
        engine.send("go depth 6")
        assert "judge Stockfish 15.1: depth" in "\n".join(engine.until("bestmove"))
        assert len(children(engine.proc.pid)) == 1 and gone(judge_pid)
    finally:
        assert engine.close() == 0


@needs_stockfish
@pytest.mark.parametrize("ending", ["quit", "end of input"])
def test_no_judge_process_outlives_the_session(ending):
    engine, _ = judged_engine()
    for _ in range(3):  # new games reuse the one judge process
        engine.send("ucinewgame")
        engine.send("isready")
        engine.until("readyok")
        engine.send("position startpos")
        engine.send("go depth 2")
        engine.until("bestmove")
    judges = children(engine.proc.pid)
    assert len(judges) == 1
    if ending == "quit":
        engine.send("quit")
    assert engine.close() == 0
    assert gone(judges[0])


@needs_stockfish
def test_an_empty_judge_option_stops_the_judge_process():
    engine, _ = judged_engine()
    try:
        judge = judge_process(engine)
        engine.send("setoption name Judge value <empty>")
        engine.send("isready")
        engine.until("readyok")
        assert gone(judge)
    finally:
        engine.close()


def test_stop_reaches_a_judge_that_never_answers(tmp_path):
    """go infinite with a hung judge: stop still gets a bestmove, from the built-in search."""
    judge = Judge(JudgeSettings(fake_engine(tmp_path, "hang", HANGS)))
    # Running before the go, so that the stop finds it searching: a stop while it still started (its
    # Python's start is seconds on a busy machine) tells "starting" instead, another test's case.
    judge.start()
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    agent = guided_agent(None, Weights(0.5, 0.5, 0.5), 1, judge=judge)
    try:
        started = time.monotonic()
        decision = agent.choose(chess.Board(), limits=SearchLimits(infinite=True), stop=stop)
    finally:
        judge.close()
    assert decision.move in chess.Board().legal_moves
    # stopped at 0.3 s, the hung judge given 0.2 s more; 4 s of room for a busy machine (a stop not
    # honoured would search on for good)
    assert time.monotonic() - started < 0.3 + 4.0
    assert "hung" in "\n".join(explain(decision.record))
