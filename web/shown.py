"""What the page and the PGN are told of a game (:class:`Shown`, mixed into
:class:`web.games.Game`): the board as the page draws it (legal destinations, moves, clocks, result,
opening), the settings the game was started with, and the game as PGN with each move's clock and the
engine's reasons."""

from __future__ import annotations

import datetime
import math
import time
from typing import Any

import chess
import chess.engine
import chess.pgn

from engine.outside.clock import Clock
from web.game_settings import Settings
from web.openings import opening
from web.plain import pgn_comments


def clock_shown(clock: Clock) -> dict[str, Any]:
    """Both sides' milliseconds left (none below 0) and whose time runs, as the page shows them."""
    now = time.monotonic()
    running = None if clock.running is None else chess.COLOR_NAMES[clock.running]
    return {
        "white": max(int(clock.left(chess.WHITE, now) * 1000), 0),
        "black": max(int(clock.left(chess.BLACK, now) * 1000), 0),
        "running": running,
    }


def numbered(board: chess.Board, san: str) -> str:
    """The move ``san`` of ``board``'s side to move as the page lists it, numbered from the board's
    own move number (a game from a FEN goes on from its number): ``30. Bb5``, ``30… c6``."""
    return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '…'} {san}"


class Shown:
    """What the page and the PGN are told of a game: :class:`web.games.Game`'s, whose attributes
    these are."""

    id: str
    settings: Settings
    expert_name: str
    board: chess.Board
    start_fen: str | None
    clock: Clock
    reasons: dict[int, dict[str, Any]]
    clocks: list[float]
    result: str | None
    termination: str
    busy: bool
    started: datetime.date

    @property
    def human(self) -> chess.Color:
        return self.settings.human

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
