"""Files written atomically: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import datetime
import glob
import hashlib
import importlib.metadata
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

#: Windows only: how long a rename over a file another process has open (a reader, a virus scanner)
#: is tried again before it fails; POSIX renames over an open file.
REPLACE_SECONDS = 5.0
#: Windows' ``PROCESS_QUERY_LIMITED_INFORMATION`` and ``STILL_ACTIVE`` (kernel32).
_QUERY_LIMITED_INFORMATION = 0x1000
_STILL_ACTIVE = 259


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only once completely written (temporary file,
    fsync, rename), with the permissions the umask gives a new file rather than 0600.

    The temporary file is ``.NAME.PID.XXXX.tmp`` beside ``path``; those of ``path`` left by
    a writer that was killed (its process is gone) are removed first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        _replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def made_stamp() -> dict[str, str]:
    """What makes a file now, for its provenance: the project and its version, and the time
    (UTC)."""
    try:
        project = f"cbr-chess {importlib.metadata.version('cbr-chess')}"
    except importlib.metadata.PackageNotFoundError:  # run from a source tree never installed
        project = "cbr-chess (version unknown: not installed)"
    return {
        "project": project,
        "made": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    with atomic_file(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files of :func:`atomic_file` for ``path`` whose writing process is
    gone (killed while writing)."""
    prefix = f".{path.name}."
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = tmp.name[len(prefix) :].split(".")[0]
        if pid.isdigit() and _alive(int(pid)):
            continue  # another writer at work (or this one)
        try:
            tmp.unlink(missing_ok=True)
        except PermissionError:
            if sys.platform != "win32":
                raise
            # Windows: still open, so its writer is at work (one we could not ask about: another
            # user's)


def _replace(tmp: str, path: Path) -> None:
    """``os.replace(tmp, path)``; on Windows, where it fails while another process has ``path``
    open, tried again for :data:`REPLACE_SECONDS` (a file kept open or mapped for longer, as a
    casebase that a running engine or the web server maps, cannot be replaced there: the caller
    hears PermissionError)."""
    if sys.platform != "win32":
        os.replace(tmp, path)
        return
    deadline = time.monotonic() + REPLACE_SECONDS
    while True:
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    # os.kill(pid, 0) there is not a question: it sends Ctrl-C to a group
    if sys.platform == "win32":
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _alive_windows(pid: int, kernel32: Any = None) -> bool:
    """Windows: whether the process ``pid`` runs, by ``OpenProcess`` and ``GetExitCodeProcess``
    (``kernel32`` is that library: given by the tests). A process that cannot be opened (gone, or
    another user's) is taken as gone: a temporary file its writer still has open cannot be
    removed."""
    import ctypes

    if kernel32 is None:
        if sys.platform != "win32":
            raise OSError("kernel32 is Windows' only")
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.OpenProcess.restype = ctypes.c_void_p
        kernel32.OpenProcess.argtypes = [ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32]
        kernel32.GetExitCodeProcess.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]
        kernel32.CloseHandle.argtypes = [ctypes.c_void_p]
    handle = kernel32.OpenProcess(_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return False
    try:
        code = ctypes.c_uint32()
        return (
            not kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            or code.value == _STILL_ACTIVE
        )
    finally:
        kernel32.CloseHandle(handle)
