"""The games the master network is trained on (``python -m learn master``): the sources' games
without any game of the shipped experts (data/experts.tsv, their names matched as the casebase
builder matches them) and without duplicates (the same date and moves), in a seeded order, split by
game into training and validation."""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from casebase.names import NameMatcher
from casebase.sources import read_source, split_games

EXPERTS = Path(__file__).resolve().parent.parent / "data" / "experts.tsv"
_TAG = re.compile(r'^\[(White|Black|Date)\s+"(.*)"\s*\]\s*$', re.MULTILINE)
#: Move numbers, results, comments, variations and annotations: not the moves.
_NOT_MOVES = re.compile(r"\{[^}]*\}|\([^()]*\)|\$\d+|\d+\.(\.\.)?|1-0|0-1|1/2-1/2|\*|[!?]+")


def expert_matchers(registry: Path = EXPERTS) -> list[NameMatcher]:
    """A matcher of each shipped expert's name (data/experts.tsv)."""
    with open(registry, newline="", encoding="utf-8") as f:
        return [NameMatcher(row["player"]) for row in csv.DictReader(f, delimiter="\t")]


def moves_key(game: str) -> str:
    """A game's moves alone (no numbers, comments or result), to know the same game twice."""
    movetext = "\n".join(line for line in game.splitlines() if not line.startswith("["))
    return " ".join(_NOT_MOVES.sub(" ", movetext).split())


@dataclass
class Games:
    """The games of the sources, split by game into training and validation."""

    training: list[str]
    validation: list[str]
    read: int
    experts: int
    duplicates: int


def select_games(
    sources: Sequence[Path], validation_games: int, seed: int, registry: Path = EXPERTS
) -> Games:
    """The sources' games without the experts' and without duplicates, in a seeded order, the first
    ``validation_games`` held out."""
    matchers = expert_matchers(registry)
    kept: dict[str, str] = {}
    read = experts = 0
    for source in sources:
        for game in split_games(read_source(source).text):
            read += 1
            tags = dict(_TAG.findall(game))
            if any(m(tags.get("White", "")) or m(tags.get("Black", "")) for m in matchers):
                experts += 1
                continue
            kept.setdefault(f"{tags.get('Date', '?')}|{moves_key(game)}", game)
    games = list(kept.values())
    order = np.random.default_rng(seed).permutation(len(games))
    if len(games) <= validation_games:
        raise ValueError(
            f"{len(games)} games once the experts' and duplicates are dropped: no more than"
            f" the {validation_games} held out for validation"
        )
    shuffled = [games[i] for i in order]
    return Games(
        shuffled[validation_games:],
        shuffled[:validation_games],
        read,
        experts,
        read - experts - len(games),
    )
