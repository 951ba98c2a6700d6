"""Endgames the tables cover are played from the tables (endgames.md): whatever the mode, a
position of KQK, KRK, KBBK or KBNK gets the distance-to-mate-optimal move."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import chess

from endgame.tablebase import Tablebase, ending_of
from engine.agents.base import Agent, Decision, IterationCallback, Reason
from engine.search.limits import SearchLimits


class TablebaseAgent:
    """Plays the tables' move where they cover the position, else asks ``agent`` (implements
    :class:`engine.agents.base.Agent`); with no tables (None), ``agent`` plays every move."""

    def __init__(self, agent: Agent, tables: Tablebase | None) -> None:
        self.agent, self.tables = agent, tables
        self._told = 0  # how many of the tables' problems the user has been told

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
        if self.tables is None:
            return self.agent.choose(board, moves, limits=limits, stop=stop, on_iteration=on_iteration)
        found = self.tables.best(board, None if moves is None else set(moves))
        news, self._told = self.tables.problems[self._told:], len(self.tables.problems)
        if found is None:
            decision = self.agent.choose(board, moves, limits=limits, stop=stop, on_iteration=on_iteration)
            decision.explanation[:0] = news
            return decision
        move, verdict = found
        ending = ending_of(board)
        assert ending is not None
        why = [*news, f"tablebase: {verdict.text()} ({ending[0]}); played {board.san(move)}, the distance-to-mate-optimal move"]
        if verdict.wins is None:
            return Decision(move=move, reason=Reason.TABLES, explanation=why, score_cp=0)
        return Decision(move=move, reason=Reason.TABLES, explanation=why,
                        mate=verdict.moves if verdict.wins else -verdict.moves)

