"""Endgame tables on disk and in play: files, probing a board, the distance-to-mate-optimal move.

A file ``tables/KBNK.npz`` holds one ending of :data:`endgame.retrograde.ENDINGS`, for the
white king on the ten squares a1-d1-d4 only: every other position is one of those under a
symmetry of the board (pawnless, no castling), which makes the files 6.4 times smaller.
Boards with the stronger side Black are mirrored (colours swapped) before they are looked up.

:class:`Tablebase` loads the files of a folder on first use, and makes the small ones (KQK,
KRK, about a second each) itself when they are missing; ``python -m endgame build`` (``make
tables``) makes them all.
"""

from __future__ import annotations

import os
import threading
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np

from common.bounded import read_npz
from common.files import atomic_file
from common.text import clip
from endgame import default_folder
from endgame.retrograde import ENDINGS, Table, generate

FORMAT = "cbr-chess-endgame"
VERSION = 1
#: The endings made at first use when their file is missing.
SMALL = ("KQK", "KRK")
#: The white king's squares kept in the files: a1 b1 c1 d1 b2 c2 d2 c3 d3 d4.
TRIANGLE = (0, 1, 2, 3, 9, 10, 11, 18, 19, 27)
_TRIANGLE_INDEX = np.full(64, -1, dtype=np.int64)
_TRIANGLE_INDEX[list(TRIANGLE)] = np.arange(len(TRIANGLE))
#: The most a table file's arrays may take (issue #69): two int8 tables of the largest ending's
#: shape.
TABLE_MOST = 2 * len(TRIANGLE) * 64 * 64 ** max(len(pieces) for pieces in ENDINGS.values()) + (
    1 << 20
)
_LETTERS = {chess.QUEEN: "Q", chess.ROOK: "R", chess.BISHOP: "B", chess.KNIGHT: "N"}


class TablebaseError(Exception):
    """A table file that is missing, damaged or not a table of this engine."""


def _symmetries() -> np.ndarray:
    """``SYM[t, s]``: square ``s`` under each of the board's 8 symmetries."""
    out = np.zeros((8, 64), dtype=np.int64)
    for t in range(8):
        for s in range(64):
            f, r = s & 7, s >> 3
            if t & 1:
                f = 7 - f
            if t & 2:
                r = 7 - r
            if t & 4:
                f, r = r, f
            out[t, s] = 8 * r + f
    return out


SYMMETRIES = _symmetries()
#: For each white king square, a symmetry that takes it into the triangle.
_TO_TRIANGLE = np.array(
    [next(t for t in range(8) if _TRIANGLE_INDEX[SYMMETRIES[t, s]] >= 0) for s in range(64)]
)


def triangle_squares(squares: list[int]) -> list[int]:
    """``squares`` (the white king's first) under a symmetry that takes the white king into the
    triangle; the white king as its index there (0..9), the others as squares."""
    moved = SYMMETRIES[_TO_TRIANGLE[squares[0]], squares]
    return [int(_TRIANGLE_INDEX[moved[0]]), *(int(s) for s in moved[1:])]


@dataclass(frozen=True)
class Stored:
    """A table as kept: values by side to move, the white king's dimension cut to the triangle."""

    ending: str
    white_to_move: np.ndarray  # int8, (10, 64, 64[, 64])
    black_to_move: np.ndarray

    @classmethod
    def of(cls, table: Table) -> Stored:
        shape = (64,) * (2 + len(table.pieces))
        cut = [
            a.reshape(shape)[list(TRIANGLE)].copy()
            for a in (table.white_to_move, table.black_to_move)
        ]
        return cls(table.ending, *cut)

    def value(self, white_to_move: bool, squares: list[int]) -> int:
        """The stored value (plies to mate + 1; 0: no win) of White's ``squares`` (king, black
        king, men in the table's order), with White to move or not."""
        index = tuple(triangle_squares(squares))
        return int((self.white_to_move if white_to_move else self.black_to_move)[index])

    def save(self, path: str | os.PathLike[str]) -> None:
        with atomic_file(path) as f:
            np.savez_compressed(
                f,
                format=np.array(FORMAT),
                version=np.array(VERSION),
                ending=np.array(self.ending),
                white_to_move=self.white_to_move,
                black_to_move=self.black_to_move,
            )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Stored:
        """The table in ``path``; :class:`TablebaseError` says what is wrong with a bad file."""
        try:
            z = read_npz(path, TABLE_MOST, "endgame table")
            if "format" not in z or str(z["format"]) != FORMAT:
                raise TablebaseError(f"{path}: not an endgame table of cbr-chess")
            if int(z["version"]) != VERSION:
                raise TablebaseError(
                    f"{path}: table version {int(z['version'])}, this engine reads {VERSION}"
                )
            ending = str(z["ending"])
            if ending not in ENDINGS:
                raise TablebaseError(f"{path}: unknown ending {ending!r}")
            shape = (len(TRIANGLE), 64) + (64,) * len(ENDINGS[ending])
            arrays = [z[name] for name in ("white_to_move", "black_to_move")]
        except TablebaseError:
            raise
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise TablebaseError(f"{path}: cannot read the table: {exc}") from exc
        if any(a.shape != shape or a.dtype != np.int8 for a in arrays):
            raise TablebaseError(f"{path}: the {ending} arrays are not int8 of shape {shape}")
        return cls(ending, arrays[0], arrays[1])


