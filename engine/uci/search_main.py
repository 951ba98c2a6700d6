"""``cbr-chess-search``: the compiled search (:mod:`engine.compiled`) as a UCI engine of its own,
the built-in judge of option ``Judge builtin`` (and ``auto`` where no Stockfish is found), and an
engine anyone can match against another with fastchess or cutechess-cli.

It speaks UCI on the project's engine's loop (:mod:`engine.uci.loop`): nothing but UCI lines on
stdout, a malformed line answered by an ``info string`` and forgotten, a worker thread per ``go`` so
that ``stop``, ``isready`` and ``quit`` are read while it thinks, and every ``go`` answered with a
legal ``bestmove`` (``0000`` where there is none). ``uciok`` comes at once: the compile runs on a
thread of its own from the start (:class:`engine.uci.compiling.Compiler`) and never blocks the
loop long: ``isready`` waits for it :data:`READY_WAIT` seconds at most (a cached start loads in
about a second; a GUI's start, python-chess's included, times out on a wait of a cold compile's
half minute), and a ``go`` before the compile ends is played by the Python alpha-beta within its
limits (said once). ``go perft N`` is answered as Stockfish answers it: one
``e2e4: 20`` line a root move, a blank line, ``Nodes searched: N``.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

import chess

from common.text import clip
from engine.search.limits import SearchLimits, pondering
from engine.uci.commands import parse_go
from engine.uci.compiling import (
    COMPILED_NODES,
    PYTHON_DEPTH,
    Compiler,
    Searched,
    budget_of,
    compiled_search,
    python_search,
)
from engine.uci.loop import UciLoop

if TYPE_CHECKING:
    from engine.compiled.search import CompiledSearch
    from engine.search.limits import Budget

ENGINE_NAME = "cbr-chess-search"
ENGINE_AUTHOR = "the cbr-chess authors"
#: The plies of the game's past a ``go`` hands its search (its repetitions look no further back
#: than the last irreversible move, which the 75-move rule bounds).
KEPT_PLIES = 160


@dataclass(frozen=True)
class Spin:
    """An option of type spin: its name as declared, its default and range."""

    name: str
    default: int
    minimum: int
    maximum: int


#: The options, by their names in lower case (UCI's names take no case).
OPTIONS = {
    spin.name.lower(): spin
    for spin in (
        Spin("Hash", 16, 1, 4096),
        Spin("Threads", 1, 1, 1),
        Spin("MultiPV", 1, 1, 256),
        Spin("Move Overhead", 10, 0, 5000),
    )
}

#: Seconds ``isready`` waits for the compile at most: a cached start is ready in about a second
#: (the issue's bound: 3 s), and a GUI's start, python-chess's included, times out on a longer wait
#: (python-chess's: 10 s).
READY_WAIT = 5.0


class SearchEngine(UciLoop):
    """One session of the compiled search's UCI engine: :meth:`run` reads commands, UCI lines go to
    ``out``."""

    def __init__(self, out: TextIO | None = None) -> None:
        commands = {
            "uci": self._uci,
            "debug": lambda _: None,
            "isready": self._isready,
            "go": self._go,
        }
        super().__init__(commands, out)
        self.values = {name: spin.default for name, spin in OPTIONS.items()}
        self.compiler = Compiler(self.info, self.values["hash"])
        self._said: set[str] = set()
        # the search's stop: the GUI's stop, or its own time up after a ponderhit (the loop's stop
        # event is the GUI's alone)
        self._halt = threading.Event()

    # -- the loop --------------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> int:
        """Start the compile, then answer commands until ``quit`` or the end of input; 0."""
        self.compiler.start()
        return super().run(lines)

    # -- output ----------------------------------------------------------------------

    def info_once(self, text: str) -> None:
        """``text`` as an ``info string``, the first time only."""
        if text not in self._said:
            self._said.add(text)
            self.info(text)

    # -- commands --------------------------------------------------------------------

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for name, spin in OPTIONS.items():
            self.send(
                f"option name {spin.name} type spin default {self.values[name]} min"
                f" {spin.minimum} max {spin.maximum}"
            )
        self.send("uciok")

    def _isready(self, _: list[str]) -> None:
        """Ready once the compiled search is (a cached start: about a second), or after
        :data:`READY_WAIT` seconds of a compile: a go is then answered by the Python search until
        it has ended."""
        self.compiler.done.wait(READY_WAIT)
        self.send("readyok")

    def _set_option(self, name: str, text: str) -> None:
        spin = OPTIONS.get(name.lower())
        if spin is None:
            super()._set_option(name, text)  # no option named so
            return
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not spin.minimum <= value <= spin.maximum:
            self.info(
                f"{spin.name} takes a whole number from {spin.minimum} to {spin.maximum}, not"
                f" {clip(text)!r}; ignored"
            )
            return
        self.values[name.lower()] = value

    def _ucinewgame(self, args: list[str]) -> None:
        super()._ucinewgame(args)
        if self.compiler.search is not None:
            self.compiler.search.new_game()

    def _go(self, args: list[str]) -> None:
        # a go while thinking: that search is stopped, and its bestmove goes out first
        self._finish_search()
        board = self.board.copy(stack=KEPT_PLIES)
        if args[:1] == ["perft"]:
            self._perft_command(board, args[1:])
            return
        limits, moves, problems = parse_go(args, board)
        limits = dataclasses.replace(limits, overhead=self.values["move overhead"])
        for problem in problems:
            self.info(problem)
        self._halt.clear()
        self._start_search(
            limits, board.turn, self._think, board, limits, moves, self.values["multipv"]
        )

    def _perft_command(self, board: chess.Board, args: list[str]) -> None:
        if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
            self.info("go perft needs a depth of 1 or more; ignored")
            return
        self._start(self._perft, board, int(args[0]))

    def _on_stop(self) -> None:
        """A ``stop`` ends the search too."""
        self._halt.set()

    def _clock_out(self) -> None:
        """The time after a ``ponderhit`` is up: the search stops (``stop`` is the GUI's alone)."""
        self._halt.set()

    # -- thinking --------------------------------------------------------------------

    def _think(
        self,
        board: chess.Board,
        limits: SearchLimits,
        moves: list[chess.Move] | None,
        multipv: int,
    ) -> None:
        """The worker of a ``go``: the search's ``info`` lines, then ``bestmove`` (held until
        ``stop`` or ``ponderhit`` where UCI says so)."""
        started = time.monotonic()
        found: Searched | None = None
        try:
            if any(board.generate_legal_moves()):
                found = self._search(board, limits, moves, multipv, started)
            else:  # as Stockfish says it: mated, or stalemate
                self.send(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}")
        except Exception as exc:  # a bug must not lose the bestmove
            self._fault("the search", exc)
        finally:
            self._answer(board, moves, limits, found)

    def _search(
        self,
        board: chess.Board,
        limits: SearchLimits,
        moves: list[chess.Move] | None,
        multipv: int,
        started: float,
    ) -> Searched:
        """The compiled search's answer, or the Python alpha-beta's where it cannot give one (yet);
        each iteration's lines sent as it finishes."""
        shown: list[Searched] = []

        def seen(searched: Searched) -> None:
            shown.append(searched)
            self._lines(searched, started)

        if limits.ponder:
            limits = pondering(limits)
        compiled = self._compiled(board)
        if compiled is not None:
            from engine.compiled.search import MAX_DEPTH

            budget = self._clipped(budget_of(limits, board, COMPILED_NODES), MAX_DEPTH)
            try:
                found = compiled_search(compiled, board, budget, moves, multipv, self._halt, seen)
            except Exception as exc:  # the Python search answers this go instead
                traceback.print_exc(file=sys.stderr)
                self.info(f"the compiled search failed ({clip(str(exc))}): the Python search plays")
                compiled = None
        if compiled is None:
            budget = self._clipped(budget_of(limits, board, 20_000), PYTHON_DEPTH)
            found = python_search(board, budget, moves, multipv, self._halt, seen)
        if found.lines and (not shown or shown[-1] != found):
            self._lines(found, started)  # the search's answer, where no iteration said it
        return found

    def _compiled(self, board: chess.Board) -> CompiledSearch | None:
        """The compiled search for ``board`` (made again where option Hash changed), or None where
        the Python search plays it: the compile runs, failed, or the board is one it cannot
        hold (each said once)."""
        compiler = self.compiler
        if not compiler.done.is_set():
            self.info_once(
                "the compiled search is compiling: the Python search plays until it is ready"
            )
            return None
        if compiler.search is None:
            return None  # why was said when the compile ended
        from engine.compiled.board import Unsupported, state_of

        try:
            state_of(board)
        except Unsupported as exc:
            self.info_once(
                f"the compiled search cannot hold this board ({exc}): the Python search plays it"
            )
            return None
        if compiler.hash_mb != self.values["hash"]:
            from engine.compiled.search import CompiledSearch

            # the new table first: where it cannot be had, the old one stays said as it is
            compiler.search = CompiledSearch(self.values["hash"])
            compiler.hash_mb = self.values["hash"]
        return compiler.search

    def _clipped(self, budget: Budget, most: int) -> Budget:
        """``budget`` with its depth no deeper than ``most``, said where it was."""
        if budget.depth is not None and budget.depth > most:
            self.info(
                f"go depth {budget.depth} is beyond the search's {most} plies: searching {most}"
            )
            budget = dataclasses.replace(budget, depth=most)
        return budget

    def _lines(self, searched: Searched, started: float) -> None:
        """One iteration's ``info`` lines, one a principal variation."""
        ms = int((time.monotonic() - started) * 1000)
        nps = searched.nodes * 1000 // ms if ms > 0 else 0
        for rank, line in enumerate(searched.lines, 1):
            self.send(
                f"info depth {searched.depth} seldepth {max(searched.seldepth, searched.depth)}"
                f" multipv {rank} score {line.score} nodes {searched.nodes} nps {nps} time {ms}"
                f" pv {' '.join(move.uci() for move in line.pv)}"
            )

    def _answer(
        self,
        board: chess.Board,
        moves: list[chess.Move] | None,
        limits: SearchLimits,
        found: Searched | None,
    ) -> None:
        """``bestmove``: the search's move (a random legal one where it found none, 0000 where there
        is none), with its ponder move; for ``go infinite`` and ``go ponder`` after ``stop`` or
        ``ponderhit``."""
        line = found.lines[0] if found is not None and found.lines else None
        move = line.move if line is not None else None
        ponder = line.pv[1] if line is not None and len(line.pv) > 1 else None
        self._bestmove(board, moves, limits, move, ponder)

    def _perft(self, board: chess.Board, depth: int) -> None:
        """``go perft``'s lines, counted by the compiled move generator (once it is ready; by
        python-chess where it cannot run)."""
        self.compiler.done.wait()
        counts: list[tuple[chess.Move, int]] | None = None
        if self.compiler.search is not None:
            from engine.compiled.board import Unsupported
            from engine.compiled.movegen import divide_board

            try:
                counts = divide_board(board, depth)
            except Unsupported as exc:
                self.info_once(
                    f"the compiled search cannot hold this board ({exc}): python-chess counts"
                )
        if counts is None:
            from engine.compiled.board import reference_perft

            counts = []
            for move in board.legal_moves:
                board.push(move)
                counts.append((move, reference_perft(board, depth - 1)))
                board.pop()
        lines = [f"{move.uci()}: {count}" for move, count in counts]
        self.send("\n".join([*lines, "", f"Nodes searched: {sum(c for _, c in counts)}", ""]))


def main() -> int:
    """Run ``cbr-chess-search`` on stdin/stdout (undecodable input bytes become U+FFFD)."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    return SearchEngine().run(sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
