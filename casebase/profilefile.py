"""The error profile's file: ``X.profile.npz`` beside the casebase ``X.npz``, as ``X.model.npz``
sits beside it (issue #39; docs/strength.md §1).

Layout (format ``cbr-chess-profile``, version 1): ``format``, ``version``, ``meta`` (JSON: the
profile's description, what ``python -m profiling`` judged and fitted, with its ``provenance``),
and the arrays of :mod:`casebase.profile_checks` (``profile_*``, the play-time record's
``profile_play_*`` and the games record's ``profile_games_*`` where there are those).

The provenance says what the profile was made of and with: the casebase by its SHA-256 (a file
beside another casebase, or beside one built again differently, is refused: its rows would name
other positions), the SHA-256 of the style model the play-time records were made with (the engine
refuses them with another model), the judge's ``id name``, its depth and MultiPV, the project's
version and the date. A casebase of the format before (its profile inside) is still read:
:func:`read_inside` reads those arrays, and ``python -m casebase split`` writes them here.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from casebase.checks import CasebaseError
from casebase.npzfile import budget, check_format, members_of, read_member, write_npz
from casebase.profile_checks import GAMES_DTYPES, PLAY_DTYPES, PROFILE_DTYPES
from casebase.profile_provenance import check_provenance
from common.bounded import Budget
from common.files import file_sha256, made_stamp
from common.text import clip

PROFILE_FORMAT = "cbr-chess-profile"
PROFILE_VERSION = 1
#: The most a profile's arrays may take together (issue #69): a profile of 1,200 judged positions
#: with its records takes under 1 MiB; 64 MiB holds a hundred times the longest profiling run.
PROFILE_MOST = 64 << 20
#: How the profile of the casebase ``X.npz`` is named: ``X.profile.npz``.
SUFFIX = ".profile.npz"


def profile_path(casebase_path: str | os.PathLike[str]) -> Path:
    """Where the error profile of the casebase at ``casebase_path`` is: ``X.profile.npz`` for
    ``X.npz`` (for a path without a name, such as the empty option or ``.``, a name no casebase has
    beside it)."""
    path = Path(casebase_path)
    return path.with_suffix(SUFFIX) if path.name else path / SUFFIX


def with_profile(name: str, casebase: Path) -> dict[str, Path]:
    """The casebase file ``casebase`` as files to ship under ``name`` (a cluster's cargo), with its
    profile file under the name beside ``name`` where it has one: the profile travels with its
    cases."""
    beside = profile_path(casebase)
    return {name: casebase, **({str(profile_path(name)): beside} if beside.is_file() else {})}


def provenance(
    description: dict[str, Any], casebase_path: Path, model_sha256: str | None
) -> dict[str, Any]:
    """What the profile ``description`` was made of and with, for the file beside ``casebase_path``
    (its SHA-256 as it is now); ``model_sha256``: the style model of its play-time records, if any.
    The depths are the profile's judge's and, where there are records, the engine's judge's as it
    played."""
    records = {
        f"{key}_judge_depth": (description.get(key) or {}).get("judge_depth")
        for key in ("play", "games")
    }
    return {
        "casebase": casebase_path.name,
        "casebase_sha256": file_sha256(casebase_path),
        "model_sha256": model_sha256,
        "judge": description.get("judge"),
        "depth": description.get("depth"),
        "multipv": description.get("multipv"),
        **records,
        **made_stamp(),
    }


def write_profile(path: Path, arrays: dict[str, np.ndarray], description: dict[str, Any]) -> None:
    """Write the profile file ``path`` atomically: ``arrays`` and their ``description`` (with its
    provenance)."""
    write_npz(
        path,
        {
            "format": np.array(PROFILE_FORMAT),
            "version": np.array(PROFILE_VERSION, dtype=np.int64),
            "meta": np.array(json.dumps(description, sort_keys=True, ensure_ascii=False)),
            **arrays,
        },
    )


def read_profile(path: Path, casebase_sha256: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and description of the profile file ``path``, whose provenance must name the
    casebase of SHA-256 ``casebase_sha256``; :class:`CasebaseError` saying what is wrong (the
    arrays' own checks, against the cases, are :func:`casebase.profile_checks.check_profile`'s)."""
    try:
        bound = budget(path, PROFILE_MOST, "profile", path.name)
        with zipfile.ZipFile(path) as zf:
            members = members_of(zf)
            check_format(path.name, zf, members, PROFILE_FORMAT, PROFILE_VERSION, bound)
            if "meta" not in members:
                raise CasebaseError(f"{path.name}: missing array 'meta'")
            text = str(read_member(zf, members["meta"], bound))
            arrays, problem = read_inside(zf, members, bound)
    except zipfile.BadZipFile as exc:
        raise CasebaseError(f"{path.name}: not a profile file (not a zip file: {exc})") from exc
    except (OSError, ValueError, EOFError, KeyError, MemoryError, struct.error) as exc:
        raise CasebaseError(
            f"{path.name}: damaged or truncated ({clip(' '.join(str(exc).split()))})"
        ) from exc
    try:
        description = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CasebaseError(f"{path.name}: metadata is not valid JSON ({exc})") from exc
    if problem is not None or arrays is None:
        raise CasebaseError(f"{path.name}: {problem or 'holds no error profile'}")
    if not isinstance(description, dict):
        raise CasebaseError(
            f"{path.name}: the error profile's description in the metadata is a"
            f" {type(description).__name__}, not a JSON object"
        )
    try:
        check_provenance(description.get("provenance"), casebase_sha256)
    # of its kind: another casebase's profile is replaced when profiled again
    except CasebaseError as exc:
        raise type(exc)(f"{path.name}: {exc}") from exc
    return arrays, description


def read_inside(
    zf: zipfile.ZipFile, members: dict[str, str], bound: Budget
) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """The error profile's arrays (all or none) with its records' where there are those, or None and
    why they cannot be read: from a profile file, or from a casebase of the format before issue #39
    (within the file's ``bound``)."""
    present = [name for name in PROFILE_DTYPES if name in members]
    if present and len(present) < len(PROFILE_DTYPES):
        return None, f"error profile incomplete (has only {', '.join(present)})"
    if present:
        present += [name for name in (*PLAY_DTYPES, *GAMES_DTYPES) if name in members]
    try:
        return {name: read_member(zf, members[name], bound) for name in present} or None, None
    except (
        OSError,
        ValueError,
        EOFError,
        MemoryError,
        zipfile.BadZipFile,
        struct.error,
        CasebaseError,
    ) as exc:
        return None, f"error profile damaged ({clip(' '.join(str(exc).split()))})"
