"""The casebase file: one expert's cases in an ``.npz``, and the :class:`Casebase` that reads it.

Layout (format ``cbr-chess-casebase``, version 2). N cases, G source games, P positions of
the error profile (version 2; absent until ``python -m profiling`` has made one):

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
games_<column>         G            White, Black, Date, Event, Site, Result (str),
                                    expert_white (bool), expert_elo (int32, -1 unknown),
                                    index (int32, game's index in its source file),
                                    source (int32, index into meta["sources"])
profile_row            int32 P      the case each analysed position is (its row)
profile_moves          uint16 P×K   moves the judge scored (:func:`encode_move`: from |
                                    to << 6 | promotion << 12; 0: no move), best first
profile_scores         int32 P×K    their scores, centipawns for the mover (mates as the
                                    engine scores them: within ±100,000)
profile_played         int16 P      the column of the expert's own move (the case's move)
profile_play_moves     uint16 Q×W   optional (issue #29), Q <= P: the moves the engine's
                                    judge scored exactly in the profile's first Q positions
                                    as the engine plays (``python -m profiling --play``)
profile_play_scores    int32 Q×W    their scores then (centipawns for the mover)
profile_play_prior     float32 Q×W  the prior the engine proposed for each
profile_play_judged    int32 Q×W    their scores by the profile's judge, as profile_scores
profile_games_*        R            optional (issue #29): the same four for R positions of
                                    the engine's own games (``python -m profiling --games``),
                                    and ``best`` (int32 R), each position's best score by the
                                    profile's judge, ``target`` (float32 R), the loss the
                                    expert's fitted model expects there
=====================  ===========  ==================================================

``meta["profile"]`` then says how the positions were judged and what was fitted, and its
``play`` and ``games`` how the records were made (:mod:`engine.style.profile` reads them,
:mod:`profiling` makes them). Version 1 files are read
as they are: they have no profile. The arrays' dtypes and the checks they pass are
:mod:`casebase.checks`. A file whose profile fails them is still read for its cases:
:meth:`Casebase.load` drops the profile and says why in ``profile_problem`` (the engine plays
the cases without calibration; ``casebase info`` and ``python -m profiling`` refuse the file).

Files are plain (stored, uncompressed) zip members so that :meth:`Casebase.load` can
memory-map the large arrays, and are written with fixed zip timestamps so that the same
input gives byte-identical files.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.checks import (
    BITBOARDS,
    CASE_DTYPES,
    GAME_COLUMNS,
    GAME_TEXT_COLUMNS,
    GAMES_DTYPES,
    PLAY_DTYPES,
    PROFILE_DTYPES,
    CasebaseError,
    check,
    check_profile,
)
from common.files import atomic_file
from common.text import clip

__all__ = ["BITBOARDS", "FORMAT_NAME", "FORMAT_VERSION", "GAME_COLUMNS", "GAME_TEXT_COLUMNS", "PROFILE_DTYPES",
           "CaseSource", "Casebase", "CasebaseError", "decode_board", "decode_move", "encode_board", "encode_move"]

FORMAT_NAME = "cbr-chess-casebase"
FORMAT_VERSION = 2
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def encode_board(board: chess.BaseBoard) -> np.ndarray:
    """The eight bitboards of ``board`` (order :data:`BITBOARDS`) as a uint64 array."""
    return np.array(
        [
            board.occupied_co[chess.WHITE],
            board.occupied_co[chess.BLACK],
            board.pawns,
            board.knights,
            board.bishops,
            board.rooks,
            board.queens,
            board.kings,
        ],
        dtype=np.uint64,
    )


def decode_board(bitboards: np.ndarray, turn: bool) -> chess.Board:
    """The board whose pieces are ``bitboards`` with ``turn`` to move.

    Castling rights and the en-passant square are not stored in a casebase (the
    similarity ignores them), so the board has none.
    """
    board = chess.Board(None)
    white, black = int(bitboards[0]), int(bitboards[1])
    for piece_type in chess.PIECE_TYPES:
        mask = int(bitboards[1 + piece_type])
        for square in chess.scan_forward(mask):
            colour = chess.WHITE if white >> square & 1 else chess.BLACK
            board.set_piece_at(square, chess.Piece(piece_type, colour))
    assert (white | black) == board.occupied
    board.turn = bool(turn)
    return board


def encode_move(move: chess.Move) -> int:
    """A move as the profile stores it: from | to << 6 | promotion << 12 (never 0: 0 is no move)."""
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode_move(code: int) -> chess.Move:
    """The move of :func:`encode_move`'s ``code``."""
    return chess.Move(code & 63, code >> 6 & 63, (code >> 12) or None)


