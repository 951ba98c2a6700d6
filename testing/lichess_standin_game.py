"""The stand-in's game (testing/lichess_standin.py): the board, both clocks as Lichess keeps them,
the status, and the JSON that Lichess's streams carry for one bot account, one challenge, one
game."""

from __future__ import annotations

import dataclasses
import datetime
import threading
import time

import chess
import chess.pgn

BOT = {"id": "cbrbot", "username": "cbrbot", "title": "BOT", "rating": 2000}
HUMAN = {"id": "standin", "username": "standin", "title": None, "rating": 1500}
GAME_ID = "standin1"
CHALLENGE_ID = "chal0001"
TOKEN = "lip_standin_token"
KEEPALIVE = 3.0  # seconds between blank lines on an idle stream (Lichess sends them too)


@dataclasses.dataclass
class Clock:
    """The game's clock: milliseconds left for each side, the increment, and whose time runs since
    when."""

    white: int
    black: int
    increment: int
    running_since: float = dataclasses.field(default_factory=time.monotonic)

    def left(self, color: chess.Color, now: float, running: chess.Color) -> int:
        spent = int((now - self.running_since) * 1000) if color == running else 0
        return (self.white if color == chess.WHITE else self.black) - spent

    def charge(self, color: chess.Color, now: float) -> int:
        """Charge the side that moved and add its increment; its time left before the increment."""
        left = self.left(color, now, color)
        after = left + self.increment
        if color == chess.WHITE:
            self.white = after
        else:
            self.black = after
        self.running_since = now
        return left


