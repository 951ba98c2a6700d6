"""Positions for the search's and the guided agent's tests."""

from __future__ import annotations

import random

import chess


def random_positions(count: int, seed: int, plies: tuple[int, int] = (1, 160)) -> list[chess.Board]:
    """Positions of seeded random games, stopped after a random number of plies in ``plies``
    (checks, hanging pieces and promotions included; never a finished game)."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(*plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            boards.append(board)
    return boards


def shuffled(times: int) -> chess.Board:
    """White (a rook and a pawn up) and Black shuffle Ra1-b1 / Kh8-g8 back ``times`` times:
    after two rounds Rb1 repeats a position for the third time, after one for the second."""
    board = chess.Board("7k/8/8/8/8/8/6P1/R5K1 w - - 0 1")
    for _ in range(times):
        for uci in ("a1b1", "h8g8", "b1a1", "g8h8"):
            board.push_uci(uci)
    return board
