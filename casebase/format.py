"""The casebase file: one expert's cases in an ``.npz``, and the :class:`Casebase` that reads it.

Layout (format ``cbr-chess-casebase``, version 2). N cases, G source games:

=====================  ===========  ==================================================
array                  dtype/shape  meaning
=====================  ===========  ==================================================
format                 str ()       ``"cbr-chess-casebase"``
version                int64 ()     format version
meta                   str ()       JSON: expert, spellings, median Elo, counts, sources,
                                    builder options (see :func:`Casebase.meta`)
boards                 uint64 N×8   bitboards: white, black, pawns, knights, bishops,
                                    rooks, queens, kings (python-chess square numbering)
turn                   bool N       colour to move (True = White)
from_square            uint8 N      move's from square, 0..63
to_square              uint8 N      move's to square, 0..63
promotion              uint8 N      0, or the promotion piece type (2..5)
game                   int32 N      row of the games table the case came from
ply                    int32 N      half-move index in that game (0 = first move played)
games_<column>         G            White, Black, Date, Event, Site, Result,
                                    TimeControl (str, the PGN tags as the game gives
                                    them, "?" where it has none), expert_white (bool),
                                    expert_elo (int32, -1 unknown),
                                    index (int32, game's index in its source file),
                                    source (int32, index into meta["sources"])
=====================  ===========  ==================================================

The expert's error profile (``python -m profiling``) is a file of its own beside it,
``X.profile.npz`` for ``X.npz`` (:mod:`casebase.profilefile`: its arrays, ``profile_*``, the judged
positions and the records of the engine's own choices, are described there and checked by
:mod:`casebase.profile_checks`); :meth:`Casebase.load` reads it with the cases, and in memory
``meta["profile"]`` is its description. Version 1 files are read as they are: they have no profile.
A version 2 file made before the profile had its own file may hold the profile's arrays and
``meta["profile"]`` inside: they are read as before, and the casebase is said to be split (``python
-m casebase split``). A profile that fails its checks, or was made for other cases, costs the
profile, not the cases: :meth:`Casebase.load` drops it and says why in ``profile_problem`` (the
engine plays the cases without calibration; ``casebase info`` and ``python -m profiling`` refuse the
file). A file made before the games table had its ``timecontrol`` column (issue #42) is read with
``"?"`` (unknown) in every game.

Files are plain (stored, uncompressed) zip members so that :meth:`Casebase.load` can
memory-map the large arrays, and are written with fixed zip timestamps so that the same
input gives byte-identical files (:mod:`casebase.npzfile`): a casebase built again from the same
games has the same SHA-256, and its profile stays its own.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.checks import (
    BITBOARDS,
    CASE_DTYPES,
    GAME_COLUMNS,
    GAME_TAGS,
    GAME_TEXT_COLUMNS,
    LATER_TEXT_COLUMNS,
    CasebaseError,
    check,
)
from casebase.encoding import decode_board, decode_move, encode_board, encode_move
from casebase.npzfile import budget, check_format, members_of, memmap_member, read_member, write_npz
from casebase.origin import CaseSource
from casebase.profile_checks import check_profile
from casebase.profile_provenance import ProfileMismatch
from casebase.profilefile import profile_path, provenance, read_inside, read_profile, write_profile
from casebase.speed import on_lichess, speed_of
from common.files import file_sha256

__all__ = [
    "BITBOARDS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "GAME_COLUMNS",
    "GAME_TAGS",
    "GAME_TEXT_COLUMNS",
    "CaseSource",
    "Casebase",
    "CasebaseError",
    "decode_board",
    "decode_move",
    "encode_board",
    "encode_move",
]

FORMAT_NAME = "cbr-chess-casebase"
#: The most a casebase's arrays may take together (issue #69): 512 MiB, some 5 million cases of 76
#: bytes with their games' tags (the shipped experts' largest, Carlsen's, takes 9 MiB; a player of
#: 100,000 games some 300 MiB). A file that declares more is refused before it is read.
CASEBASE_MOST = 512 << 20
FORMAT_VERSION = 2
#: Paths whose error profile inside has been told to be split (once a process, by
#: :meth:`Casebase.load`).
_TOLD: set[Path] = set()


class Casebase:
    """All cases of one expert, read from (or about to be written to) an ``.npz``.

    Arrays are attributes named as in the module docstring; ``games`` maps the games-table
    column names to arrays and ``meta`` is the decoded metadata dictionary.
    """

    def __init__(
        self,
        *,
        boards: np.ndarray,
        turn: np.ndarray,
        from_square: np.ndarray,
        to_square: np.ndarray,
        promotion: np.ndarray,
        game: np.ndarray,
        ply: np.ndarray,
        games: dict[str, np.ndarray],
        meta: dict[str, Any],
        path: Path | None = None,
        profile: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.boards = boards
        self.turn = turn
        self.from_square = from_square
        self.to_square = to_square
        self.promotion = promotion
        self.game = game
        self.ply = ply
        self.games = games
        self.meta = meta
        self.path = path
        #: The error profile's arrays (PROFILE_DTYPES), or None (read by engine.strength.profile).
        self.profile = profile
        #: Why the file's error profile was refused, or None: :meth:`load` keeps the cases of a file
        #: whose profile is damaged, foreign or made for other cases, without the profile (the
        #: engine plays them uncalibrated, and ``casebase info`` and ``python -m profiling`` refuse
        #: it with this reason).
        self.profile_problem: str | None = None
        #: Whether the casebase file holds its error profile inside (the format before its own
        #: file).
        self.profile_inside = False
        #: Whether the profile file beside it was refused for being another casebase's (a new one
        #: replaces it).
        self.profile_stale = False
        self.validate()

    # -- reading ---------------------------------------------------------------------

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, mmap: bool = True, tell: bool = True
    ) -> Casebase:
        """Read and validate a casebase; raise :class:`CasebaseError` saying what is wrong. Its
        error profile is read from the file beside it (``X.profile.npz``), or from inside a casebase
        of the format before, which is then said, once a process, to be split (``tell``: as a
        warning of :mod:`logging`; the engine tells its user itself, :attr:`profile_notice`)."""
        path = Path(path)
        try:
            if not path.exists():
                raise CasebaseError(f"{path}: no such casebase file")
            if path.is_dir():
                raise CasebaseError(f"{path}: is a directory, not a casebase file")
        except (OSError, ValueError) as exc:  # a name the system refuses (too long, NUL byte)
            raise CasebaseError(f"{path}: cannot be opened ({exc})") from exc
        try:
            bound = budget(path, CASEBASE_MOST, "casebase")
            with zipfile.ZipFile(path) as zf:
                members = members_of(zf)
                check_format(path, zf, members, FORMAT_NAME, FORMAT_VERSION, bound)
                arrays: dict[str, np.ndarray] = {}
                for name in [*CASE_DTYPES, "meta", *(f"games_{c}" for c in GAME_COLUMNS)]:
                    if name not in members and name.removeprefix("games_") in LATER_TEXT_COLUMNS:
                        continue  # a file made before the column: filled in below
                    if name not in members:
                        raise CasebaseError(f"{path}: missing array {name!r}")
                    member = members[name]
                    mapped = memmap_member(path, zf, member, bound) if mmap else None
                    arrays[name] = mapped if mapped is not None else read_member(zf, member, bound)
                profile, profile_problem = read_inside(zf, members, bound)
        except CasebaseError:
            raise
        except zipfile.BadZipFile as exc:
            raise CasebaseError(f"{path}: not an .npz casebase (not a zip file: {exc})") from exc
        except (OSError, ValueError, EOFError, KeyError, MemoryError, struct.error) as exc:
            raise CasebaseError(f"{path}: damaged or truncated casebase ({exc})") from exc
        try:
            meta = json.loads(str(arrays.pop("meta")))
        except json.JSONDecodeError as exc:
            raise CasebaseError(f"{path}: metadata is not valid JSON ({exc})") from exc
        if not isinstance(meta, dict):
            raise CasebaseError(f"{path}: metadata is not a JSON object")
        rows = len(arrays["games_index"])
        games = {
            c: arrays.pop(f"games_{c}") if f"games_{c}" in arrays else np.full(rows, "?")
            for c in GAME_COLUMNS
        }
        described, description = "profile" in meta, meta.pop("profile", None)
        try:
            # the cases, checked
            casebase = cls(**arrays, games=games, meta=meta, path=path, profile=None)
        except CasebaseError as exc:
            raise CasebaseError(f"{path}: {exc}") from exc
        casebase.profile_inside = profile is not None or described or profile_problem is not None
        if casebase.profile_inside:
            casebase._attach(
                profile, {"profile": description} if described else {}, profile_problem
            )
            notice = casebase.profile_notice
            if tell and notice is not None and path.resolve() not in _TOLD:
                _TOLD.add(path.resolve())
                logging.getLogger("casebase").warning(notice)
        elif profile_path(path).is_file():
            try:
                profile, description = read_profile(profile_path(path), file_sha256(path))
            except CasebaseError as exc:
                casebase.profile_problem, casebase.profile_stale = (
                    str(exc),
                    isinstance(exc, ProfileMismatch),
                )
            else:
                casebase._attach(
                    profile, {"profile": description}, None, f"{profile_path(path).name}: "
                )
        return casebase

    def _attach(
        self,
        profile: dict[str, np.ndarray] | None,
        described: dict[str, Any],
        problem: str | None,
        where: str = "",
    ) -> None:
        """Take the error profile ``profile`` described by ``described["profile"]`` where it passes
        :func:`check_profile` (a damaged one costs the profile, not the cases: the engine plays them
        uncalibrated), else record why not (``where`` it came from first) in
        :attr:`profile_problem`."""
        if problem is None:
            try:
                check_profile(
                    profile, described, {name: getattr(self, name) for name in CASE_DTYPES}
                )
            except CasebaseError as exc:
                problem = f"{where}{exc}"
            else:
                self.meta, self.profile = {**self.meta, **described}, profile
        self.profile_problem = problem

    @property
    def profile_notice(self) -> str | None:
        """Where the casebase file holds its error profile inside (the format before the profile had
        a file of its own): that it should be split, and the command that splits it; else None."""
        if not self.profile_inside or self.path is None:
            return None
        return (
            f"{self.path.name} holds its error profile inside, as casebases made before the"
            f" profile's own file did; split it with `python -m casebase split {self.path}` (writes"
            f" {profile_path(self.path).name} beside it)"
        )

    def validate(self) -> None:
        """Check dtypes, shapes and invariants (:func:`casebase.checks.check`); raise
        :class:`CasebaseError` on the first fault."""
        check({name: getattr(self, name) for name in CASE_DTYPES}, self.games, self.meta)

    def with_profile(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> Casebase:
        """The same cases with the error profile ``arrays`` (:data:`PROFILE_DTYPES`) and its
        ``meta`` (``meta["profile"]``), checked (:func:`check_profile`); not yet written
        (:meth:`save_profile`)."""
        cases = {name: np.asarray(getattr(self, name)) for name in CASE_DTYPES}
        check_profile(arrays, {"profile": meta}, cases)
        casebase = Casebase(
            **cases,
            games=self.games,
            meta={**self.meta, "profile": meta},
            path=self.path,
            profile=arrays,
        )
        casebase.profile_inside = self.profile_inside
        return casebase

    # -- writing ---------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the cases atomically (temporary file, then rename) and deterministically: the same
        cases give the same bytes. The error profile is not written (:meth:`save_profile`)."""
        path = Path(path)
        write_npz(
            path,
            {
                "format": np.array(FORMAT_NAME),
                "version": np.array(FORMAT_VERSION, dtype=np.int64),
                "meta": np.array(
                    json.dumps(
                        {k: v for k, v in self.meta.items() if k != "profile"},
                        sort_keys=True,
                        ensure_ascii=False,
                    )
                ),
                **{name: getattr(self, name) for name in CASE_DTYPES},
                **{f"games_{c}": self.games[c] for c in GAME_COLUMNS},
            },
        )
        self.path, self.profile_inside = path, False

    def save_profile(self, model_sha256: str | None) -> Path:
        """Write the error profile beside the casebase file (``X.profile.npz``) with its provenance
        (``model_sha256``: the style model its play-time records were made with, if any),
        atomically; a casebase file holding its profile inside is written again without it, once the
        profile file names its new SHA-256 (a run stopped between the two leaves the old file, still
        read). Returns the profile file's path."""
        assert self.path is not None and self.profile is not None
        path, description = self.path, self.meta["profile"]
        cases = path.with_name(f".{path.name}.split.npz") if self.profile_inside else path
        if self.profile_inside:
            self.save(cases)
        description = {**description, "provenance": provenance(description, cases, model_sha256)}
        description["provenance"]["casebase"] = path.name
        write_profile(profile_path(path), self.profile, description)
        if cases != path:
            os.replace(cases, path)
        self.path, self.meta = path, {**self.meta, "profile": description}
        return profile_path(path)

    # -- access ----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.turn)

    def __repr__(self) -> str:
        return f"<Casebase {self.expert!r}: {len(self)} cases from {self.num_games} games>"

    @property
    def expert(self) -> str:
        """The expert's name as the user gave it."""
        return str(self.meta["expert"])

    @property
    def elo(self) -> int | None:
        """The expert's median own rating over the casebase's games, if known."""
        elo = self.meta.get("median_elo")
        return None if elo is None else int(round(elo))

    @property
    def num_games(self) -> int:
        return len(self.games["index"])

    def game_speeds(self) -> np.ndarray:
        """The speed class of each game of the games table (:func:`casebase.speed.speed_of` of its
        TimeControl, event and site; ``"unknown"`` where they say none)."""
        tags = list(
            zip(*(self.games[c].tolist() for c in ("timecontrol", "event", "site")), strict=True)
        )
        speeds = {t: speed_of(*t) for t in set(tags)}  # a casebase's games share few distinct tags
        return np.array([speeds[t] for t in tags], dtype=np.str_)

    def on_lichess(self) -> bool:
        """Whether most of its games are lichess.org's: their speed classes are on Lichess's bands,
        so the clock the engine plays on is read on them too
        (:func:`casebase.speed.clock_speed`)."""
        sites = self.games["site"].tolist()
        return 2 * sum(map(on_lichess, sites)) > len(sites)

    def speeds(self) -> np.ndarray:
        """The speed class of each case (its game's, :meth:`game_speeds`)."""
        return self.game_speeds()[np.asarray(self.game)]

    def move(self, i: int) -> chess.Move:
        """The expert's move of case ``i``."""
        promotion = int(self.promotion[i])
        return chess.Move(int(self.from_square[i]), int(self.to_square[i]), promotion or None)

    def board(self, i: int) -> chess.Board:
        """The position of case ``i`` (pieces and side to move)."""
        return decode_board(self.boards[i], bool(self.turn[i]))

    def source(self, i: int) -> CaseSource:
        """The game and ply case ``i`` came from."""
        row = int(self.game[i])
        sources = self.meta.get("sources", [])
        src = int(self.games["source"][row])
        return CaseSource(
            **{c: str(self.games[c][row]) for c in GAME_TEXT_COLUMNS},
            ply=int(self.ply[i]),
            game_index=int(self.games["index"][row]),
            source_file=str(sources[src]["name"]) if 0 <= src < len(sources) else "?",
        )
