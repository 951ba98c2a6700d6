"""One outside UCI engine process that nobody waits for: started on a thread of its own, and
driven by commands each watched on the engine's event loop against a deadline, ``stop`` and what
python-chess finds wrong in the engine's output (the judge's, :mod:`engine.outside.judge`)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

import chess.engine

from common.text import clip
from engine.outside.launch import (
    CommandFailed,
    Complaints,
    LaunchError,
    Launching,
    Liveness,
    launch,
    watched,
)

#: The most seconds an engine has to answer a command (``quit``, a search past its time) before
#: it is killed as hung.
KILL_GRACE = 0.5
#: How often a waiting thread looks at ``stop`` (seconds): a thread's flag cannot wake it.
POLL = 0.005

T = TypeVar("T")


class ProcessError(Exception):
    """The engine failed to answer; the message says how (ended, hung, garbage)."""


class _Start:
    """A start on its own thread: done, then ``error`` says why it failed (None: the engine
    runs)."""

    def __init__(self) -> None:
        self.launching = Launching()
        self.done = threading.Event()
        self.error: str | None = None


def _within(option: chess.engine.Option, value: int) -> int:
    """``value`` in the range the engine declared for ``option``."""
    if isinstance(option.min, int):
        value = max(value, option.min)
    if isinstance(option.max, int):
        value = min(value, option.max)
    return value


class EngineProcess:
    """The UCI engine ``command`` with ``options`` set (those it has), once started; :attr:`engine`
    is None until then, and after it failed or was closed."""

    def __init__(self, command: str, options: Mapping[str, int]) -> None:
        self.command = command
        self.options = dict(options)
        self.engine: chess.engine.SimpleEngine | None = None
        # what python-chess found wrong in the running engine's output
        self._complaints = Complaints()
        self._lock = threading.Lock()
        self._start: _Start | None = None  # the start under way, or finished and not yet collected

    @property
    def idle(self) -> bool:
        """Whether it neither runs nor starts (nor has a start's outcome to collect)."""
        return self.engine is None and self._start is None

    def begin(self, timeout: float) -> None:
        """Start the engine on a thread of its own, unless it runs or starts: it has ``timeout``
        seconds to answer ``uciok`` and take its options. Returns at once."""
        with self._lock:
            if not self.idle:
                return
            self._start = attempt = _Start()
        threading.Thread(
            target=self._launch,
            args=(attempt, timeout),
            name=f"start {clip(self.command, 40)}",
            daemon=True,
        ).start()

    def wait(self, until: float | None, stop: threading.Event | None = None) -> bool:
        """Wait for the start under way until the monotonic time ``until`` (None: its end) or
        ``stop``; whether no start is under way any more."""
        attempt = self._start
        if attempt is None:
            return True
        if stop is None:  # nothing to look at: a plain wait
            return attempt.done.wait(None if until is None else max(until - time.monotonic(), 0.0))
        while not attempt.done.wait(POLL):
            if stop.is_set() or (until is not None and time.monotonic() > until):
                return False
        return True

    def collect(self) -> str | None:
        """A finished start's outcome, once: why it failed (None when it ran, or no start
        finished)."""
        with self._lock:
            attempt = self._start
            if attempt is None or not attempt.done.is_set():
                return None
            self._start = None
        return attempt.error

    def name(self, default: str) -> str:
        """The name the running engine gave (cut to a sensible length), else ``default``."""
        found = None if self.engine is None else self.engine.protocol.id.get("name")
        return default if not found else clip(str(found))

    def close(self) -> None:
        """Quit the engine, on a thread of its own (killed if it has not quit within
        :data:`KILL_GRACE`), or kill it at once while it starts. Returns at once."""
        with self._lock:
            attempt, self._start = self._start, None
            engine, self.engine = self.engine, None
            # (a finished one's engine is `engine`)
            starting = attempt is not None and not attempt.done.is_set()
        if starting:
            assert attempt is not None
            attempt.launching.cancel()
        if engine is not None:
            # not a daemon: the session ends once it has (the client's thread, a start's, is one)
            threading.Thread(target=self._quit, args=(engine,), name="quit").start()

    def _quit(self, engine: chess.engine.SimpleEngine) -> None:
        try:
            self.call(engine.protocol.quit(), time.monotonic() + KILL_GRACE, engine=engine)
        except ProcessError:
            pass
        engine.close()  # the client's thread ends with it: so the session can end

    def _launch(self, attempt: _Start, timeout: float) -> None:
        """The start's thread: the engine, past ``uciok`` and its options set, or why not."""
        complaints = Complaints()
        engine = None
        try:
            engine = launch(
                [self.command],
                timeout=timeout,
                own_group=True,
                launching=attempt.launching,
                complaints=complaints,
            )
            options = {
                name: _within(engine.protocol.options[name], value)
                for name, value in self.options.items()
                if name in engine.protocol.options
            }
            self.call(
                engine.protocol.configure(options),
                time.monotonic() + timeout,
                engine=engine,
                complaints=complaints,
            )
            if complaints.lines:
                raise ProcessError(f"it answered garbage ({complaints.lines[0]})")
        except (LaunchError, ProcessError) as exc:
            attempt.error = str(exc)
        except Exception as exc:  # whatever else went wrong, the start ends, with its reason
            attempt.error = f"it did not start ({clip(str(exc)) or type(exc).__name__})"
        with self._lock:
            if attempt.error is None and self._start is attempt:
                self.engine, self._complaints, engine = engine, complaints, None
            attempt.done.set()
        if engine is not None:  # it failed, or was closed meanwhile
            engine.close()

    def call(
        self,
        coroutine: Coroutine[Any, Any, T],
        deadline: float | Liveness | None,
        *,
        stop: threading.Event | None = None,
        analysis: chess.engine.AnalysisResult | None = None,
        engine: chess.engine.SimpleEngine | None = None,
        grace: float = KILL_GRACE,
        complaints: Complaints | None = None,
    ) -> T:
        """Run ``coroutine`` on the client's event loop, watched there
        (:func:`~engine.outside.launch.watched`) against ``deadline``, ``stop`` and python-chess's
        ``complaints`` (the running engine's by default), and wait for it. An engine that failed is
        killed: ProcessError."""
        engine = engine or self.engine
        assert engine is not None
        if complaints is None:
            complaints = self._complaints if engine is self.engine else Complaints()
        if engine.returncode.done():
            coroutine.close()  # never to run
            raise ProcessError("its process has ended")
        stopped = asyncio.Event()  # the watcher's copy of ``stop``
        try:
            future = asyncio.run_coroutine_threadsafe(
                watched(coroutine, deadline, stopped, complaints, analysis, grace),
                engine.protocol.loop,
            )
        except RuntimeError:  # its event loop has ended: so has the process
            coroutine.close()
            raise ProcessError("its process has ended") from None
        told = False
        while True:
            try:
                # ``stop`` is a thread's flag with no way to wake a waiter: it alone is looked at
                # every POLL, and handed to the watcher once set
                return future.result(timeout=None if stop is None or told else POLL)
            except TimeoutError:  # concurrent.futures' timeout, the builtin since Python 3.11
                if stop is not None and stop.is_set():
                    told = True
                    _tell(engine, stopped.set)
            except chess.engine.EngineTerminatedError:
                raise ProcessError("its process ended (crashed or killed)") from None
            except CommandFailed as exc:
                self._kill(engine, future)
                raise ProcessError(str(exc)) from None
            except (chess.engine.EngineError, ValueError, AssertionError) as exc:
                self._kill(engine, future)
                raise ProcessError(f"it answered garbage ({clip(str(exc))})") from None

    def _kill(self, engine: chess.engine.SimpleEngine, future: Future[Any]) -> None:
        """Kill ``engine`` (closed: a later start makes another) and abandon its command."""
        future.cancel()
        engine.close()
        with self._lock:
            if engine is self.engine:
                self.engine = None


def _tell(engine: chess.engine.SimpleEngine, callback: Callable[[], object]) -> None:
    """Run ``callback`` on the engine's event loop (ProcessError if that has ended)."""
    try:
        engine.protocol.loop.call_soon_threadsafe(callback)
    except RuntimeError:  # its event loop has ended
        raise ProcessError("its process ended (crashed or killed)") from None
