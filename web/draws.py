"""A draw offered to the expert, answered as a person would (docs/web.md, "Draw offers"): by the
score the expert last saw for itself (its record's), the material left and the move number.

- clearly worse (:data:`WORSE` centipawns or more below level, or being mated): it accepts at any
  move;
- level or worse (at most :data:`LEVEL` above level) from move :data:`FROM_MOVE` with reduced
  material (the endgame's, :data:`casebase.phases.ENDGAME_MATERIAL` or less of non-pawn material):
  it accepts;
- otherwise it plays on, and says why: better, too early, too much material left, or no score yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess

from casebase.phases import ENDGAME_MATERIAL, board_material
from web.reasons import first_record
from web.scores import MATE_CP, centipawns, pawns

#: Worse by this much (centipawns, for the expert): a draw is welcome at any move.
WORSE = 150
#: At most this much better: level enough to agree a draw late in a thin position.
LEVEL = 30
#: The move number from which a level position is agreed drawn.
FROM_MOVE = 30


@dataclass(frozen=True)
class Answer:
    """Whether the expert accepts, and why, in the page's words."""

    accepted: bool
    why: str


def answer(board: chess.Board, score: int | None) -> Answer:
    """The expert's answer to a draw offered in ``board``, ``score`` its last score for itself
    (centipawns; :data:`web.scores.MATE_CP` and beyond a mate; None: none yet)."""
    if score is None:
        return Answer(False, "the expert plays on: it has no score of this game to go by")
    seen = pawns(score)
    if score <= -WORSE:
        return Answer(True, f"the expert accepts: it is worse ({seen} for the expert)")
    if score > LEVEL:
        return Answer(False, f"the expert plays on: {seen} for the expert")
    if board.fullmove_number < FROM_MOVE:
        return Answer(
            False,
            f"the expert plays on: {seen} for the expert, but it is move {board.fullmove_number};"
            f" it agrees a level game from move {FROM_MOVE}",
        )
    material = board_material(board)
    if material > ENDGAME_MATERIAL:
        return Answer(
            False,
            f"the expert plays on: {seen} for the expert, but {material} points of pieces are left;"
            f" it agrees a level game with {ENDGAME_MATERIAL} or fewer",
        )
    return Answer(
        True,
        f"the expert accepts: {seen} for the expert at move {board.fullmove_number},"
        f" {material} points of pieces left",
    )


def last_score(strings: list[str]) -> int | None:
    """The score the expert saw for itself in a move's record (the move played's, else the best
    move's; the tables': a win, a loss or a draw), in centipawns; None without one."""
    found = first_record(strings)
    if found is None:
        return None
    record = found[1]
    if guided := record.get("guided"):
        return (
            centipawns(guided["choice"]["score"])
            if guided["choice"]["score"] is not None
            else centipawns(guided["verdict"]["score"])
        )
    if chess0 := record.get("chess0"):
        return centipawns(chess0["score"])
    # ours say who wins; Syzygy's wdl: 2 a win, 1 and -1 drawn by the fifty moves
    if tables := record.get("tables"):
        wins = (
            tables["wins"]
            if tables["ending"] is not None
            else None
            if abs(tables["wdl"]) < 2
            else tables["wdl"] > 0
        )
        return 0 if wins is None else MATE_CP if wins else -MATE_CP
    return None


def offer(records: dict[int, dict[str, Any]], board: chess.Board) -> Answer:
    """The answer to a draw offered in ``board``, the expert's moves' ``records`` by ply
    (web/games.py)."""
    score = last_score(records[max(records)]["strings"]) if records else None
    return answer(board, score)
