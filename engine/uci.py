"""The UCI protocol loop: commands in, protocol lines out, moves chosen by an agent.

This module parses commands, dispatches them and writes every line of protocol text; what
an agent is and how it is made lives in :mod:`engine.modes`. Nothing but UCI lines goes to
the output; diagnostics for people are ``info string`` lines (and tracebacks on stderr).
``go`` runs on a worker thread so that the input is always read: ``stop``, ``isready`` and
``ponderhit`` are answered while the engine thinks, and a ``go`` during a search stops it
(its ``bestmove`` is sent) before the new one starts. The casebase is loaded lazily, on the
first ``isready`` or ``go``, and so are the modules that need numpy, so that ``uciok`` comes
at once.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

import chess

from engine.modes import AgentBuilder, Option, OptionValue, clip, engine_options
from engine.scores import is_mate_score, mate_moves
from engine.timeman import SearchLimits, checked_limits

if TYPE_CHECKING:
    from engine.agent import Agent, Decision
    from engine.searchresult import SearchResult

ENGINE_NAME = "cbr-chess"
ENGINE_AUTHOR = "the cbr-chess authors, after Qvarford (2015)"


def declaration(option: Option, value: OptionValue) -> str:
    """The ``option name ... type ...`` line of ``option``, announcing ``value`` (the value in force)."""
    shown = str(value).lower() if option.kind == "check" else value
    line = f"option name {option.name} type {option.kind} default {shown if shown != '' else '<empty>'}"
    if option.kind == "spin":
        line += f" min {option.minimum} max {option.maximum}"
    return line + "".join(f" var {choice}" for choice in option.choices)


def uci_score(score: int) -> str:
    """A score as a UCI ``info`` payload: ``cp X`` or ``mate M`` (in moves, negative when mated)."""
    return f"mate {mate_moves(score)}" if is_mate_score(score) else f"cp {score}"


def iteration_info(result: SearchResult) -> str:
    """The ``info`` line of one finished search iteration."""
    assert result.score is not None
    ms = max(int(result.seconds * 1000), 0)
    nps = int(result.nodes / result.seconds) if result.seconds > 0 else 0
    pv = " ".join(move.uci() for move in result.pv)
    return (
        f"info depth {result.depth} seldepth {result.seldepth} score {uci_score(result.score)}"
        f" nodes {result.nodes} nps {nps} time {ms} pv {pv}"
    )


_GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
_GO_FLAGS = ("infinite", "ponder")


def parse_go(tokens: list[str], board: chess.Board) -> tuple[SearchLimits, list[chess.Move] | None, list[str]]:
    """Limits and search moves of a ``go`` command, and complaints about what was ignored."""
    numbers: dict[str, Any] = {}
    flags: set[str] = set()
    moves: list[chess.Move] | None = None
    problems: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _GO_FLAGS:
            flags.add(token)
        elif token in _GO_NUMBERS:
            if i < len(tokens) and _is_int(tokens[i]):
                numbers[token] = int(tokens[i])
                i += 1
            else:
                problems.append(f"go {token} needs a whole number; ignored")
        elif token == "searchmoves":
            moves = []
            while i < len(tokens) and tokens[i] not in _GO_NUMBERS + _GO_FLAGS:
                try:
                    move = board.parse_uci(tokens[i])
                except ValueError:
                    problems.append(f"searchmoves: {clip(tokens[i])} is not a legal move here; ignored")
                else:
                    moves.append(move)
                i += 1
        else:
            problems.append(f"go: unknown parameter {clip(token)!r} ignored")
    if moves == []:
        problems.append("searchmoves lists no legal move: searching all moves")
        moves = None
    asked = dataclasses.replace(SearchLimits(infinite="infinite" in flags, ponder="ponder" in flags), **numbers)
    limits, changed = checked_limits(asked)
    return limits, moves, problems + changed


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def parse_position(tokens: list[str]) -> chess.Board:
    """The board of a ``position`` command; ValueError says what is wrong with it."""
    if tokens[:1] == ["startpos"]:
        board, rest = chess.Board(), tokens[1:]
    elif tokens[:1] == ["fen"]:
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        fen = " ".join(tokens[1:end])
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise ValueError(f"invalid FEN {clip(fen)!r}: {exc}") from None
        if not board.is_valid():
            raise ValueError(f"impossible position in FEN {clip(fen)!r} ({board.status()!r})")
        rest = tokens[end:]
    else:
        raise ValueError("position needs 'startpos' or 'fen <FEN>'")
    if rest and rest[0] != "moves":
        raise ValueError(f"unexpected {clip(rest[0])!r} (expected 'moves')")
    for ply, text in enumerate(rest[1:], 1):
        try:
            board.push(board.parse_uci(text))
        except ValueError:
            raise ValueError(f"move {ply} ({clip(text)}) is not legal in {board.fen()}") from None
    return board


class UciEngine:
    """One engine session: reads commands with :meth:`run`, writes UCI lines to ``out``."""

    def __init__(self, defaults: Mapping[str, str] | None = None, out: TextIO | None = None) -> None:
        """``defaults`` overrides option defaults by name (e.g. from the command line); ValueError if bad."""
        self.out = out if out is not None else sys.stdout
        self.options = {o.name.lower(): o for o in engine_options()}
        self.values: dict[str, OptionValue] = {o.name: o.default for o in self.options.values()}
        for name, text in (defaults or {}).items():
            option = self._option(name)
            self.values[option.name] = option.parse(text)
        self.board = chess.Board()
        self.builder = AgentBuilder()
        self._write_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._ponderhit = False
        self._commands: dict[str, Callable[[list[str]], None]] = {
            "uci": self._uci,
            "debug": self._debug,
            "isready": self._isready,
            "setoption": self._setoption,
            "register": lambda _: None,
            "ucinewgame": self._ucinewgame,
            "position": self._position,
            "go": self._go,
            "stop": self._stop_command,
            "ponderhit": self._ponderhit_command,
        }

    # -- the loop --------------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> int:
        """Answer commands until ``quit`` or the end of input; the exit status (0)."""
        try:
            for line in lines:
                if not self.handle(line):
                    break
        finally:
            self._finish_search()
            self.builder.close()  # no judge process outlives the session
        return 0

    def handle(self, line: str) -> bool:
        """Execute one command line; False after ``quit``."""
        tokens = line.split()
        # UCI: skip unknown leading tokens and parse the rest of the line.
        skipped = 0
        while skipped < len(tokens) and tokens[skipped] not in self._commands and tokens[skipped] != "quit":
            skipped += 1
        if skipped:
            self.info(f"unknown command {clip(' '.join(tokens[:skipped]))!r} ignored")
        if skipped == len(tokens):
            return True
        command, args = tokens[skipped], tokens[skipped + 1 :]
        if command == "quit":
            return False
        try:
            self._commands[command](args)
        except Exception as exc:  # a bug must not end the session: say so and go on
            traceback.print_exc(file=sys.stderr)
            self.info(f"error in {command}: {exc}")
        return True

    def send(self, line: str) -> None:
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info(self, text: str) -> None:
        """Tell the GUI's user something, one ``info string`` per line of ``text``."""
        for line in text.splitlines() or [""]:
            self.send(f"info string {line}")

    # -- commands --------------------------------------------------------------------

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in self.options.values():
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

    def _setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            self.info("setoption needs 'name <name> [value <value>]'; ignored")
            return
        cut = args.index("value") if "value" in args else len(args)
        name, text = " ".join(args[1:cut]), " ".join(args[cut + 1 :])
        try:
            option = self._option(name)
            value = option.parse(text)
        except ValueError as exc:
            self.info(f"{exc}; ignored")
            return
        self.values[option.name] = value
        if self.builder.debug:
            self.info(f"{option.name} = {clip(str(value))}")

    def _option(self, name: str) -> Option:
        option = self.options.get(name.lower())
        if option is None:
            raise ValueError(f"no option named {clip(name)!r}")
        return option

    def _ucinewgame(self, _: list[str]) -> None:
        self._finish_search()
        self.board = chess.Board()
        self.builder.new_game(self.values)

    def _position(self, args: list[str]) -> None:
        try:
            self.board = parse_position(args)
        except ValueError as exc:
            self.info(f"{exc}; position unchanged")

    def _go(self, args: list[str]) -> None:
        # A go while thinking (GUIs send stop first; scripts may not): stop that search, whose
        # bestmove goes out first.
        self._finish_search()
        board = self.board.copy()
        limits, moves, problems = parse_go(args, board)
        try:
            agent: Agent | None = self._agent()
        except Exception as exc:  # the GUI still gets a legal move
            traceback.print_exc(file=sys.stderr)
            problems.append(f"cannot make the agent: {exc}")
            agent = None
        self._tell_news()
        for problem in problems:
            self.info(problem)
        self._stop.clear()
        self._ponderhit = False
        self._worker = threading.Thread(
            target=self._search, args=(agent, board, moves, limits), name="search", daemon=True
        )
        self._worker.start()

    def _stop_command(self, _: list[str]) -> None:
        with self._wake:
            self._stop.set()
            self._wake.notify_all()

    def _ponderhit_command(self, _: list[str]) -> None:
        with self._wake:
            self._ponderhit = True
            self._wake.notify_all()

    # -- thinking --------------------------------------------------------------------

    def _search(self, agent: Agent | None, board: chess.Board, moves: list[chess.Move] | None,
                limits: SearchLimits) -> None:
        started = time.perf_counter()
        try:
            if agent is None:
                decision = _uniform_decision(board, "no agent")
            else:
                decision = agent.choose(board, moves, limits=limits, stop=self._stop,
                                        on_iteration=lambda result: self.send(iteration_info(result)))
        except Exception as exc:  # the GUI still gets a legal move
            traceback.print_exc(file=sys.stderr)
            decision = _uniform_decision(board, f"error while choosing a move: {exc}")
        elapsed = int((time.perf_counter() - started) * 1000)
        for line in decision.explanation:
            self.info(line)
        if decision.move is not None:
            score = "" if decision.score_cp is None else f" score cp {decision.score_cp}"
            if decision.mate is not None:
                score = f" score mate {decision.mate}"
            self.send(f"info time {elapsed}{score} pv {decision.move.uci()}")
        # go infinite / go ponder: the move is ready, but UCI holds it until stop or ponderhit.
        with self._wake:
            self._wake.wait_for(
                lambda: self._stop.is_set()
                or not (limits.infinite or (limits.ponder and not self._ponderhit))
            )
        self.send(f"bestmove {decision.move.uci() if decision.move else '0000'}")

    def _searching(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _finish_search(self) -> None:
        """Stop the search thread, if any, and wait for its bestmove."""
        if self._worker is not None:
            self._stop_command([])
            self._worker.join()
            self._worker = None

    # -- the agent -------------------------------------------------------------------

    def _agent(self) -> Agent:
        """The agent for the options in force (made, and its casebase loaded, when they changed);
        says why it plays without a casebase, if it does."""
        agent = self.builder.agent(self.values)
        if self.builder.problem:
            self.info(self.builder.problem)
        return agent

    def _tell_news(self) -> None:
        """What the builder had to say since the last go (clients expect only readyok after isready)."""
        for line in self.builder.news:
            self.info(line)
        self.builder.news.clear()


def _uniform_decision(board: chess.Board, reason: str) -> Decision:
    """A uniformly random legal move, for when no agent could choose."""
    from engine.agent import Decision

    moves = list(board.legal_moves)
    if not moves:
        return Decision(move=None, explanation=[reason, "no legal move"])
    move = moves[secrets.randbelow(len(moves))]
    return Decision(move=move, explanation=[reason, f"played {board.san(move)}, a uniformly random legal move"])


def main_loop(defaults: Mapping[str, str] | None = None) -> int:
    """Run the engine on stdin/stdout (undecodable input bytes become U+FFFD, not a crash)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    return UciEngine(defaults).run(sys.stdin)
