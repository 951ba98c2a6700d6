"""A run's directory: what survives an interruption, and files written atomically.

    DIR/tournament.json   the run's settings (a resumed run must match them)
    DIR/games/NNNNN.pgn   one finished game each, NNNNN its place in the schedule
    DIR/games/NNNNN.json  its sides' effort: moves, thinking seconds, engine-reported nodes
    DIR/results.pgn       all games in schedule order, assembled when the run completes

A game file appears only complete (temporary file, fsync, rename), so after a crash every
file present is a finished game and every missing one is replayed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import chess.pgn

from common.files import write_atomic
from tournament.schedule import GameSpec

MANIFEST = "tournament.json"
RESULTS = "results.pgn"


class RunDirectory:
    """The files of one run in ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.games = self.path / "games"

    def game_path(self, index: int) -> Path:
        return self.games / f"{index:05d}.pgn"

    def start(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Record a new run's settings, or check that they match the run already here.

        Returns the manifest in force (an old run keeps its original date).
        """
        file = self.path / MANIFEST
        if file.exists():
            old = json.loads(file.read_text(encoding="utf-8"))
            differing = sorted(
                k for k in set(old) | set(manifest) if k != "date" and old.get(k) != manifest.get(k)
            )
            if differing:
                raise ValueError(
                    f"{self.path} holds another tournament (it differs in {', '.join(differing)}):"
                    " use another --out directory, or delete this one to start afresh"
                )
            return old
        write_atomic(file, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        return manifest

    def manifest(self) -> dict[str, Any] | None:
        file = self.path / MANIFEST
        return json.loads(file.read_text(encoding="utf-8")) if file.exists() else None

    def save_game(self, index: int, pgn: str) -> None:
        write_atomic(self.game_path(index), pgn)

    def stats_path(self, index: int) -> Path:
        return self.games / f"{index:05d}.json"

    def save_stats(self, index: int, stats: dict[str, Any]) -> None:
        """Write a game's effort (before its PGN, so that a finished game always has it)."""
        write_atomic(self.stats_path(index), json.dumps(stats, indent=1, sort_keys=True) + "\n")

    def finished(self, specs: list[GameSpec]) -> set[int]:
        """Indexes of the scheduled games already played (and matching their schedule entry)."""
        done = set()
        for spec in specs:
            path = self.game_path(spec.index)
            if path.exists() and _matches(path, spec):
                done.add(spec.index)
        return done

    def assemble(self, specs: list[GameSpec]) -> Path:
        """Write results.pgn: every finished game, in schedule order."""
        parts = [
            self.game_path(s.index).read_text(encoding="utf-8")
            for s in specs
            if self.game_path(s.index).exists()
        ]
        target = self.path / RESULTS
        write_atomic(target, "".join(parts))
        return target


def _matches(path: Path, spec: GameSpec) -> bool:
    with open(path, encoding="utf-8") as f:
        headers = chess.pgn.read_headers(f)
    if headers is None:
        return False
    expected = {
        "Round": spec.round_tag,
        "White": spec.white,
        "Black": spec.black,
        "WeightConfig": spec.config.label,
        "WhiteSeed": str(spec.white_seed),
        "BlackSeed": str(spec.black_seed),
    }
    return all(headers.get(k) == v for k, v in expected.items())
