"""The moves the protocol plays itself when no agent can choose (none was made, or it raised): a
uniformly random legal move, among the go's ``searchmoves`` where some are legal; a GUI always gets
a legal ``bestmove``."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    from engine.agents.base import Decision


def legal_after(board: chess.Board, move: chess.Move, reply: chess.Move) -> bool:
    """Whether ``reply`` is legal once ``move`` is played (a ponder move worth sending)."""
    after = board.copy(stack=False)
    after.push(move)
    return reply in after.legal_moves


def candidates(board: chess.Board, moves: list[chess.Move] | None) -> list[chess.Move]:
    """The legal moves among ``moves`` (go searchmoves), or every legal move if none of them is (or
    None)."""
    listed = [move for move in moves or () if board.is_legal(move)]
    return listed or list(board.legal_moves)


def uniform_move(board: chess.Board, moves: list[chess.Move] | None) -> chess.Move | None:
    """A uniformly random legal move among ``moves`` (see :func:`candidates`); None if there is
    none."""
    among = candidates(board, moves)
    return among[secrets.randbelow(len(among))] if among else None


def uniform_decision(
    board: chess.Board, error: str | None, moves: list[chess.Move] | None = None
) -> Decision:
    """A uniformly random legal move (among the go's searchmoves ``moves``, if given), for when no
    agent could choose (none was made, or it raised ``error``)."""
    from engine.agents.base import Decision, Reason
    from engine.agents.record import Named, NoAgent, NoMove, Record, Uniform

    among = candidates(board, moves)
    if not among:
        return Decision(move=None, reason=Reason.NO_MOVE, record=Record([NoAgent(error)], NoMove()))
    move = among[secrets.randbelow(len(among))]
    return Decision(
        move=move,
        reason=Reason.RANDOM,
        record=Record([NoAgent(error)], Uniform(Named.of(board, move), len(among))),
    )
