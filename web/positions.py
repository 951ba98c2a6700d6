"""Positions the page sets up: a FEN, or a PGN pasted or uploaded, read by python-chess (which
rules on what is legal), with messages a person can act on when they are not."""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.pgn

from common.text import clip

#: The most plies of a PGN listed (a longer game is cut; the positions are for choosing one).
MAX_PLIES = 1000
#: How much of a FEN a message repeats (a 900 kB one is not sent back whole).
ECHO = 100


class PositionError(ValueError):
    """A FEN or PGN the page cannot use; the message says why."""


def board_from_fen(fen: str) -> chess.Board:
    """The position of ``fen``, if it is one a game can be played from."""
    text = " ".join(str(fen).split())
    if not text:
        raise PositionError("empty FEN")
    try:
        board = chess.Board(text)
    except ValueError as exc:
        # exc repeats it
        raise PositionError(f"malformed FEN {clip(text, ECHO)!r}: {clip(str(exc), ECHO)}") from None
    if board.has_chess960_castling_rights():
        raise PositionError(
            "Chess960 is not supported (castling rights of a Chess960 position in"
            f" {clip(text, ECHO)!r})"
        )
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = [
            (flag.name or "").lower().replace("_", " ")
            for flag in chess.Status
            if flag and flag in status
        ]
        raise PositionError(f"impossible position {clip(text, ECHO)!r}: {', '.join(problems)}")
    return board


def positions_of_fen(fen: str) -> dict[str, Any]:
    """A FEN's one position, as :func:`positions_of_pgn` gives a game's."""
    return {"headers": {}, "positions": [{"ply": 0, "san": None, "fen": board_from_fen(fen).fen()}]}


def positions_of_pgn(text: str) -> dict[str, Any]:
    """The first game of a PGN: its headers, and every position of its main line (FEN, the move to
    it). A text whose first word holds a ``/`` is a FEN, perhaps with a typo: it is read as one, to
    say what is wrong."""
    if not text.strip():
        raise PositionError("empty PGN")
    if "/" in text.split()[0] and not text.lstrip().startswith("["):
        return positions_of_fen(text)
    try:
        game = chess.pgn.read_game(io.StringIO(text))
    except (ValueError, UnicodeError) as exc:
        raise PositionError(f"malformed PGN: {clip(str(exc))}") from None
    if game is None:
        raise PositionError("no game in this PGN")
    if game.errors:
        # it repeats the text it failed on
        raise PositionError(f"malformed PGN: {clip(str(game.errors[0]))}")
    board = game.board()
    if board.chess960:
        raise PositionError(
            "Chess960 is not supported (this PGN's variant is"
            f" {game.headers.get('Variant', 'Chess960')})"
        )
    positions = [{"ply": 0, "san": None, "fen": board.fen()}]
    for move in game.mainline_moves():
        if len(positions) > MAX_PLIES:
            break
        san = board.san(move)
        board.push(move)
        positions.append({"ply": len(positions), "san": san, "fen": board.fen()})
    if (
        len(positions) == 1
        and not game.headers.get("FEN")
        and not any(
            game.headers.get(k, "?") not in ("?", "*", "") for k in ("White", "Black", "Event")
        )
    ):
        raise PositionError("malformed PGN: no moves and no headers in it")
    headers = {
        key: game.headers.get(key, "") for key in ("White", "Black", "Event", "Date", "Result")
    }
    return {"headers": headers, "positions": positions}
