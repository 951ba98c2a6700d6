"""PGN input files: reading them (plain or ``.gz``) and cutting them into chunks of whole games."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from casebase.games import BuildError
from common.bounded import OverBound, file_size, gunzip

#: The most one PGN file may hold, inflated where it is gzipped (issue #69): 1 GiB, about a million
#: games (the 2300+ masters' collection is 160 MiB); a larger collection is given as several files.
#: A gzipped file inflates besides at most :data:`common.bounded.RATIO` times its size (PGN: 3.3).
PGN_MOST = 1 << 30

#: A tag-pair line, the only thing a PGN file cannot do without.
_TAG_LINE = re.compile(r'^\[[A-Za-z0-9_]+\s+".*"\s*\]\s*$', re.MULTILINE)
#: Where a game may start: a tag line after a blank line that ended the previous movetext.
_GAME_START = re.compile(r'\n[ \t\r]*\n(?=\[[A-Za-z0-9_]+\s+")')


@dataclass(frozen=True)
class Source:
    """One PGN input file, decoded."""

    path: Path
    sha256: str
    text: str

    @property
    def name(self) -> str:
        """The file's name without its directory, as recorded in the casebase."""
        return self.path.name


def read_source(path: str | os.PathLike[str]) -> Source:
    """Read a ``.pgn`` or ``.pgn.gz`` file; raise :class:`BuildError` if it is no PGN."""
    path = Path(path)
    if not path.exists():
        raise BuildError(f"{path}: no such file")
    if path.is_dir():
        raise BuildError(f"{path}: is a directory, not a PGN file")
    try:
        file_size(path, PGN_MOST, "PGN file")
        raw = path.read_bytes()
    except OverBound as exc:
        raise BuildError(str(exc)) from None
    except OSError as exc:
        raise BuildError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    data = raw
    if raw[:2] == b"\x1f\x8b" or path.suffix == ".gz":
        try:
            data = gunzip(raw, PGN_MOST, f"{path} (a PGN file)")
        except OverBound as exc:
            raise BuildError(str(exc)) from None
        except (OSError, EOFError, zlib.error) as exc:
            raise BuildError(f"{path}: damaged or not gzip-compressed ({exc})") from exc
    if b"\x00" in data:
        raise BuildError(f"{path}: binary data, not a PGN file")
    text = decode_pgn(data).replace("\r\n", "\n")
    if not _TAG_LINE.search(text):
        raise BuildError(f'{path}: not a PGN file (no tag pair such as [White "..."] in it)')
    return Source(path, hashlib.sha256(raw).hexdigest(), text)


def _latin1_fallback(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: bytes that are not UTF-8 are read as Latin-1."""
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("cbr-latin-1-fallback", _latin1_fallback)


def decode_pgn(data: bytes) -> str:
    """PGN text from bytes: UTF-8 (most files today, with or without a byte-order mark), and
    where a byte is not UTF-8, Latin-1 (the PGN standard's own encoding, common in older
    databases). A Latin-1 file thus reads as Latin-1 throughout, a UTF-8 one as UTF-8, and a
    file that mixes games of both keeps every name."""
    return data.decode("utf-8-sig", errors="cbr-latin-1-fallback")


def chunk_bounds(text: str, size: int) -> list[tuple[int, int]]:
    """Cut ``text`` into pieces of about ``size`` characters, each a run of whole games.

    Cuts lie only where python-chess's reader also starts a new game: at a tag line after a
    blank line that closes a game's movetext (never inside a ``{...}`` comment), so reading
    the pieces one after the other finds exactly the games of the whole text.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > size:
        cut = _next_cut(text, start, start + size)
        if cut is None:
            break
        bounds.append((start, cut))
        start = cut
    bounds.append((start, len(text)))
    return bounds


def _next_cut(text: str, start: int, target: int) -> int | None:
    for match in _GAME_START.finditer(text, target):
        cut = match.end()
        if text.count("{", start, cut) == text.count("}", start, cut) and not _ends_in_headers(
            text, match.start()
        ):
            return cut
    return None


def _ends_in_headers(text: str, blank: int) -> bool:
    """Whether the last line before the blank one at ``blank`` is a tag line (headers may have
    a blank line between them, so the next tag line would belong to the same game)."""
    return text.startswith("[", text.rfind("\n", 0, blank) + 1)


def split_games(text: str) -> list[str]:
    """The games of a PGN text, each its tags and movetext, in the file's order."""
    return [game for game in _GAME_START.split(text) if game.strip()]
