"""Checking a table against python-chess's rules: on sampled positions, each value must be the
best of its successors' values (a mate is a mate, a draw has a drawing move or none to win)."""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import numpy as np

from endgame.retrograde import ENDINGS
from endgame.tablebase import Probe, Tablebase


@dataclass
class CheckReport:
    """How many sampled positions were checked, and the ones that disagree (as FEN and reason)."""

    ending: str
    positions: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    disagreements: list[str] = field(default_factory=list)


def random_position(
    ending: str, rng: np.random.Generator, *, strong: chess.Color | None = None
) -> chess.Board:
    """A random legal position of ``ending`` (either side to move, the stronger side either
    colour unless ``strong`` says)."""
    while True:
        strong_side = bool(rng.integers(2)) if strong is None else strong
        squares = rng.choice(64, size=2 + len(ENDINGS[ending]), replace=False)
        board = chess.Board(None)
        board.set_piece_at(int(squares[0]), chess.Piece(chess.KING, strong_side))
        board.set_piece_at(int(squares[1]), chess.Piece(chess.KING, not strong_side))
        for square, letter in zip(squares[2:], ENDINGS[ending]):
            board.set_piece_at(
                int(square), chess.Piece(chess.Piece.from_symbol(letter).piece_type, strong_side)
            )
        board.turn = bool(rng.integers(2))
        if board.is_valid():
            return board


def expected(board: chess.Board, tables: Tablebase) -> Probe:
    """The verdict that follows from the successors' verdicts (one ply of minimax)."""
    if board.is_checkmate():
        return Probe(False, 0)
    children: list[Probe] = []
    for move in board.legal_moves:
        board.push(move)
        verdict = tables.probe(board)
        board.pop()
        # a capture into a bare ending
        children.append(verdict if verdict is not None else Probe(None, 0))
    wins = [c.plies + 1 for c in children if c.wins is False]
    if wins:
        return Probe(True, min(wins))
    if not children or any(c.wins is None for c in children):
        return Probe(None, 0)
    return Probe(False, max(c.plies + 1 for c in children))


def check(ending: str, tables: Tablebase, positions: int, seed: int = 0) -> CheckReport:
    """Compare ``positions`` random positions of ``ending`` with their successors."""
    rng = np.random.default_rng(seed)
    report = CheckReport(ending)
    for _ in range(positions):
        board = random_position(ending, rng)
        verdict = tables.probe(board)
        want = expected(board, tables)
        report.positions += 1
        if verdict is None or verdict != want:
            report.disagreements.append(f"{board.fen()}: table {verdict}, successors {want}")
            continue
        if verdict.wins:
            report.wins += 1
        elif verdict.wins is None:
            report.draws += 1
        else:
            report.losses += 1
    return report
