"""Files that claim more than they hold, made in a second or two without the memory they claim: a
gzip stream of zeros, and an ``.npz`` whose member inflates to gigabytes beside real ones (issue
#69): the fuzzer's (testing/fuzz_uci.py) and the tests' (tests/common/test_hostile_files.py).

Deflate's output after a full flush is byte-aligned and owes nothing to what came before, so one
compressed segment of zeros, repeated, is a valid stream of as many zeros as wanted (about 1 kB a
MiB).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

SEGMENT = 16 << 20
_ZEROS = bytes(SEGMENT)


def _deflated(head: bytes, zeros: int) -> tuple[bytes, int]:
    """Raw deflate of ``head`` and then ``zeros`` zero bytes (a multiple of :data:`SEGMENT`), and
    its CRC-32."""
    assert zeros % SEGMENT == 0
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = first.compress(head) + first.flush(zlib.Z_FULL_FLUSH)
    repeat = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = repeat.compress(_ZEROS) + repeat.flush(zlib.Z_FULL_FLUSH)
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc = zlib.crc32(head)
    for _ in range(zeros // SEGMENT):
        crc = zlib.crc32(_ZEROS, crc)
    return start + segment * (zeros // SEGMENT) + last.flush(zlib.Z_FINISH), crc


def gzip_zeros(path: Path, size: int) -> Path:
    """A gzip file at ``path`` that inflates to ``size`` zero bytes."""
    body, crc = _deflated(b"", size)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    path.write_bytes(header + body + struct.pack("<II", crc, size & 0xFFFFFFFF))
    return path


def npy_header(shape: tuple[int, ...], dtype: str) -> bytes:
    """The ``.npy`` header of an array of ``shape`` and ``dtype``."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape}
    )
    return out.getvalue()


def npz_with(
    path: Path,
    arrays: dict[str, np.ndarray],
    name: str,
    shape: tuple[int, ...],
    dtype: str,
    holds: int | None = None,
) -> Path:
    """An ``.npz`` at ``path`` of ``arrays`` (stored) and a deflated member ``name`` declaring
    ``shape`` and ``dtype``, that inflates to what it declares (``holds`` None) or to ``holds``
    bytes of zeros after its header."""
    head = npy_header(shape, dtype)
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize if holds is None else holds
    body, crc = _deflated(head, size)
    stored = io.BytesIO()
    with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as zf:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
            zf.writestr(f"{key}.npy", member.getvalue())
    with zipfile.ZipFile(io.BytesIO(stored.getvalue())) as zf:
        members = [(info.filename, zf.read(info)) for info in zf.infolist()]
    out, directory = bytearray(), bytearray()
    for filename, data, method, crc32, usize in [
        *((f, d, 0, zlib.crc32(d), len(d)) for f, d in members),
        (f"{name}.npy", body, 8, crc, len(head) + size),
    ]:
        encoded = filename.encode()
        directory += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0x21,
                crc32,
                len(data),
                usize,
                len(encoded),
                0,
                0,
                0,
                0,
                0o644 << 16,
                len(out),
            )
            + encoded
        )
        out += (
            struct.pack(
                "<IHHHHHIIIHH",
                0x04034B50,
                20,
                0,
                method,
                0,
                0x21,
                crc32,
                len(data),
                usize,
                len(encoded),
                0,
            )
            + encoded
            + data
        )
    count = len(members) + 1
    path.write_bytes(
        bytes(out + directory)
        + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), len(out), 0)
    )
    return path
