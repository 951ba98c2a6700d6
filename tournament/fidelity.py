"""Fidelity (issue 5): how often the engine plays the expert's own move in games its casebase has not seen.

Every move the expert made in the held-out games (``python -m casebase holdout``) is a test
position: the engine gets the board with the game's history (so repetition rules hold) and
scores when its move equals the expert's. Modes: ``pure`` (the thesis's agent), ``guided``
(casebase proposals vetted by search, at a fixed depth or node count) and ``stockfish`` (a
UCI engine at a fixed depth, the reference point of Maia-style studies).

Phases, judged on the position before the expert's move:

- *opening*: full move number at most 12 (in a game from the initial position: the expert's
  first 12 moves);
- *endgame*: otherwise, when the non-pawn material of both sides together (knight and
  bishop 3, rook 5, queen 9) is at most 26, e.g. two rooks and a minor piece each, or queen
  and minor piece each (the start has 62);
- *middlegame*: the rest.

Every position's agent is seeded from (seed, position index) and every Stockfish search
starts from a new game (cleared hash, one thread), so results do not depend on the number
of worker processes or on which positions a run samples.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import multiprocessing
import multiprocessing.util
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.engine
import chess.pgn
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from casebase.selection import BuildError, Candidate, Selection, classify
from casebase.sources import read_source
from engine.agent import Agent, PureAgent, SearchLimits
from tournament.schedule import Configuration
from tournament.store import write_atomic

FORMAT = "cbr-chess-fidelity"
MODES = ("pure", "guided", "stockfish")
PHASES = ("opening", "middlegame", "endgame")
OPENING_MOVES = 12
ENDGAME_MATERIAL = 26
DEFAULT_STOCKFISH = "/usr/games/stockfish"
#: The guided mode's default search: reproducible (nodes, not time), about 0.4 s a position here.
DEFAULT_GUIDED_NODES = 10_000
_Z95 = 1.959963984540054
_MATERIAL = ((chess.KNIGHT, 3), (chess.BISHOP, 3), (chess.ROOK, 5), (chess.QUEEN, 9))


def non_pawn_material(board: chess.BaseBoard) -> int:
    """Knights and bishops 3, rooks 5, queens 9, both sides together (62 at the start)."""
    return sum(value * len(board.pieces(piece, colour))
               for piece, value in _MATERIAL for colour in chess.COLORS)


def phase(board: chess.Board) -> str:
    """The game phase of ``board`` (see the module docstring)."""
    if board.fullmove_number <= OPENING_MOVES:
        return "opening"
    return "endgame" if non_pawn_material(board) <= ENDGAME_MATERIAL else "middlegame"


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
    phase: str
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
    skipped: Counter[str]  # games left out, by the builder's reason (without_expert, both_match, ...)
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
    path: str | os.PathLike[str], player: str, *, exact_name: bool = False,
    seen: Iterable[GameKey] = (),
) -> HeldOut:
    """Every move of ``player`` in the games of ``path`` (``.pgn`` or ``.pgn.gz``), in file order.

    The player and the games are decided as the casebase builder decides them (name matching,
    games where both sides match or of another variant skipped); ``seen`` are games known to
    the casebase, counted in :attr:`HeldOut.seen`. Raises ValueError on an unreadable file.
    """
    try:
        selection = Selection(player=player, exact_name=exact_name)
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
        seen_count += game_key(*(headers.get(t, "?") for t in ("White", "Black", "Date", "Event",
                                                               "Site"))) in known
        board = game.board()
        start, history = board.fen(), []
        for ply, move in enumerate(game.mainline_moves()):
            if board.turn == decision.expert_white:
                positions.append(Position(len(positions), number, ply, start, board.chess960,
                                          tuple(history), board.fen(), phase(board),
                                          plain_uci(board, move)))
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


def position_seed(seed: int, index: int) -> int:
    """The generator seed of position ``index`` in a run with master ``seed``."""
    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, np.uint64)[0])


def wilson(matches: int, n: int) -> tuple[float, float]:
    """Wilson's 95 % interval for a share of ``matches`` in ``n`` (nan, nan when ``n`` is 0)."""
    if n == 0:
        return math.nan, math.nan
    p, z2 = matches / n, _Z95 * _Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Share:
    """``matches`` of ``positions`` moves equal to the expert's."""

    matches: int
    positions: int

    @property
    def share(self) -> float:
        return self.matches / self.positions if self.positions else math.nan

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson(self.matches, self.positions)
        return {"matches": self.matches, "positions": self.positions,
                "share": _number(self.share), "ci95": [_number(low), _number(high)]}

    def percent(self) -> str:
        """``"31.5 %"``, or an en dash without positions."""
        return f"{100 * self.share:.1f} %" if self.positions else "–"