class Game:
    """The one game: the board, the clock, the status, and a condition that streams wait on."""

    def __init__(
        self, bot_color: chess.Color, base_ms: int, increment_ms: int, max_plies: int
    ) -> None:
        self.bot_color = bot_color
        self.board = chess.Board()
        self.clock = Clock(base_ms, base_ms, increment_ms)
        self.base_ms, self.increment_ms = base_ms, increment_ms
        self.max_plies = max_plies
        # created -> started -> mate | resign | stalemate | outoftime | draw | aborted
        self.status = "created"
        self.winner: str | None = None
        self.challenge_answer: str | None = None  # "accepted" or "declined: REASON"
        self.changed = threading.Condition()
        self.version = 0
        self.created_ms = int(time.time() * 1000)
        self.refused: list[str] = []  # the bot's moves that were refused, and why
        self.draw_offers = 0
        self.chat: list[str] = []
        self.bot_thinking: list[float] = []  # seconds per bot move, as charged

    # -- what the streams send ---------------------------------------------------------------

    def players(self) -> tuple[dict[str, object], dict[str, object]]:
        bot: dict[str, object] = {
            "id": BOT["id"],
            "name": BOT["username"],
            "title": "BOT",
            "rating": BOT["rating"],
        }
        human: dict[str, object] = {
            "id": HUMAN["id"],
            "name": HUMAN["username"],
            "title": None,
            "rating": HUMAN["rating"],
        }
        return (bot, human) if self.bot_color == chess.WHITE else (human, bot)

    def timed(self) -> bool:
        """Whether the clock runs: as on Lichess, from each side's second move on."""
        return self.status == "started" and self.board.ply() >= 2

    def state(self) -> dict[str, object]:
        now = time.monotonic()
        running = self.board.turn
        state: dict[str, object] = {
            "type": "gameState",
            "moves": " ".join(m.uci() for m in self.board.move_stack),
            "wtime": max(
                0, self.clock.left(chess.WHITE, now, running) if self.timed() else self.clock.white
            ),
            "btime": max(
                0, self.clock.left(chess.BLACK, now, running) if self.timed() else self.clock.black
            ),
            "winc": self.increment_ms,
            "binc": self.increment_ms,
            "status": self.status,
        }
        if self.winner:
            state["winner"] = self.winner
        return state

    def full(self) -> dict[str, object]:
        white, black = self.players()
        return {
            "id": GAME_ID,
            "type": "gameFull",
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "clock": {"initial": self.base_ms, "increment": self.increment_ms},
            "speed": "blitz",
            "perf": {"name": "Blitz"},
            "rated": False,
            "createdAt": self.created_ms,
            "white": white,
            "black": black,
            "initialFen": "startpos",
            "state": self.state(),
        }

    def summary(self) -> dict[str, object]:
        """The game as ``/api/account/playing`` and ``gameStart`` describe it."""
        bots_turn = self.board.turn == self.bot_color
        left = self.clock.left(self.bot_color, time.monotonic(), self.board.turn)
        return {
            "gameId": GAME_ID,
            "fullId": GAME_ID + "abcd",
            "id": GAME_ID,
            "color": "white" if self.bot_color == chess.WHITE else "black",
            "fen": self.board.fen(),
            "hasMoved": bool(self.board.move_stack),
            "isMyTurn": bots_turn,
            "lastMove": self.board.peek().uci() if self.board.move_stack else "",
            "opponent": {
                "id": HUMAN["id"],
                "username": HUMAN["username"],
                "rating": HUMAN["rating"],
            },
            "perf": "blitz",
            "rated": False,
            "secondsLeft": max(0, left // 1000),
            "source": "friend",
            "speed": "blitz",
            "variant": {"key": "standard", "name": "Standard"},
            "compat": {"bot": True, "board": True},
        }

    def challenge(self) -> dict[str, object]:
        human_color = "black" if self.bot_color == chess.WHITE else "white"
        return {
            "id": CHALLENGE_ID,
            "url": f"/{CHALLENGE_ID}",
            "status": "created",
            "challenger": {
                "id": HUMAN["id"],
                "name": HUMAN["username"],
                "title": None,
                "rating": HUMAN["rating"],
                "provisional": False,
                "online": True,
            },
            "destUser": {
                "id": BOT["id"],
                "name": BOT["username"],
                "title": "BOT",
                "rating": BOT["rating"],
                "provisional": False,
                "online": True,
            },
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "rated": False,
            "speed": "blitz",
            "timeControl": {
                "type": "clock",
                "limit": self.base_ms // 1000,
                "increment": self.increment_ms // 1000,
                "show": f"{self.base_ms // 60000}+{self.increment_ms // 1000}",
            },
            "color": human_color,
            "finalColor": human_color,
            "perf": {"icon": "", "name": "Blitz"},
        }

    # -- what changes it ----------------------------------------------------------------------

    def notify(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def start(self) -> None:
        with self.changed:
            self.status = "started"
            self.clock.running_since = time.monotonic()
        self.notify()

    def end(self, status: str, winner: chess.Color | None) -> None:
        """End the game (the caller holds ``changed``)."""
        if self.status != "started":
            return
        now = time.monotonic()
        mover = self.board.turn
        if self.timed() and mover == chess.WHITE:
            self.clock.white = max(0, self.clock.left(chess.WHITE, now, mover))
        elif self.timed():
            self.clock.black = max(0, self.clock.left(chess.BLACK, now, mover))
        self.status = status
        self.winner = None if winner is None else ("white" if winner == chess.WHITE else "black")

    def play(self, move: chess.Move) -> None:
        """Play ``move`` for the side to move (the caller holds ``changed`` and checked it is
        legal)."""
        now = time.monotonic()
        mover = self.board.turn
        if not self.timed():  # each side's first move is not timed (Lichess)
            self.clock.running_since = now
            left = 1
        else:
            left = self.clock.charge(mover, now)
        if left <= 0:
            if mover == chess.WHITE:
                self.clock.white = 0
            else:
                self.clock.black = 0
            self.end("outoftime", not mover)
            return
        self.board.push(move)
        outcome = self.board.outcome()
        if outcome is not None:
            status = {
                chess.Termination.CHECKMATE: "mate",
                chess.Termination.STALEMATE: "stalemate",
            }.get(outcome.termination, "draw")
            self.end(status, outcome.winner)
        elif (
            self.board.is_repetition(3)
            or self.board.is_fifty_moves()
            or self.board.ply() >= self.max_plies
        ):
            self.end("draw", None)  # the stand-in ends these at once, with no claim

    def flag_fall(self) -> bool:
        """End the game if the side to move has no time left; True if it did."""
        with self.changed:
            if (
                self.timed()
                and self.clock.left(self.board.turn, time.monotonic(), self.board.turn) <= 0
            ):
                self.end("outoftime", not self.board.turn)
                self.version += 1
                self.changed.notify_all()
                return True
        return False


def game_pgn(game: Game) -> str:
    """The game so far as PGN, with the stand-in's tags."""
    record = chess.pgn.Game.from_board(game.board)
    white, black = game.players()
    record.headers.update(
        {
            "Event": "lichess-bot against the stand-in (testing/lichess_standin.py)",
            "Site": "127.0.0.1",
            "White": str(white["name"]),
            "Black": str(black["name"]),
            "TimeControl": f"{game.base_ms // 1000}+{game.increment_ms // 1000}",
            "Termination": game.status,
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
        }
    )
    drawn = game.status in ("draw", "stalemate")
    record.headers["Result"] = {"white": "1-0", "black": "0-1"}.get(
        game.winner or "", "1/2-1/2" if drawn else "*"
    )
    return str(record) + "\n"
