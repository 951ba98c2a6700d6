"""The phase of a game: the one definition the fidelity tables, the error profile and the move
explanations share.

Judged on the position before the move, with ``ply`` the half-moves played in the game:

- *opening*: the first :data:`OPENING_PLIES` half-moves (a game from the initial position:
  each side's first 12 moves);
- *endgame*: otherwise, when the non-pawn material of both sides together (knight and bishop
  3, rook 5, queen 9) is at most :data:`ENDGAME_MATERIAL`, e.g. a rook and a minor piece each,
  or a queen and a minor piece each (the start has 62);
- *middlegame*: the rest.

A game started from a FEN counts its plies from the FEN's move number (python-chess's
``Board.ply``), which tells little (a composed position is often "move 1"): such a game is never
in the opening where its material is an endgame's (:func:`game_phase`, the move records').
"""

from __future__ import annotations

from enum import StrEnum

import chess
import numpy as np

from casebase.format import encode_board


class Phase(StrEnum):
    """A game's phase (a string, so it reads and stores as its name)."""

    OPENING = "opening"
    MIDDLEGAME = "middlegame"
    ENDGAME = "endgame"


#: The phases in the order of a game (the tables' columns).
PHASES: tuple[Phase, ...] = tuple(Phase)
OPENING_PLIES = 24
ENDGAME_MATERIAL = 26
#: The earliest full move whose moves are judged (the error profile's sample, the chooser's
#: records): the opening is the player's preparation, not his judgement (Regan skips moves 1-8 too).
FIRST_MOVE = 9
#: The values of knights, bishops, rooks and queens (casebase.format.BITBOARDS[3:7]).
PIECE_VALUES = np.array([3, 3, 5, 9])


def non_pawn_material(boards: np.ndarray) -> np.ndarray:
    """Knights and bishops 3, rooks 5, queens 9, both sides together, of encoded boards (N x 8)."""
    return (np.bitwise_count(np.asarray(boards)[:, 3:7]).astype(np.int64) * PIECE_VALUES).sum(
        axis=1
    )


def phases_of(boards: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """The phase names of encoded boards (N x 8, :func:`casebase.format.encode_board`) at
    ``ply``."""
    endgame = non_pawn_material(boards) <= ENDGAME_MATERIAL
    middle = np.where(endgame, Phase.ENDGAME.value, Phase.MIDDLEGAME.value)
    return np.where(np.asarray(ply) < OPENING_PLIES, Phase.OPENING.value, middle)


def board_material(board: chess.BaseBoard) -> int:
    """The non-pawn material of one position, both sides together (:func:`non_pawn_material`)."""
    return int(non_pawn_material(encode_board(board)[None])[0])


def phase(board: chess.BaseBoard, ply: int) -> Phase:
    """The phase of one position, ``ply`` half-moves into its game."""
    return Phase(str(phases_of(encode_board(board)[None], np.array([ply]))[0]))


def game_phase(board: chess.Board) -> Phase:
    """The phase of the position ``board`` is at in its own game (its move stack's root): as
    :func:`phase` at ``board.ply()``, except that a game from a FEN with an endgame's material is an
    endgame whatever its move number says (a queen and a rook against a knight at "move 1")."""
    named = phase(board, board.ply())
    if (
        named is Phase.OPENING
        and board.root().board_fen() != chess.STARTING_BOARD_FEN
        and board_material(board) <= ENDGAME_MATERIAL
    ):
        return Phase.ENDGAME
    return named
