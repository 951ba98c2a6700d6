"""Move ordering for the search: captures by MVV-LVA, killers and history, generated in stages.

Ordering never changes a score (the search is exact alpha-beta), only how soon a node is
refuted: staged generation spares the quiet moves at nodes a capture or killer refutes.
"""

from __future__ import annotations

from collections.abc import Iterator

import chess

from engine.search.evaluation import PIECE_VALUES

#: How much more than its victim a capturer may be worth before quiescence leaves out its
#: capture of a defended piece (bishop takes knight stays in, knight takes pawn goes).
LOSING_MARGIN = 50

_VALUE = (0, *(PIECE_VALUES[t] for t in chess.PIECE_TYPES))
_BB_SQUARES = chess.BB_SQUARES
_PAWN, _QUEEN = chess.PAWN, chess.QUEEN


def noisy_moves(board: chess.Board, *, every: bool = False) -> list[chess.Move]:
    """Captures and non-capturing promotions, MVV-LVA first.

    For quiescence (``every`` False) under-promotions, quiet promotions but to a queen and
    *losing* captures are left out. A capture is losing when the capturer is worth more than
    its victim by over :data:`LOSING_MARGIN` and the opponent defends the square (a knight
    taking a defended pawn, a queen a defended rook): in the tree it can only lose material on
    the recapture, and searching it costs most of a quiescence search's nodes.
    """
    keyed = []
    type_at = board.piece_type_at
    them = not board.turn
    for move in board.generate_legal_captures():
        victim = type_at(move.to_square) or _PAWN  # en passant
        attacker = type_at(move.from_square) or _PAWN
        if not every and (
            (move.promotion and move.promotion != _QUEEN)
            or (
                not move.promotion
                and _VALUE[attacker] > _VALUE[victim] + LOSING_MARGIN
                and board.is_attacked_by(them, move.to_square)
            )
        ):
            continue
        keyed.append((victim * 8 - attacker + (move.promotion or 0) * 8, move))
    us = board.occupied_co[board.turn]
    promoting = board.pawns & us & (chess.BB_RANK_7 if board.turn else chess.BB_RANK_2)
    if promoting:
        for move in board.generate_legal_moves(promoting, chess.BB_BACKRANKS & ~board.occupied):
            if every or move.promotion == _QUEEN:
                keyed.append(((move.promotion or 0) * 8, move))
    keyed.sort(key=lambda x: -x[0])
    return [move for _, move in keyed]


def move_code(move: chess.Move) -> int:
    """A quiet move as ``from << 6 | to``: how killers and history know it."""
    return move.from_square << 6 | move.to_square


class MoveOrder:
    """Killers per ply and a history of quiet moves that refuted nodes, for one search."""

    def __init__(self, max_ply: int) -> None:
        # Killers as move codes (-1: none), like the history's keys.
        self.killers: list[list[int]] = [[-1, -1] for _ in range(max_ply + 1)]
        self.history: dict[int, int] = {}

    def staged(
        self, board: chess.Board, table_move: chess.Move | None, ply: int
    ) -> Iterator[chess.Move]:
        """The legal moves in stages, each generated only when the ones before did not cut off:
        the table move, captures and promotions by MVV-LVA, the killers, the other quiet moves
        by history."""
        # A table move comes from a position with the same key, so it is checked (collisions).
        first = table_move if table_move is not None and board.is_legal(table_move) else None
        if first is not None:
            yield first
        for move in noisy_moves(board, every=True):
            if move != first:
                yield move
        killers = []
        for code in self.killers[ply]:
            if code < 0:
                continue
            move = chess.Move(code >> 6, code & 63)
            if (
                move != first
                and not _BB_SQUARES[move.to_square] & board.occupied
                and not board.is_en_passant(move)
                and board.is_legal(move)
            ):
                killers.append(move)
                yield move
        history = self.history
        quiet = []
        ep = board.ep_square
        # to the squares the opponent does not hold: castling's mask is its rook's square
        for move in board.generate_legal_moves(chess.BB_ALL, ~board.occupied_co[not board.turn]):
            if move.promotion or move == first or move in killers:
                continue
            dst = move.to_square
            if (
                dst == ep
                and board.piece_type_at(move.from_square) == _PAWN
                and board.is_en_passant(move)
            ):
                continue
            quiet.append((history.get(move.from_square << 6 | dst, 0), move))
        quiet.sort(key=lambda x: -x[0])
        for _, move in quiet:
            yield move

    def remember_cutoff(self, move: chess.Move, depth: int, ply: int) -> None:
        """A quiet move refuted the node: it becomes a killer at ``ply`` and gains history."""
        killers = self.killers[ply]
        code = move_code(move)
        if killers[0] != code:
            killers[1], killers[0] = killers[0], code
        self.history[code] = self.history.get(code, 0) + depth * depth
