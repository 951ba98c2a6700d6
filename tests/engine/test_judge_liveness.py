"""A judge's search bounded by depth or nodes alone (``go depth 1``, ``go nodes 500``, JudgeDepth)
has no clock to end it, only the judge's liveness (:data:`engine.outside.judge.SILENCE`): a judge
that says nothing, no ``info`` and no ``bestmove``, for that long is stopped, then killed as hung,
and the move is played without it; one that keeps talking searches as long as it likes (the fuzzer's
liar judge, seed 708: a ``go depth 1`` never answered until a ``stop`` no GUI sends).

The bound is patched down to :data:`SILENCE` so that the tests are quick; they tell what happened
(the judge killed or not, its lines, the bestmove before the end of input), not how long it took.
The few waits in seconds are safety bounds on a fault (a search never ended), far above the bound.
"""

from __future__ import annotations

import io
import queue
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest
from judge_helpers import HANGS, answering_go, fake_engine, gone

import engine.outside.judge
from engine.outside.judge import Judge, JudgeError, JudgeSettings
from engine.uci.protocol import UciEngine

pytestmark = pytest.mark.slow  # the judges are processes

#: The liveness bound the tests run under (the shipped one is 10 s).
SILENCE = 0.5
#: The most seconds a test waits for what a fault would never bring (a bestmove, a search's end).
NEVER = 20.0

#: A UCI engine that answers ``go`` with TALK infos PAUSE seconds apart, then is silent QUIET
#: seconds, then says its bestmove (a slow judge that keeps talking: a deep search).
TALKS = answering_go(
    "        talk, pause, quiet = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])\n"
    "        for depth in range(1, talk + 1):\n"
    "            time.sleep(pause)\n"
    '            print(f"info depth {depth} seldepth {depth} multipv 1 score cp 10 nodes'
    ' {100 * depth} pv e2e4", flush=True)\n'
    "        time.sleep(quiet)\n"
    '        print("bestmove e2e4", flush=True)\n',
    name="Talker",
)
#: A UCI engine that says one info at a go, then nothing (nor at stop): the liar's lie, then its
#: hang.
SAYS_ONCE = answering_go('        print("info depth 1 score cp 5 pv e2e4", flush=True)\n')


@pytest.fixture(autouse=True)
def quick_silence(monkeypatch):
    monkeypatch.setattr(engine.outside.judge, "SILENCE", SILENCE)


def talker(tmp_path: Path, talk: int, pause: float, quiet: float) -> str:
    path = fake_engine(tmp_path, "talker", TALKS)
    wrapper = tmp_path / "talks"
    wrapper.write_text(f"#!/bin/sh\nexec '{path}' {talk} {pause} {quiet}\n", encoding="utf-8")
    wrapper.chmod(0o755)
    return str(wrapper)


def searched(judge: Judge, limit: chess.engine.Limit) -> list[chess.engine.InfoDict]:
    """One search of the started ``judge`` from the start position; ``stop`` after :data:`NEVER` s
    (a search the liveness never ended: the hung judge is then killed 0.2 s after that stop)."""
    stop = threading.Event()
    timer = threading.Timer(NEVER, stop.set)
    timer.start()
    try:
        return judge.analyse(chess.Board(), limit, stop)
    finally:
        timer.cancel()


@pytest.mark.parametrize("source", [HANGS, SAYS_ONCE], ids=["silent", "one info, then silent"])
@pytest.mark.parametrize(
    "limit", [chess.engine.Limit(depth=1), chess.engine.Limit(nodes=500)], ids=["depth", "nodes"]
)
def test_a_judge_silent_in_a_depth_or_nodes_search_is_given_up_as_hung(tmp_path, source, limit):
    judge = Judge(JudgeSettings(fake_engine(tmp_path, "hang", source)))
    try:
        judge.start()
        assert judge.process.engine is not None
        pid = judge.process.engine.transport.get_pid()  # type: ignore[attr-defined]
        with pytest.raises(JudgeError) as failed:
            searched(judge, limit)
    finally:
        judge.close()
    # not the safety stop's "0.2 s after stop": the liveness bound's own words
    assert str(failed.value) == "it hung: no bestmove 0.5 s after 0.5 s of silence; killed"
    assert gone(pid)


@pytest.mark.parametrize(
    ("talk", "pause", "quiet"),
    [(8, 0.2, 0.0), (30, 0.1, 1.5)],
    ids=["an info every 0.2 s for 1.6 s", "3 s of infos, then 1.5 s of silence"],
)
def test_a_slow_judge_that_keeps_talking_is_not_killed(tmp_path, talk, pause, quiet):
    """Its infos push the bound on (1.6 s of search under a 0.5 s bound), and after a long search a
    silence as long as the search so far is allowed (1.5 s after 3 s, past the bound and its 0.5 s
    grace: an iteration of a deep search)."""
    judge = Judge(JudgeSettings(talker(tmp_path, talk, pause, quiet)))
    try:
        judge.start()
        engine = judge.process.engine
        infos = searched(judge, chess.engine.Limit(depth=30))
        assert judge.process.engine is engine is not None  # still the same process: not killed
    finally:
        judge.close()
    # its last info: every one came, then its bestmove
    assert [info.get("depth") for info in infos] == [talk]


def uci_session(judge: str, commands: list[str], until: str) -> tuple[list[str], bool]:
    """Our guided engine in this process with ``judge`` (its SILENCE patched): ``commands``, a wait
    (:data:`NEVER` s at most) until a line holds ``until``, then the end of input (a stop). Its
    lines, and whether a bestmove came before that end."""
    out = io.StringIO()
    lines: queue.Queue[str | None] = queue.Queue()
    uci = UciEngine({"Mode": "guided", "Judge": judge, "Selection": "argmax"}, out=out)
    thread = threading.Thread(target=uci.run, args=(iter(lines.get, None),))
    thread.start()
    try:
        for command in commands:
            lines.put(command)
        deadline = time.monotonic() + NEVER
        while until not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
        before = "bestmove" in out.getvalue()
    finally:
        lines.put(None)
        thread.join(NEVER)
    assert not thread.is_alive()
    return out.getvalue().splitlines(), before


def test_go_depth_1_with_a_hung_judge_gets_a_legal_bestmove_and_says_the_judge_was_given_up(
    tmp_path,
):
    hang = fake_engine(tmp_path, "hang", SAYS_ONCE)
    lines, before_end = uci_session(
        hang, ["isready", "position startpos", "go depth 1"], "bestmove"
    )
    text = "\n".join(lines)
    # not only at the end of input's stop (no GUI sends one after go depth 1)
    assert before_end, text
    [best] = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
    assert "failed: it hung: no bestmove 0.5 s after 0.5 s of silence; killed" in text, text
    assert "will be restarted at the next move" in text, text


def test_go_infinite_with_a_hung_judge_still_waits_for_stop(tmp_path):
    """The liveness bound may give the judge up (here in the proposals' search, to a fixed depth),
    never the go: an infinite search's bestmove comes at stop (the end of input's) whatever became
    of the judge."""
    hang = fake_engine(tmp_path, "hang", HANGS)
    lines, before_end = uci_session(
        hang, ["isready", "position startpos", "go infinite"], "info depth 3"
    )
    text = "\n".join(lines)
    assert "of silence; killed" in text, text
    assert not before_end, text
    [best] = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
