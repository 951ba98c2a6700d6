"""Work spread over worker processes, each with state made once (players, engines, casebases).

Both the round robin and the fidelity bench hand out independent items (games, positions)
whose results do not depend on which worker did them, so results come back in any order.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import multiprocessing.queues
import multiprocessing.util
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
T_contra = TypeVar("T_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)


class Worker(Protocol[T_contra, R_co]):
    """What one process holds: it does items, and is closed when the process ends."""

    def __call__(self, item: T_contra, /) -> R_co: ...

    def close(self) -> None: ...


# This process's worker, made by the pool's initializer, or why it could not be made.
_worker: Worker[Any, Any] | None = None
_failure: BaseException | None = None
#: Seconds between a worker's looks at whether the process that started it still runs.
PARENT_POLL = 0.5
#: Seconds between the wake-ups of a terminated worker's main thread, until the process has ended.
WAKE_POLL = 0.01
#: Seconds between SystemExits raised in a terminated worker that has not reached its exit (one may
#: be swallowed: raised in a ``__del__`` or a weakref's callback, it is only printed).
RAISE_AGAIN = 0.5
#: Seconds a terminated worker has to unwind and close its worker before it exits outright.
UNWIND_SECONDS = 5.0
# When this worker last raised SystemExit on the pool's terminate (monotonic), and whether it has
# reached its exit (multiprocessing's exit functions: its worker is being closed, not to be cut
# short).
_raised: float | None = None
_exiting = False
#: The environment variable that chooses the pool's start method (``spawn``, the default; ``fork``
#: or ``forkserver`` where the system has them): the tests run the workers' tests under each with
#: it.
START_METHOD_VARIABLE = "CBR_CHESS_START_METHOD"


def start_method() -> str:
    """How the pool starts its processes: :data:`START_METHOD_VARIABLE`, else ``spawn`` (clean
    processes, the only method on Windows and the default on macOS)."""
    return os.environ.get(START_METHOD_VARIABLE) or "spawn"


def _start(make: Callable[..., Worker[Any, Any]], args: tuple[Any, ...]) -> None:
    global _worker, _failure
    if sys.platform == "win32":
        _end_with_parent_windows()
    else:
        _end_on_terminate()
    try:
        _worker = make(*args)
    except Exception as exc:  # noqa: BLE001 - raised at the first item, in the caller's process
        # An initializer that raises ends its process, and the pool starts another in its place,
        # forever: the caller would wait for nothing. The first item raises it instead.
        _failure = exc
        return
    # Close this worker (quit its engine processes) when the pool shuts the process down.
    multiprocessing.util.Finalize(_worker, _worker.close, exitpriority=10)


def _end_on_terminate() -> None:
    """POSIX: the pool's terminate (SIGTERM) ends this worker by unwinding, not by an outright kill
    (:func:`_end`); the watch thread hears of it through the wakeup pipe, as the signal comes,
    whichever thread takes it, and ends the worker once its parent is gone (:func:`_watch`)."""
    heard, told = os.pipe()
    os.set_blocking(told, False)
    signal.set_wakeup_fd(told, warn_on_full_buffer=False)
    signal.signal(signal.SIGTERM, _end)
    signal.signal(signal.SIGALRM, _end)
    # before the worker's close (10)
    multiprocessing.util.Finalize(None, _exit_reached, exitpriority=100)
    threading.Thread(
        target=_watch, args=(os.getppid(), heard, threading.get_ident()), name="watch", daemon=True
    ).start()


def _end_with_parent_windows() -> None:
    """Windows, which has no SIGTERM to unwind on (a pool's terminate is ``TerminateProcess``, and a
    pool's result queue there has no lock to be left held), nor SIGALRM, ``pthread_kill`` or
    ``select`` on a pipe: only the parent's end is watched, by the handle multiprocessing keeps of
    it (a killed worker's engines end at the end of their input, as on POSIX after a parent's
    kill)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_watch_sentinel, args=(parent.sentinel,), name="watch", daemon=True
        ).start()


def _watch_sentinel(sentinel: int) -> None:
    """End this worker process once the parent whose ``sentinel`` (a handle, or a pipe's end) this
    is has ended."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _exit_reached() -> None:
    global _exiting
    _exiting = True


def _end(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (the pool's terminate), or a wake-up after it (SIGALRM, :func:`_watch`): raise
    SystemExit, unless the main thread is sending a result, the process has reached its exit, or it
    raised less than :data:`RAISE_AGAIN` s ago. A worker killed outright while it sends holds the
    lock of the pool's result queue for ever, and CPython's ``Pool.terminate`` then waits on that
    lock for ever (its task handler puts a sentinel there last). Unwinding closes the worker (its
    engines), where one was made, at the exit. A send that cannot finish (a full pipe nobody reads)
    is ended outright by the watch thread's deadline, as a kill would end it."""
    global _raised
    now = time.monotonic()
    if _exiting or _sending(frame) or (_raised is not None and now - _raised < RAISE_AGAIN):
        return
    _raised = now
    raise SystemExit(1)


def _sending(frame: FrameType | None) -> bool:
    """Whether ``frame`` is in a ``SimpleQueue.put`` (the pool's queues; a worker puts only its
    results)."""
    while frame is not None:
        if frame.f_code is multiprocessing.queues.SimpleQueue.put.__code__:
            return True
        frame = frame.f_back
    return False


def _watch(parent: int, heard: int, main: int) -> None:
    """End this worker process once ``parent`` is gone, or :data:`UNWIND_SECONDS` after SIGTERM. A
    parent killed (``kill``, SIGKILL, a crash) cannot terminate its pool, whose workers would
    otherwise play out every game already queued to them for nobody; their engines end with them, at
    the end of their input. After SIGTERM the main thread is woken every :data:`WAKE_POLL` s
    (SIGALRM) until the process ends: a signal taken by another thread, or just before the main
    thread blocks in a queue, is not handled until another signal interrupts it."""
    # Left to the other threads (the main one where the kernel can): this one hears it through the
    # pipe.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    ending: float | None = None
    while os.getppid() == parent:
        if ending is None:
            if select.select([heard], [], [], PARENT_POLL)[0] and signal.SIGTERM in os.read(
                heard, 64
            ):
                ending = time.monotonic()
            continue
        if time.monotonic() - ending >= UNWIND_SECONDS:
            break
        signal.pthread_kill(main, signal.SIGALRM)
        time.sleep(WAKE_POLL)
    os._exit(1)


def _do(item: Any) -> Any:
    if _failure is not None:
        raise _failure
    assert _worker is not None
    return _worker(item)


def unordered_map(
    make: Callable[..., Worker[T, R]],
    args: tuple[Any, ...],
    items: Iterable[T],
    workers: int,
    *,
    chunksize: int = 1,
) -> Iterator[R]:
    """``worker(item)`` for every item, in the order they finish, where each of ``workers``
    processes makes its ``worker = make(*args)`` once (in this process when ``workers`` is 1).

    ``make`` and ``args`` must pickle: processes are spawned (:func:`start_method`), so that they
    start clean, without the parent's threads (tqdm, engine I/O) half-copied, as on Windows and
    macOS.
    """
    if workers <= 1:
        worker = make(*args)
        try:
            yield from map(worker, items)
        finally:
            worker.close()
        return
    context = multiprocessing.get_context(start_method())
    with context.Pool(workers, initializer=_start, initargs=(make, args)) as pool:
        yield from pool.imap_unordered(_do, items, chunksize=chunksize)
        pool.close()
        pool.join()
