"""Starting and ending an outside UCI engine (Stockfish, another copy of this engine): the one place
that does, built as python-chess is: an asyncio core and a thin sync facade over it.

- :func:`start` (the core) starts the engine on the running event loop and waits for ``uciok``;
  :class:`Outside` holds its process and python-chess's protocol, and ends them
  (:meth:`Outside.quit`). The web's games drive it on the server's loop. :func:`watched` runs one
  of python-chess's commands against a deadline, a stop and the engine's :class:`Complaints`
  (the judge's commands, :mod:`engine.outside.process`).
- :func:`launch` (the facade) is the same start on an event loop of its own, on a thread of its
  own, handed back as python-chess's :class:`chess.engine.SimpleEngine`: the judge, the profile,
  the tournament's players and the fidelity bench drive that.

Every message names the program cut to :data:`common.text.ECHO_LIMIT` characters; every failed start
is a :class:`LaunchError`, its process killed and reaped. A caller of :func:`launch` that gives
``complaints`` hears, one line each, what python-chess would have logged about that engine's output
(a move or score it could not read, an exception in a command): those never reach stderr. Only the
records of that engine's own loop are caught, and only while it runs.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import chess.engine

from common.text import clip

#: How long an engine may take to answer ``uci`` with ``uciok``.
START_TIMEOUT = 10.0
#: How long a killed engine's process may take to be reaped.
REAP_TIMEOUT = 5.0
#: The most seconds an engine has to answer ``stop`` before it is killed as hung.
STOP_GRACE = 0.2

T = TypeVar("T")


class LaunchError(Exception):
    """The engine did not start; the message says why (missing, not a UCI engine, too slow)."""


def own_engine(*arguments: str) -> list[str]:
    """The command that starts this project's UCI engine (the ``cbr-chess`` program: ``uci_main.py``
    run by this Python) with ``arguments``, as a GUI, the tournament and the web start it."""
    spec = importlib.util.find_spec("uci_main")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "the module uci_main is not importable: install the project (make install)"
        )
    return [sys.executable, spec.origin, *arguments]


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

    def _made(
        self, transport: asyncio.SubprocessTransport, loop: asyncio.AbstractEventLoop
    ) -> None:
        with self._lock:
            self._process = (transport, loop)
            cancelled = self.cancelled
        if cancelled:
            _kill(transport, loop)


@dataclass
class Outside:
    """A started engine on the event loop that started it: its process and python-chess's client."""

    transport: asyncio.SubprocessTransport
    protocol: chess.engine.UciProtocol

    async def quit(self, timeout: float) -> None:
        """Send ``quit``; kill the engine if it has not quit within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self.protocol.quit(), timeout)
        except (TimeoutError, chess.engine.EngineError, OSError):  # it hung, or has ended
            pass
        finally:
            await self.kill()

    async def kill(self) -> None:
        """Kill the process if it runs, and wait (at most :data:`REAP_TIMEOUT`) until it is reaped,
        so that its event loop may end."""
        self.transport.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.protocol.returncode), REAP_TIMEOUT)
        except TimeoutError:  # not reaped in time: its loop ends without it
            pass


async def start(
    command: Sequence[str],
    *,
    timeout: float = START_TIMEOUT,
    own_group: bool = False,
    launching: Launching | None = None,
    complaints: Callable[[str], None] | None = None,
) -> Outside:
    """The UCI engine ``command`` (program and arguments), started on the running event loop and
    past ``uciok``; LaunchError (its process ended) if it cannot be.

    ``own_group`` puts it in a process group of its own, so that a Ctrl-C meant for us does
    not reach it (a judge is stopped by us, at the right moment). ``launching`` lets another
    thread cancel the start; ``complaints`` hears what python-chess finds wrong in its output
    (called on the loop's thread; for an engine with a loop of its own, as :func:`launch` gives).
    """
    program = command[0] if command else ""
    shown = clip(program) or "(empty command)"
    if shutil.which(program) is None:
        raise LaunchError(f"no engine at {shown}{_why_not(program)}")
    try:
        transport, protocol = await _protocol(launching, complaints).popen(
            list(command), setpgrp=own_group
        )
    except OSError as exc:
        raise LaunchError(
            f"{shown} does not start as a UCI engine ({clip(str(exc)) or type(exc).__name__})"
        ) from None
    outside = Outside(transport, protocol)
    try:
        await asyncio.wait_for(protocol.initialize(), timeout)
    except TimeoutError:
        await outside.kill()
        raise LaunchError(f"{shown} did not answer uciok within {timeout:.2g} s") from None
    except chess.engine.EngineError as exc:
        await outside.kill()
        raise LaunchError(
            f"{shown} does not start as a UCI engine ({clip(str(exc)) or type(exc).__name__})"
        ) from None
    except BaseException:  # cancelled: the process goes with the start
        transport.close()
        raise
    return outside


class Complaints:
    """What python-chess found wrong in one engine's output, one line each, heard on its event
    loop."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.heard = asyncio.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        self.heard.set()


class CommandFailed(Exception):
    """The engine answered garbage or hung: the message says how (it is to be killed)."""


class Liveness:
    """A search's rolling deadline, for one bounded by depth or nodes alone: it hung once silent (no
    ``info``, no ``bestmove``) for ``seconds``, or for as long as it had searched when last
    :meth:`heard`, if longer (an iterative deepening's next iteration takes about as long as all
    those before it, and an engine may say nothing until its first root move is searched)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = self.heard_at = time.monotonic()

    def heard(self) -> None:
        self.heard_at = time.monotonic()

    @property
    def silence(self) -> float:
        """The seconds of silence after which it hung."""
        return max(self.seconds, self.heard_at - self.started)

    @property
    def due(self) -> float:
        return self.heard_at + self.silence


async def watched(
    coroutine: Coroutine[Any, Any, T],
    deadline: float | Liveness | None,
    stopped: asyncio.Event,
    complaints: Complaints,
    analysis: chess.engine.AnalysisResult | None,
    grace: float,
) -> T:
    """``coroutine``'s result, on the engine's event loop. Past the monotonic ``deadline`` (a
    :class:`Liveness`: once the engine fell silent), or once ``stopped``, a running ``analysis`` is
    told to stop; an engine that has not answered ``grace`` seconds after that (:data:`STOP_GRACE`
    at most after ``stopped``; for any other command, at ``deadline``) hung, and one with
    ``complaints`` answered garbage: CommandFailed, the command cancelled."""
    command = asyncio.ensure_future(coroutine)
    heard = asyncio.ensure_future(complaints.heard.wait())
    signals = [heard, asyncio.ensure_future(stopped.wait())]
    try:
        while True:
            due = deadline.due if isinstance(deadline, Liveness) else deadline
            timeout = None if due is None else max(due - time.monotonic(), 0.0)
            done, _ = await asyncio.wait(
                [command, *signals], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if done or not isinstance(deadline, Liveness) or time.monotonic() >= deadline.due:
                break  # (a Liveness heard meanwhile is due later)
        after = ""
        if not command.done() and not complaints.lines:
            if stopped.is_set():
                grace = min(grace, STOP_GRACE)
                after = f"{grace:.2g} s after stop"
            else:
                grace = grace if analysis is not None else 0.0
                after = f"{grace:.2g} s past its time" if grace else "in time"
                if isinstance(deadline, Liveness):
                    after = f"{grace:.2g} s after {deadline.silence:.3g} s of silence"
            if analysis is not None:
                analysis.stop()
            await asyncio.wait([command, heard], timeout=grace, return_when=asyncio.FIRST_COMPLETED)
        if complaints.lines:
            raise CommandFailed(f"it answered garbage ({complaints.lines[0]})")
        if not command.done():
            raise CommandFailed(
                f"it hung: no {'bestmove' if analysis is not None else 'answer'} {after}; killed"
            )
        return command.result()
    finally:
        for waiting in (command, *signals):
            waiting.cancel()


def launch(
    command: Sequence[str],
    *,
    timeout: float = START_TIMEOUT,
    own_group: bool = False,
    launching: Launching | None = None,
    complaints: Callable[[str], None] | None = None,
) -> chess.engine.SimpleEngine:
    """:func:`start` on an event loop of its own, on a thread of its own: python-chess's
    SimpleEngine over it (its commands wait at most ``timeout`` seconds beyond their limit).
    The loop ends once the engine's process has ended and been reaped."""

    async def background(future: Future[chess.engine.SimpleEngine]) -> None:
        outside = await start(
            command,
            timeout=timeout,
            own_group=own_group,
            launching=launching,
            complaints=complaints,
        )
        engine = chess.engine.SimpleEngine(outside.transport, outside.protocol, timeout=timeout)
        future.set_result(engine)
        try:
            engine.returncode.set_result(await outside.protocol.returncode)
        finally:
            engine.close()
        await engine.shutdown_event.wait()

    return chess.engine.run_in_background(
        background, name=f"engine {clip(command[0] if command else '', 40)}"
    )


def _why_not(program: str) -> str:
    """Why ``which`` found no program at ``program``, where it is a path: a folder, not
    executable."""
    try:
        # Windows: / too
        if os.sep not in program and (os.altsep is None or os.altsep not in program):
            return ""
        if os.path.isdir(program):
            return " (it is a folder)"
        if os.path.exists(program):
            return " (it is not executable)"
    except (OSError, ValueError):  # a name the system refuses (too long, a NUL): no engine either
        pass
    return ""


def _protocol(
    launching: Launching | None, complaints: Callable[[str], None] | None
) -> type[chess.engine.UciProtocol]:
    """python-chess's UCI client, telling ``launching`` of its process and ``complaints`` of
    faults."""

    class Watched(chess.engine.UciProtocol):
        routed: _LoopFilter | None = None

        # a SubprocessTransport
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            if complaints is not None:
                self.routed = _LoopFilter(self.loop, complaints)
                logging.getLogger("chess.engine").addFilter(self.routed)
                self.loop.set_exception_handler(
                    lambda _, context: complaints(_context_text(context))
                )
            if launching is not None and self.transport is not None:
                launching._made(self.transport, self.loop)

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            if self.routed is not None:
                logging.getLogger("chess.engine").removeFilter(self.routed)

    return Watched


class _LoopFilter(logging.Filter):
    """python-chess's log records made on one engine's event loop go to its listener instead (the
    errors, one line each; its warnings, a stray line, are no faults)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, listener: Callable[[str], None]) -> None:
        super().__init__()
        self.loop, self.listener = loop, listener

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if asyncio.get_running_loop() is not self.loop:
                return True
        except RuntimeError:  # not on an event loop's thread
            return True
        if record.levelno >= logging.ERROR:
            text = record.getMessage().splitlines()[0] if record.getMessage() else record.levelname
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({record.exc_info[1]})"
            self.listener(clip(text))
        return False


def _context_text(context: dict[str, Any]) -> str:
    """One line for an exception python-chess handed its loop (a command failed after its
    result)."""
    exc = context.get("exception")
    if exc is None:
        return clip(str(context.get("message", "an error in the client")))
    return clip(str(exc) or type(exc).__name__)


def _kill(transport: asyncio.SubprocessTransport, loop: asyncio.AbstractEventLoop) -> None:
    """Kill the process of ``transport`` now (even if our session ends before its ``loop`` runs
    again), and close the transport on its loop, from any thread."""
    try:
        os.kill(transport.get_pid(), _kill_signal())
    except OSError:  # it has ended
        pass
    try:
        loop.call_soon_threadsafe(transport.close)
    except RuntimeError:  # its loop has ended, and its process with it
        pass


def _kill_signal() -> int:
    """The signal that kills a process outright: SIGKILL; Windows has none, and ``os.kill`` there
    with SIGTERM is ``TerminateProcess``, as outright."""
    kill: int = getattr(signal, "SIGKILL", signal.SIGTERM)
    return kill
