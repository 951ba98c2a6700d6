"""The shipped experts: their games (``experts/ID.pgn``), their names (``experts.tsv``) and the
sources their error profiles are fitted from without a judge (``profiles/ID*.jsonl``, ``games/`` for
the games record), all read from the source tree's ``data/``, or in an installed engine from the
copy of those files the wheel carries (``casebase/data/``, copied there by setup.py: the same paths
under it).

``make casebases`` builds them in a clone; ``cbr-chess setup`` (player/shipped.py) anywhere, with
the same options, into the casebase folder (common/paths.py).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from common.paths import PROJECT_ROOT, in_source_tree

#: The registry of the shipped experts (id, the name ``casebase build --player`` takes, rating
#: system, ladder).
REGISTRY = "experts.tsv"
#: The round robin whose positions the shipped games records hold (the Makefile's GAMES_PGN).
ROUND_ROBIN = "games/round-robin-40-20.pgn"
#: The journals an expert's profile is fitted from, by the flag of ``python -m profiling`` that
#: takes each (the Makefile's PROFILE): the judged positions, the play-time record, the games
#: record's two journals.
JOURNALS = {
    "journal": "{id}.jsonl",
    "play": "{id}.play.jsonl",
    "engine_games_journal": "{id}.games.jsonl",
    "engine_games_play": "{id}.games.play.jsonl",
}


def shipped_data() -> Path:
    """Where the shipped experts' files are: ``data/`` of the source tree, else the wheel's copy."""
    return PROJECT_ROOT / "data" if in_source_tree() else Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class ShippedExpert:
    """One shipped expert: the id (the casebase's name), the player's name as the builder matches
    it, and where the games and the profile's sources are."""

    id: str
    player: str
    root: Path

    @property
    def pgn(self) -> Path:
        """The expert's games (the casebase's source)."""
        return self.root / "experts" / f"{self.id}.pgn"

    def journals(self) -> dict[str, Path]:
        """The profile's journals that ship, by :data:`JOURNALS`'s key; none without the judged
        positions (the expert then has no profile), and the games record only with both its
        journals."""
        found = {
            key: self.root / "profiles" / name.format(id=self.id) for key, name in JOURNALS.items()
        }
        found = {key: path for key, path in found.items() if path.is_file()}
        if "journal" not in found:
            return {}
        games = ("engine_games_journal", "engine_games_play")
        return (
            found
            if all(key in found for key in games)
            else {k: v for k, v in found.items() if k not in games}
        )

    @property
    def round_robin(self) -> Path:
        """The games whose positions the games record holds."""
        return self.root / ROUND_ROBIN


def shipped_experts(root: Path | None = None) -> dict[str, ShippedExpert]:
    """The shipped experts by id, in the registry's order (by rating), those whose games are there;
    none where the registry is not (a source copy without ``data/``)."""
    root = shipped_data() if root is None else root
    try:
        with open(root / REGISTRY, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except FileNotFoundError:
        return {}
    experts = (ShippedExpert(row["file"], row["player"], root) for row in rows)
    return {expert.id: expert for expert in experts if expert.pgn.is_file()}


def shipped_name(path: str | os.PathLike[str], folder: Path) -> str | None:
    """The shipped expert's id whose casebase ``path`` is in the casebase folder ``folder``, else
    None."""
    path = Path(path)
    if path.parent != folder or path.suffix != ".npz" or path.name.endswith(".profile.npz"):
        return None
    return path.stem if path.stem in shipped_experts() else None