def _number(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


# -- the players -------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What determines a run's moves (besides the positions)."""

    casebase: str  # path of the .npz
    config: Configuration
    seed: int = 0
    guided_depth: int | None = None
    guided_nodes: int | None = DEFAULT_GUIDED_NODES
    stockfish: str = DEFAULT_STOCKFISH
    stockfish_depth: int = 10

    def describe(self, mode: str, engine_name: str | None = None) -> str:
        """How ``mode`` plays, for the table and the JSON."""
        weights = f"weights {self.config.name} ({self.config.label})"
        if mode == "pure":
            return f"PureAgent, {weights}"
        if mode == "guided":
            bound = (f"depth {self.guided_depth}" if self.guided_depth is not None
                     else f"{self.guided_nodes} nodes")
            return f"GuidedAgent, {weights}, {bound}"
        return f"{engine_name or self.stockfish}, depth {self.stockfish_depth}"


class _Player(Protocol):
    def move(self, position: Position) -> str | None: ...

    def close(self) -> None: ...


class _AgentPlayer:
    """A fresh agent for every position, seeded from the position's index."""

    def __init__(self, make: Callable[[int], Agent], seed: int, limits: SearchLimits) -> None:
        self.make, self.seed, self.limits = make, seed, limits

    def move(self, position: Position) -> str | None:
        board = position.board()
        decision = self.make(position_seed(self.seed, position.index)).choose(board, limits=self.limits)
        return None if decision.move is None else plain_uci(board, decision.move)

    def close(self) -> None:
        pass


class _UciPlayer:
    """A UCI engine at a fixed depth, one thread, a new game (cleared hash) for every position."""

    def __init__(self, command: str, depth: int) -> None:
        self.engine = open_engine(command)
        self.limit = chess.engine.Limit(depth=depth)

    def move(self, position: Position) -> str | None:
        board = position.board()
        played = self.engine.play(board, self.limit, game=object())
        return None if played.move is None else plain_uci(board, played.move)

    def close(self) -> None:
        self.engine.quit()


def open_engine(command: str) -> chess.engine.SimpleEngine:
    """Start the UCI engine ``command`` with one thread; a clear error if it is missing."""
    if shutil.which(command) is None:
        raise ValueError(
            f"stockfish mode: no engine at {command}. Install Stockfish (Debian/Ubuntu:"
            " apt install stockfish, which puts it at /usr/games/stockfish), give its path"
            " with --stockfish PATH, or leave stockfish out of --modes")
    try:
        engine = chess.engine.SimpleEngine.popen_uci([command])
    except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
        raise RuntimeError(f"stockfish mode: {command} does not start as a UCI engine ({exc})") from exc
    if "Threads" in engine.options:
        engine.configure({"Threads": 1})
    return engine


def guided_agent_class() -> type:
    """engine.guided.GuidedAgent, or a clear error when this checkout has no guided mode."""
    try:
        from engine.guided import GuidedAgent
    except ImportError as exc:
        raise ValueError(f"guided mode is not available ({exc}); leave guided out of --modes") from None
    return GuidedAgent


def _player(mode: str, settings: Settings) -> _Player:
    if mode == "stockfish":
        return _UciPlayer(settings.stockfish, settings.stockfish_depth)
    casebase = Casebase.load(settings.casebase)
    weights = settings.config.weights
    if mode == "pure":
        return _AgentPlayer(lambda seed: PureAgent(casebase, weights, seed), settings.seed,
                            SearchLimits())
    guided = guided_agent_class()
    limits = SearchLimits(depth=settings.guided_depth, nodes=settings.guided_nodes)
    return _AgentPlayer(lambda seed: guided(casebase, weights, seed), settings.seed, limits)


# One player per worker process, made by the pool's initializer.
_worker_player: _Player | None = None


def _init_worker(mode: str, settings: Settings) -> None:
    global _worker_player
    _worker_player = _player(mode, settings)
    multiprocessing.util.Finalize(_worker_player, _worker_player.close, exitpriority=10)


def _worker_move(position: Position) -> tuple[int, str | None]:
    assert _worker_player is not None
    return position.index, _worker_player.move(position)


def _moves(
    positions: Sequence[Position], mode: str, settings: Settings, workers: int
) -> Iterator[tuple[int, str | None]]:
    if workers <= 1:
        player = _player(mode, settings)
        try:
            yield from ((p.index, player.move(p)) for p in positions)
        finally:
            player.close()
        return
    # spawn: workers start clean, without the parent's threads (tqdm, engine I/O) half-copied.
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(mode, settings)) as pool:
        chunk = max(1, min(8, len(positions) // (workers * 16)))
        yield from pool.imap_unordered(_worker_move, positions, chunksize=chunk)
        pool.close()
        pool.join()


def play_positions(
    positions: Sequence[Position], mode: str, settings: Settings, *,
    workers: int | None = None, progress: bool | None = None,
) -> dict[int, str | None]:
    """The move ``mode`` plays in each position (UCI, castling as the king's step), by index."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(positions)))
    moves: dict[int, str | None] = {}
    with tqdm(total=len(positions), unit="pos", desc=f"{mode} on {workers} workers",
              file=sys.stderr, disable=None if progress is None else not progress) as bar:
        for index, move in _moves(positions, mode, settings, workers):
            moves[index] = move
            bar.update()
    return moves


# -- a run -------------------------------------------------------------------------


@dataclass
class ModeResult:
    """One mode's moves on the sampled positions."""

    mode: str
    engine: str
    moves: dict[int, str | None]
    seconds: float

    def share(self, positions: Sequence[Position], phase_name: str | None = None) -> Share:
        chosen = [p for p in positions if phase_name in (None, p.phase)]
        return Share(sum(self.moves[p.index] == p.expert for p in chosen), len(chosen))


@dataclass
class Fidelity:
    """A fidelity run: where the positions came from, which were played, and every mode's moves."""

    expert: str
    elo: int | None
    casebase: dict[str, Any]
    games: dict[str, Any]
    settings: dict[str, Any]
    positions: list[Position]  # the sample
    results: list[ModeResult] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The run as stored in the ``--out`` file."""
        return {
            "format": FORMAT, "version": 1, "expert": self.expert, "elo": self.elo,
            "casebase": self.casebase, "games": self.games, "settings": self.settings,
            "phases": {name: sum(p.phase == name for p in self.positions) for name in PHASES},
            "results": {
                r.mode: {"engine": r.engine, "seconds": round(r.seconds, 2),
                         **r.share(self.positions).as_dict(),
                         "by_phase": {name: r.share(self.positions, name).as_dict() for name in PHASES}}
                for r in self.results
            },
            "positions": [
                {"index": p.index, "game": p.game, "ply": p.ply, "phase": p.phase, "fen": p.fen,
                 "expert": p.expert, "moves": {r.mode: r.moves[p.index] for r in self.results}}
                for p in self.positions
            ],
        }

    def markdown(self) -> str:
        """The table people read: per mode, the share of the expert's moves played, overall and by phase."""
        counts = Counter(p.phase for p in self.positions)
        elo = f" (Elo {self.elo})" if self.elo else ""
        lines = [
            f"Fidelity to {self.expert}{elo}: {len(self.positions)} of the expert's"
            f" {self.games['positions']} moves in {self.games['expert_games']} games of"
            f" {self.games['path']} (seed {self.settings['seed']})",
            "",
            "| mode | engine | matched | share | 95 % interval | "
            + " | ".join(f"{name} ({counts[name]})" for name in PHASES) + " |",
            "|---|---|---:|---:|---|" + "---:|" * len(PHASES),
        ]
        for r in self.results:
            total = r.share(self.positions)
            low, high = wilson(total.matches, total.positions)
            phases = " | ".join(r.share(self.positions, name).percent() for name in PHASES)
            lines.append(f"| {r.mode} | {r.engine} | {total.matches}/{total.positions} |"
                         f" {total.percent()} | {100 * low:.1f}–{100 * high:.1f} % | {phases} |")
        if self.games["seen_in_casebase"]:
            lines += ["", f"Warning: {self.games['seen_in_casebase']} of these games are in the"
                      " casebase too, so they are not held out."]
        return "\n".join(lines)


def measure(
    casebase_path: str | os.PathLike[str],
    games_path: str | os.PathLike[str],
    settings: Settings,
    modes: Sequence[str] = MODES,
    *,
    player: str | None = None,
    exact_name: bool = False,
    positions: int | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> Fidelity:
    """Replay the expert's moves of ``games_path`` with each of ``modes``.

    ``player`` defaults to the casebase's expert; ``positions`` samples that many of the
    expert's moves evenly (:func:`spread`). Raises ValueError on bad input before any work.
    """
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes or len(set(modes)) != len(modes):
        raise ValueError(f"modes {list(modes)}: give each of {', '.join(MODES)} at most once")
    if positions is not None and positions < 1:
        raise ValueError(f"--positions must be at least 1, not {positions}")
    if settings.seed < 0:
        raise ValueError(f"--seed must not be negative, not {settings.seed}")
    casebase = Casebase.load(casebase_path)
    expert = player or casebase.expert
    held_out = read_positions(games_path, expert, exact_name=exact_name, seen=casebase_games(casebase))
    if not held_out.positions:
        raise ValueError(f"{games_path}: the games of {expert!r} have no moves of theirs")
    if "guided" in modes:
        guided_agent_class()
    engine_name = None
    if "stockfish" in modes:
        probe = open_engine(settings.stockfish)
        engine_name = probe.id.get("name", settings.stockfish)
        probe.quit()
    sample = [held_out.positions[i] for i in spread(len(held_out.positions), positions)]
    run = Fidelity(
        expert=expert,
        elo=casebase.elo,
        casebase={"path": str(casebase_path), "expert": casebase.expert, "cases": len(casebase),
                  "games": casebase.num_games,
                  "sha256": hashlib.sha256(Path(casebase_path).read_bytes()).hexdigest()},
        games={"path": str(games_path), "read": held_out.games_read,
               "expert_games": held_out.expert_games, "skipped": dict(held_out.skipped),
               "damaged": held_out.damaged, "seen_in_casebase": held_out.seen,
               "positions": len(held_out.positions)},
        settings={"seed": settings.seed, "positions": positions, "config": settings.config.name,
                  "weights": settings.config.label, "modes": list(modes),
                  "guided_depth": settings.guided_depth, "guided_nodes": settings.guided_nodes,
                  "stockfish": settings.stockfish, "stockfish_depth": settings.stockfish_depth},
        positions=sample,
    )
    for mode in modes:
        start = time.perf_counter()
        moves = play_positions(sample, mode, settings, workers=workers, progress=progress)
        run.results.append(ModeResult(mode, settings.describe(mode, engine_name), moves,
                                      time.perf_counter() - start))
    return run


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as indented JSON, atomically."""
    write_atomic(Path(path), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
