"""The experts the page offers: the shipped casebases and the user's own, by id, never by path.

An id is a casebase's file name without ``.npz``; the page names experts only by these ids, so a
request can reach no file but the listed casebases. Casebases are read once and kept
(memory-mapped).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from casebase.format import Casebase, CasebaseError
from casebase.info import describe_profile, distinct_positions, first_moves
from common.paths import PROJECT_ROOT
from engine.strength.tendencies import describe_expert
from engine.style.personal import casebase_files
from web.repertoire import cached_tree

#: How long the error profile's picture may take to draw (it reads the folder's other casebases).
PICTURE_SECONDS = 120
#: The most pictures drawn at once (each a process of seconds).
MAX_DRAWINGS = 1


class UnknownExpert(LookupError):
    """No listed expert has this id."""


@dataclass(frozen=True)
class Expert:
    """One casebase the page may play: its id, its file and where it was found."""

    id: str
    path: Path
    origin: str  # "shipped", "data folder" or "command line"


class Experts:
    """The listing of the casebase folders, rescanned on every request so that new builds appear."""

    def __init__(
        self,
        folders: list[tuple[str, Path]],
        extra: Path | None = None,
        max_drawings: int = MAX_DRAWINGS,
    ) -> None:
        self.folders = folders
        self.extra = extra
        # by the casebase's file and its time of change
        self._pictures: dict[tuple[Path, int], bytes] = {}
        # a picture being drawn, awaited by all who ask
        self._drawing: dict[tuple[Path, int], asyncio.Future[bytes]] = {}
        self._drawings = asyncio.Semaphore(max_drawings)

    def all(self) -> dict[str, Expert]:
        """Every expert by id; an id met twice gets the folder's origin as a prefix."""
        found: dict[str, Expert] = {}
        candidates = [
            (origin, path)
            for origin, folder in self.folders
            if folder.is_dir()
            for path in casebase_files(sorted(folder.glob("*.npz")))
        ]
        if self.extra is not None:
            candidates.append(("command line", self.extra))
        seen: set[Path] = set()
        for origin, path in candidates:
            if path.resolve() in seen or not path.is_file():
                continue
            seen.add(path.resolve())
            key = path.stem if path.stem not in found else f"{origin.split()[0]}-{path.stem}"
            found[key] = Expert(key, path, origin)
        return found

    def get(self, expert_id: str) -> Expert:
        """The expert of this id, or :class:`UnknownExpert`."""
        expert = self.all().get(expert_id)
        if expert is None:
            raise UnknownExpert(
                f"no expert {expert_id!r}: choose one of the listing (GET /api/experts)"
            )
        return expert

    def default_id(self) -> str | None:
        """The command line's casebase when given, else Carlsen's (the engine's default), else the
        first."""
        listing = self.all()
        if self.extra is not None:
            for expert in listing.values():
                if expert.path.resolve() == self.extra.resolve():
                    return expert.id
        return "carlsen-2800" if "carlsen-2800" in listing else next(iter(listing), None)

    def casebase(self, expert_id: str) -> Casebase:
        """The expert's casebase (read once)."""
        expert = self.get(expert_id)
        try:
            return _load(expert.path, expert.path.stat().st_mtime_ns)
        except (CasebaseError, OSError, ValueError) as exc:
            raise UnknownExpert(f"expert {expert_id!r} cannot be read: {exc}") from exc

    def listing(self) -> list[dict[str, Any]]:
        """What the page's chooser shows of each expert (unreadable casebases are left out)."""
        rows = []
        for expert in self.all().values():
            try:
                casebase = self.casebase(expert.id)
            except UnknownExpert:
                continue
            rows.append(
                {
                    "id": expert.id,
                    "name": casebase.expert,
                    "elo": casebase.elo,
                    "games": casebase.num_games,
                    "cases": len(casebase),
                    "origin": expert.origin,
                    "profile": casebase.profile is not None,
                }
            )
        return rows

    def facts(self, expert_id: str) -> dict[str, Any]:
        """The casebase's facts (casebase/info.py), its error profile's numbers and the expert's
        tendencies."""
        casebase = self.casebase(expert_id)
        meta = casebase.meta
        profile = meta.get("profile") if casebase.profile is not None else None
        return {
            "id": expert_id,
            "name": casebase.expert,
            "elo": casebase.elo,
            "games": casebase.num_games,
            "cases": len(casebase),
            "cases_white": meta["counts"].get("cases_white", 0),
            "cases_black": meta["counts"].get("cases_black", 0),
            "positions": distinct_positions(casebase),
            "first_moves": {
                "white": first_moves(casebase, True),
                "black": first_moves(casebase, False),
            },
            "sources": [
                {"name": s.get("name"), "games": s.get("games")} for s in meta.get("sources", [])
            ],
            "profile_line": describe_profile(casebase),
            "tendencies": describe_expert(self.get(expert_id).path),
            "profile": None
            if profile is None
            else {
                key: profile.get(key)
                for key in ("all", "phases", "rating", "fit", "judge", "depth", "positions")
            },
        }

    def repertoire(self, expert_id: str) -> dict[str, Any]:
        """The expert's first moves as two trees (as White, as Black), built once per casebase file
        and time of change (web/repertoire.py)."""
        expert = self.get(expert_id)
        return cached_tree(expert.path, expert.path.stat().st_mtime_ns, _load)

    def case(self, expert_id: str, index: int) -> dict[str, Any]:
        """Case ``index``: its position (pieces and side to move; a case keeps no castling rights),
        the expert's move there and the game it came from."""
        casebase = self.casebase(expert_id)
        if not 0 <= index < len(casebase):
            raise UnknownExpert(f"{expert_id!r} has no case {index} (it has {len(casebase)})")
        board, move, source = casebase.board(index), casebase.move(index), casebase.source(index)
        return {
            "case": index,
            "fen": board.fen(),
            "uci": move.uci(),
            "san": board.san(move) if board.is_legal(move) else move.uci(),
            "white": source.white,
            "black": source.black,
            "event": source.event,
            "site": source.site,
            "date": source.date,
            "year": source.date[:4],
            "result": source.result,
            "ply": source.ply,
            "move": source.move_number,
        }

    async def profile_picture(self, expert_id: str) -> bytes:
        """The error profile's picture, drawn once (then kept) by ``python -m profiling X --report``
        (make profile-report's code, in its own process: the web layer does not import profiling);
        who asks while it is drawn waits for that drawing, and at most ``max_drawings`` draw at
        once."""
        expert = self.get(expert_id)
        key = (expert.path, expert.path.stat().st_mtime_ns)
        if key in self._pictures:
            return self._pictures[key]
        if key not in self._drawing:
            if self.casebase(expert_id).profile is None:
                raise UnknownExpert(
                    f"{expert_id!r} has no error profile (python -m profiling FILE.npz --judge"
                    " PATH makes one)"
                )
            drawing = asyncio.ensure_future(self._draw(expert.path))
            self._drawing[key] = drawing
            drawing.add_done_callback(lambda done: self._drawn(key, done))
        # one asker leaving does not stop the others' drawing
        return await asyncio.shield(self._drawing[key])

    def _drawn(self, key: tuple[Path, int], drawing: asyncio.Future[bytes]) -> None:
        """Keep a picture drawn, even when no one waits for it any more; a failure is told to those
        who waited (and read here, so that it is not reported as never read), and the next asker
        draws again."""
        del self._drawing[key]
        if not drawing.cancelled() and drawing.exception() is None:
            self._pictures[key] = drawing.result()

    async def _draw(self, casebase: Path) -> bytes:
        async with self._drawings:
            with tempfile.TemporaryDirectory(prefix="cbr-web-") as folder:
                out = Path(folder) / "profile.png"
                process = await asyncio.create_subprocess_exec(
                    *picture_command(casebase, out),
                    cwd=PROJECT_ROOT,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                )
                try:
                    _, err = await asyncio.wait_for(process.communicate(), PICTURE_SECONDS)
                except TimeoutError:
                    process.kill()
                    await process.wait()
                    raise RuntimeError("drawing the profile took too long") from None
                if process.returncode != 0 or not out.is_file():
                    raise RuntimeError(
                        f"could not draw the profile: {err.decode(errors='replace').strip()[-300:]}"
                    )
                return out.read_bytes()


def picture_command(casebase: Path, out: Path) -> list[str]:
    """The command that draws ``casebase``'s error profile into ``out`` (make profile-report's)."""
    return [sys.executable, "-m", "profiling", str(casebase), "--report", str(out)]


@lru_cache(maxsize=32)
def _load(path: Path, mtime: int) -> Casebase:
    return Casebase.load(path)