@dataclass(frozen=True)
class Probe:
    """What a table says of a position, for the side to move: ``wins`` (True), loses (False)
    or draws (None), and in how many plies it mates or is mated (0 for a draw)."""

    wins: bool | None
    plies: int

    @property
    def moves(self) -> int:
        """The mate's distance in moves (of the winning side)."""
        return (self.plies + 1) // 2

    def text(self) -> str:
        if self.wins is None:
            return "draw"
        return f"mate in {self.moves}" if self.wins else f"mated in {self.moves}"


def ending_of(board: chess.Board) -> tuple[str, chess.Color] | None:
    """The ending of ``board`` with a table (e.g. ``KBNK``) and the stronger side, or None."""
    if (
        board.pawns
        or board.castling_rights
        or chess.popcount(board.occupied) > 4
        or board.king(chess.WHITE) is None
        or board.king(chess.BLACK) is None
    ):
        return None
    for strong in (chess.WHITE, chess.BLACK):
        if board.occupied_co[not strong] != board.kings & board.occupied_co[not strong]:
            continue
        men = sorted(
            (
                p.piece_type
                for p in board.piece_map().values()
                if p.color == strong and p.piece_type != chess.KING
            ),
            reverse=True,
        )
        name = "K" + "".join(_LETTERS[t] for t in men) + "K"
        if name in ENDINGS:
            return name, strong
    return None


class Tablebase:
    """The tables of a folder, loaded when first needed (thread-safe; fit once, probe many)."""

    def __init__(self, folder: str | os.PathLike[str], *, make: Collection[str] = SMALL) -> None:
        self.folder = Path(folder)
        self.make = frozenset(make)
        self.problems: list[str] = []
        self._tables: dict[str, Stored | None] = {}
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Open (or make) the small tables now, so that no move waits the second it takes."""
        for ending in sorted(self.make):
            self.table(ending)

    @classmethod
    def prepared(cls, folder: str | os.PathLike[str] = "") -> Tablebase:
        """The tables of ``folder`` (the default folder when empty), prepared (:meth:`prepare`):
        what an agent plays with, opened before its first move is on the clock."""
        tables = cls(folder or default_folder())
        tables.prepare()
        return tables

    def table(self, ending: str) -> Stored | None:
        """The table of ``ending``: from its file, made now if small, else None (the reason
        is added to :attr:`problems`)."""
        with self._lock:
            if ending not in self._tables:
                self._tables[ending] = self._open(ending)
            return self._tables[ending]

    def _open(self, ending: str) -> Stored | None:
        path = self.folder / f"{ending}.npz"
        if path.exists():
            try:
                return Stored.load(path)
            except TablebaseError as exc:
                self.problems.append(f"{exc}; run make tables to make it again")
                return None
        if ending not in self.make:
            return None
        stored = Stored.of(generate(ending))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            stored.save(path)
        # kept in memory only (a folder too deep recurses)
        except (OSError, ValueError, RecursionError) as exc:
            self.problems.append(
                f"cannot save {ending} in {clip(str(self.folder))!r} ({clip(str(exc))});"
                " it is kept in memory for this session"
            )
        return stored

    def probe(self, board: chess.Board) -> Probe | None:
        """The table's verdict on ``board`` (None when no table covers it)."""
        found = ending_of(board)
        if found is None:
            return None
        ending, strong = found
        stored = self.table(ending)
        if stored is None:
            return None
        if strong == chess.BLACK:
            board = board.mirror()
        men = []
        for letter in ENDINGS[ending]:
            piece = chess.Piece.from_symbol(letter)
            squares = [s for s in board.pieces(piece.piece_type, chess.WHITE) if s not in men]
            men.append(squares[0])
        kings = [board.king(chess.WHITE), board.king(chess.BLACK)]
        value = stored.value(board.turn == chess.WHITE, [*kings, *men])  # type: ignore[list-item]
        if value == 0:
            return Probe(None, 0)
        return Probe(board.turn == chess.WHITE, value - 1)

    def best(
        self, board: chess.Board, moves: Collection[chess.Move] | None = None
    ) -> tuple[chess.Move, Probe] | None:
        """The distance-to-mate-optimal move of ``board`` (among ``moves``, legal ones, if given)
        and the table's verdict on ``board`` (None when no table covers it or there is no
        move): the quickest mate, else a draw, else the longest defence; the first such move
        in python-chess's order."""
        verdict = self.probe(board)
        if verdict is None:
            return None
        best: tuple[tuple[int, int], chess.Move] | None = None
        for move in board.legal_moves:
            if moves is not None and move not in moves:
                continue
            board.push(move)
            try:
                rank = _rank(board, self.probe(board))
            finally:
                board.pop()
            if best is None or rank > best[0]:
                best = (rank, move)
        return None if best is None else (best[1], verdict)


def _rank(child: chess.Board, verdict: Probe | None) -> tuple[int, int]:
    """How good the move that made ``child`` is for its mover: (2, -plies) wins, (1, 0) draws,
    (0, plies) loses; a position no table covers (a capture into a bare ending) is a draw."""
    if child.is_checkmate():
        return 2, -1
    if verdict is None or verdict.wins is None:
        return 1, 0
    if verdict.wins:
        return 0, verdict.plies + 1
    return 2, -(verdict.plies + 1)
