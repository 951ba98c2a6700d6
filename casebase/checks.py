"""The cases' arrays of a casebase file, their dtypes, and the checks they must pass together.

:mod:`casebase.format` reads and writes the arrays (its docstring is the file's layout);
:func:`check` is what :meth:`casebase.format.Casebase.validate` runs on every casebase made
or read, and :class:`CasebaseError` says which check failed. The error profile, a file of its
own, has its checks in :mod:`casebase.profile_checks`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from common.text import clip

#: Order of the eight bitboards of a position in ``boards``.
BITBOARDS = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings")

#: Columns of the games table, with their dtype kind.
GAME_TEXT_COLUMNS = ("white", "black", "date", "event", "site", "result", "timecontrol")
#: The PGN tag each text column holds, in the same order.
GAME_TAGS = ("White", "Black", "Date", "Event", "Site", "Result", "TimeControl")
#: Text columns a casebase made before them lacks, read as unknown ("?") in every game.
LATER_TEXT_COLUMNS = ("timecontrol",)
GAME_COLUMNS: dict[str, Any] = {
    **{name: np.str_ for name in GAME_TEXT_COLUMNS},
    "expert_white": np.bool_,
    "expert_elo": np.int32,
    "index": np.int32,
    "source": np.int32,
}

#: The cases' arrays, one row a case.
CASE_DTYPES = {
    "boards": np.uint64,
    "turn": np.bool_,
    "from_square": np.uint8,
    "to_square": np.uint8,
    "promotion": np.uint8,
    "game": np.int32,
    "ply": np.int32,
}
#: A move's promotion: none, or a piece type knight..queen.
PROMOTIONS = (0, 2, 3, 4, 5)


class CasebaseError(Exception):
    """A casebase file is missing, damaged, foreign or inconsistent; the message says which."""


def check(
    cases: Mapping[str, np.ndarray], games: Mapping[str, np.ndarray], meta: Mapping[str, Any]
) -> None:
    """Check dtypes, shapes and invariants of the arrays (``cases`` by the names of
    :data:`CASE_DTYPES`); raise :class:`CasebaseError` on the first fault."""
    turn = cases["turn"]
    n = len(turn) if getattr(turn, "ndim", 0) == 1 else -1
    for name, dtype in CASE_DTYPES.items():
        array = cases[name]
        if not isinstance(array, np.ndarray) or array.dtype != dtype:
            got = getattr(array, "dtype", type(array).__name__)
            raise CasebaseError(f"array {name!r} has dtype {got}, expected {np.dtype(dtype)}")
        shape = (n, len(BITBOARDS)) if name == "boards" else (n,)
        if array.shape != shape:
            raise CasebaseError(f"array {name!r} has shape {array.shape}, expected {shape}")
    g = len(games["index"]) if "index" in games else -1
    for column, kind in GAME_COLUMNS.items():
        values = games.get(column)
        if values is None:
            raise CasebaseError(f"games table has no column {column!r}")
        if values.shape != (g,) or not np.issubdtype(values.dtype, kind):
            raise CasebaseError(
                f"games column {column!r} has dtype {values.dtype} and shape {values.shape},"
                f" expected {np.dtype(kind).kind} of shape {(g,)}"
            )
    for key in ("expert", "counts", "sources"):
        if key not in meta:
            raise CasebaseError(f"metadata has no {key!r}")
    _check_counts(meta["counts"], turn, n, g)
    if n == 0:
        return
    if cases["from_square"].max() > 63 or cases["to_square"].max() > 63:
        raise CasebaseError("a move square lies outside 0..63")
    if not np.isin(cases["promotion"], PROMOTIONS).all():
        raise CasebaseError("a promotion piece is not 0 or a piece type 2..5")
    if cases["game"].min() < 0 or cases["game"].max() >= g:
        raise CasebaseError(f"a case names a game outside the games table (0..{g - 1})")
    if cases["ply"].min() < 0:
        raise CasebaseError("a case has a negative ply")
    _check_boards(cases)


def _check_counts(counts: Any, turn: np.ndarray, n: int, g: int) -> None:
    """The metadata's counts must describe these arrays (a file edited or mixed up is not)."""
    if not isinstance(counts, dict):
        raise CasebaseError("metadata counts are not a JSON object")
    white = int(np.count_nonzero(turn))
    actual = {"cases_white": white, "cases_black": n - white, "games_used": g}
    for key, value in actual.items():
        if key in counts and counts[key] != value:
            raise CasebaseError(
                f"metadata says {counts[key]} {key.replace('_', ' ')}, the arrays hold {value}"
            )


def check_numbers(values: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    """``values`` holds a finite number (not a boolean) at each of ``keys``; else ``what key is
    ...``."""
    for key in keys:
        value = values.get(key)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise CasebaseError(f"{what} {key} is {shown(value)}, not a finite number")


def kind(value: Any) -> str:
    """What JSON made ``value``, in a word (``str``, ``list``, ``int``)."""
    return type(value).__name__


def shown(value: Any) -> str:
    """A value read from the file, as a message repeats it (cut short)."""
    return clip(repr(value), 60)


def _check_boards(cases: Mapping[str, np.ndarray]) -> None:
    b = np.asarray(cases["boards"])
    white, black, types = b[:, 0], b[:, 1], b[:, 2:]
    if (white & black).any():
        raise CasebaseError("a square is both white and black")
    union = np.bitwise_or.reduce(types, axis=1)
    total = np.bitwise_count(types).sum(axis=1, dtype=np.int64)
    if (union != white | black).any() or (total != np.bitwise_count(union)).any():
        raise CasebaseError("piece bitboards do not match the colour bitboards")
    bit = np.left_shift(np.uint64(1), cases["from_square"].astype(np.uint64))
    mover = np.where(cases["turn"], white, black)
    if ((mover & bit) == 0).any():
        bad = int(np.flatnonzero((mover & bit) == 0)[0])
        raise CasebaseError(
            f"case {bad}: no piece of the side to move on the move's from square"
            " (colours inconsistent)"
        )
