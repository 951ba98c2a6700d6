"""An outside judge never blocks nor freezes the UCI engine (issue #28): a program that is not a
UCI engine is refused once, in the background, while the engine keeps reading its input and
keeping its clock; what the user typed is echoed cut; nonsense from a judge leaves no traceback.

Each test talks to the real engine process; the judges are shell or Python scripts that log each
start, so that tests count starts and lines rather than time. Where a wait is the fault, the test
asks whether it happened before the judge's start ran out (a judge still starting: its process is
there) rather than timing it; the few bounds in seconds left are generous on purpose, each below the
fault it catches and far above a quiet machine's time, for a machine shared with other work.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import pytest
from judge_helpers import HANGS, children, fake_engine, gone, scripted_judge
from uci_helpers import MAIN, PROTOCOL, ROOT

from engine.outside.judge import START_TIMEOUT
from engine.outside.launch import LaunchError, launch

pytestmark = pytest.mark.slow  # each test talks to the engine's process and its judges' processes

#: A bound on a wait whose fault is waiting out a judge's start (START_TIMEOUT, 5 s): generous for a
#: busy machine (a quiet one takes 0.03 to 0.5 s), still below what the fault costs.
BELOW_A_START = START_TIMEOUT - 0.5

#: A UCI engine that answers every go with an info python-chess cannot parse and an illegal
#: bestmove.
BAD_MOVES = HANGS.replace(
    '    elif words[:1] == ["quit"]:',
    '    elif words[:1] == ["go"]:\n        print("info depth 2 score cp 5 pv e2e4\\ninfo depth 3'
    ' score cp w pv e2e4\\nbestmove a1a1 ponder zz", flush=True)\n    elif words[:1] == ["quit"]:',
)
#: A UCI engine that declares an option python-chess cannot read.
BAD_OPTIONS = HANGS.replace(
    '"id name Hang\\n', '"id name Hang\\noption name Style type spin default 1 min y max z\\n'
)


class Session:
    """Our guided engine as a subprocess: stdout read line by line as it comes, stderr kept."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(MAIN), "--mode", "guided"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.errors: list[str] = []
        self.sent = time.monotonic()
        threading.Thread(
            target=lambda: [self.lines.put(line.rstrip("\n")) for line in self.proc.stdout],
            daemon=True,
        ).start()
        threading.Thread(target=lambda: self.errors.extend(self.proc.stderr), daemon=True).start()
        # the judge's start alone is timed: with a judge, Selection auto would make the calibrated
        # choice of a profiled casebase at isready (strength.md §4)
        self.send("setoption name Selection value argmax")

    def send(self, *lines: str) -> None:
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        self.sent = time.monotonic()

    def until(self, prefix: str, timeout: float = 30) -> tuple[list[str], float]:
        """Lines up to the first starting with ``prefix``, and the seconds since the last send."""
        got: list[str] = []
        while not (got and got[-1].startswith(prefix)):
            got.append(self.lines.get(timeout=timeout))
        self.seen += got
        return got, time.monotonic() - self.sent

    def close(self) -> str:
        """End the session (end of input); its stderr."""
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
        time.sleep(0.1)  # the reader threads
        assert all(line.split()[0] in PROTOCOL for line in self.seen), self.seen
        return "".join(self.errors)

    def text(self) -> str:
        return "\n".join(self.seen)


def logged(tmp_path: Path, name: str, then: str) -> tuple[str, Path]:
    """A judge that logs each start to a file, then runs shell ``then``; its path and its log."""
    log = tmp_path / f"{name}.log"
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\necho start >> '{log}'\n{then}\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path), log


def starts(log: Path) -> int:
    return len(log.read_text().split()) if log.exists() else 0


def still_starting(log: Path, pid: int) -> bool:
    """Whether the engine ``pid``'s judge, which logs its starts to ``log``, has not been refused
    yet: not started, or its process still there (a refusal ends it)."""
    return starts(log) == 0 or bool(children(pid))


def legal(line: str, board: chess.Board) -> bool:
    return chess.Move.from_uci(line.split()[1]) in board.legal_moves


