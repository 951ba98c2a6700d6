"""Files written atomically: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import datetime
import glob
import hashlib
import importlib.metadata
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def made_stamp() -> dict[str, str]:
    """What makes a file now, for its provenance: the project and its version, and the time (UTC)."""
    try:
        project = f"cbr-chess {importlib.metadata.version('cbr-chess')}"
    except importlib.metadata.PackageNotFoundError:  # run from a source tree never installed
        project = "cbr-chess (version unknown: not installed)"
    return {"project": project, "made": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    with atomic_file(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files of :func:`atomic_file` for ``path`` whose writing process is
    gone (killed while writing)."""
    prefix = f".{path.name}."
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = tmp.name[len(prefix):].split(".")[0]
        if pid.isdigit() and _alive(int(pid)):
            continue  # another writer at work (or this one)
        tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True
