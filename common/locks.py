"""A lock between processes that is never stale: the system holds it for the process that took it,
and lets it go when that process ends, however it ends (``flock`` on POSIX, ``msvcrt.locking`` on
Windows)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def tried_lock(path: str | os.PathLike[str]) -> Iterator[bool]:
    """The lock of the file ``path`` (made where missing, removed again by its holder), tried once
    without waiting: True inside while this process holds it, False where another process does."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as f:
        held = _try(f.fileno())
        try:
            yield held
        finally:
            if held:
                # Removed while held: a process that opened it before waits on nothing (it tries,
                # once), and one that comes later makes a new one; Windows keeps an open file, which
                # is left there.
                with contextlib.suppress(OSError):
                    path.unlink()
                _release(f.fileno())


def _try(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)  # the byte locked is the file's first
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _release(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
