"""The ``.npz`` files of the casebase layer (a casebase, its error profile): a named format and
its version, then arrays, written atomically and byte for byte the same from the same arrays, and
read back member by member (large numeric members memory-mapped), each member's declared size
checked against its kind's :class:`common.bounded.Budget` before it is read (:func:`budget`).

Members are plain (stored, uncompressed) zip members so that they can be memory-mapped, with fixed
zip timestamps so that the same arrays give the same bytes (and so the same SHA-256).
"""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from casebase.checks import CasebaseError
from common.bounded import Budget, OverBound
from common.files import atomic_file

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def write_npz(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as ``NAME.npy`` members, atomically (temporary file, then rename) and
    deterministically."""
    with atomic_file(path) as raw:
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
                info.external_attr = 0o644 << 16
                with zf.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(
                        member, np.asarray(array, order="C"), allow_pickle=False
                    )


def members_of(zf: zipfile.ZipFile) -> dict[str, str]:
    """The members of an ``.npz`` by array name (``NAME`` for ``NAME.npy``)."""
    return {name.removesuffix(".npy"): name for name in zf.namelist()}


def budget(path: str | Path, most: int, kind: str, shown: str | Path | None = None) -> Budget:
    """What the arrays of the ``kind`` file at ``path`` may take together (``most`` bytes;
    ``shown``: the file as messages name it, default ``path``); CasebaseError where the file itself
    is larger than they and their headers could be."""
    shown = path if shown is None else shown
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = 0  # the zip's own reading says what is wrong
    if size > most + (1 << 26):
        raise CasebaseError(
            f"{shown}: {size >> 20:,} MiB, over the {most >> 20:,} MiB the arrays of one"
            f" {kind} may take"
        )
    return Budget(shown, most, kind)


def check_format(
    path: str | Path,
    zf: zipfile.ZipFile,
    members: Mapping[str, str],
    name: str,
    newest: int,
    bound: Budget,
) -> int:
    """The format version of the file open as ``zf`` (``path``: as messages name it), which must say
    it is a ``name`` file of version 1 to ``newest``; else :class:`CasebaseError` saying what it is
    instead."""
    if "format" not in members:
        raise CasebaseError(
            f"{path}: an .npz without a 'format' entry: another program's file, not a {name}"
        )
    fmt = str(read_member(zf, members["format"], bound))
    if fmt != name:
        raise CasebaseError(f"{path}: format {fmt!r} is not {name!r}: another program's file")
    version = int(read_member(zf, members.get("version", "version.npy"), bound))
    if version > newest:
        raise CasebaseError(
            f"{path}: format version {version} is newer than this engine reads ({newest});"
            " upgrade the engine or make the file again"
        )
    if version < 1:
        raise CasebaseError(f"{path}: invalid format version {version}")
    return version


def read_member(zf: zipfile.ZipFile, member: str, bound: Budget) -> np.ndarray:
    """One member's array, read whole once ``bound`` has let its declared size through
    (CasebaseError naming the bound where it is over)."""
    try:
        return bound.read(zf, member)
    except OverBound as exc:
        raise CasebaseError(str(exc)) from None


def memmap_member(path: Path, zf: zipfile.ZipFile, member: str, bound: Budget) -> np.ndarray | None:
    """Map a stored (uncompressed) numeric member straight from the file, or None; its declared size
    counted in ``bound`` either way (it is read whole, or touched whole by the retrieval)."""
    info = zf.getinfo(member)
    if info.compress_type != zipfile.ZIP_STORED or info.file_size < 4096:
        return None
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        local = f.read(30)
        if local[:4] != b"PK\x03\x04":
            raise CasebaseError(f"{path}: damaged zip header for {member}")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        f.seek(info.header_offset + 30 + name_len + extra_len)
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        if dtype.hasobject or dtype.kind == "U":
            return None  # read whole by read_member, which counts it
        offset = f.tell()
    needed = offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if needed > path.stat().st_size:
        raise CasebaseError(f"{path}: truncated: array {member} runs past the end of the file")
    try:
        bound.take(zf, member)
    except OverBound as exc:
        raise CasebaseError(str(exc)) from None
    return np.memmap(
        path, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C"
    )
