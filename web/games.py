"""One game in the browser: the board (python-chess's rules), the clocks, and the project's own UCI
engine in its own process, spoken to by python-chess's asyncio client as a GUI would; what the page
and the PGN are told of it (the board as the page draws it, the settings the game was started with,
the game as PGN with each move's clock and the engine's reasons).

Every engine move is played through ``analysis()`` so that each ``info`` line arrives as it comes
(``play()`` would merge them); the engine runs with ``Explain json``, and its record of the move is
the move's reasons (web/reasons.py).
"""

from __future__ import annotations

import asyncio
import datetime
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import chess
import chess.engine
import chess.pgn

from engine.outside.clock import Clock, TimeControl
from engine.outside.failures import ENGINE_FAILURES
from engine.outside.launch import Outside, own_engine, start
from engine.search.limits import to_limit
from web.draws import Answer, offer
from web.game_settings import Settings
from web.openings import opening
from web.plain import pgn_comments, plain
from web.reasons import gather
from web.relay import Relay

#: Sends one JSON message to the page.
Send = Callable[[dict[str, Any]], Awaitable[None]]
#: How long the engine may take to start, and to quit before it is killed.
START_SECONDS = 60
QUIT_SECONDS = 3
#: The most any move may think beyond its clock (a hung engine ends the game, not the server).
THINK_SLACK_SECONDS = 30
#: A game's engine takes its time as a person at the clock would (option HumanTime, web.md).
PACE = {"HumanTime": True}


class GameError(ValueError):
    """A request the game refuses (illegal move, out of order): the page shows the message."""


def engine_command(casebase: str, judge: str | None, mode: str | None) -> list[str]:
    """The command a GUI would run (:func:`engine.outside.launch.own_engine`) with its flags."""
    command = own_engine("--casebase", casebase)
    if judge:
        command += ["--judge", judge]
    if mode:
        command += ["--mode", mode]
    return command


def clock_shown(clock: Clock) -> dict[str, Any]:
    """Both sides' milliseconds left (none below 0) and whose time runs, as the page shows them."""
    now = time.monotonic()
    running = None if clock.running is None else chess.COLOR_NAMES[clock.running]
    return {
        "white": max(int(clock.left(chess.WHITE, now) * 1000), 0),
        "black": max(int(clock.left(chess.BLACK, now) * 1000), 0),
        "running": running,
    }