@dataclass(frozen=True)
class CaseSource:
    """Where a case came from, for explanations."""

    white: str
    black: str
    event: str
    site: str
    date: str
    result: str
    ply: int
    game_index: int
    source_file: str

    @property
    def move_number(self) -> int:
        """Full-move number of the case's move, counted from the game's first move."""
        return self.ply // 2 + 1


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
        #: The error profile's arrays (PROFILE_DTYPES), or None (read by engine.style.profile).
        self.profile = profile
        #: Why the file's error profile was refused, or None: :meth:`load` keeps the cases of a file
        #: whose profile is damaged, without the profile (the engine plays them uncalibrated, and
        #: ``casebase info`` and ``python -m profiling`` refuse the file with this reason).
        self.profile_problem: str | None = None
        self.validate()

    # -- reading ---------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, mmap: bool = True) -> Casebase:
        """Read and validate a casebase; raise :class:`CasebaseError` saying what is wrong."""
        path = Path(path)
        try:
            if not path.exists():
                raise CasebaseError(f"{path}: no such casebase file")
            if path.is_dir():
                raise CasebaseError(f"{path}: is a directory, not a casebase file")
        except (OSError, ValueError) as exc:  # a name the system refuses (too long, NUL byte)
            raise CasebaseError(f"{path}: cannot be opened ({exc})") from exc
        try:
            with zipfile.ZipFile(path) as zf:
                members = {name.removesuffix(".npy"): name for name in zf.namelist()}
                if "format" not in members:
                    raise CasebaseError(
                        f"{path}: an .npz without a 'format' entry: another program's file,"
                        f" not a {FORMAT_NAME}"
                    )
                fmt = str(_read_member(zf, members["format"]))
                if fmt != FORMAT_NAME:
                    raise CasebaseError(
                        f"{path}: format {fmt!r} is not {FORMAT_NAME!r}: another program's file"
                    )
                version = int(_read_member(zf, members.get("version", "version.npy")))
                if version > FORMAT_VERSION:
                    raise CasebaseError(
                        f"{path}: format version {version} is newer than this engine reads"
                        f" ({FORMAT_VERSION}); upgrade the engine or rebuild the casebase"
                    )
                if version < 1:
                    raise CasebaseError(f"{path}: invalid format version {version}")
                arrays: dict[str, np.ndarray] = {}
                for name in [*CASE_DTYPES, "meta", *(f"games_{c}" for c in GAME_COLUMNS)]:
                    if name not in members:
                        raise CasebaseError(f"{path}: missing array {name!r}")
                    member = members[name]
                    mapped = _memmap_member(path, zf, member) if mmap else None
                    arrays[name] = mapped if mapped is not None else _read_member(zf, member)
                profile, profile_problem = _read_profile(zf, members)
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
        games = {c: arrays.pop(f"games_{c}") for c in GAME_COLUMNS}
        described, description = "profile" in meta, meta.pop("profile", None)
        try:
            casebase = cls(**arrays, games=games, meta=meta, path=path, profile=None)  # the cases, checked
        except CasebaseError as exc:
            raise CasebaseError(f"{path}: {exc}") from exc
        if profile_problem is None and (profile is not None or described):
            # a damaged profile costs the profile, not the cases: the engine plays them uncalibrated
            with_description = {**meta, "profile": description} if described else meta
            try:
                check_profile(profile, with_description, {name: getattr(casebase, name) for name in CASE_DTYPES})
            except CasebaseError as exc:
                profile_problem = str(exc)
            else:
                casebase.meta, casebase.profile = with_description, profile
        casebase.profile_problem = profile_problem
        return casebase

    def validate(self) -> None:
        """Check dtypes, shapes and invariants (:func:`casebase.checks.check`); raise
        :class:`CasebaseError` on the first fault."""
        check({name: getattr(self, name) for name in CASE_DTYPES}, self.games, self.meta, self.profile)

    def with_profile(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> Casebase:
        """The same cases with the error profile ``arrays`` (:data:`PROFILE_DTYPES`) and its ``meta``
        (``meta["profile"]``), checked; not yet written (:meth:`save`)."""
        return Casebase(**{name: np.asarray(getattr(self, name)) for name in CASE_DTYPES}, games=self.games,
                        meta={**self.meta, "profile": meta}, path=self.path, profile=arrays)

    # -- writing ---------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically (temporary file, then rename) and deterministically."""
        path = Path(path)
        arrays: dict[str, np.ndarray] = {
            "format": np.array(FORMAT_NAME),
            "version": np.array(FORMAT_VERSION, dtype=np.int64),
            "meta": np.array(json.dumps(self.meta, sort_keys=True, ensure_ascii=False)),
            **{name: np.ascontiguousarray(getattr(self, name)) for name in CASE_DTYPES},
            **{f"games_{c}": np.ascontiguousarray(self.games[c]) for c in GAME_COLUMNS},
            **{name: np.ascontiguousarray(array) for name, array in (self.profile or {}).items()},
        }
        with atomic_file(path) as raw:
            with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
                for name, array in arrays.items():
                    info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
                    info.external_attr = 0o644 << 16
                    with zf.open(info, "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, array, allow_pickle=False)
        self.path = path

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

    def move(self, i: int) -> chess.Move:
        """The expert's move of case ``i``."""
        promotion = int(self.promotion[i])
        return chess.Move(
            int(self.from_square[i]), int(self.to_square[i]), promotion or None
        )

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


def _read_profile(zf: zipfile.ZipFile, members: dict[str, str]) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """The error profile's arrays (all or none) with its play-time record's where there is one
    (checked by check_profile), or None and why they cannot be read."""
    present = [name for name in PROFILE_DTYPES if name in members]
    if present and len(present) < len(PROFILE_DTYPES):
        return None, f"error profile incomplete (has only {', '.join(present)})"
    if present:
        present += [name for name in (*PLAY_DTYPES, *GAMES_DTYPES) if name in members]
    try:
        return {name: _read_member(zf, members[name]) for name in present} or None, None
    except (OSError, ValueError, EOFError, MemoryError, zipfile.BadZipFile, struct.error) as exc:
        return None, f"error profile damaged ({clip(' '.join(str(exc).split()))})"


def _read_member(zf: zipfile.ZipFile, member: str) -> np.ndarray:
    with zf.open(member) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def _memmap_member(path: Path, zf: zipfile.ZipFile, member: str) -> np.ndarray | None:
    """Map a stored (uncompressed) numeric member straight from the file, or None."""
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
            return None
        offset = f.tell()
    needed = offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if needed > path.stat().st_size:
        raise CasebaseError(f"{path}: truncated: array {member} runs past the end of the file")
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape,
                     order="F" if fortran else "C")
