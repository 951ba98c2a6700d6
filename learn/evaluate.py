"""How well a model names the moves of a casebase, with numpy inference over legal moves only."""

from __future__ import annotations

import os

import chess
import numpy as np

from casebase.format import Casebase
from engine.strength.profile import position
from engine.style.loader import load_model


def legal_top1(
    model_path: str | os.PathLike[str],
    casebase_path: str | os.PathLike[str],
    positions: int,
    batch: int = 256,
) -> tuple[float, int]:
    """The share of ``positions`` cases (spread evenly) whose move is the model's favourite
    legal move, and how many cases were asked."""
    model = load_model(model_path)
    casebase = Casebase.load(casebase_path)
    rows = np.linspace(0, len(casebase) - 1, min(positions, len(casebase))).astype(np.int64)
    hits = 0
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch].tolist()
        boards = [case_board(casebase, r) for r in part]
        priors = model.priors(boards, [list(b.legal_moves) for b in boards])
        hits += sum(
            max(p, key=p.__getitem__) == casebase.move(r) for p, r in zip(priors, part) if p
        )
    return hits / len(rows), len(rows)


def case_board(casebase: Casebase, row: int) -> chess.Board:
    """Case ``row``'s position with the castling rights its king and rooks allow, and the en passant
    square its move needs (a casebase keeps neither), so that the case's move is legal there: an lc0
    network knows only legal moves. (A case whose move is still not legal counts as a miss.)"""
    board = position(casebase, row)
    move = casebase.move(row)
    if (
        not board.is_legal(move)
        and board.piece_type_at(move.from_square) == chess.PAWN
        and chess.square_file(move.from_square) != chess.square_file(move.to_square)
        and board.piece_at(move.to_square) is None
    ):
        board.ep_square = move.to_square
    return board
