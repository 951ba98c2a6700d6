"""Parsing one chunk of whole PGN games (in a worker process): the expert's cases of each game,
its headers, and why a game gave none (spec §2)."""

from __future__ import annotations

import io
from array import array
from collections import Counter
from dataclasses import dataclass, field

import chess
import chess.pgn

from casebase.format import GAME_TAGS
from casebase.games import (
    BOTH_MATCH,
    ELO_FILTERED,
    SPEED_FILTERED,
    VARIANT_SKIPPED,
    WITHOUT_EXPERT,
    Candidate,
    GameFilter,
    classify,
)
from common.boards import bitboards

#: Per-game outcome codes stored while parsing (index into this tuple); -1 = candidate.
OUTCOMES = (WITHOUT_EXPERT, BOTH_MATCH, VARIANT_SKIPPED, ELO_FILTERED, SPEED_FILTERED)
CANDIDATE = -1


@dataclass
class ParsedGame:
    """A candidate game as parsed: headers kept for the games table, and its cases' extent."""

    index: int  # in its chunk until merged, then in its source file
    tags: tuple[str, ...]  # GAME_TAGS, in the order of GAME_TEXT_COLUMNS
    expert_white: bool
    expert_elo: int
    spelling: str
    first_case: int
    cases: int = 0
    damaged: bool = False
    span: tuple[int, int] = (0, 0)  # characters of the game's PGN text in its chunk


@dataclass
class Chunk:
    """What a worker returns for one chunk of games."""

    outcomes: array = field(default_factory=lambda: array("b"))  # per game read
    games: list[ParsedGame] = field(default_factory=list)
    names: Counter[str] = field(default_factory=Counter)  # every player tag seen
    boards: array = field(default_factory=lambda: array("Q"))  # 8 per case
    moves: array = field(default_factory=lambda: array("B"))  # from, to, promotion per case
    turn: array = field(default_factory=lambda: array("b"))
    ply: array = field(default_factory=lambda: array("i"))


class CaseVisitor(chess.pgn.BaseVisitor[bool]):
    """Records the expert's moves of a game as they are read, without building a game tree."""

    def __init__(self, selection: GameFilter, chunk: Chunk) -> None:
        self.selection = selection
        self.matcher = selection.matcher()
        self.chunk = chunk
        self.game: ParsedGame | None = None

    def begin_game(self) -> None:
        self.game = None

    def begin_headers(self) -> chess.pgn.Headers:
        self.headers = chess.pgn.Headers()
        return self.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType | None:
        headers, chunk = self.headers, self.chunk
        white, black = headers.get("White", "?"), headers.get("Black", "?")
        chunk.names[white] += 1
        chunk.names[black] += 1
        decision = classify(headers, self.selection, self.matcher)
        if not isinstance(decision, Candidate):
            chunk.outcomes.append(OUTCOMES.index(decision))
            return chess.pgn.SKIP
        chunk.outcomes.append(CANDIDATE)
        self.game = ParsedGame(
            index=len(chunk.outcomes) - 1,
            tags=tuple(headers.get(tag, "?") for tag in GAME_TAGS),
            expert_white=decision.expert_white,
            expert_elo=decision.expert_elo,
            spelling=white if decision.expert_white else black,
            first_case=len(chunk.turn),
        )
        chunk.games.append(self.game)
        # All players: every move is a case; otherwise only the expert's colour.
        self.colour = None if self.matcher is None else decision.expert_white
        self.ply = 0
        self.finished = False  # until the movetext's result token (1-0, 0-1, 1/2-1/2, *)
        return None

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_result(self, result: str) -> None:
        self.finished = True

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        game = self.game
        if game is None or game.damaged:
            return
        if self.colour is None or board.turn == self.colour:
            if board.chess960:
                # A FEN start with unusual castling rights makes python-chess use
                # king-takes-rook castling; cases store the king's two-square move.
                move = chess.Move.from_uci(board.uci(move, chess960=False))
            chunk = self.chunk
            chunk.boards.extend(bitboards(board))
            chunk.moves.extend((move.from_square, move.to_square, move.promotion or 0))
            chunk.turn.append(board.turn)
            chunk.ply.append(self.ply)
            game.cases += 1
        self.ply += 1

    def handle_error(self, error: Exception) -> None:
        # An illegal or unparsable move (or a bad FEN): keep the cases before it.
        if self.game is not None:
            self.game.damaged = True

    def end_game(self) -> None:
        # Movetext without its result token: the game was cut short (a truncated file's last
        # game). Its moves are the game's as far as they go, so they stay, counted damaged.
        if self.game is not None and not self.finished:
            self.game.damaged = True

    def result(self) -> bool:
        return True  # read_game returns None only at the end of the input


def parse_chunk(task: tuple[str, GameFilter]) -> Chunk:
    """Parse one chunk of whole games (runs in a worker process)."""
    text, selection = task
    chunk = Chunk()
    visitor = CaseVisitor(selection, chunk)
    handle = io.StringIO(text)
    while True:
        start = handle.tell()
        if chess.pgn.read_game(handle, Visitor=lambda: visitor) is None:
            return chunk
        if visitor.game is not None:
            visitor.game.span = (start, handle.tell())
