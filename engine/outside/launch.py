"""Starting an outside UCI engine (Stockfish, another copy of this engine): the one launcher that
the judge, the tournament's opponents and the fidelity bench share, over python-chess's client.

Every message names the program cut to :data:`common.text.ECHO_LIMIT` characters. A caller that
gives ``complaints`` hears, one line each, what python-chess would have logged about the engine's
output (a move or score it could not read, an exception in a command): those never reach stderr,
and neither does asyncio's warning about a killed engine's loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import chess.engine

from common.text import clip

#: How long an engine may take to answer ``uci`` with ``uciok``.
START_TIMEOUT = 10.0

#: Who hears python-chess's complaints about an engine, by the engine's event loop.
_listeners: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Callable[[str], None]] = weakref.WeakKeyDictionary()
_quieted = threading.Lock()


class LaunchError(Exception):
    """The engine did not start; the message says why (missing, not a UCI engine, too slow)."""


class Launching:
    """An engine being started on another thread: :meth:`cancel` kills its process at once
    (the launch then fails), whether or not it answered ``uciok``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: tuple[asyncio.SubprocessTransport, asyncio.AbstractEventLoop] | None = None
        self.cancelled = False

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            process = self._process
        if process is not None:
            _kill(*process)

    def _made(self, transport: asyncio.SubprocessTransport, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._process = (transport, loop)
            cancelled = self.cancelled
        if cancelled:
            _kill(transport, loop)


def launch(command: Sequence[str], *, timeout: float = START_TIMEOUT, own_group: bool = False,
           launching: Launching | None = None,
           complaints: Callable[[str], None] | None = None) -> chess.engine.SimpleEngine:
    """The UCI engine ``command`` (program and arguments), started and past ``uciok``.

    ``own_group`` puts it in a process group of its own, so that a Ctrl-C meant for us does
    not reach it (a judge is stopped by us, at the right moment). ``launching`` lets another
    thread cancel the start; ``complaints`` hears what python-chess finds wrong in its output
    (called on the client's thread).
    """
    program = command[0] if command else ""
    shown = clip(program) or "(empty command)"
    if shutil.which(program) is None:
        raise LaunchError(f"no engine at {shown}{_why_not(program)}")
    _quiet()
    try:
        return chess.engine.SimpleEngine.popen(_protocol(launching, complaints), list(command), timeout=timeout,
                                               setpgrp=own_group)
    except TimeoutError:
        raise LaunchError(f"{shown} did not answer uciok within {timeout:.2g} s") from None
    except (OSError, chess.engine.EngineError) as exc:
        raise LaunchError(f"{shown} does not start as a UCI engine ({clip(str(exc)) or type(exc).__name__})") from None


def _why_not(program: str) -> str:
    """Why ``which`` found no program at ``program``, where it is a path: a folder, not executable."""
    try:
        if os.sep not in program:
            return ""
        if os.path.isdir(program):
            return " (it is a folder)"
        if os.path.exists(program):
            return " (it is not executable)"
    except (OSError, ValueError):  # a name the system refuses (too long, a NUL): no engine either
        pass
    return ""


def _protocol(launching: Launching | None,
              complaints: Callable[[str], None] | None) -> type[chess.engine.UciProtocol]:
    """python-chess's UCI client, telling ``launching`` of its process and ``complaints`` of faults."""

    class Watched(chess.engine.UciProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:  # a SubprocessTransport
            super().connection_made(transport)
            if complaints is not None:
                _listeners[self.loop] = complaints
                self.loop.set_exception_handler(lambda _, context: complaints(_context_text(context)))
            if launching is not None and self.transport is not None:
                launching._made(self.transport, self.loop)

    return Watched


def _context_text(context: dict[str, Any]) -> str:
    """One line for an exception python-chess handed its loop (a command failed after its result)."""
    exc = context.get("exception")
    if exc is None:
        return clip(str(context.get("message", "an error in the client")))
    return clip(str(exc) or type(exc).__name__)


def _kill(transport: asyncio.SubprocessTransport, loop: asyncio.AbstractEventLoop) -> None:
    """Kill the process of ``transport`` now (even if our session ends before its ``loop`` runs
    again), and close the transport on its loop, from any thread."""
    try:
        os.kill(transport.get_pid(), signal.SIGKILL)
    except OSError:  # it has ended
        pass
    try:
        loop.call_soon_threadsafe(transport.close)
    except RuntimeError:  # its loop has ended, and its process with it
        pass


class _Complaints(logging.Filter):
    """python-chess's log records about an engine with a listener go to the listener instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            listener = _listeners.get(asyncio.get_running_loop())
        except RuntimeError:  # not on an event loop's thread
            return True
        if listener is None:
            return True
        if record.levelno >= logging.ERROR:  # warnings (a stray line) are not faults
            text = record.getMessage().splitlines()[0] if record.getMessage() else record.levelname
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({record.exc_info[1]})"
            listener(clip(text))
        return False


class _ClosedLoop(logging.Filter):
    """asyncio's warning that a killed engine's loop closed before the process was reaped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Loop %r that handles pid")


def _quiet() -> None:
    """Install the two filters (once)."""
    if _quieted.acquire(blocking=False):  # held for good once they are in
        logging.getLogger("chess.engine").addFilter(_Complaints())
        logging.getLogger("asyncio").addFilter(_ClosedLoop())
