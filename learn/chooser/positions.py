"""The positions of the chooser's records, drawn from PGN files without parsing them whole.

A position is the board before one move of a game, from full move :data:`casebase.phases.FIRST_MOVE`
on, where the mover has more than one legal move (a forced move tells nothing of a choice), of the
player ``--player`` names where one is named (the casebase builder's name matching,
:class:`casebase.names.NameMatcher`), in games none of whose players an ``--exclude`` name matches.
Its key is ``SRC16/GAME/PLY``: the start of the file's SHA-256, the game's index in the file, and
the half-moves played before it, as the error profile's case keys are.

How the sample is drawn: the games are ranked by a seeded hash of their keys (``SRC16/GAME``),
and the positions of each game by a seeded hash of theirs; the order takes each game's first
position along the games' ranking, then each game's second, and so on. So the positions come from
as many different games as there are, a larger ``--positions`` goes on along the same order, and
the sample is the same whatever else the files hold. A first pass reads only the games' headers
(python-chess's :func:`chess.pgn.read_headers`); the next ones parse only the games the sample
reaches, the others skipped (:func:`chess.pgn.skip_game`), the fewest a sample of N positions
needs: a game that cannot be read whole (an illegal or unreadable move) is passed over, and counted.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, cast

import chess
import chess.pgn

from casebase.games import parse_elo
from casebase.names import NameMatcher
from casebase.phases import FIRST_MOVE
from casebase.speed import speed_of
from common.bounded import LineBound
from common.files import file_sha256


@dataclass(frozen=True)
class Position:
    """One position of a record: the board before the move ``played``, and what the game says of
    it."""

    key: str
    fen: str
    last: str | None  # the move just played (the opponent's), UCI
    elo: int | None  # the mover's rating
    speed: str  # casebase.speed's class of the game
    played: str  # UCI
    start: str = chess.STARTING_FEN  # the game's first position
    history: tuple[str, ...] = ()  # the game's moves before this one, UCI

    def board(self) -> chess.Board:
        """The board before the move, with the game's moves on its stack (an lc0 network sees its
        history)."""
        if not self.history:
            return chess.Board(self.fen)
        board = chess.Board(self.start)
        for move in self.history:
            board.push_uci(move)
        return board


@dataclass(frozen=True)
class Filter:
    """Whose moves are drawn (``player``; anyone's where None), and whose games are left out."""

    player: str | None = None
    exclude: tuple[str, ...] = ()

    def matchers(self) -> tuple[NameMatcher | None, list[NameMatcher]]:
        return (NameMatcher(self.player) if self.player else None), [
            NameMatcher(name) for name in self.exclude
        ]


def digest(seed: int, key: str) -> int:
    """The seeded hash that orders games and positions (as the error profile's sample orders
    cases)."""
    return int.from_bytes(hashlib.blake2b(f"{seed}:{key}".encode(), digest_size=8).digest(), "big")


def open_pgn(path: Path) -> TextIO:
    """A PGN file as text read as a stream, gzip-compressed or plain (bytes that are not UTF-8 read
    as replacements), each line cut at :data:`common.bounded.LINE_MOST` characters (issue #69)."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    if gzipped:
        handle: TextIO = gzip.open(path, "rt", encoding="utf-8", errors="replace")
    else:
        handle = open(path, encoding="utf-8", errors="replace")
    return cast(TextIO, LineBound(handle))  # read as python-chess reads a PGN: readline


@dataclass
class Source:
    """One PGN file: its SHA-256, and the games the filter lets through (index, mover sides)."""

    path: Path
    sha256: str
    games: dict[int, tuple[chess.Color, ...]] = field(default_factory=dict)

    def key(self, game: int) -> str:
        return f"{self.sha256[:16]}/{game}"


def scan(path: Path, chosen: Filter) -> Source:
    """The games of ``path`` the filter lets through, by their headers alone, and the sides whose
    moves count."""
    player, exclude = chosen.matchers()
    source = Source(path, file_sha256(path))
    with open_pgn(path) as f:
        index = 0
        while (headers := chess.pgn.read_headers(f)) is not None:
            names = (headers.get("White", "?"), headers.get("Black", "?"))
            if not any(matcher(name) for matcher in exclude for name in names):
                sides = tuple(
                    side
                    for side, name in zip((chess.WHITE, chess.BLACK), names)
                    if player is None or player(name)
                )
                if sides:
                    source.games[index] = sides
            index += 1
    return source


def game_positions(source: Source, index: int, game: chess.pgn.Game, seed: int) -> list[Position]:
    """The usable positions of one game, in the order of their seeded hashes."""
    sides = source.games[index]
    headers = game.headers
    speed = speed_of(headers.get("TimeControl"), headers.get("Event"), headers.get("Site"))
    elos = {
        chess.WHITE: parse_elo(headers.get("WhiteElo")),
        chess.BLACK: parse_elo(headers.get("BlackElo")),
    }
    board, last, found = game.board(), None, []
    start = board.fen()
    for ply, move in enumerate(game.mainline_moves()):
        if (
            board.fullmove_number >= FIRST_MOVE
            and board.turn in sides
            and board.legal_moves.count() > 1
        ):
            elo = elos[board.turn]
            found.append(
                Position(
                    f"{source.key(index)}/{ply}",
                    board.fen(),
                    last,
                    elo if elo > 0 else None,
                    speed,
                    move.uci(),
                    start,
                    tuple(m.uci() for m in board.move_stack),
                )
            )
        last = move.uci()
        board.push(move)
    return sorted(found, key=lambda position: digest(seed, position.key))


def read_games(
    source: Source, wanted: set[int], seed: int
) -> Iterator[tuple[int, list[Position] | None]]:
    """Each wanted game's positions (None for a damaged game), the other games skipped unparsed."""
    with open_pgn(source.path) as f:
        index = 0
        while wanted:
            if index not in wanted:
                if not chess.pgn.skip_game(f):
                    return
            else:
                game = chess.pgn.read_game(f)
                if game is None:
                    return
                wanted.discard(index)
                yield index, None if game.errors else game_positions(source, index, game, seed)
            index += 1


@dataclass
class Sample:
    """The first positions along the sample's order, and how many games drawn could not be read."""

    positions: list[Position]
    damaged: int


def sample(
    paths: Sequence[Path], chosen: Filter, count: int, seed: int
) -> tuple[list[Source], Sample]:
    """The sources, and the first ``count`` positions of their games along the seeded order."""
    sources = [scan(Path(path), chosen) for path in paths]
    if not any(source.games for source in sources):
        whose = (
            f"of {chosen.player}"
            if chosen.player
            else "left once --exclude has left its players' games out"
        )
        raise ValueError(f"{', '.join(str(path) for path in paths)}: no game {whose}")
    ranked = sorted(
        (
            (digest(seed, source.key(game)), s, game)
            for s, source in enumerate(sources)
            for game in source.games
        )
    )
    parsed: dict[tuple[int, int], list[Position] | None] = {}
    # the games the first round needs, a few to spare
    reach = min(len(ranked), count + count // 4 + 8)
    while True:
        for s, source in enumerate(sources):
            wanted = {game for _, t, game in ranked[:reach] if t == s and (s, game) not in parsed}
            parsed.update(((s, game), found) for game, found in read_games(source, wanted, seed))
        games = [parsed.get((s, game)) or [] for _, s, game in ranked[:reach]]
        firsts = sum(1 for found in games if found)
        if firsts >= count or reach == len(ranked):
            break
        reach = min(len(ranked), 2 * reach)
    order = [
        found[r]
        for r in range(max((len(found) for found in games), default=0))
        for found in games
        if r < len(found)
    ]
    damaged = sum(1 for found in parsed.values() if found is None)
    return sources, Sample(order[:count], damaged)
