"""The UCI engine: commands in, protocol lines out, moves chosen by an agent.

This module answers the engine's commands on the loop of :mod:`engine.uci.loop` (which reads and
dispatches them and writes the protocol's lines under one lock); their text is made in
:mod:`engine.uci.lines`, their arguments read in :mod:`engine.uci.commands`; what an agent is
and how it is made lives in :mod:`engine.agents`. Nothing but UCI lines goes to
the output; diagnostics for people are ``info string`` lines (and tracebacks on stderr).
``go`` runs on a worker thread so that the input is always read: ``stop``, ``isready`` and
``ponderhit`` are answered while the engine thinks, and a ``go`` during a search stops it
(its ``bestmove`` is sent) before the new one starts. A ``go``'s worker thread makes the agent's
decision (a uniformly random move where there is no agent or it raised), then its record, ``info``
and MultiPV lines after HumanTime's wait, and the ``bestmove``, held until ``stop`` or
``ponderhit`` where UCI says so (search.md §4). The casebase is
loaded lazily, on the first ``isready`` or ``go``, and so are the modules that need numpy, so that
``uciok`` comes at once.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TextIO

import chess

from common.text import clip
from engine.agents.defaults import Explain
from engine.agents.modes import option_registry
from engine.agents.options import AgentSettings, OptionValue, settings_of
from engine.search.limits import SearchLimits, pondering
from engine.uci.commands import parse_go
from engine.uci.fallback import uniform_decision
from engine.uci.lines import (
    decision_info,
    declaration,
    iteration_info,
    multipv_info,
    multipv_string,
)
from engine.uci.loop import UciLoop
from engine.uci.resources import AgentBuilder, Provide
from engine.uci.settings import ProtocolSettings

if TYPE_CHECKING:
    from engine.agents.base import Agent, Decision
    from engine.search.humantime import Pace

ENGINE_NAME = "cbr-chess"
ENGINE_AUTHOR = "the cbr-chess authors, after Qvarford (2015)"
#: The plies of the game's past a ``go`` hands its agent (the rest is not copied: a ``position`` of
#: 100,000 moves once cost 0.75 s of the clock in the copy). Its readers: the search's repetitions
#: (engine.search.leaves.past_counts: the positions back to the last irreversible move, and none
#: once the halfmove clock reaches 100, where every node below the root is a draw), the lc0
#: network's history (its input planes, lc0net.planes: the last 8 positions and, for their
#: repetition marks, the positions back to where the oldest one's halfmove clock started),
#: HumanTime's recapture and the chooser (the last move), and the judge, sent the position as these
#: moves (an outside engine's repetitions look no further back than its 50-move count). So 8
#: positions and a reversible stretch of up to 150 plies before them (the 75-move rule: a longer one
#: has drawn the game) are all that is read as in the whole game.
KEPT_PLIES = 8 + 150


class UciEngine(UciLoop):
    """One engine session: reads commands with :meth:`run`, writes UCI lines to ``out``."""

    def __init__(
        self,
        defaults: Mapping[str, str] | None = None,
        out: TextIO | None = None,
        provide: Provide | None = None,
    ) -> None:
        """``defaults`` overrides option defaults by name (e.g. from the command line); ValueError
        if bad. ``provide`` makes a shipped expert's casebase on its first use
        (:class:`AgentBuilder`)."""
        commands = {
            "uci": self._uci,
            "debug": self._debug,
            "isready": self._isready,
            "go": self._go,
        }
        super().__init__(commands, out)
        self.options = option_registry()
        self.values: dict[str, OptionValue] = self.options.defaults()
        for name, text in (defaults or {}).items():
            option, value = self.options.parse(name, text)
            self.values[option.name] = value
        self.builder = AgentBuilder(say=self.info, provide=provide)

    # -- the loop --------------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> int:
        """Answer commands until ``quit`` or the end of input; the exit status (0)."""
        try:
            return super().run(lines)
        finally:
            self.builder.close()  # no judge process outlives the session

    # -- output ----------------------------------------------------------------------

    @property
    def said(self) -> ProtocolSettings:
        """The protocol's settings in force (a few fields: made at each use)."""
        return settings_of(ProtocolSettings, self.values)

    # -- commands --------------------------------------------------------------------

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in self.options:
            self.send(declaration(option, self.values[option.name]))
        self.send("uciok")

    def _debug(self, args: list[str]) -> None:
        self.builder.debug = args[:1] != ["off"]

    def _isready(self, _: list[str]) -> None:
        try:
            # The running search's agent stays as it is; a new one is made at the next go.
            if not self._searching():
                self._agent()
        finally:  # readyok whatever went wrong
            self.send("readyok")

    def _set_option(self, name: str, text: str) -> None:
        try:
            option, value = self.options.parse(name, text)
        except ValueError as exc:
            self.info(f"{exc}; ignored")
            return
        self.values[option.name] = value
        if self.builder.debug:
            self.info(f"{option.name} = {clip(str(value))}")

    def _ucinewgame(self, args: list[str]) -> None:
        super()._ucinewgame(args)
        self.builder.new_game(settings_of(AgentSettings, self.values).seed)

    def _go(self, args: list[str]) -> None:
        # A go while thinking (GUIs send stop first; scripts may not): stop that search, whose
        # bestmove goes out first.
        self._finish_search()
        board = self.board.copy(stack=KEPT_PLIES)  # not the whole game: see KEPT_PLIES
        limits, moves, problems = parse_go(args, board)
        said = self.said
        limits = dataclasses.replace(limits, overhead=said.overhead)
        try:
            agent: Agent | None = self._agent()
        except Exception as exc:  # the GUI still gets a legal move
            traceback.print_exc(file=sys.stderr)
            problems.append(f"cannot make the agent: {clip(str(exc))}")
            agent = None
        self._tell_news()
        for problem in problems:
            self.info(problem)
        self._start_search(
            limits, board.turn, self._search, agent, board, moves, limits, said.lines
        )

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
            self._fault("the search", exc)
        finally:
            move, ponder = (
                (decision.move, decision.ponder) if decision is not None else (None, None)
            )
            self._bestmove(board, moves, limits, move, ponder)

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

    # -- the agent -------------------------------------------------------------------

    def _agent(self) -> Agent:
        """The agent for the options in force (made, and its casebase loaded, when they changed);
        says why it plays without a casebase, if it does."""
        agent = self.builder.agent(self.values)
        if self.builder.problem:
            self.info(self.builder.problem)
        return agent

    def _tell_news(self) -> None:
        """What the builder had to say since the last go (clients expect only readyok after
        isready)."""
        for line in self.builder.news:
            self.info(line)
        self.builder.news.clear()


def main_loop(defaults: Mapping[str, str] | None = None, provide: Provide | None = None) -> int:
    """Run the engine on stdin/stdout (undecodable input bytes become U+FFFD, characters the
    output's encoding lacks become ?, neither a crash); ``provide`` makes a shipped expert's
    casebase on its first use (:class:`AgentBuilder`)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    # Windows' piped stdout has the locale's code page, strict: a name outside it becomes ?, not a
    # crash (buffering kept)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    return UciEngine(defaults, provide=provide).run(sys.stdin)