def test_a_judge_that_never_answers_uciok_blocks_nothing_and_is_refused_once(tmp_path):
    """/bin/cat echoes `uci` and never says uciok: isready at once, every go on its clock, the
    refusal (after the 5 s start timeout) told once, and no second start."""
    cat, log = logged(tmp_path, "cat", "exec /bin/cat")
    engine = Session()
    try:
        engine.send("isready")
        engine.until("readyok")  # the casebase loaded
        engine.send(f"setoption name Judge value {cat}", "isready")
        engine.until("readyok")
        # readyok did not wait for the judge's start (was 5.0 s)
        assert still_starting(log, engine.proc.pid)
        board = chess.Board()
        for _ in range(3):  # on a 253 ms clock, 15 moves to go (was 7.05 s)
            engine.send(
                f"position startpos moves {' '.join(m.uci() for m in board.move_stack)}",
                "go wtime 253 btime 253 movestogo 15",
            )
            lines, _ = engine.until("bestmove")
            assert legal(lines[-1], board), lines
            board.push_uci(lines[-1].split()[1])
        # nor did the three moves (0.06 s each on a quiet machine)
        assert still_starting(log, engine.proc.pid)
        started = time.monotonic()
        while starts(log) and children(engine.proc.pid) and time.monotonic() < started + 10:
            time.sleep(0.05)  # its start timeout runs out in the background
        assert starts(log) == 1 and not children(engine.proc.pid)
        for _ in range(2):
            engine.send(
                f"position startpos moves {' '.join(m.uci() for m in board.move_stack)}",
                "go depth 1",
            )
            lines, _ = engine.until("bestmove")
            assert legal(lines[-1], board), lines
        assert starts(log) == 1  # refused: not started again at every go (nor waited for)
        text = engine.text()
        assert text.count("the Python search judges until it is ready") == 1, text
        assert text.count("did not answer uciok within 5 s") == 1, text
        assert text.count("refused (see above)") == 1, text
    finally:
        errors = engine.close()
    assert "Traceback" not in errors and "Loop" not in errors, errors


def test_stop_and_quit_are_honoured_while_a_judge_starts(tmp_path):
    cat, _ = logged(tmp_path, "cat", "exec /bin/cat")
    engine = Session()
    try:
        engine.send("isready")
        engine.until("readyok")
        engine.send(f"setoption name Judge value {cat}", "position startpos", "go infinite")
        time.sleep(0.3)
        engine.send("stop")
        lines, _ = engine.until("bestmove")
        assert legal(lines[-1], chess.Board()), lines
        # still starting: the bestmove did not wait for it (was 5 s)
        [judge] = children(engine.proc.pid)
        engine.send("go infinite")
        time.sleep(0.3)
        engine.send("quit")
        assert engine.proc.wait(timeout=30) == 0
        assert time.monotonic() - engine.sent < BELOW_A_START, time.monotonic() - engine.sent
        assert gone(judge)  # not left behind (it would be there for good)
    finally:
        errors = engine.close()
    assert "Traceback" not in errors, errors


def test_stop_and_quit_end_a_hung_judges_search_at_once(tmp_path):
    log = tmp_path / "hang.log"
    hung, _ = logged(
        tmp_path,
        "hang",
        f'while read line; do echo "$line" >> \'{log}\'; case "$line" in'
        " uci) echo 'id name Hang'; echo uciok;; isready) echo readyok;;"
        " quit) exit 0;; esac; done",
    )
    engine = Session()
    try:
        engine.send(f"setoption name Judge value {hung}", "isready")
        engine.until("readyok")
        for searches in (1, 2):
            engine.send("position startpos", "go infinite")
            while (log.read_text() if log.exists() else "").count("\ngo ") < searches:
                time.sleep(0.02)  # it searches (the move waited for its start: no clock)
            [judge] = children(engine.proc.pid)
            engine.send("stop" if searches == 1 else "quit")
            if searches == 1:
                lines, _ = engine.until("bestmove")
                assert legal(lines[-1], chess.Board()), lines
                # the engine's own clock: it gave the judge 0.2 s, then killed it (its wait is not
                # timed here)
                assert "it hung: no bestmove 0.2 s after stop; killed" in "\n".join(lines), lines
            else:  # it never answers: quit kills it rather than waits (30 s would be a hang)
                assert (
                    engine.proc.wait(timeout=30) == 0
                    and time.monotonic() - engine.sent < BELOW_A_START
                )
            assert gone(judge)
    finally:
        errors = engine.close()
    assert "Traceback" not in errors, errors


def test_pondering_then_a_judge_that_exits_then_go(tmp_path):
    engine = Session()
    try:
        engine.send(
            "position startpos", "go ponder", "setoption name Judge value /bin/false", "go nodes 50"
        )
        for searches in (2, 1):  # the ponder search's bestmove (stopped by the go), then the go's
            for _ in range(searches):
                lines, _ = engine.until("bestmove", timeout=5)
                assert legal(lines[-1], chess.Board()), lines
            engine.send("go nodes 50")
        text = engine.text()
        assert text.count("judge false refused: /bin/false does not start as a UCI engine") == 1, (
            text
        )
        assert "search depth" in text  # the Python search judged
    finally:
        errors = engine.close()
    assert "Traceback" not in errors, errors


