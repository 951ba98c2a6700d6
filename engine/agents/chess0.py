"""Chess0's two engines (Camacho 2009; docs/endgames.md §3), played with no casebase.

- ``classic``: fixed-depth alpha-beta over a static evaluation, material plus fixed square
  values with the centre worth most; no quiescence (the horizon's leaves are static), no
  randomness: against itself it plays the same game every time.
- ``adaptive``: the same, plus what Chess0's adaptive engine added: a randomisation threshold
  (every root move within ``window`` cp of the best is kept and one is drawn uniformly),
  depth by phase (:func:`phase_depth`), MVV/LVA ordering, quiescence over captures and
  promotions, and square values that follow the opponent's king (the "attack quanta": a
  piece is worth more the nearer it stands to that king, by Euclidean distance).

Both use :class:`engine.search.alphabeta.Searcher` for the alpha-beta itself (its captures come
first in MVV/LVA order for both styles; at a fixed depth the order changes the speed, not the move
chosen), with the evaluation here.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import replace

import chess
import numpy as np

from engine.agents import defaults
from engine.agents.base import Decision, IterationCallback, Reason
from engine.agents.chess0_options import Chess0Settings
from engine.agents.defaults import Chess0Style
from engine.agents.modes import Resources
from engine.agents.record import Chess0, Named, Record
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget, SearchLimits, search_budget

MATERIAL = {
    chess.PAWN: 100,
    chess.KNIGHT: 300,
    chess.BISHOP: 300,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}
#: Centipawns per ring towards the centre (edge 0, centre four squares 3 rings in).
RING = 5
#: Centipawns per unit of closeness to the opponent's king (8 minus the Euclidean distance).
QUANTUM = 3


def _ring(square: int) -> int:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return 3 - int(max(abs(file - 3.5), abs(rank - 3.5)))


#: Material plus the fixed square value, by piece type and square (the same for both colours).
_STATIC = {t: [v + RING * _ring(s) for s in chess.SQUARES] for t, v in MATERIAL.items()}
_STATIC[chess.KING] = [0] * 64  # the king has no square value
#: The attack quanta, by (piece square, opponent king square).
_QUANTA = [
    [max(0, round(QUANTUM * (8 - math.dist(divmod(a, 8), divmod(b, 8))))) for b in chess.SQUARES]
    for a in chess.SQUARES
]


def classic_evaluation(board: chess.Board, _material: int = 0) -> int:
    """Material plus fixed square values, from the side to move (Chess0's classic heuristic)."""
    total = 0
    for piece_type, table in _STATIC.items():
        mask = board.pieces_mask(piece_type, chess.WHITE)
        for square in chess.scan_forward(mask):
            total += table[square]
        mask = board.pieces_mask(piece_type, chess.BLACK)
        for square in chess.scan_forward(mask):
            total -= table[square]
    return total if board.turn else -total


def adaptive_evaluation(board: chess.Board, _material: int = 0) -> int:
    """:func:`classic_evaluation` plus the attack quanta of the knights, bishops, rooks and
    queens around the opponent's king."""
    total = classic_evaluation(board) if board.turn else -classic_evaluation(board)
    for colour, sign in ((chess.WHITE, 1), (chess.BLACK, -1)):
        king = board.king(not colour)
        if king is None:
            continue
        men = board.occupied_co[colour] & ~board.pawns & ~board.kings
        total += sign * sum(_QUANTA[square][king] for square in chess.scan_forward(men))
    return total if board.turn else -total


def phase_depth(board: chess.Board, base: int, deviation: int) -> int:
    """Chess0's depth by phase, as we read its formula: ``base - deviation`` in the opening
    (the first 10 moves), ``base + (8 - pieces)`` in the endgame (fewer than 8 knights,
    bishops, rooks and queens left), at most ``2 * base``; ``base`` otherwise."""
    pieces = chess.popcount(board.occupied & ~board.pawns & ~board.kings)
    if board.fullmove_number <= 10 and pieces >= 8:
        return max(1, base - deviation)
    if pieces < 8:
        return min(base + 8 - pieces, 2 * base)
    return base


def make_chess0(_: object, settings: Chess0Settings, __: Resources) -> Chess0Agent:
    """Chess0's engine of ``settings`` (no casebase, nothing loaded)."""
    return Chess0Agent(settings.style, settings.depth, settings.deviation, settings.window)


class Chess0Agent:
    """Chess0's classic or adaptive engine (implements :class:`engine.agents.base.Agent`)."""

    def __init__(
        self,
        style: str,
        depth: int = defaults.CHESS0_DEPTH,
        deviation: int = defaults.CHESS0_DEPTH_DEVIATION,
        window: int = defaults.CHESS0_WINDOW,
        seed: int = 0,
    ) -> None:
        try:
            self.style = Chess0Style(style)
        except ValueError:
            raise ValueError(
                f"Style must be one of {', '.join(Chess0Style)}, not {style!r}"
            ) from None
        if depth < 1 or deviation < 0 or window < 0:
            raise ValueError("Depth must be at least 1, DepthDeviation and Window at least 0")
        self.depth, self.deviation, self.window = depth, deviation, window
        adaptive = style == "adaptive"
        self.searcher = Searcher(
            quiescence=adaptive, evaluation=adaptive_evaluation if adaptive else classic_evaluation
        )
        self.new_game(seed)

    def new_game(self, seed: int | None = None) -> None:
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def choose(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move] | None = None,
        *,
        limits: SearchLimits | None = None,
        stop: threading.Event | None = None,
        on_iteration: IterationCallback | None = None,
    ) -> Decision:
        adaptive = self.style is Chess0Style.ADAPTIVE
        depth = phase_depth(board, self.depth, self.deviation) if adaptive else self.depth
        if limits is not None and limits.depth is not None:
            depth = min(depth, limits.depth)
        budget = search_budget(limits, board.turn, 0.0) if limits is not None else None
        result = self.searcher.search(
            board,
            Budget(
                depth=depth,
                nodes=None if limits is None else limits.nodes,
                movetime=None if budget is None else budget.movetime,
            ),
            stop=stop,
            moves=moves,
            tolerance=self.window if adaptive else 0,
            on_iteration=on_iteration,
        )
        if result.move is None:
            return Decision(
                move=None, reason=Reason.NO_MOVE, record=Record(detail=Chess0(self.style.value))
            )
        record = Chess0(
            self.style.value, result.depth, depth, Named.of(board, result.move), result.score
        )
        move = result.move
        if adaptive:
            sound = result.sound() or [result.move]
            move = sound[int(self.rng.integers(len(sound)))]
            record = replace(
                record, window=self.window, within=len(sound), drawn=Named.of(board, move)
            )
        return Decision(move=move, reason=Reason.SEARCH, record=Record(detail=record)).searched(
            result
        )
