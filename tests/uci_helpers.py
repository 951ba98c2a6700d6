"""Talking to the engine as a subprocess: whole conversations, or line by line with waits; or in
this process, a whole conversation with the UCI loop."""

from __future__ import annotations

import io
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess.engine

from engine.uci.protocol import UciEngine

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "uci_main.py"
PROTOCOL = {"id", "option", "uciok", "readyok", "info", "bestmove"}


def converse(commands: list[str], *args: str) -> list[str]:
    """Send all ``commands`` then end stdin; the engine's stdout lines (checked to be protocol)."""
    return conversation(commands, *args)[0]


def conversation(
    commands: list[str], *args: str, env: dict[str, str] | None = None
) -> tuple[list[str], str]:
    """:func:`converse`, and what the engine wrote to stderr (``env``: the engine's environment)."""
    proc = subprocess.run(
        [sys.executable, str(MAIN), *args],
        input="".join(f"{c}\n" for c in commands),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and all(line.split()[0] in PROTOCOL for line in lines), lines
    return lines, proc.stderr


def engine_process(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The engine (``uci_main.py`` with ``args``, in ``env``) as a process whose stdin and stdout
    are text pipes, for a test that writes and reads it at its own pace."""
    return subprocess.Popen(
        [sys.executable, str(MAIN), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def bestmoves(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("bestmove")]


def strings(lines: list[str]) -> str:
    return "\n".join(line for line in lines if line.startswith("info string"))


class Engine:
    """An engine subprocess read line by line on a thread, for conversations with waits."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(MAIN), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str) -> list[str]:
        """Lines up to and including the first one starting with ``prefix``."""
        seen = []
        while not (seen and seen[-1].startswith(prefix)):
            seen.append(self.lines.get(timeout=30))
        return seen

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def popen(*args: str) -> chess.engine.SimpleEngine:
    """The engine under python-chess's UCI client (``args`` are uci_main.py's flags)."""
    return chess.engine.SimpleEngine.popen_uci(
        [sys.executable, str(MAIN), *args], cwd=ROOT, timeout=30
    )


def stop_latency(
    engine: chess.engine.SimpleEngine, board: chess.Board, depth: int | None = None
) -> tuple[float, chess.Move | None]:
    """``go infinite`` on ``board``, ``stop`` once an iteration reached ``depth`` (at once when
    None): the seconds until the bestmove, and the move."""
    with engine.analysis(board) as analysis:
        if depth is not None:
            for info in analysis:
                if info.get("depth", 0) >= depth and "score" in info:
                    break
        started = time.monotonic()
        analysis.stop()
        best = analysis.wait()
        return time.monotonic() - started, best.move


def session(commands: list[str], **defaults: str) -> list[str]:
    """The UCI loop in this process, with the options' ``defaults``: its lines in answer to
    ``commands``."""
    out = io.StringIO()
    assert UciEngine(defaults, out=out).run(commands) == 0
    return out.getvalue().splitlines()