@pytest.mark.parametrize("kind", ["missing", "folder", "not executable", "exits", "garbage at uci"])
def test_a_program_that_is_not_a_uci_engine_is_refused_once_until_it_changes(tmp_path, kind):
    path, log = logged(
        tmp_path,
        "judge",
        {
            "exits": "exit 3",
            "garbage at uci": "read line\necho 'option name x type spin'"
            "\necho uciok\nexec cat > /dev/null",
        }.get(kind, "exit 0"),
    )
    reason = {
        "missing": "no engine at",
        "folder": "(it is a folder)",
        "not executable": "(it is not executable)",
        "exits": "does not start as a UCI engine",
        "garbage at uci": "(expected integer for spin option",
    }[kind]
    if kind == "missing":
        Path(path).unlink()
    elif kind == "folder":
        Path(path).unlink()
        Path(path).mkdir()
    elif kind == "not executable":
        Path(path).chmod(0o644)
    engine = Session()
    try:
        engine.send(f"setoption name Judge value {path}", "isready")
        engine.until("readyok")
        for moves in ("", "e2e4", "e2e4 e7e5"):
            engine.send(f"position startpos moves {moves}", "go movetime 300")
            lines, seconds = engine.until("bestmove")
            # the move did not wait out the refused program's start
            assert seconds < BELOW_A_START, seconds
        text = engine.text()
        assert text.count(reason) == 1 and text.count("refused (see above)") == 2, text
        assert starts(log) <= 1  # started once at most (where it could start at all)
        if kind != "folder":  # the program changes: it is tried again, and judges
            fake_engine(
                tmp_path,
                "judge",
                Path(scripted_judge(tmp_path, e2e4=10)).read_text().split("\n", 1)[1],
            )
            engine.send("position startpos", "go depth 2")
            lines, _ = engine.until("bestmove")
            assert "judge Scripted: depth 2" in "\n".join(lines), lines
    finally:
        errors = engine.close()
    assert "Traceback" not in errors, errors


def test_a_huge_judge_value_comes_back_cut(tmp_path):
    huge = "/" + "a" * 512 * 1024
    engine = Session()
    try:
        engine.send("debug on", f"setoption name Judge value {huge}", "isready")
        engine.until("readyok")
        for _ in range(2):
            engine.send("position startpos", "go depth 1")
            lines, _ = engine.until("bestmove")
            assert legal(lines[-1], chess.Board())
        assert max(map(len, engine.seen)) <= 4096, sorted(map(len, engine.seen))[-3:]
        assert "refused" in engine.text()
    finally:
        errors = engine.close()
    assert len(errors) < 4096, errors[:300]


@pytest.mark.parametrize("kind", ["at go", "at uci"])
def test_a_judge_that_answers_nonsense_is_one_line_per_fault_and_no_traceback(tmp_path, kind):
    junk = fake_engine(tmp_path, "junk", BAD_MOVES if kind == "at go" else BAD_OPTIONS)
    engine = Session()
    try:
        engine.send(f"setoption name Judge value {junk}", "isready")
        engine.until("readyok")
        board = chess.Board()
        for _ in range(3):
            engine.send(
                f"position startpos moves {' '.join(m.uci() for m in board.move_stack)}",
                "go movetime 300",
            )
            lines, _ = engine.until("bestmove")
            assert legal(lines[-1], board)
            board.push_uci(lines[-1].split()[1])
        faults = [
            line
            for line in engine.seen
            if "answered garbage" in line or "Exception parsing" in line
        ]
        if kind == "at go":  # a fault at each of two moves, then retired
            assert (
                len(faults) == 2 and "restarted" in faults[0] and "rest of the game" in faults[1]
            ), engine.text()
        else:  # refused at its start
            assert len(faults) == 1 and "judge junk refused: it answered garbage" in faults[0], (
                engine.text()
            )
    finally:
        errors = engine.close()
    assert "Traceback" not in errors and "Loop" not in errors and "Exception" not in errors, errors


def test_the_launcher_names_what_it_could_not_start_briefly(tmp_path):
    with pytest.raises(LaunchError) as huge:
        launch(["/" + "a" * 512 * 1024])
    assert len(str(huge.value)) < 300 and "characters" in str(huge.value)
    with pytest.raises(LaunchError, match="it is a folder"):
        launch([str(tmp_path)])
    (tmp_path / "plain").write_text("text")
    with pytest.raises(LaunchError, match="it is not executable"):
        launch([str(tmp_path / "plain")])
