"""The expert's repertoire as a Polyglot opening book (``.bin``), the format every chess GUI reads.

A casebase keeps the expert's positions without castling rights or en-passant squares, which
Polyglot's keys need; so each game is replayed from the standard start: the expert's moves are
the cases', and each opponent move between two cases is the one legal move that turns the
board after the expert's move into the next case's board. A game that does not start from the
standard position, or whose cases skip a ply or do not chain, gives its moves up to the break.

A book entry is a position (Polyglot's Zobrist key), a move and a weight: how many of the
expert's games played that move there (``--by-results``: 2 for a game the expert won, 1 for
a draw, 0 for a loss, as Polyglot's own ``make-book`` counts). Moves played in fewer than
``min_games`` games are left out, and only the first ``max_ply`` half-moves of each game count.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import chess
import chess.polyglot
import numpy as np

from casebase.format import Casebase
from common.boards import bitboards
from common.files import atomic_file

#: Half-moves of each game that go into the book unless told otherwise.
DEFAULT_MAX_PLY = 30
#: The most a Polyglot weight can hold (16 bits); larger counts are scaled down in proportion.
MAX_WEIGHT = 0xFFFF
#: The points of a game for ``--by-results``, by the expert's result.
RESULT_POINTS = {"win": 2, "draw": 1, "loss": 0}


@dataclass
class Book:
    """The expert's moves by position key: in how many games each was played there, the expert's
    points in those games (2 a win, 1 a draw), and one full board of each position."""

    games: dict[int, Counter[chess.Move]] = field(default_factory=lambda: defaultdict(Counter))
    points: dict[int, Counter[chess.Move]] = field(default_factory=lambda: defaultdict(Counter))
    boards: dict[int, chess.Board] = field(default_factory=dict)
    #: Games read, and games whose cases chained from the standard start to their last one in range.
    read: int = 0
    replayed: int = 0


def _expert_result(result: str, white: bool) -> str | None:
    points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)
    if points is None:
        return None
    mine = points if white else 1 - points
    return "win" if mine == 1 else "draw" if mine == 0.5 else "loss"


def game_cases(casebase: Casebase, max_ply: int) -> Iterator[list[int]]:
    """The case indices of each game within ``max_ply``, by ply, games in file order (a numpy
    scan: a masters casebase holds millions of cases)."""
    early = np.flatnonzero(casebase.ply < max_ply)
    order = early[np.lexsort((casebase.ply[early], casebase.game[early]))]
    starts = np.flatnonzero(np.diff(casebase.game[order])) + 1
    for cases in np.split(order, starts):
        if len(cases):
            yield cases.tolist()


def _replay(
    casebase: Casebase,
    cases: list[int],
    board: chess.Board | None = None,
) -> Iterator[tuple[chess.Board, chess.Move]]:
    """The expert's positions (full boards) and moves of one game, until its cases stop chaining;
    played on ``board`` (a new one at the standard start where None)."""
    board = chess.Board() if board is None else board
    for i in cases:
        ply = int(casebase.ply[i])
        case = casebase.board(i)
        wanted = bitboards(case)
        if len(board.move_stack) == ply - 1:  # the opponent's move in between
            found = []
            for move in board.legal_moves:
                board.push(move)
                if bitboards(board) == wanted:
                    found.append(move)
                board.pop()
            if len(found) != 1:
                return
            board.push(found[0])
        if len(board.move_stack) != ply or board.turn != case.turn or bitboards(board) != wanted:
            return
        move = casebase.move(i)
        if move not in board.legal_moves:
            return
        yield board.copy(stack=False), move
        board.push(move)


#: One game's expert moves from the standard start: (position with its castling and en-passant
#: rights, the move), in order.
GameMoves = list[tuple[chess.Board, chess.Move]]


def replayed_games(
    casebase: Casebase, max_ply: int = DEFAULT_MAX_PLY
) -> Iterator[tuple[list[int], GameMoves]]:
    """Per game, its cases in the first ``max_ply`` half-moves, and the expert's moves among
    them that chain from the standard start."""
    for cases in game_cases(casebase, max_ply):
        yield cases, list(_replay(casebase, cases))


def replayed_lines(
    casebase: Casebase, max_ply: int = DEFAULT_MAX_PLY
) -> Iterator[tuple[list[int], list[chess.Move]]]:
    """Per game, its cases in the first ``max_ply`` half-moves, and its moves from the standard
    start, both sides', up to the expert's last move that chains (the opponent's found in the
    replay)."""
    for cases in game_cases(casebase, max_ply):
        yield cases, replayed_line(casebase, cases)


def replayed_line(casebase: Casebase, cases: list[int]) -> list[chess.Move]:
    """The moves from the standard start of the game of ``cases`` (one game's, by ply), both sides',
    up to the expert's last move that chains."""
    board, kept = chess.Board(), 0
    for _ in _replay(casebase, cases, board):
        kept = len(board.move_stack) + 1  # the expert's move, pushed when the replay goes on
    return board.move_stack[:kept]


def expert_moves(casebase: Casebase) -> Iterator[tuple[int, chess.Board, chess.Move]]:
    """Each of the expert's positions with its game's moves behind it (the board's move stack), the
    game's number and the move played; a game's positions end where its cases stop chaining from the
    standard start."""
    plies = np.asarray(casebase.ply)
    for cases, line in replayed_lines(casebase, int(plies.max(initial=0)) + 1):
        own = set(plies[cases].tolist())
        game, board = int(casebase.game[cases[0]]), chess.Board()
        for move in line:
            if len(board.move_stack) in own:
                yield game, board, move
            board.push(move)


def expert_result(casebase: Casebase, cases: list[int]) -> str | None:
    """The expert's result in the game of ``cases`` (``win``, ``draw``, ``loss``; None: unknown)."""
    row = int(casebase.game[cases[0]])
    return _expert_result(str(casebase.games["result"][row]), bool(casebase.turn[cases[0]]))


def repertoire(casebase: Casebase, *, max_ply: int = DEFAULT_MAX_PLY) -> Book:
    """Every move the expert played in the first ``max_ply`` half-moves of a game."""
    book = Book()
    for cases, moves in replayed_games(casebase, max_ply):
        book.read += 1
        result = expert_result(casebase, cases)
        for board, move in moves:
            key = chess.polyglot.zobrist_hash(board)
            book.boards.setdefault(key, board)
            book.games[key][move] += 1
            book.points[key][move] += RESULT_POINTS[result] if result is not None else 0
        book.replayed += len(moves) == len(cases)
    return book


def raw_move(board: chess.Board, move: chess.Move) -> int:
    """Polyglot's 16-bit move: to, from, promotion piece; castling as the king taking its rook."""
    to_square = move.to_square
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        to_square = chess.square(7 if chess.square_file(move.to_square) > 4 else 0, rank)
    promotion = (move.promotion - 1) if move.promotion else 0
    return to_square | (move.from_square << 6) | (promotion << 12)


def write_book(
    path: str | os.PathLike[str],
    casebase: Casebase,
    *,
    min_games: int = 1,
    max_ply: int = DEFAULT_MAX_PLY,
    by_results: bool = False,
) -> tuple[Book, int]:
    """Write the expert's book to ``path`` (atomically); the book and how many entries it holds.
    Each entry's weight is its games (or, ``by_results``, its points), scaled into 16 bits."""
    if min_games < 1 or max_ply < 1:
        raise ValueError("--min-games and --max-ply must be at least 1")
    book = repertoire(casebase, max_ply=max_ply)
    entries: list[tuple[int, int, int]] = []
    for key, games in book.games.items():
        weights = book.points[key] if by_results else games
        kept = {m: weights[m] for m, n in games.items() if n >= min_games and weights[m] > 0}
        scale = max(1.0, max(kept.values(), default=0) / MAX_WEIGHT)
        entries += [
            (key, raw_move(book.boards[key], m), max(1, int(w / scale))) for m, w in kept.items()
        ]
    entries.sort(key=lambda e: (e[0], -e[2], e[1]))
    with atomic_file(path) as f:
        for key, move, weight in entries:
            f.write(chess.polyglot.ENTRY_STRUCT.pack(key, move, weight, 0))
    return book, len(entries)
