"""The UCI loop both of the project's engines run (:mod:`engine.uci.protocol`'s, the expert's, and
:mod:`engine.uci.search_main`'s, the compiled search's): the command lines read and dispatched to
their handlers, the lines written under one lock, and a ``go``'s worker thread with what answers it
while it thinks.

An engine is made of :class:`UciLoop` by the handlers of its own commands (``uci``, ``isready``,
``go``...) and its options' setter :meth:`UciLoop._set_option`; the loop handles ``register``,
``setoption`` (its words read), ``position``, ``ucinewgame``, ``stop`` and ``ponderhit`` itself.
Unknown leading words of a line are skipped and said, and a command that raises is said in an
``info string`` (its traceback on stderr) and the session goes on. A ``go``'s handler starts its
worker with :meth:`UciLoop._start_search`, and the worker ends with :meth:`UciLoop._bestmove`, held
until ``stop`` or ``ponderhit`` where UCI says so (search.md §4); a ``ponderhit`` starts the clock
of the ``go`` pondered on a timer. Nothing here imports numpy: ``uciok`` comes at once.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

import chess

from common.text import clip
from engine.search.limits import SearchLimits, after_ponderhit
from engine.uci.commands import parse_position
from engine.uci.fallback import legal_after, uniform_move

#: A command's handler: called with the words after the command's name.
Handler = Callable[[list[str]], None]


class UciLoop:
    """One engine session's loop: :meth:`run` reads commands and calls their handlers (``commands``,
    with the loop's own), UCI lines go to ``out``."""

    def __init__(self, commands: Mapping[str, Handler], out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        #: The position of the last ``position`` command, which the next ``go`` searches.
        self.board = chess.Board()
        self._write_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()  # the GUI's stop (or, unless the engine says, the clock's)
        self._wake = threading.Condition()
        self._ponderhit = False
        #: While pondering: the go's limits and the side to move, for the clock at ponderhit.
        self._pondering: tuple[SearchLimits, chess.Color] | None = None
        self._timer: threading.Timer | None = None
        self._commands: dict[str, Handler] = {
            **commands,
            "register": lambda _: None,
            "setoption": self._setoption,
            "ucinewgame": self._ucinewgame,
            "position": self._position,
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
        """Execute one command line (unknown leading words skipped and said); False after
        ``quit``."""
        tokens = line.split()
        # UCI: skip unknown leading tokens and parse the rest of the line.
        skipped = 0
        while (
            skipped < len(tokens)
            and tokens[skipped] not in self._commands
            and tokens[skipped] != "quit"
        ):
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
            self._fault(command, exc)
        return True

    # -- output ----------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info(self, text: str) -> None:
        """Tell the GUI's user something, one ``info string`` per line of ``text``."""
        for line in text.splitlines() or [""]:
            self.send(f"info string {line}")

    def _fault(self, what: str, exc: Exception) -> None:
        """The exception being handled, raised in ``what``: its traceback on stderr, its text
        said."""
        traceback.print_exc(file=sys.stderr)
        self.info(f"error in {what}: {clip(str(exc))}")

    # -- commands --------------------------------------------------------------------

    def _setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            self.info("setoption needs 'name <name> [value <value>]'; ignored")
            return
        cut = args.index("value") if "value" in args else len(args)
        self._set_option(" ".join(args[1:cut]), " ".join(args[cut + 1 :]))

    def _set_option(self, name: str, text: str) -> None:
        """``setoption name <name> value <text>``: here no option has the name."""
        self.info(f"no option named {clip(name)!r}; ignored")

    def _ucinewgame(self, _: list[str]) -> None:
        self._finish_search()
        self.board = chess.Board()

    def _position(self, args: list[str]) -> None:
        try:
            self.board = parse_position(args)
        except ValueError as exc:
            self.info(f"{exc}; position unchanged")

    def _stop_command(self, _: list[str]) -> None:
        with self._wake:
            self._stop.set()
            self._on_stop()
            self._wake.notify_all()

    def _on_stop(self) -> None:
        """What else a ``stop`` sets, under the lock that wakes the worker (nothing here)."""

    def _ponderhit_command(self, _: list[str]) -> None:
        """The opponent played the expected move: the clock runs from now (search.md §4)."""
        if self._pondering is not None and self._searching():
            seconds = after_ponderhit(*self._pondering)
            if seconds is not None:
                self._timer = threading.Timer(seconds, self._clock_out)
                self._timer.daemon = True  # never keeps the engine alive after quit
                self._timer.start()
        self._pondering = None
        with self._wake:
            self._ponderhit = True
            self._wake.notify_all()

    def _clock_out(self) -> None:
        """The time after a ``ponderhit`` is up (on the timer's thread): here, a ``stop``."""
        self._stop_command([])

    # -- thinking --------------------------------------------------------------------

    def _start_search(
        self,
        limits: SearchLimits,
        turn: chess.Color,
        target: Callable[..., None],
        *args: object,
    ) -> None:
        """A ``go``'s worker, ``target(*args)``, started with no ``stop`` or ``ponderhit`` yet;
        while pondering, the go's ``limits`` and the side to move ``turn`` kept for the clock at
        ponderhit."""
        self._stop.clear()
        self._ponderhit = False
        self._pondering = (limits, turn) if limits.ponder else None
        self._start(target, *args)

    def _start(self, target: Callable[..., None], *args: object) -> None:
        """``target(*args)`` on the worker thread."""
        self._worker = threading.Thread(target=target, args=args, name="search", daemon=True)
        self._worker.start()

    def _searching(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _finish_search(self) -> None:
        """Stop the worker, if any, and wait for its last line (a search's bestmove)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._worker is not None:
            self._stop_command([])
            self._worker.join()
            self._worker = None

    def _bestmove(
        self,
        board: chess.Board,
        moves: list[chess.Move] | None,
        limits: SearchLimits,
        move: chess.Move | None,
        ponder: chess.Move | None,
    ) -> None:
        """The ``bestmove`` line: ``move`` (where there is none or it is not legal, a random legal
        one among ``moves``, 0000 where none is) with ``ponder`` where it is legal after it; for
        ``go infinite`` and ``go ponder`` after ``stop`` or ``ponderhit``."""
        # go infinite / go ponder: the move is ready, but UCI holds it until stop or ponderhit.
        with self._wake:
            self._wake.wait_for(
                lambda: (
                    self._stop.is_set()
                    or not (limits.infinite or (limits.ponder and not self._ponderhit))
                )
            )
        # never 0000 while a move is legal, never an illegal one
        if move is None or not board.is_legal(move):
            move, ponder = uniform_move(board, moves), None
        if move is None:
            self.send("bestmove 0000")
        elif ponder is not None and legal_after(board, move, ponder):
            self.send(f"bestmove {move.uci()} ponder {ponder.uci()}")
        else:
            self.send(f"bestmove {move.uci()}")
