"""Where a case came from, for explanations: its game's tags, its ply, the game's index in its
source file and that file's name (:meth:`casebase.format.Casebase.source`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CaseSource:
    """Where a case came from, for explanations."""

    white: str
    black: str
    event: str
    site: str
    date: str
    result: str
    timecontrol: str
    ply: int
    game_index: int
    source_file: str

    @property
    def move_number(self) -> int:
        """Full-move number of the case's move, counted from the game's first move."""
        return self.ply // 2 + 1