class Game:
    """A game between the page's human and one engine process (started by :meth:`start`)."""

    def __init__(
        self,
        settings: Settings,
        casebase: str,
        expert_name: str,
        *,
        judge: str | None = None,
        mode: str | None = None,
        limit: chess.engine.Limit | None = None,
        case_lookup: Callable[[int], dict[str, Any] | None] | None = None,
    ) -> None:
        self.id = secrets.token_urlsafe(12)
        # the tab that holds the game, and the token to take it back (web/keeper.py)
        self.relay = Relay()
        self.settings = settings
        self.expert_name = expert_name
        self.command = engine_command(casebase, judge, mode)
        self.fixed_limit = limit  # tests and quick games: a fixed limit instead of the clock
        self.case_lookup = case_lookup
        self.board = chess.Board(settings.fen) if settings.fen else chess.Board()
        self.start_fen = self.board.fen() if settings.fen else None
        self.clock = Clock(
            TimeControl(settings.moves or None, settings.minutes * 60, settings.increment)
        )
        # ply index in the move stack -> the engine's reasons
        self.reasons: dict[int, dict[str, Any]] = {}
        # each move's mover's seconds left after it (the PGN's [%clk])
        self.clocks: list[float] = []
        self.result: str | None = None
        self.termination = ""
        self.busy = False  # the engine is thinking
        self.task: asyncio.Task[None] | None = None  # its thinking, to cancel at the end
        # set when a side's time starts to run (the flag's watch)
        self.clock_started = asyncio.Event()
        # the flag's watch (:meth:`watch_flag`), ended with the game
        self.watcher: asyncio.Task[None] | None = None
        self.engine: chess.engine.UciProtocol | None = None
        self._outside: Outside | None = None
        self.last_activity = time.monotonic()
        self.started = datetime.date.today()

    @property
    def human(self) -> chess.Color:
        return self.settings.human

    async def start(self) -> None:
        """Start the engine process and set the strength's options."""
        self._outside = await start(self.command, timeout=START_SECONDS)
        self.engine = engine = self._outside.protocol
        await engine.configure({**self.settings.options(), **PACE})
        await engine.ping()
        if self.board.turn == self.human:
            self._start_clock(self.human)

    async def close(self) -> None:
        """End the engine process: quit, and kill it if it does not."""
        if self.watcher is not None:
            self.watcher.cancel()
        if self.task is not None and not self.task.done():
            self.task.cancel()  # its analysis stops the engine's search as it unwinds
            try:
                await asyncio.wait_for(self.task, QUIT_SECONDS)
            except (asyncio.CancelledError,) + ENGINE_FAILURES:
                pass
        if self._outside is not None:
            await self._outside.quit(QUIT_SECONDS)
        self.engine = self._outside = None

    # -- the human's requests ------------------------------------------------------------------

    def _ready_for_human(self) -> None:
        if self.result is not None:
            raise GameError(f"the game is over ({self.result}, {self.termination})")
        if self.busy:
            raise GameError("out of order: the engine is thinking; wait for its move")
        if self.board.turn != self.human:
            raise GameError("out of order: it is not your move")

    def human_move(self, uci: str) -> chess.Move:
        """Play the human's move (UCI text, e.g. ``e7e8q``) if legal."""
        self._ready_for_human()
        try:
            move = chess.Move.from_uci(uci)
        except (chess.InvalidMoveError, ValueError, TypeError):
            raise GameError(
                f"not a move: {str(uci)[:20]!r} (UCI text such as e2e4 or e7e8q)"
            ) from None
        if move not in self.board.legal_moves:
            raise GameError(f"illegal move {move.uci()} in this position")
        if not self.clock.stop():
            self._end(self._on_time(self.human), "time forfeit")
            raise GameError("your time ran out")
        self.board.push(move)
        self.clocks.append(self.clock.remaining[self.human])
        self._check_end()
        return move

    def take_back(self) -> None:
        """Take back the human's last move and the engine's reply to it."""
        self._ready_for_human()
        if not any(self._mover(i) == self.human for i in range(len(self.board.move_stack))):
            raise GameError("nothing to take back: you have not moved yet")
        while True:
            self.board.pop()
            self.reasons.pop(len(self.board.move_stack), None)
            if self.board.turn == self.human:
                break
        del self.clocks[len(self.board.move_stack) :]
        self.clock.moves_made.update({colour: self._moves_made(colour) for colour in chess.COLORS})
        self._start_clock(self.human)

    def resign(self) -> None:
        if self.result is not None:
            raise GameError(f"the game is over ({self.result})")
        self._end("0-1" if self.human == chess.WHITE else "1-0", "resignation")

    def claim_draw(self) -> None:
        """A draw by threefold repetition or the fifty-move rule, when python-chess says one can be
        claimed."""
        self._ready_for_human()
        if self.board.can_claim_fifty_moves():
            self._end("1/2-1/2", "fifty-move rule, claimed")
        elif self.board.can_claim_threefold_repetition():
            self._end("1/2-1/2", "threefold repetition, claimed")
        else:
            raise GameError(
                "no draw to claim: neither a threefold repetition nor fifty moves without a"
                " capture or pawn move"
            )

    def offer_draw(self) -> Answer:
        """The human offers a draw: the expert answers by web/draws.py's rule, and its yes ends the
        game."""
        self._ready_for_human()
        said = offer(self.reasons, self.board)
        if said.accepted:
            self._end("1/2-1/2", "draw agreed")
        return said

    def check_flag(self) -> bool:
        """End the game if the running side's time is up (the engine's thinking stopped); whether it
        did."""
        colour = self.clock.running
        if self.result is None and colour is not None and self.clock.left(colour) <= 0:
            self.clock.stop()
            self._end(self._on_time(colour), "time forfeit")
            if self.task is not None and not self.task.done():
                self.task.cancel()
                self.busy = False
            return True
        return False

    async def watch_flag(self, send: Send) -> None:
        """Until the game ends: the moment the running side's time is up, end the game and send its
        state (woken each time a clock starts, which may be in the engine's task)."""
        while self.result is None:
            self.clock_started.clear()
            colour = self.clock.running
            try:
                await asyncio.wait_for(
                    self.clock_started.wait(), None if colour is None else self.clock.left(colour)
                )
            except TimeoutError:
                if self.check_flag():
                    await send(self.state())

    # -- the engine's move ----------------------------------------------------------------------

    def engine_to_move(self) -> bool:
        return self.result is None and self.board.turn != self.human and self.engine is not None

    def limit(self) -> chess.engine.Limit:
        """The clock as ``go wtime btime winc binc movestogo``, or the fixed limit."""
        if self.fixed_limit is not None:
            return self.fixed_limit
        return to_limit(self.clock.limits(self.board.turn))

    def begin_thinking(self) -> None:
        """The engine is to move: it is busy and its clock runs from now, before its task starts, so
        that the state sent next shows its clock running (the page ticks the running clock, and only
        that one)."""
        self.busy = True
        self._start_clock(self.board.turn)

    async def engine_move(self, send: Send) -> None:
        """Let the engine think (its clock started by :meth:`begin_thinking`), sending each info
        line as it comes, then play its move."""
        assert self.engine is not None
        board, ply, colour = self.board.copy(), len(self.board.move_stack), self.board.turn
        strings: list[str] = []
        limit = self.limit()
        with await self.engine.analysis(
            board, limit, game=self.id, info=chess.engine.INFO_ALL
        ) as analysis:
            async with asyncio.timeout(self._think_budget(limit)):
                async for info in analysis:
                    if "string" in info:
                        strings.append(info["string"])
                    await send({"type": "info", "ply": ply, "info": progress(info)})
                best = await analysis.wait()
        if not self.clock.stop():
            self._end(self._on_time(colour), "time forfeit")
            return
        if best.move is None or best.move not in self.board.legal_moves:
            self._end("*", f"the engine gave no legal move ({best.move})")
            return
        reasons = gather(strings)
        san = self.board.san(best.move)
        record: dict[str, Any] = {
            "ply": ply,
            "san": san,
            "label": numbered(self.board, san),
            "uci": best.move.uci(),
            "strings": strings,
            "reasons": reasons,
        }
        case, precedent = reasons.get("case"), reasons.get("precedent")
        if self.case_lookup is not None:  # the cases' own positions, each drawn on a small board
            if case:
                record["position"] = self.case_lookup(case["row"])
            if precedent:
                record["precedent_position"] = self.case_lookup(precedent["case"]["row"])
        record["plain"] = plain(reasons, record.get("position"))
        self.reasons[ply] = record
        self.board.push(best.move)
        self.clocks.append(self.clock.remaining[colour])
        self._check_end()
        if self.result is None:
            self._start_clock(self.human)
        await send({"type": "reasons", **record})

    def _think_budget(self, limit: chess.engine.Limit) -> float:
        clock = limit.white_clock if self.board.turn == chess.WHITE else limit.black_clock
        return (clock or 0) + THINK_SLACK_SECONDS

    # -- what the page shows --------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The board as the page draws it: FEN, legal destinations, moves, clocks, result."""
        board = self.board
        dests: dict[str, list[str]] = {}
        if self.result is None and board.turn == self.human:
            for move in board.legal_moves:
                dests.setdefault(chess.square_name(move.from_square), []).append(
                    chess.square_name(move.to_square)
                )
        sans, labels, fens = self._replayed()
        last = board.move_stack[-1].uci() if board.move_stack else None
        return {
            "type": "state",
            "game": self.id,
            "fen": board.fen(),
            "turn": chess.COLOR_NAMES[board.turn],
            "human": chess.COLOR_NAMES[self.human],
            "dests": dests,
            "last": last,
            "check": board.is_check(),
            "moves": sans,
            "numbered": labels,
            "start_fen": self.start_fen,
            "clock": clock_shown(self.clock),
            "thinking": self.busy,
            "can_claim_draw": self.result is None
            and board.turn == self.human
            and board.can_claim_draw(),
            "result": self.result,
            "termination": self.termination,
            "expert": self.expert_name,
            "settings": self._settings_shown(),
            "plies": len(board.move_stack),
            "fens": fens,
            "ucis": [move.uci() for move in board.move_stack],
            "clocks": [round(seconds * 1000) for seconds in self.clocks],
            "opening": self._opening(fens),
        }

    def _settings_shown(self) -> dict[str, Any]:
        """What the game was started with, as the page's New game form asks for it (a reloaded page
        shows the game on the board, not the defaults)."""
        settings = self.settings
        return {
            "expert": settings.expert,
            "colour": chess.COLOR_NAMES[settings.human],
            "minutes": settings.minutes,
            "moves": settings.moves,
            "increment": settings.increment,
            "elo": settings.elo,
        }

    def _replayed(self) -> tuple[list[str], list[str], list[str]]:
        """Each move's SAN, its label as the page lists it (:func:`numbered`), and the position
        after it."""
        replay = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        sans, labels, fens = [], [], []
        for move in self.board.move_stack:
            sans.append(replay.san(move))
            labels.append(numbered(replay, sans[-1]))
            replay.push(move)
            fens.append(replay.fen())
        return sans, labels, fens

    def _opening(self, fens: list[str]) -> dict[str, str] | None:
        """The opening of the game whose positions after each move are ``fens``, its start from a
        FEN included."""
        return opening([self.start_fen, *fens] if self.start_fen else fens)

    def pgn(self) -> str:
        """The game as PGN (python-chess writes it): the opening (ECO, Opening), each move's clock
        ([%clk]) and the engine's reasons as comments."""
        game = chess.pgn.Game.from_board(self.board)
        you, expert = "You", f"{self.expert_name} (cbr-chess)"
        strength = (
            "the expert's own" if self.settings.elo is None else f"UCI_Elo {self.settings.elo}"
        )
        game.headers.update(
            {
                "Event": "cbr-chess in the browser",
                "Site": "localhost",
                "Date": self.started.strftime("%Y.%m.%d"),
                "White": you if self.human == chess.WHITE else expert,
                "Black": expert if self.human == chess.WHITE else you,
                "Result": self.result or "*",
                "TimeControl": str(self.clock.control),
                "Annotator": f"cbr-chess, strength {strength}",
            }
        )
        if self.termination:
            game.headers["Termination"] = self.termination
        named = self._opening(self._replayed()[2])
        if named:
            game.headers.update({"ECO": named["eco"], "Opening": named["name"]})
        pgn_comments(game, self.reasons)
        for ply, node in enumerate(game.mainline()):
            # as the page's clock showed it, in whole seconds
            node.set_clock(math.ceil(self.clocks[ply]))
        return str(game) + "\n"

    # -- rules ----------------------------------------------------------------------------------

    def _mover(self, index: int) -> chess.Color:
        first = chess.Board(self.start_fen).turn if self.start_fen else chess.WHITE
        return first if index % 2 == 0 else not first

    def _moves_made(self, colour: chess.Color) -> int:
        return sum(1 for i in range(len(self.board.move_stack)) if self._mover(i) == colour)

    def _on_time(self, colour: chess.Color) -> str:
        """The result when ``colour``'s flag falls: a draw if the other side cannot mate."""
        if self.board.has_insufficient_material(not colour):
            return "1/2-1/2"
        return "0-1" if colour == chess.WHITE else "1-0"

    def _check_end(self) -> None:
        outcome = self.board.outcome(claim_draw=False)
        if outcome is not None:
            self._end(outcome.result(), outcome.termination.name.lower().replace("_", " "))

    def _start_clock(self, colour: chess.Color) -> None:
        self.clock.start(colour)
        self.clock_started.set()

    def _end(self, result: str, termination: str) -> None:
        self.result, self.termination = result, termination
        self.clock.running = None


def numbered(board: chess.Board, san: str) -> str:
    """The move ``san`` of ``board``'s side to move as the page lists it, numbered from the board's
    own move number (a game from a FEN goes on from its number): ``30. Bb5``, ``30… c6``."""
    return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '…'} {san}"


def progress(info: chess.engine.InfoDict) -> dict[str, Any]:
    """How far one info line of the expert's think got (depth, nodes, time), for the page during a
    game: never its score or line, nor its strings (the move's record comes whole with the move):
    the line names the player's best reply and the score judges the position, a hint for the next
    move (issue #53)."""
    return {key: info[key] for key in ("depth", "seldepth", "nodes", "nps", "time") if key in info}
