"""The UCI protocol loop: commands in, protocol lines out, moves chosen by an :class:`Agent`.

Nothing but UCI lines goes to the output; diagnostics for people are ``info string`` lines
(and tracebacks on stderr). ``go`` runs on a worker thread so that ``stop``, ``isready`` and
``ponderhit`` are answered while the engine thinks. The casebase is loaded lazily, on the first
``isready`` or ``go``, so that ``uciok`` comes at once.
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import chess
import numpy as np

from casebase.format import Casebase, CasebaseError
from engine.adaptation import candidate_moves
from engine.agent import Agent, Decision, PureAgent, SearchLimits
from engine.guided import SELECTIONS, GuidedAgent
from engine.weights import Weights

ENGINE_NAME = "cbr-chess"
ENGINE_AUTHOR = "the cbr-chess authors, after Qvarford (2015)"
SEED_MAX = 2**31 - 1

OptionValue = int | str | bool


@dataclass(frozen=True)
class Option:
    """One UCI option: how it is declared after ``uci`` and how a ``setoption`` value is read."""

    name: str
    kind: str  # "spin", "combo", "string" or "check"
    default: OptionValue
    minimum: int = 0
    maximum: int = 0
    choices: tuple[str, ...] = ()

    def declaration(self, default: OptionValue) -> str:
        """The ``option name ... type ...`` line, announcing ``default`` (the value now in force)."""
        default = str(default).lower() if self.kind == "check" else default
        line = f"option name {self.name} type {self.kind} default {default if default != '' else '<empty>'}"
        if self.kind == "spin":
            line += f" min {self.minimum} max {self.maximum}"
        return line + "".join(f" var {choice}" for choice in self.choices)

    def parse(self, text: str) -> OptionValue:
        """The value ``text`` stands for; ValueError says why it is not acceptable."""
        if self.kind == "string":
            return "" if text == "<empty>" else text
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{self.name} takes true or false, not {text!r}")
            return text.lower() == "true"
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"{self.name} takes one of {', '.join(self.choices)}, not {text!r}")
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{self.name} takes a whole number, not {text!r}") from None
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{self.name} takes {self.minimum}..{self.maximum}, not {value}")
        return value


AgentFactory = Callable[[Casebase | None, Mapping[str, OptionValue]], Agent]


@dataclass(frozen=True)
class Mode:
    """A way of playing: how to make its agent from a casebase and the option values, and its own options."""

    factory: AgentFactory
    summary: str
    options: tuple[Option, ...] = field(default=())


def weights_of(values: Mapping[str, OptionValue]) -> Weights:
    """The weight list set by the three weight options (hundredths)."""
    return Weights(*(int(values[name]) / 100 for name in WEIGHT_OPTIONS))


def _pure_agent(casebase: Casebase | None, values: Mapping[str, OptionValue]) -> Agent:
    return PureAgent(casebase, weights_of(values), 0)


def _guided_agent(casebase: Casebase | None, values: Mapping[str, OptionValue]) -> Agent:
    return GuidedAgent(
        casebase,
        weights_of(values),
        0,
        neighbours=int(values["Neighbours"]),
        temperature=int(values["Temperature"]) / 10,
        tolerance=int(values["Tolerance"]),
        selection=str(values["Selection"]),
    )


#: Modes by the name the ``Mode`` option uses; a new mode is one more entry.
MODES: dict[str, Mode] = {
    "pure": Mode(_pure_agent, "the thesis's agent: the most similar case's move, adapted"),
    "guided": Mode(
        _guided_agent,
        "the k nearest cases vote, an alpha-beta search vetoes unsound moves (search.md)",
        (
            Option("Neighbours", "spin", 64, 1, 1024),
            # tenths of a similarity point: UCI spins are whole numbers
            Option("Temperature", "spin", 40, 1, 10_000),
            Option("Tolerance", "spin", 50, 0, 1000),
            Option("Selection", "combo", SELECTIONS[0], choices=SELECTIONS),
        ),
    ),
}

#: v1, v2, v3 (cbr-agent.md §5) as spins of hundredths.
WEIGHT_OPTIONS = ("DistanceWeight", "FromDistanceWeight", "FromContentWeight")


def default_casebase() -> Path:
    """The shipped casebase played when none is given (built by ``make casebases``)."""
    return Path(__file__).resolve().parent.parent / "casebases" / "carlsen-2800.npz"


def engine_options() -> list[Option]:
    """Every option the engine declares: the common ones, then each mode's own."""
    options = [
        Option("Casebase", "string", str(default_casebase())),
        Option("Mode", "combo", next(iter(MODES)), choices=tuple(MODES)),
        *(Option(name, "spin", 50, 0, 100) for name in WEIGHT_OPTIONS),
        Option("Seed", "spin", 0, 0, SEED_MAX),
    ]
    for mode in MODES.values():
        options += [o for o in mode.options if o.name not in {x.name for x in options}]
    return options


_GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
_GO_FLAGS = ("infinite", "ponder")


def parse_go(tokens: list[str], board: chess.Board) -> tuple[SearchLimits, list[chess.Move] | None, list[str]]:
    """Limits and search moves of a ``go`` command, and complaints about what was ignored."""
    numbers: dict[str, int] = {}
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
                    problems.append(f"searchmoves: {tokens[i]} is not a legal move here; ignored")
                else:
                    moves.append(move)
                i += 1
        else:
            problems.append(f"go: unknown parameter {token!r} ignored")
    if moves == []:
        problems.append("searchmoves lists no legal move: searching all moves")
        moves = None
    limits = SearchLimits(**numbers, **{flag: True for flag in flags})
    return limits, moves, problems


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
            raise ValueError(f"invalid FEN {fen!r}: {exc}") from None
        if not board.is_valid():
            raise ValueError(f"impossible position in FEN {fen!r} ({board.status()!r})")
        rest = tokens[end:]
    else:
        raise ValueError("position needs 'startpos' or 'fen <FEN>'")
    if rest and rest[0] != "moves":
        raise ValueError(f"unexpected {rest[0]!r} (expected 'moves')")
    for ply, text in enumerate(rest[1:], 1):
        try:
            board.push(board.parse_uci(text))
        except ValueError:
            raise ValueError(f"move {ply} ({text}) is not legal in {board.fen()}") from None
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
        self.debug = False
        self._write_lock = threading.Lock()
        self._agent: Agent | None = None
        self._agent_key: tuple | None = None
        self._casebase: tuple[tuple, Casebase | None, str] | None = None  # file state, casebase, problem
        self._game_seed: int | None = None
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._ponderhit = False
        self._held = False  # the running search waits for stop or ponderhit
        # Told at the next go: clients expect only readyok after isready.
        self._news: list[str] = []
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
        return 0

    def handle(self, line: str) -> bool:
        """Execute one command line; False after ``quit``."""
        tokens = line.split()
        # UCI: skip unknown leading tokens and parse the rest of the line.
        skipped = 0
        while skipped < len(tokens) and tokens[skipped] not in self._commands and tokens[skipped] != "quit":
            skipped += 1
        if skipped:
            self.info(f"unknown command {' '.join(tokens[:skipped])!r} ignored")
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
            self.send(option.declaration(self.values[option.name]))
        self.send("uciok")

    def _debug(self, args: list[str]) -> None:
        self.debug = args[:1] != ["off"]

    def _isready(self, _: list[str]) -> None:
        self._ensure_agent()
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
        if self.debug:
            self.info(f"{option.name} = {value}")

    def _option(self, name: str) -> Option:
        option = self.options.get(name.lower())
        if option is None:
            raise ValueError(f"no option named {name!r}")
        return option

    def _ucinewgame(self, _: list[str]) -> None:
        self.board = chess.Board()
        self._new_seed()
        if self._agent is not None:
            self._agent.new_game(self._game_seed)

    def _position(self, args: list[str]) -> None:
        try:
            self.board = parse_position(args)
        except ValueError as exc:
            self.info(f"{exc}; position unchanged")

    def _go(self, args: list[str]) -> None:
        # A go while thinking (GUIs send stop first; scripts may not): let a timed search
        # finish, end a held one, as if stop had come.
        self._finish_search(stop=self._held)
        agent = self._ensure_agent()
        for line in self._news:
            self.info(line)
        self._news.clear()
        board = self.board.copy()
        limits, moves, problems = parse_go(args, board)
        for problem in problems:
            self.info(problem)
        self._stop.clear()
        self._ponderhit = False
        self._held = limits.infinite or limits.ponder
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

    def _search(self, agent: Agent, board: chess.Board, moves: list[chess.Move] | None, limits: SearchLimits) -> None:
        started = time.perf_counter()
        try:
            decision = agent.choose(
                board, moves, limits=limits, stop=self._stop, info=lambda payload: self.send(f"info {payload}")
            )
        except Exception as exc:  # the GUI still gets a legal move
            traceback.print_exc(file=sys.stderr)
            decision = _uniform_decision(board, f"error while choosing a move: {exc}")
        elapsed = int((time.perf_counter() - started) * 1000)
        for line in decision.explanation:
            self.info(line)
        if decision.move is not None:
            score = "" if decision.score_cp is None else f" score cp {decision.score_cp}"
            self.send(f"info time {elapsed}{score} pv {decision.move.uci()}")
        # go infinite / go ponder: the move is ready, but UCI holds it until stop or ponderhit.
        with self._wake:
            self._wake.wait_for(
                lambda: self._stop.is_set()
                or not (limits.infinite or (limits.ponder and not self._ponderhit))
            )
        self.send(f"bestmove {decision.move.uci() if decision.move else '0000'}")

    def _finish_search(self, stop: bool = True) -> None:
        """Wait for the search thread's bestmove, after telling it to stop unless ``stop`` is False."""
        if self._worker is not None:
            if stop:
                self._stop_command([])
            self._worker.join()
            self._worker = None

    # -- the agent -------------------------------------------------------------------

    def _ensure_agent(self) -> Agent:
        """The agent for the current options, made (and its casebase loaded) when they changed.

        A new agent starts from the game's seed, as at ``ucinewgame``.
        """
        # The casebase file's state is part of the key: a file built or rebuilt since is read again.
        key = (tuple(sorted(self.values.items())), _file_state(str(self.values["Casebase"])))
        if self._agent is None or key != self._agent_key:
            self._agent = self._make_agent()
            self._agent_key = key
        self._report_casebase()
        return self._agent

    def _make_agent(self) -> Agent:
        casebase = self._load_casebase(str(self.values["Casebase"]))
        mode = MODES[str(self.values["Mode"])]
        agent = mode.factory(casebase, self.values)
        if self._game_seed is None or int(self.values["Seed"]):
            self._new_seed()
        agent.new_game(self._game_seed)
        if casebase is not None:
            elo = f", median Elo {casebase.elo}" if casebase.elo else ""
            own = "".join(f", {o.name} {self.values[o.name]}" for o in mode.options)
            self._news.append(
                f"{self.values['Mode']} mode: casebase {casebase.expert} ({len(casebase)} cases{elo}),"
                f" weights {weights_of(self.values)}{own}"
            )
        return agent

    def _new_seed(self) -> None:
        fixed = int(self.values["Seed"])
        self._game_seed = fixed or secrets.randbelow(SEED_MAX) + 1
        if not fixed:
            self._news.append(f"seed {self._game_seed} for this game (set option Seed to it to replay)")

    def _load_casebase(self, path: str) -> Casebase | None:
        state = _file_state(path)
        if self._casebase is not None and self._casebase[0] == state:
            return self._casebase[1]
        casebase, problem = None, ""
        if not path:
            problem = "no casebase set (option Casebase)"
        else:
            started = time.perf_counter()
            try:
                casebase = Casebase.load(path)
            except CasebaseError as exc:
                problem = f"cannot load casebase: {exc}"
                if Path(path) == default_casebase() and not Path(path).exists():
                    problem += " (build the shipped casebases with `make casebases`)"
            else:
                if self.debug:
                    self.info(f"loaded {path} in {time.perf_counter() - started:.2f} s")
        self._casebase = (state, casebase, problem)
        return casebase

    def _report_casebase(self) -> None:
        if self._casebase is not None and self._casebase[1] is None:
            self.info(f"{self._casebase[2]}; playing uniformly random legal moves")


def _file_state(path: str) -> tuple:
    """What identifies a file's contents cheaply: its path, size and modification time (if it exists)."""
    try:
        stat = os.stat(path)
    except OSError:
        return (path,)
    return (path, stat.st_size, stat.st_mtime_ns)


def _uniform_decision(board: chess.Board, reason: str) -> Decision:
    """A uniformly random legal move (with a fresh generator), for when the agent failed."""
    moves = candidate_moves(board)
    if not moves:
        return Decision(None, [reason, "no legal move"], None, None, 0)
    move = moves[int(np.random.default_rng().integers(len(moves)))]
    return Decision(move, [reason, f"played {board.san(move)}, a uniformly random legal move"], None, None, 0)


def main_loop(defaults: Mapping[str, str] | None = None) -> int:
    """Run the engine on stdin/stdout (undecodable input bytes become U+FFFD, not a crash)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    return UciEngine(defaults).run(sys.stdin)
