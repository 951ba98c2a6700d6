"""The one way to start and end an outside engine (engine/outside/launch.py): its asyncio core (the
web's), its sync facade (the judge's, the tournament's), and the game clock both top layers keep
(engine/outside/clock.py). Tests count processes, lines and seconds charged, not wall time."""

from __future__ import annotations

import asyncio
import logging
import os

import chess
import chess.engine
import pytest
from judge_helpers import HANGS, children, fake_engine, gone
from test_judge_faults import BAD_OPTIONS, logged

from engine.agents import defaults
from engine.outside.clock import Clock, TimeControl
from engine.outside.launch import (
    CommandFailed,
    Complaints,
    LaunchError,
    launch,
    own_engine,
    start,
    watched,
)
from engine.search.limits import SearchLimits

#: A UCI engine that answers the handshake and isready, and ignores quit.
DEAF = (
    "while read line; do case \"$line\" in uci) echo 'id name Deaf'; echo uciok;; isready) echo"
    " readyok;; esac; done"
)


def test_a_start_that_fails_leaves_no_process(tmp_path):
    """No uciok within the timeout, or a program that is no engine: LaunchError, the process
    reaped."""
    mute, _ = logged(tmp_path, "mute", "exec /bin/cat")
    # an earlier test's engines on this worker may still be closing
    before = set(children(os.getpid()))
    with pytest.raises(LaunchError, match="did not answer uciok within 0.3 s"):
        asyncio.run(start([mute], timeout=0.3))
    with pytest.raises(LaunchError, match="does not start as a UCI engine"):
        launch(["/bin/false"])
    with pytest.raises(LaunchError, match="no engine at"):
        asyncio.run(start([str(tmp_path / "missing")]))
    assert set(children(os.getpid())) - before == set()


def test_quit_kills_an_engine_that_does_not_quit(tmp_path):
    deaf, _ = logged(tmp_path, "deaf", DEAF)

    async def session() -> tuple[int, int]:
        outside = await start([deaf])
        pid = outside.transport.get_pid()
        await outside.protocol.ping()
        await outside.quit(0.2)
        return pid, outside.protocol.returncode.result()

    pid, code = asyncio.run(session())
    assert code == -9 and gone(pid, within=1.0)


async def bestmove(analysis: chess.engine.AnalysisResult) -> chess.engine.BestMove:
    """A search's infos read until its bestmove (as the judge reads them)."""
    async for _ in analysis:
        pass
    return await analysis.wait()


def test_a_watched_search_is_stopped_at_its_deadline_and_a_deaf_engine_called_hung(tmp_path):
    deaf, _ = logged(tmp_path, "deaf", DEAF)

    async def search(stopped: bool) -> str:
        outside = await start([deaf])
        try:
            analysis = await outside.protocol.analysis(chess.Board())
            stop = asyncio.Event()
            if stopped:
                stop.set()
            deadline = asyncio.get_running_loop().time() + (60 if stopped else 0.05)
            with pytest.raises(CommandFailed) as failed:
                await watched(bestmove(analysis), deadline, stop, Complaints(), analysis, grace=0.1)
            return str(failed.value)
        finally:
            await outside.quit(0.1)

    assert asyncio.run(search(False)) == "it hung: no bestmove 0.1 s past its time; killed"
    assert asyncio.run(search(True)) == "it hung: no bestmove 0.1 s after stop; killed"


def test_an_engines_complaints_reach_its_listener_and_nothing_else_is_silenced(tmp_path, caplog):
    heard: list[str] = []
    # other tests' judges on this worker may be alive
    others = list(logging.getLogger("chess.engine").filters)
    engine = launch([fake_engine(tmp_path, "junk", BAD_OPTIONS)], complaints=heard.append)
    try:
        with caplog.at_level(logging.ERROR, logger="chess.engine"):
            # not on its loop: logged
            logging.getLogger("chess.engine").error("another engine's fault")
        assert engine.id["name"] == "Hang"
    finally:
        engine.quit()
    assert heard == [
        "Exception parsing option min (invalid literal for int() with base 10: 'y')",
        "Exception parsing option max (invalid literal for int() with base 10: 'z')",
    ]
    # other tests' engines may still log while closing: look only at what this test's two sources
    # said
    logged = [r.getMessage() for r in caplog.records]
    assert "another engine's fault" in logged and not any("parsing option" in m for m in logged)
    engine.returncode.result(timeout=5)
    # its filter went with it
    assert [f for f in logging.getLogger("chess.engine").filters if f not in others] == []


def test_the_sync_facade_is_python_chess_simple_engine_over_the_same_start(tmp_path):
    engine = launch([fake_engine(tmp_path, "hang", HANGS)])
    try:
        assert "MultiPV" in engine.options
        engine.ping()
    finally:
        engine.quit()
    assert engine.returncode.result(timeout=5) == 0


def test_our_own_engine_is_this_python_on_uci_main():
    command = own_engine("--casebase", "x.npz")
    assert command[1].endswith("uci_main.py") and command[2:] == ["--casebase", "x.npz"]


def test_a_live_clock_runs_the_side_to_move_and_charges_its_move():
    clock = Clock(TimeControl(2, 60, 0))
    clock.start(chess.WHITE, now=100.0)
    assert clock.left(chess.WHITE, now=110.5) == 49.5 and clock.left(chess.BLACK, now=110.5) == 60
    assert clock.stop(now=110.0) and clock.running is None
    assert clock.remaining[chess.WHITE] == 50 and clock.moves_made[chess.WHITE] == 1
    clock.start(chess.WHITE, now=0.0)
    assert clock.stop(now=20.0)  # the period's second move: a new period's 60 s
    assert clock.remaining[chess.WHITE] == 90 and clock.used[chess.WHITE] == 30
    clock.start(chess.BLACK, now=0.0)
    assert not clock.stop(now=60.5)  # the flag fell: no move counted
    assert clock.moves_made[chess.BLACK] == 0 and not clock.requirement_met


def test_the_clock_tells_an_engine_both_sides_time_as_go_does():
    clock = Clock(TimeControl(None, 300, 2))
    clock.charge(chess.WHITE, 10.25)
    assert clock.limits(chess.BLACK) == SearchLimits(
        wtime=291_750, btime=300_000, winc=2000, binc=2000
    )
    assert Clock(TimeControl(40, 5400)).limits(chess.WHITE).movestogo == 40
    assert [
        str(TimeControl(40, 900, 2)),
        str(TimeControl(None, 300, 0.5)),
        str(TimeControl(40, 5400)),
    ] == ["40/900+2", "300+0.5", "40/5400"]  # the web's PGN tag; the tournament's


def test_the_pages_elo_range_is_the_engines(kosteniuk_casebase, monkeypatch):
    from web_helpers import EXPERT, client, error, until

    monkeypatch.setattr(defaults, "UCI_ELO_RANGE", (1200, 2800))
    with client(kosteniuk_casebase.parent) as app:
        assert app.get("/api/experts").json()["limits"]["elo"] == [1200, 2800]
        with app.websocket_connect("/api/play") as ws:
            ws.send_json({"type": "new", "expert": EXPERT, "elo": 1100})
            assert "an Elo from 1200 to 2800" in until(ws, error)[-1]["message"]
