"""Work spread over worker processes, each with state made once (players, engines, casebases).

Both the round robin and the fidelity bench hand out independent items (games, positions)
whose results do not depend on which worker did them, so results come back in any order.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
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


def _start(make: Callable[..., Worker[Any, Any]], args: tuple[Any, ...]) -> None:
    global _worker, _failure
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
