"""Work spread over worker processes, each with state made once (players, engines, casebases).

Both the round robin and the fidelity bench hand out independent items (games, positions)
whose results do not depend on which worker did them, so results come back in any order.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import multiprocessing.util
import os
import signal
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
#: Seconds between a terminated worker's looks at whether it has sent the result in hand.
SENDING_POLL = 0.01
#: Seconds a terminated worker has to unwind and close its worker before it exits outright.
UNWIND_SECONDS = 5.0
# When this worker was told to end (SIGTERM), on the monotonic clock; None: it was not.
_ending: float | None = None


def _start(make: Callable[..., Worker[Any, Any]], args: tuple[Any, ...]) -> None:
    global _worker, _failure
    signal.signal(signal.SIGTERM, _end)
    signal.signal(signal.SIGALRM, _end)
    threading.Thread(target=_end_with, args=(os.getppid(),), name="parent watch", daemon=True).start()
    try:
        _worker = make(*args)
    except Exception as exc:  # noqa: BLE001 - raised at the first item, in the caller's process
        # An initializer that raises ends its process, and the pool starts another in its place,
        # forever: the caller would wait for nothing. The first item raises it instead.
        _failure = exc
        return
    # Close this worker (quit its engine processes) when the pool shuts the process down.
    multiprocessing.util.Finalize(_worker, _worker.close, exitpriority=10)


def _end(signum: int, frame: FrameType | None) -> None:
    """End this worker on the pool's terminate (SIGTERM) by unwinding, not by an outright kill. A
    worker killed while it sends a result holds the lock of the pool's result queue for ever, and
    CPython's ``Pool.terminate`` then waits on that lock for ever (its task handler puts a sentinel
    there last); so a worker that is sending finishes first (looked at again every
    :data:`SENDING_POLL` s, by SIGALRM), then raises SystemExit, which closes its worker (its
    engines) on the way out. One still sending, or not gone, :data:`UNWIND_SECONDS` later exits outright."""
    global _ending
    now = time.monotonic()
    if _ending is None:
        _ending = now
    elif signum == signal.SIGALRM and now - _ending >= UNWIND_SECONDS:
        os._exit(1)
    if _sending(frame):
        signal.setitimer(signal.ITIMER_REAL, SENDING_POLL)
        return
    signal.setitimer(signal.ITIMER_REAL, max(UNWIND_SECONDS - (now - _ending), SENDING_POLL))
    raise SystemExit(1)


def _sending(frame: FrameType | None) -> bool:
    """Whether ``frame`` is in a queue's ``put`` (a worker puts only its results)."""
    while frame is not None:
        if frame.f_code is multiprocessing.queues.SimpleQueue.put.__code__:
            return True
        frame = frame.f_back
    return False


def _end_with(parent: int) -> None:
    """End this worker process once ``parent`` is gone. A parent killed (``kill``, SIGKILL, a
    crash) cannot terminate its pool, whose workers would otherwise play out every game already
    queued to them for nobody; their engines end with them, at the end of their input."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)


def _do(item: Any) -> Any:
    if _failure is not None:
        raise _failure
    assert _worker is not None
    return _worker(item)


def unordered_map(
    make: Callable[..., Worker[T, R]], args: tuple[Any, ...], items: Iterable[T], workers: int,
    *, chunksize: int = 1,
) -> Iterator[R]:
    """``worker(item)`` for every item, in the order they finish, where each of ``workers``
    processes makes its ``worker = make(*args)`` once (in this process when ``workers`` is 1).

    ``make`` and ``args`` must pickle: processes are spawned, so that they start clean,
    without the parent's threads (tqdm, engine I/O) half-copied.
    """
    if workers <= 1:
        worker = make(*args)
        try:
            yield from map(worker, items)
        finally:
            worker.close()
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_start, initargs=(make, args)) as pool:
        yield from pool.imap_unordered(_do, items, chunksize=chunksize)
        pool.close()
        pool.join()
