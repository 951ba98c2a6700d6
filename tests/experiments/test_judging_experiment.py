"""experiments.judging: a journal entry cut to fewer of the judge's lines is the entry the judge
writes with that many lines (issue #62: the fit measured with fewer lines on the stored journals,
nothing judged again)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import chess
import chess.engine
import numpy as np
import pytest

from experiments.judged_experts import (
    line_of,
    played_line,
    range_of,
    sizes_within,
    stored_games_agree,
    truncated,
)
from profiling.judging import Settings, judge_position

# three legal moves: a MultiPV 10 search has three lines
FEWER = chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")


class TableJudge:
    """A judge scoring each legal move by a fixed table whatever its MultiPV (ties in pairs, as real
    judges give), its lines best first, and a ``searchmoves`` search scoring the move alone (as the
    table says, or as ``alone`` says: a search of one move can see it otherwise)."""

    def __init__(self, board: chess.Board, alone: dict[chess.Move, int] | None = None) -> None:
        self.scores = {move: 100 - 7 * (i // 2) for i, move in enumerate(board.legal_moves)}
        self.alone = alone or {}

    @staticmethod
    def _info(board: chess.Board, move: chess.Move, score: int) -> dict[str, Any]:
        return {"pv": [move], "score": chess.engine.PovScore(chess.engine.Cp(score), board.turn)}

    def analyse(
        self,
        board: chess.Board,
        limit: chess.engine.Limit,
        multipv: int | None = None,
        root_moves: list[chess.Move] | None = None,
    ) -> Any:
        if root_moves:
            move = root_moves[0]
            return self._info(board, move, self.alone.get(move, self.scores[move]))
        ranked = sorted(self.scores, key=lambda m: -self.scores[m])
        return [self._info(board, move, self.scores[move]) for move in ranked[:multipv]]


def entry(
    board: chess.Board, played: chess.Move, multipv: int, alone: int | None = None
) -> dict[str, Any]:
    """The journal entry the judge writes (profiling.judging.PositionJudge's) with ``multipv`` lines
    (the played move scored ``alone`` where it is searched alone, if given)."""
    judge = TableJudge(board, None if alone is None else {played: alone})
    moves, scores = judge_position(judge, board, played, Settings(multipv=multipv))  # type: ignore[arg-type]
    return {
        "key": "k",
        "fen": board.fen(),
        "moves": [m.uci() for m in moves],
        "scores": scores,
        "played": moves.index(played),
    }


@pytest.mark.parametrize("board", [chess.Board(), FEWER], ids=["20 moves", "3 moves"])
@pytest.mark.parametrize("rank", [0, 1, 2, 5, 9, 15])
def test_an_entry_cut_to_fewer_lines_is_the_one_the_judge_writes_with_that_many(board, rank):
    ranked = sorted(TableJudge(board).scores, key=lambda m: -TableJudge(board).scores[m])
    played = ranked[min(rank, len(ranked) - 1)]
    full = entry(board, played, 10)
    assert (played_line(full, 10) is None) == (rank >= 10 and board.legal_moves.count() > 10)
    for lines in range(1, 11):
        assert truncated(full, lines) == entry(board, played, lines), lines


@pytest.mark.parametrize("alone", [1000, 93, -1000])
def test_a_move_scored_alone_keeps_its_place_among_the_fewer_lines(alone):
    board = chess.Board()
    # beyond ten lines
    played = sorted(TableJudge(board).scores, key=lambda m: -TableJudge(board).scores[m])[15]
    full = entry(board, played, 10, alone)
    for lines in range(1, 11):
        assert truncated(full, lines) == entry(board, played, lines, alone), lines


def test_what_the_tables_cannot_compute_is_said_not_raised(capsys: pytest.CaptureFixture[str]):
    # experts without a games record (bigbad, postny, rivergrove): an empty cell
    assert range_of([]) == ""
    assert range_of([-1.0, 3.0]) == "+1.0 % (-1.0..+3.0)"
    with pytest.raises(
        SystemExit, match="the rating line is fitted across the FIDE-rated experts chosen: 0 FIDE"
    ):
        line_of({}, {}, 5)  # no FIDE expert chosen
    # rng.choice could not draw 200 of 150
    assert sizes_within(150, [100, 200, 150], "x's games record") == [150, 100]
    assert (
        "x's games record holds 150 positions: --sizes 200 150 left out" in capsys.readouterr().err
    )
    expert = SimpleNamespace(
        id="x", profile=SimpleNamespace(games=SimpleNamespace(target=np.array([0.5])))
    )
    stored_games_agree([expert], {"x": 0.5})  # type: ignore[list-item]
    with pytest.raises(
        SystemExit, match="x: its games record's targets are not its journals' refit"
    ):
        stored_games_agree([expert], {"x": 0.4})  # type: ignore[list-item]
