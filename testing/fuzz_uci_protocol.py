"""UCI as testing/fuzz_uci.py reads it: the commands, option and info lines, positions and go
arguments, and the engine as a subprocess whose lines come back as timed events."""

from __future__ import annotations

import collections
import dataclasses
import os
import queue
import re
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent

#: What the engine reads as commands; a line's first such token is its command (UCI: unknown
#: tokens are skipped).
COMMANDS = (
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
)
#: The first words an engine may write.
OUTPUT_WORDS = {
    "id",
    "uciok",
    "readyok",
    "bestmove",
    "copyprotection",
    "registration",
    "info",
    "option",
}
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
GO_FLAGS = ("infinite", "ponder")
INFO_INTEGERS = {
    "depth",
    "seldepth",
    "time",
    "nodes",
    "multipv",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
}
INFO_KEYS = INFO_INTEGERS | {"score", "wdl", "currmove", "pv", "refutation", "currline", "string"}
MOVE_SYNTAX = re.compile(r"^(?:[a-h][1-8][a-h][1-8][qrbn]?|0000)$")


# -- lines in both directions ----------------------------------------------------------------


@dataclasses.dataclass
class Option:
    """One ``option`` line of the engine's answer to ``uci``."""

    name: str
    kind: str
    default: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: list[str] = dataclasses.field(default_factory=list)


def parse_option(line: str) -> Option | None:
    """The option an ``option name N type T [default D] [min a] [max b] [var v]*`` line declares."""
    tokens = line.split()
    if tokens[:2] != ["option", "name"] or "type" not in tokens:
        return None
    at_type = tokens.index("type")
    option = Option(
        " ".join(tokens[2:at_type]), tokens[at_type + 1] if at_type + 1 < len(tokens) else ""
    )
    keys = {"default", "min", "max", "var"}
    i = at_type + 2
    while i < len(tokens):
        key, j = tokens[i], i + 1
        while j < len(tokens) and tokens[j] not in keys:
            j += 1
        value = " ".join(tokens[i + 1 : j])
        if key == "default":
            option.default = value
        elif key in ("min", "max"):
            try:
                setattr(option, "minimum" if key == "min" else "maximum", int(value))
            except ValueError:
                pass
        elif key == "var":
            option.choices.append(value)
        i = j
    return option


def command_of(text: str) -> tuple[str, list[str]] | None:
    """The command of a line and the words after it: its first known command word (UCI: unknown
    words before it are skipped), the words split as Python splits them."""
    tokens = text.split()
    at = next((i for i, token in enumerate(tokens) if token in COMMANDS), None)
    return None if at is None else (tokens[at], tokens[at + 1 :])


def parse_position(tokens: list[str]) -> chess.Board:
    """The board of ``position`` (its words after the command); ValueError if the command is wrong
    (then the engine keeps the position it had, as docs/usage.md says)."""
    if tokens[:1] == ["startpos"]:
        board, rest = chess.Board(), tokens[1:]
    elif tokens[:1] == ["fen"]:
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        board = chess.Board(" ".join(tokens[1:end]))
        if not board.is_valid():
            raise ValueError("impossible position")
        rest = tokens[end:]
    else:
        raise ValueError("position needs startpos or fen")
    if rest and rest[0] != "moves":
        raise ValueError("expected moves")
    for text in rest[1:]:
        board.push(board.parse_uci(text))
    return board


def parse_go(
    tokens: list[str], board: chess.Board
) -> tuple[dict[str, int], set[str], list[chess.Move] | None]:
    """The numbers, flags and search moves of ``go`` (its words after the command) in ``board``:
    a number that is not a whole number is no number; searchmoves runs to the next keyword and
    keeps the moves legal in ``board`` (python-chess's parse_uci: ``0000`` is kept, as a null move).
    Written apart from the engine's own parser (engine/uci/commands.py) on purpose: an oracle
    that shared it could not find its faults."""
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    moves: list[chess.Move] | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in GO_FLAGS:
            flags.add(token)
        elif token in GO_NUMBERS:
            if i < len(tokens) and is_int(tokens[i]):
                numbers[token] = int(tokens[i])
                i += 1
        elif token == "searchmoves":
            moves = []
            while i < len(tokens) and tokens[i] not in GO_NUMBERS + GO_FLAGS:
                try:
                    moves.append(board.parse_uci(tokens[i]))
                except ValueError:
                    pass
                i += 1
    return numbers, flags, moves


