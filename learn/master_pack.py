"""The pack the master network is trained from on a GPU (``python -m learn pack``,
:mod:`learn.master_gpu`): the master games of :func:`learn.master_games.select_games` and the
experts' own games of their casebases with their latest share marked, each game's moves a byte a
move (:func:`learn.lc0.bulk.codes`), in one ``.npz`` (:func:`pack`), read back as a
:class:`Pack`."""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np

from casebase.book import replayed_lines
from casebase.format import Casebase
from common.files import atomic_file, write_atomic
from learn.lc0 import bulk
from learn.master_games import select_games
from learn.personal import latest_of_games

FORMAT = "cbr-chess-master-pack"


def _pgn_codes(text: str) -> bytes:
    """A game's codes; none for a game that does not replay from the standard start (as
    learn.lc0.positions.replay)."""
    game = chess.pgn.read_game(io.StringIO(text))
    if (
        game is None
        or game.errors
        or game.board() != chess.Board()
        or any(not m for m in game.mainline_moves())
    ):
        return b""
    return bulk.codes(game.mainline_moves())


def _joined(games: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Games' codes end to end, and where each starts (one more: the end)."""
    starts = np.concatenate([[0], np.cumsum([len(g) for g in games])]).astype(np.int64)
    return np.frombuffer(b"".join(games), dtype=np.uint8).copy(), starts


def expert_lines(
    casebase: Casebase, share: float
) -> tuple[list[bytes], list[list[int]], list[bool]]:
    """Each game of the casebase that replays from the standard start: its moves' codes up to the
    expert's last case, the expert's plies (the positions :func:`casebase.book.expert_moves` gives),
    and whether it is among the latest ``share`` of games."""
    latest, case_plies = latest_of_games(casebase, share), np.asarray(casebase.ply)
    codes, plies, flags = [], [], []
    for cases, line in replayed_lines(casebase, int(case_plies.max(initial=0)) + 1):
        own = sorted(p for p in set(case_plies[cases].tolist()) if p < len(line))
        if own:
            codes.append(bulk.codes(line))
            plies.append(own)
            flags.append(bool(latest[int(casebase.game[cases[0]])]))
    return codes, plies, flags


def pack(
    sources: Sequence[Path],
    casebases: Sequence[Path],
    out: Path,
    *,
    validation_games: int = 400,
    seed: int = 0,
    share: float = 0.1,
    workers: int | None = None,
    validation_pgn: Path | None = None,
) -> dict[str, Any]:
    """The master games of ``sources`` and the experts' games of ``casebases`` (see the module's
    text) into ``out``; the validation games also as PGN into ``validation_pgn`` where given (the
    network never trained on them)."""
    games = select_games(sources, validation_games, seed)
    with ProcessPoolExecutor(workers) as pool:
        training = [c for c in pool.map(_pgn_codes, games.training, chunksize=256) if c]
        coded = list(pool.map(_pgn_codes, games.validation, chunksize=64))
    validation = [c for c in coded if c]
    if validation_pgn is not None:  # the games packed alone
        write_atomic(
            validation_pgn,
            "\n\n".join(g.strip() for g, c in zip(games.validation, coded) if c) + "\n",
        )
    arrays: dict[str, np.ndarray] = {}
    arrays["training"], arrays["training_starts"] = _joined(training)
    arrays["validation"], arrays["validation_starts"] = _joined(validation)
    names = []
    for number, path in enumerate(casebases):
        casebase = Casebase.load(path)
        codes, plies, latest = expert_lines(casebase, share)
        arrays[f"expert{number}"], arrays[f"expert{number}_starts"] = _joined(codes)
        wanted = np.zeros(len(arrays[f"expert{number}"]), dtype=bool)
        for start, own in zip(arrays[f"expert{number}_starts"], plies):
            wanted[start + np.array(own, dtype=np.int64)] = True
        arrays[f"expert{number}_wanted"], arrays[f"expert{number}_latest"] = (
            wanted,
            np.array(latest, dtype=bool),
        )
        names.append(path.name.removesuffix(".npz"))
    facts = {
        "format": FORMAT,
        "sources": [str(s) for s in sources],
        "games_read": games.read,
        "games_of_experts_dropped": games.experts,
        "duplicates_dropped": games.duplicates,
        "training_games": len(training),
        "validation_games": len(validation),
        "seed": seed,
        "games_not_replayed": len(games.training)
        + len(games.validation)
        - len(training)
        - len(validation),
        "experts": names,
        "latest_share": share,
    }
    arrays["meta"] = np.array(json.dumps(facts))
    with atomic_file(out) as f:
        np.savez_compressed(f, allow_pickle=False, **arrays)
    return facts


@dataclass
class Pack:
    """A pack as :func:`pack` wrote it: its facts and its games."""

    facts: dict[str, Any]
    arrays: dict[str, np.ndarray]

    @classmethod
    def load(cls, path: Path) -> Pack:
        """ValueError saying what is wrong where ``path`` is not a pack (damaged, another file,
        games cut)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            facts = json.loads(str(arrays.pop("meta")))
            if not isinstance(facts, dict) or facts.get("format") != FORMAT:
                raise ValueError(
                    f"its format is {facts.get('format') if isinstance(facts, dict) else None!r}"
                )
            loaded = cls(facts, arrays)
            for name in ["training", "validation"] + [
                f"expert{n}" for n in range(len(facts["experts"]))
            ]:
                loaded._check(name)
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            EOFError,
            zipfile.BadZipFile,
            zlib.error,
        ) as exc:
            raise ValueError(f"{path}: not a pack of master games ({exc})") from None
        return loaded

    def _check(self, name: str) -> None:
        codes, starts = self.arrays[name], self.arrays[f"{name}_starts"]
        if (
            codes.dtype != np.uint8
            or len(starts) < 1
            or starts[0] != 0
            or starts[-1] != len(codes)
            or (np.diff(starts) < 0).any()
        ):
            raise ValueError(f"its games {name} are cut")
        if name.startswith("expert") and (
            len(self.arrays[f"{name}_wanted"]) != len(codes)
            or len(self.arrays[f"{name}_latest"]) != len(starts) - 1
        ):
            raise ValueError(f"its marks of {name}'s moves do not fit the games")

    def games(self, name: str) -> list[bytes]:
        codes, starts = self.arrays[name], self.arrays[f"{name}_starts"]
        return [codes[a:b].tobytes() for a, b in zip(starts[:-1], starts[1:])]

    def wanted(self, name: str) -> list[np.ndarray]:
        wanted, starts = self.arrays[f"{name}_wanted"], self.arrays[f"{name}_starts"]
        return [wanted[a:b] for a, b in zip(starts[:-1], starts[1:])]
