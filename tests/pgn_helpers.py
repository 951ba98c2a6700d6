"""PGN files the tests make and read: games written out, the first games of a shipped expert's file,
and the games of a round robin by their round and players."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
from uci_helpers import ROOT

KOSTENIUK = ROOT / "data" / "experts" / "kosteniuk-2200.pgn"


def game(white: str, black: str, moves: str, **tags: str) -> str:
    """One PGN game."""
    headers = {
        "Event": "Test",
        "Site": "Here",
        "Date": "2020.01.01",
        "White": white,
        "Black": black,
        "Result": "*",
        **tags,
    }
    return "".join(f'[{k} "{v}"]\n' for k, v in headers.items()) + f"\n{moves}\n\n"


def pgn(tmp_path: Path, *games: str, name: str = "in.pgn") -> Path:
    """A PGN file ``name`` in ``tmp_path`` holding ``games``."""
    path = tmp_path / name
    path.write_text("".join(games), encoding="utf-8")
    return path


def few_games(path: Path, games: int = 24) -> Path:
    """The first ``games`` games of Kosteniuk's PGN."""
    parts = KOSTENIUK.read_text(encoding="utf-8").split("\n\n[Event ")
    path.write_text("\n\n[Event ".join(parts[:games]) + "\n", encoding="utf-8")
    return path


def games_of(path: Path) -> dict[tuple[str, str, str], str]:
    """{(Round, White, Black): PGN text without the Date tag} of a PGN file."""
    out = {}
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            h = game.headers
            del h["Date"]
            out[h["Round"], h["White"], h["Black"]] = str(game)
    return out