def info_problem(words: list[str]) -> str | None:
    """What is wrong with an ``info`` line's fields (None: nothing)."""
    i = 1
    while i < len(words):
        key = words[i]
        i += 1
        if key == "string":
            return None
        if key in INFO_INTEGERS:
            if i >= len(words) or not is_int(words[i]):
                return f"info {key} needs an integer"
            i += 1
        elif key == "score":
            if i + 1 >= len(words) or words[i] not in ("cp", "mate") or not is_int(words[i + 1]):
                return "info score needs cp|mate and an integer"
            i += 2
            while i < len(words) and words[i] in ("lowerbound", "upperbound"):
                i += 1
        elif key == "wdl":
            if i + 2 >= len(words) or not all(is_int(w) for w in words[i : i + 3]):
                return "info wdl needs three integers"
            i += 3
        elif key == "currmove":
            if i >= len(words) or not MOVE_SYNTAX.match(words[i]):
                return "info currmove needs a move"
            i += 1
        elif key in ("pv", "refutation", "currline"):
            if key == "currline" and i < len(words) and is_int(words[i]):
                i += 1
            while i < len(words) and words[i] not in INFO_KEYS:
                if not MOVE_SYNTAX.match(words[i]):
                    return f"info {key}: {words[i][:20]!r} is not a move"
                i += 1
        else:
            return f"unknown info field {key[:30]!r}"
    return None


def is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def parse_move(text: str) -> chess.Move | None:
    """The move ``text`` names in UCI syntax (``0000``: the null move), or None."""
    try:
        return chess.Move.from_uci(text)
    except ValueError:
        return None


# -- the engine process --------------------------------------------------------------------


@dataclasses.dataclass
class Event:
    """A line the engine wrote (``stream`` ``out`` or ``err``), or the end of a stream (None)."""

    stream: str
    at: float
    data: bytes | None


class EngineProcess:
    """The engine as a subprocess: lines in (bounded by a deadline), its lines out as events."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        # cwd: a scratch folder, so that relative paths in fuzzed options (Tables "spaced value")
        # land there
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            bufsize=0,
            start_new_session=True,
        )
        assert (
            self.proc.stdin is not None
            and self.proc.stdout is not None
            and self.proc.stderr is not None
        )
        self.events: queue.Queue[Event] = queue.Queue()
        self.stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(self.stdin_fd, False)
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream: object) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            self.events.put(Event(name, time.monotonic(), raw.rstrip(b"\n")))
        self.events.put(Event(name, time.monotonic(), None))

    def write(self, data: bytes, timeout: float) -> bool:
        """Write ``data`` whole; False if the engine did not read it within ``timeout`` or is
        gone."""
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _, writable, _ = select.select([], [self.stdin_fd], [], min(left, 0.5))
            if not writable:
                continue
            try:
                view = view[os.write(self.stdin_fd, view) :]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                return False
        return True

    def descendants(self) -> list[int]:
        """The processes the engine started (children, theirs...), read from /proc."""
        parents: dict[int, list[int]] = collections.defaultdict(list)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                    parents[int(stat[stat.rindex(")") + 2 :].split()[1])].append(int(entry.name))
                except (OSError, ValueError, IndexError):
                    continue
        found, todo = [], [self.proc.pid]
        while todo:
            for child in parents.get(todo.pop(), []):
                found.append(child)
                todo.append(child)
        return found

    def kill(self) -> None:
        """End the engine and everything in its process group (it was started in a session of its
        own)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def command_line(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline")
            .read_bytes()
            .replace(b"\x00", b" ")
            .decode(errors="replace")[:120]
        )
    except OSError:
        return "?"
