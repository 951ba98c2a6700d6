"""The one place numba is imported and configured: its cache folder, the decorator every compiled
function takes, whether numba is there at all, and the lock the first compile is made under."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import platformdirs

#: The variable naming the folder the compiled functions' caches go under (the test suite's: one
#: its workers share); else the user's cache folder.
CACHE_VARIABLE = "CBR_CHESS_NUMBA_CACHE"


def _sources_digest() -> str:
    """The SHA-256 of this package's sources, cut to 12 digits: numba checks a cached function
    against its own file's time stamp only, so that a function compiled with another module's old
    code inlined (the search with an old evaluation) would be loaded again after that module
    changed. A folder per version of the sources never serves old code."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:12]


def _cache_folder() -> str:
    """The folder numba caches in: one a numba version and a version of the sources (numba's
    default is a __pycache__ beside the sources, which an installed wheel may not be able to write;
    a cache is only good for the numba that wrote it), under ``NUMBA_CACHE_DIR`` where that is set
    (once: a process this one starts inherits the folder), else under :data:`CACHE_VARIABLE`'s
    folder or the user's cache."""
    try:
        version = metadata.version("numba")
    except metadata.PackageNotFoundError:
        version = "none"
    name = f"numba-{version}-{_sources_digest()}"
    set_here = os.environ.get("NUMBA_CACHE_DIR")
    if set_here and Path(set_here).name == name:
        return set_here
    base = set_here or os.environ.get(CACHE_VARIABLE) or platformdirs.user_cache_dir("cbr-chess")
    return str(Path(base) / name)


# Set before numba is imported: numba reads it once, at import.
os.environ["NUMBA_CACHE_DIR"] = _cache_folder()

_numba: ModuleType | None
_why_not: str | None
try:
    import numba as _numba
except ImportError as error:  # numba has no wheel for some platforms and Pythons
    _numba = None
    _why_not = f"numba cannot be imported ({error})"
else:
    _why_not = None


trailing_zeros: Callable[[Any], Any]
leading_zeros: Callable[[Any], Any]
if _numba is not None:
    # LLVM's cttz and ctlz: a bit scan in one instruction, which numba does not otherwise expose.
    from numba.cpython.unsafe.numbers import (  # type: ignore[assignment]
        leading_zeros,
        trailing_zeros,
    )
else:

    def trailing_zeros(bits: Any) -> Any:
        """The count of zeros below the lowest set bit (of a non-zero int)."""
        return (int(bits) & -int(bits)).bit_length() - 1

    def leading_zeros(bits: Any) -> Any:
        """The count of zeros above the highest set bit of a 64-bit int."""
        return 64 - int(bits).bit_length()


def available() -> str | None:
    """None where numba imports; else why not, in a sentence (callers say it once)."""
    return _why_not


def njit(function: Callable[..., Any]) -> Any:
    """``numba.njit(cache=True, nogil=True)``: compiled once and cached on disk, and run without
    the GIL so that a search can be stopped from another thread. Without numba, the function as it
    is (the package still imports; nothing should call it: see ``available``)."""
    if _numba is None:
        return function
    return _numba.njit(cache=True, nogil=True)(function)


def cache_dir() -> Path:
    """The folder numba caches compiled functions in."""
    return Path(os.environ["NUMBA_CACHE_DIR"])


@contextlib.contextmanager
def compile_lock() -> Iterator[None]:
    """Held while a process compiles (or loads) the compiled functions for the first time: a
    second process sharing the cache folder waits, then loads what the first one wrote instead of
    compiling into the same files at once. The system lets the lock go when its holder ends."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "compile.lock", "a+b") as f:
        _lock(f.fileno())
        try:
            yield
        finally:
            _unlock(f.fileno())


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        while True:  # LK_LOCK tries for 10 s, then raises; a cold compile takes longer
            os.lseek(fd, 0, os.SEEK_SET)
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            except OSError:
                continue
            return
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


def _unlock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)
