"""The expert's moves in held-out games: the test positions of the fidelity bench.

Every move the expert made in the held-out games (``python -m casebase holdout``) is a test
position: the board with the game's history (so repetition rules hold) and the expert's move.

Each position's phase is the project's one definition (:mod:`casebase.phases`), judged on the
board before the expert's move, ``ply`` half-moves into its game (as the casebase counts them:
a game set up from a FEN starts at ply 0 there too).
"""

from __future__ import annotations

import io
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import chess
import chess.pgn

from casebase.format import Casebase
from casebase.games import BuildError, Candidate, GameFilter, classify
from casebase.phases import Phase, phase
from casebase.sources import read_source


def plain_uci(board: chess.Board, move: chess.Move) -> str:
    """``move`` in UCI with castling as the king's two-square step, however ``board`` writes it."""
    return board.uci(move, chess960=False)


@dataclass(frozen=True)
class Position:
    """One move of the expert: the game up to it and the move itself."""

    index: int  # among all the expert's positions of the file, in file order
    game: int  # the game's number in the file, from 0
    ply: int  # half-moves played in the game before this one
    start: str  # FEN the game starts from
    chess960: bool
    history: tuple[str, ...]  # the game's moves before this one, UCI as python-chess writes them
    fen: str
    phase: Phase
    expert: str  # the expert's move (:func:`plain_uci`)

    def board(self) -> chess.Board:
        """The position with the game's move stack, as an engine receives it."""
        board = chess.Board(self.start, chess960=self.chess960)
        for move in self.history:
            board.push_uci(move)
        return board


@dataclass
class HeldOut:
    """The expert's positions in a PGN file, and what happened to its games."""

    positions: list[Position]
    games_read: int
    expert_games: int
    # games left out, by the builder's reason (without_expert, both_match, ...)
    skipped: Counter[str]
    damaged: int  # expert games cut short at an illegal move (the moves before it count)
    seen: int  # expert games that the casebase holds too: not held out


GameKey = tuple[str, str, str, str, str]


def game_key(white: str, black: str, date: str, event: str, site: str) -> GameKey:
    """What identifies a game across a PGN file and a casebase's games table."""
    return (white, black, date, event, site)


def casebase_games(casebase: Casebase) -> set[GameKey]:
    """The keys of the games a casebase was built from."""
    columns = [casebase.games[c] for c in ("white", "black", "date", "event", "site")]
    return {game_key(*map(str, row)) for row in zip(*columns)}


class _Builder(chess.pgn.GameBuilder):
    """python-chess's game builder, keeping errors in ``game.errors`` without logging them."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def read_positions(
    path: str | os.PathLike[str],
    player: str,
    *,
    exact_name: bool = False,
    seen: Iterable[GameKey] = (),
) -> HeldOut:
    """Every move of ``player`` in the games of ``path`` (``.pgn`` or ``.pgn.gz``), in file order.

    The player and the games are decided as the casebase builder decides them (name matching,
    games where both sides match or of another variant skipped); ``seen`` are games known to
    the casebase, counted in :attr:`HeldOut.seen`. Raises ValueError on an unreadable file.
    """
    try:
        selection = GameFilter(player=player, exact_name=exact_name)
        text = read_source(path).text
    except BuildError as exc:
        raise ValueError(str(exc)) from None
    matcher = selection.matcher()
    known = set(seen)
    handle = io.StringIO(text)
    positions: list[Position] = []
    skipped: Counter[str] = Counter()
    games_read = expert_games = damaged = seen_count = 0
    while True:
        offset = handle.tell()
        headers = chess.pgn.read_headers(handle)
        if headers is None:
            break
        number, games_read = games_read, games_read + 1
        decision = classify(headers, selection, matcher)
        if not isinstance(decision, Candidate):
            skipped[decision] += 1
            continue
        handle.seek(offset)
        game = chess.pgn.read_game(handle, Visitor=_Builder)
        assert game is not None
        expert_games += 1
        damaged += bool(game.errors)
        seen_count += (
            game_key(*(headers.get(t, "?") for t in ("White", "Black", "Date", "Event", "Site")))
            in known
        )
        board = game.board()
        start, history = board.fen(), list[str]()
        for ply, move in enumerate(game.mainline_moves()):
            if board.turn == decision.expert_white:
                positions.append(
                    Position(
                        len(positions),
                        number,
                        ply,
                        start,
                        board.chess960,
                        tuple(history),
                        board.fen(),
                        phase(board, ply),
                        plain_uci(board, move),
                    )
                )
            history.append(board.uci(move))
            board.push(move)
    if not expert_games:
        raise ValueError(f"{path}: no game of {player!r} ({games_read} games read)")
    return HeldOut(positions, games_read, expert_games, skipped, damaged, seen_count)


def spread(count: int, n: int | None) -> list[int]:
    """``n`` indices spread evenly over ``range(count)`` (the middle of ``n`` equal strata);
    all of them when ``n`` is None or not below ``count``."""
    if n is None or n >= count:
        return list(range(count))
    return [(2 * i + 1) * count // (2 * n) for i in range(n)]
