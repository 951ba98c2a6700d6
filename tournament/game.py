"""One game between two sides under the experiment's rules and real clocks (experiment.md §1).

The game ends at once on checkmate, stalemate, insufficient material, threefold repetition
(the position occurred three times) or the fifty-move rule (100 half-moves without a capture
or pawn move), all without a claim, as cutechess-cli adjudicates. A side's thinking time is
measured around its ``choose`` call and charged to its clock; a flag fall loses, or draws
when the opponent has no mating material.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import chess

from engine.agents.base import Decision
from engine.outside.clock import Clock, TimeControl
from tournament.players import Side

#: PGN ``Termination`` values: of python-chess's terminations, and the tournament's own.
TERMINATIONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
}
TIME_FORFEIT = "time forfeit"
ILLEGAL_MOVE = "rules infraction"
UNTERMINATED = "unterminated"

#: The points White scores for each game result (Black scores the rest of 1).
WHITE_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def points(result: str, white: bool) -> float:
    """The points of a game ``result`` for White (``white``) or for Black."""
    return WHITE_POINTS[result] if white else 1 - WHITE_POINTS[result]


@dataclass
class GameRecord:
    """How a game went: the final board (with its moves), result and why, and the clocks."""

    board: chess.Board
    clock: Clock
    result: str = "*"
    termination: str = UNTERMINATED

    @property
    def plies(self) -> int:
        return len(self.board.move_stack)


def outcome(board: chess.Board) -> chess.Outcome | None:
    """How the rules end the game on ``board``, else None: python-chess's outcome, and at once
    (not on a player's claim, as python-chess has it) a threefold repetition or the fifty-move
    rule, so that engines cannot shuffle on (experiment.md)."""
    found = board.outcome()
    if found is None and board.is_repetition(3):
        found = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    elif found is None and board.halfmove_clock >= 100:
        found = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    return found


def _loss(colour: chess.Color) -> str:
    return "0-1" if colour == chess.WHITE else "1-0"


def play_game(
    white: Side,
    black: Side,
    control: TimeControl,
    *,
    board: chess.Board | None = None,
    max_plies: int | None = None,
    timer: Callable[[], float] = time.perf_counter,
    on_move: Callable[[chess.Board, chess.Move, Decision, float], None] | None = None,
) -> GameRecord:
    """Play from ``board`` (default: the standard start) until the rules or ``max_plies`` end it.

    ``on_move(board_before, move, decision, seconds)`` is called after every legal move.
    """
    board = board.copy() if board is not None else chess.Board()
    clock = Clock(control)
    record = GameRecord(board, clock)
    sides = {chess.WHITE: white, chess.BLACK: black}
    while (ended := outcome(board)) is None:
        if max_plies is not None and record.plies >= max_plies:
            return record
        colour = board.turn
        limits = clock.limits(colour)
        start = timer()
        decision = sides[colour].choose(board, limits=limits)
        elapsed = timer() - start
        if not clock.charge(colour, elapsed):
            opponent_cannot_mate = board.has_insufficient_material(not colour)
            record.result = "1/2-1/2" if opponent_cannot_mate else _loss(colour)
            record.termination = TIME_FORFEIT
            return record
        move = decision.move
        if move is None or not board.is_legal(move):
            record.result, record.termination = _loss(colour), ILLEGAL_MOVE
            return record
        if on_move is not None:
            on_move(board, move, decision, elapsed)
        board.push(move)
    record.result, record.termination = ended.result(), TERMINATIONS[ended.termination]
    return record
