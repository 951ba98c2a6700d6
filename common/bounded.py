"""Reading what a file claims within a stated bound, checked before the memory is taken (issue #69).

A file says how much it holds: a gzip stream inflates to what it inflates to, an ``.npy`` member of
an ``.npz`` declares its shape, a line ends where its newline is. Each reader of the project
believes such a claim only up to a bound of its kind, and refuses the file with :class:`OverBound`
(a ``ValueError``, so every reader's message for a damaged file covers it too) naming the file and
the bound, before the memory is taken:

- a compressed stream inflates to at most :func:`inflated_most` of its compressed size: at least
  :data:`FLOOR`, else :data:`RATIO` times the compressed bytes, never past its kind's own bound (a
  network's, a PGN's). lc0's networks inflate 1.4 times, PGN collections 3.3: a file that inflates
  20 times is a bomb, not a network;
- an ``.npz`` member is read only after its ``.npy`` header: its declared bytes must fit in what the
  member holds (else it is damaged) and, with the file's other members, in its kind's
  :class:`Budget`;
- a line is read up to :data:`LINE_MOST` characters; a longer one is passed over in chunks (a JSON
  line), or cut there (a PGN read as a stream, :class:`LineBound`: the game is read as damaged).
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, TextIO

import numpy as np

MIB = 1 << 20
#: However well a file compresses, this much may always come out of it (the tests' tiny networks,
#: a casebase's PGN of a few repeated games).
FLOOR = 64 * MIB
#: Beyond :data:`FLOOR`, a compressed file inflates to at most this many times its own size.
RATIO = 20
#: A journal's or a cache's line (the shipped journals' longest is 315 characters).
LINE_MOST = MIB
#: How much of a stream is read at a time while its size is checked.
CHUNK = 4 * MIB


class OverBound(ValueError):
    """A file, or a part of it, claims more than its kind may hold; the message names both."""


def mib(size: int) -> str:
    """``size`` bytes in MiB, for the messages."""
    return f"{size / MIB:,.0f} MiB" if size >= MIB else f"{size:,} bytes"


def file_size(path: str | os.PathLike[str], most: int, kind: str) -> int:
    """The size of the file at ``path``; OverBound where it is over ``most`` (a ``kind``'s
    bound)."""
    size = Path(path).stat().st_size
    if size > most:
        raise OverBound(f"{path}: {mib(size)}, over the {mib(most)} one {kind} may be")
    return size


def inflated_most(compressed: int, most: int) -> int:
    """How far ``compressed`` bytes may inflate: :data:`RATIO` times, at least :data:`FLOOR`, at
    most ``most``."""
    return min(most, max(FLOOR, RATIO * compressed))


def gunzip(data: bytes, most: int, what: str) -> bytes:
    """The gzip stream ``data`` inflated (every member, as :func:`gzip.decompress` reads them), or
    OverBound as soon as it passes :func:`inflated_most` (``what``: the file and its kind, for the
    message); zlib.error or EOFError where the stream is damaged or cut off."""
    bound = inflated_most(len(data), most)
    parts: list[bytes] = []
    taken = 0
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        while True:
            part = inflater.decompress(rest, min(CHUNK, bound - taken + 1))
            taken += len(part)
            if taken > bound:
                raise OverBound(
                    f"{what}: inflates past {mib(bound)} (the most a {mib(len(data))} file may:"
                    f" {RATIO} times its size, {mib(FLOOR)} at least, {mib(most)} at most): a"
                    " damaged file or a decompression bomb"
                )
            parts.append(part)
            rest = inflater.unconsumed_tail
            if inflater.eof or not (rest or part):
                break
        if not inflater.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        rest = inflater.unused_data.lstrip(b"\x00")  # gzip pads members with zeros at times
    return b"".join(parts)


def _header(f: BinaryIO) -> tuple[tuple[int, ...], np.dtype]:
    """An ``.npy`` stream's shape and dtype, from its header alone (ValueError where it is none)."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f".npy format version {version} (1.0 and 2.0 are read)")
    return shape, dtype


class Budget:
    """What the arrays of one ``.npz`` file of a kind may take together, ``most`` bytes: each
    member's declared size is checked against what the member holds and against what is left, before
    it is read."""

    def __init__(self, path: str | os.PathLike[str], most: int, kind: str) -> None:
        self.path, self.most, self.kind, self.left = path, most, kind, most

    def take(self, zf: zipfile.ZipFile, member: str) -> tuple[tuple[int, ...], np.dtype]:
        """Check ``member`` of ``zf`` and count its bytes; its declared shape and dtype (OverBound
        where it is over what is left, ValueError where it declares more than the member holds or is
        no plain array)."""
        with zf.open(member) as f:
            shape, dtype = _header(f)  # type: ignore[arg-type]  # ZipExtFile reads as a binary file
            start = f.tell()
        if dtype.hasobject:
            raise ValueError(f"{self.path}: {member} holds Python objects, which are not read")
        size = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
        holds = zf.getinfo(member).file_size - start
        if size > holds:
            raise ValueError(
                f"{self.path}: {member} declares {shape} {dtype} ({mib(size)}) but holds"
                f" {mib(holds)}: damaged"
            )
        if size > self.left:
            raise OverBound(
                f"{self.path}: {member} declares {shape} {dtype} ({mib(size)}), over the"
                f" {mib(self.most)} the arrays of one {self.kind} may take together"
            )
        self.left -= size
        return shape, dtype

    def read(self, zf: zipfile.ZipFile, member: str) -> np.ndarray:
        """``member``'s array, read whole once :meth:`take` has let it through."""
        self.take(zf, member)
        with zf.open(member) as f:
            return np.lib.format.read_array(f, allow_pickle=False)


def read_npz(path: str | os.PathLike[str], most: int, kind: str) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` at ``path`` by name, within ``most`` bytes together (np.load's
    reading, bounded: OverBound, ValueError, zipfile.BadZipFile or OSError saying what is wrong)."""
    file_size(path, most + FLOOR, kind)  # the arrays, their headers and the zip's directory
    budget = Budget(path, most, kind)
    with zipfile.ZipFile(path) as zf:
        return {name.removesuffix(".npy"): budget.read(zf, name) for name in zf.namelist()}


def lines(f: BinaryIO, most: int = LINE_MOST) -> Iterator[str | None]:
    """The lines of the binary file ``f`` as text (UTF-8, the newline left off), None for each over
    ``most`` bytes: passed over in chunks, never held whole (UnicodeDecodeError where one is not
    UTF-8)."""
    while line := f.readline(most + 1):
        if len(line) > most and not line.endswith(b"\n"):
            while (rest := f.readline(CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line.decode("utf-8").removesuffix("\n")


class LineBound:
    """A text file read line by line (as python-chess reads PGN: ``readline``) whose lines are cut
    at ``most`` characters, the rest of a longer line passed over in chunks, never held whole."""

    def __init__(self, handle: TextIO, most: int = LINE_MOST) -> None:
        self.handle, self.most = handle, most

    def readline(self, size: int = -1) -> str:
        line = self.handle.readline(self.most + 1)
        if len(line) > self.most and not line.endswith("\n"):
            while (rest := self.handle.readline(CHUNK)) and not rest.endswith("\n"):
                pass
            return line[: self.most] + "\n"
        return line

    def __iter__(self) -> Iterator[str]:
        return iter(self.readline, "")

    def __enter__(self) -> LineBound:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.handle.close()
