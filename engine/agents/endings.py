"""Endgames the tables cover are played from the tables (endgames.md): whatever the mode, a
position of KQK, KRK, KBBK or KBNK gets the distance-to-mate-optimal move, and one the Syzygy
tables of ``SyzygyPath`` cover the move that keeps its result and reaches it soonest."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import chess

from endgame.syzygy import SyzygyTables
from endgame.tablebase import Tablebase, ending_of
from engine.agents.base import Agent, Decision, IterationCallback, Reason
from engine.agents.record import Named, Note, Record, Tables, TablesProblem
from engine.search.limits import SearchLimits
from engine.search.scores import from_mate_moves

#: The score of a win the Syzygy tables know (centipawns, less the plies to zeroing): beyond any
#: evaluation, short of a mate score (which would promise a mate in a number of moves).
TB_WIN = 20_000


class TablebaseAgent:
    """Plays the tables' move where they cover the position, else asks ``agent`` (implements
    :class:`engine.agents.base.Agent`): our own tables first (distance to mate), then the
    Syzygy tables of option ``SyzygyPath`` (distance to zeroing); with neither, ``agent`` plays
    every move."""

    def __init__(
        self, agent: Agent, tables: Tablebase | None, syzygy: SyzygyTables | None = None
    ) -> None:
        self.agent, self.tables, self.syzygy = agent, tables, syzygy
        self._told = {
            "tables": 0,
            "syzygy": 0,
        }  # how many of each one's problems the user has been told

    def new_game(self, seed: int | None = None) -> None:
        self.agent.new_game(seed)

    def choose(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move] | None = None,
        *,
        limits: SearchLimits | None = None,
        stop: threading.Event | None = None,
        on_iteration: IterationCallback | None = None,
    ) -> Decision:
        wanted = None if moves is None else set(moves)
        found = None if self.tables is None else self.tables.best(board, wanted)
        syzygy = (
            None if found is not None or self.syzygy is None else self.syzygy.best(board, wanted)
        )
        news = self._news()
        if found is not None:
            move, verdict = found
            ending = ending_of(board)
            assert ending is not None
            record = Record(
                news, Tables(Named.of(board, move), ending[0], verdict.wins, verdict.plies)
            )
            score = (
                0
                if verdict.wins is None
                else from_mate_moves(verdict.moves if verdict.wins else -verdict.moves)
            )
            return _tables_decision(move, record, score)
        if syzygy is not None:
            record = Record(
                news, Tables(Named.of(board, syzygy.move), wdl=syzygy.wdl, dtz=syzygy.dtz)
            )
            score = (
                0
                if abs(syzygy.wdl) < 2
                else (TB_WIN - abs(syzygy.dtz)) * (1 if syzygy.wdl > 0 else -1)
            )
            return _tables_decision(syzygy.move, record, score)
        decision = self.agent.choose(
            board, moves, limits=limits, stop=stop, on_iteration=on_iteration
        )
        decision.record.notes[:0] = news
        return decision

    def _news(self) -> list[Note]:
        """The tables' problems the user has not been told yet."""
        news: list[Note] = []
        for name, tables in (("tables", self.tables), ("syzygy", self.syzygy)):
            if tables is not None:
                news += [TablesProblem(problem) for problem in tables.problems[self._told[name] :]]
                self._told[name] = len(tables.problems)
        return news


def _tables_decision(move: chess.Move, record: Record, score: int) -> Decision:
    """The tables' ``move``, scored ``score``: a search one ply deep, as GUIs read it."""
    return Decision(
        move=move,
        reason=Reason.TABLES,
        record=record,
        score=score,
        depth=1,
        seldepth=1,
        nodes=1,
        pv=[move],
    )
