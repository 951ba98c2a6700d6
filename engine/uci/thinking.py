"""The UCI engine's output and its thinking (search.md §4): the protocol's lines, written under
one lock, and the work of a ``go``'s worker thread: the agent's decision (a uniformly random move
where there is no agent or it raised), then its record, ``info`` and MultiPV lines after
HumanTime's wait, and the ``bestmove``, held until ``stop`` or ``ponderhit`` where UCI says so.
:class:`engine.uci.protocol.UciEngine` is a :class:`Thinking`. Imported before ``uciok``, as the
protocol is: the modules that need numpy are imported when a move is thought, not here.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, TextIO

import chess

from common.text import clip
from engine.agents.defaults import Explain
from engine.agents.options import OptionValue, settings_of
from engine.search.limits import SearchLimits, pondering
from engine.uci.fallback import legal_after, uniform_decision, uniform_move
from engine.uci.lines import decision_info, iteration_info, multipv_info, multipv_string
from engine.uci.settings import ProtocolSettings

if TYPE_CHECKING:
    from engine.agents.base import Agent, Decision
    from engine.search.humantime import Pace


class Thinking:
    """What a :class:`~engine.uci.protocol.UciEngine` says, and how its search thread thinks (its
    state is the engine's, set in its ``__init__``)."""

    out: TextIO
    values: dict[str, OptionValue]
    _write_lock: threading.Lock
    _stop: threading.Event
    _wake: threading.Condition
    _ponderhit: bool

    @property
    def said(self) -> ProtocolSettings:
        """The protocol's settings in force (a few fields: made at each use)."""
        return settings_of(ProtocolSettings, self.values)

    def send(self, line: str) -> None:
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info(self, text: str) -> None:
        """Tell the GUI's user something, one ``info string`` per line of ``text``."""
        for line in text.splitlines() or [""]:
            self.send(f"info string {line}")

    # -- thinking --------------------------------------------------------------------

    def _search(
        self,
        agent: Agent | None,
        board: chess.Board,
        moves: list[chess.Move] | None,
        limits: SearchLimits,
        lines: int,
    ) -> None:
        """Choose a move and send its lines: its record (option Explain), the move's own ``info``,
        with ``lines`` > 1 that many of the expert's candidate moves (MultiPV), then
        ``bestmove``."""
        started = time.perf_counter()
        decision: Decision | None = None
        try:
            decision = self._decide(agent, board, moves, limits)
            self._report(decision, board, limits, lines, started)
        # a bug after the choice (or in the fallback) must not lose the bestmove
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.info(f"error in the search: {clip(str(exc))}")
        finally:
            self._answer(decision, board, moves, limits)

    def _decide(
        self,
        agent: Agent | None,
        board: chess.Board,
        moves: list[chess.Move] | None,
        limits: SearchLimits,
    ) -> Decision:
        """The agent's decision, or a uniformly random move (among ``moves``, if given) when there
        is no agent or it raised."""
        if agent is None:
            return uniform_decision(board, None, moves)
        wdl = self.said.wdl
        try:
            searched = pondering(limits) if limits.ponder else limits
            return agent.choose(
                board,
                moves,
                limits=searched,
                stop=self._stop,
                on_iteration=lambda result: self.send(iteration_info(result, wdl=wdl)),
            )
        except Exception as exc:  # the GUI still gets a legal move
            traceback.print_exc(file=sys.stderr)
            return uniform_decision(board, clip(str(exc)), moves)

    def _report(
        self,
        decision: Decision,
        board: chess.Board,
        limits: SearchLimits,
        lines: int,
        started: float,
    ) -> None:
        """The decision's lines before its ``bestmove``, after HumanTime's wait."""
        said = self.said
        wdl = said.wdl
        pace = self._take_time(decision, board, limits, started) if said.human_time else None
        elapsed = int((time.perf_counter() - started) * 1000)
        explain = said.explain
        if explain != Explain.OFF:
            self._explain(decision, board, as_json=explain == Explain.JSON)
            if pace is not None and pace.seconds > 0:
                self.info(
                    f"HumanTime: {pace.seconds:.1f} s for {pace.kind} ({pace.scale:.2f} of a move's"
                    " time on this clock)"
                )
        # with MultiPV, the analysis lines: the move played first, then the expert's likeliest moves
        for rank, candidate in enumerate(decision.analysis_lines(lines), 1):
            self.send(multipv_info(rank, candidate, elapsed))
            if explain != Explain.OFF:
                self.info(multipv_string(board, rank, candidate))
        # the move's own line last, what match runners and bots record (a line without multipv is
        # line 1 to GUIs and python-chess: the move played, with its nodes and whole pv)
        if decision.move is not None:
            self.send(decision_info(decision.evaluated(board), elapsed, wdl=wdl))

    def _answer(
        self,
        decision: Decision | None,
        board: chess.Board,
        moves: list[chess.Move] | None,
        limits: SearchLimits,
    ) -> None:
        """The ``bestmove`` line: the decision's move, or (none was made, or it is not legal) a
        random legal one among ``moves`` (0000 where none is); for ``go infinite`` and ``go ponder``
        after stop or ponderhit."""
        # go infinite / go ponder: the move is ready, but UCI holds it until stop or ponderhit.
        with self._wake:
            self._wake.wait_for(
                lambda: (
                    self._stop.is_set()
                    or not (limits.infinite or (limits.ponder and not self._ponderhit))
                )
            )
        move, ponder = (decision.move, decision.ponder) if decision is not None else (None, None)
        # never 0000 while a move is legal, never an illegal one
        if move is None or not board.is_legal(move):
            move, ponder = uniform_move(board, moves), None
        if move is None:
            self.send("bestmove 0000")
        elif ponder is not None and legal_after(board, move, ponder):
            self.send(f"bestmove {move.uci()} ponder {ponder.uci()}")
        else:
            self.send(f"bestmove {move.uci()}")

    def _take_time(
        self, decision: Decision, board: chess.Board, limits: SearchLimits, started: float
    ) -> Pace | None:
        """Option HumanTime: the move chosen, wait until a person at this clock would have played it
        (engine.search.humantime); ``stop`` ends the wait at once. The pace, None without a move."""
        # the style modules need numpy: not before uciok
        from engine.search.humantime import human_pace
        from engine.style.prior import SAME_POSITION

        if decision.move is None:
            return None
        scores = [c.score for c in decision.candidates if c.exact and c.score is not None]
        pace = human_pace(
            limits, board, decision.move, known=decision.similarity == SAME_POSITION, scores=scores
        )
        left = pace.seconds - (time.perf_counter() - started)
        if left > 0:  # a clock of 10^15 ms paces for longer than a wait may last: then until stop
            self._stop.wait(min(left, threading.TIMEOUT_MAX))
        return pace

    def _explain(self, decision: Decision, board: chess.Board, *, as_json: bool) -> None:
        """The decision's record: as JSON first with ``Explain json``, then in words."""
        from engine.uci.explain import explain  # the record's modules need numpy: not before uciok
        from engine.uci.record_json import record_string

        if as_json:
            self.info(record_string(decision, board))
        for line in explain(decision.record):
            self.info(line)
