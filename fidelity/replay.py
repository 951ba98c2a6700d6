"""Fidelity: how often the engine plays the expert's own move in games its casebase has not seen.

The positions come from :mod:`fidelity.positions`; each mode (:mod:`fidelity.modes`) gets each
with the game's history, and scores when its move equals the expert's.

Every position's agent is seeded from (seed, position index) and every Stockfish search
starts from a new game (cleared hash, one thread), so results do not depend on the number
of worker processes or on which positions a run samples.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from casebase.phases import PHASES, Phase
from common.files import file_sha256, write_atomic
from common.stats import Share
from engine.agents.endings import TablebaseAgent
from engine.agents.factory import Loader, make_agent
from engine.agents.guided import GuidedAgent
from engine.outside.launch import LaunchError, launch
from engine.search.limits import SearchLimits, to_limit
from engine.style.prior import PriorSource
from fidelity.modes import DEFAULT_MODES, FIDELITY_MODES, JUDGED_MODES, FidelityMode, parse_modes
from fidelity.positions import Position, casebase_games, plain_uci, read_positions, spread
from fidelity.settings import FidelitySettings
from parallel.cluster import Failed, distribute

FORMAT = "cbr-chess-fidelity"


def position_seed(seed: int, index: int) -> int:
    """The generator seed of position ``index`` in a run with master ``seed``."""
    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, np.uint64)[0])


# -- the players -------------------------------------------------------------------


class _AgentPlayer:
    """A fresh agent for every position, seeded from the position's index; with
    ``prior_only`` a guided agent's prior picks the move, unvetted."""

    def __init__(
        self,
        make: Callable[[int], TablebaseAgent],
        seed: int,
        limits: SearchLimits,
        loader: Loader,
        prior_only: bool = False,
    ) -> None:
        self.make, self.seed, self.limits, self.prior_only = make, seed, limits, prior_only
        self.loader = loader

    def move(self, position: Position) -> str | None:
        board = position.board()
        agent = self.make(position_seed(self.seed, position.index))
        if self.prior_only:
            assert isinstance(agent.agent, GuidedAgent)
            candidates = list(board.legal_moves)
            move = agent.agent.propose(board, candidates).top() if candidates else None
        else:
            move = agent.choose(board, limits=self.limits).move
        return None if move is None else plain_uci(board, move)

    def close(self) -> None:
        self.loader.close()


class _UciPlayer:
    """A UCI engine at a fixed depth, one thread, a new game (cleared hash) for every position."""

    def __init__(self, command: str, depth: int) -> None:
        self.engine = open_engine(command)
        self.limit = to_limit(SearchLimits(depth=depth))

    def move(self, position: Position) -> str | None:
        board = position.board()
        played = self.engine.play(board, self.limit, game=object())
        return None if played.move is None else plain_uci(board, played.move)

    def close(self) -> None:
        self.engine.quit()


def open_engine(command: str) -> chess.engine.SimpleEngine:
    """Start the UCI engine ``command`` with one thread; a clear error if it is missing."""
    try:
        engine = launch([command])
    except LaunchError as exc:
        raise ValueError(
            f"the outside engine: {exc}. Install Stockfish (Debian/Ubuntu: apt install stockfish,"
            " which puts it at /usr/games/stockfish), give its path with --judge PATH, or leave"
            " stockfish and the judged modes out of --modes"
        ) from None
    if "Threads" in engine.options:
        engine.configure({"Threads": 1})
    return engine


class _PositionWorker:
    """Plays positions in one process with one mode's player (see :mod:`parallel.pool`)."""

    def __init__(self, mode: FidelityMode, settings: FidelitySettings) -> None:
        mode = FidelityMode(mode)  # a mode's name will do
        self.player: _AgentPlayer | _UciPlayer
        if mode == FidelityMode.STOCKFISH:
            self.player = _UciPlayer(settings.judge, settings.judge_depth)
            return
        # the engine's own agents (tables included); one model and one judge process for the
        # worker, every position a new game (its seed, the judge's hash cleared)
        casebase = None if mode == FidelityMode.ALPHABETA else Casebase.load(settings.casebase)
        values, loader = settings.values(mode), Loader()
        # a judge searches to its depth, never for a time
        limits = (
            SearchLimits()
            if mode.pure
            else SearchLimits(
                depth=settings.guided_depth,
                nodes=settings.guided_nodes,
                movetime=None if mode.judged else settings.guided_movetime,
            )
        )

        def make(seed: int) -> TablebaseAgent:
            agent = make_agent(values, casebase, loader)
            agent.new_game(seed)
            return agent

        prior_only = mode in (FidelityMode.PRIOR, FidelityMode.GENERIC)
        self.player = _AgentPlayer(make, settings.seed, limits, loader, prior_only=prior_only)

    def __call__(self, position: Position) -> tuple[int, str | None]:
        return position.index, self.player.move(position)

    def close(self) -> None:
        self.player.close()


def play_positions(
    positions: Sequence[Position],
    mode: FidelityMode,
    settings: FidelitySettings,
    *,
    workers: int | None = None,
    progress: bool | None = None,
    cluster: str | None = None,
) -> dict[int, str | None]:
    """The move ``mode`` plays in each position (UCI, castling as the king's step), by index:
    on ``workers`` local processes, or as tasks of the Ray cluster at ``cluster``."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(positions)))
    moves: dict[int, str | None] = {}
    chunk = 8 if cluster else max(1, min(8, len(positions) // (workers * 16)))
    where, results = distribute(
        _PositionWorker,
        (mode, settings.for_mode(mode)),
        positions,
        workers=workers,
        cluster=cluster,
        chunksize=chunk,
    )
    with tqdm(
        total=len(positions),
        unit="pos",
        desc=f"{mode} on {where}",
        file=sys.stderr,
        disable=None if progress is None else not progress,
    ) as bar:
        for result in results:
            if isinstance(result, Failed):
                raise RuntimeError(
                    f"{mode}: {len(result.items)} positions failed on the cluster: {result.reason}"
                )
            index, move = result
            moves[index] = move
            bar.update()
    return moves


# -- a run -------------------------------------------------------------------------


@dataclass
class ModeResult:
    """One mode's moves on the sampled positions."""

    mode: FidelityMode
    engine: str
    moves: dict[int, str | None]
    seconds: float

    def share(self, positions: Sequence[Position], phase: Phase | None = None) -> Share:
        chosen = [p for p in positions if phase in (None, p.phase)]
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
            "format": FORMAT,
            "version": 1,
            "expert": self.expert,
            "elo": self.elo,
            "casebase": self.casebase,
            "games": self.games,
            "settings": self.settings,
            "phases": {name: sum(p.phase == name for p in self.positions) for name in PHASES},
            "results": {
                r.mode: {
                    "engine": r.engine,
                    "seconds": round(r.seconds, 2),
                    **r.share(self.positions).as_dict(),
                    "by_phase": {name: r.share(self.positions, name).as_dict() for name in PHASES},
                }
                for r in self.results
            },
            "positions": [
                {
                    "index": p.index,
                    "game": p.game,
                    "ply": p.ply,
                    "phase": p.phase,
                    "fen": p.fen,
                    "expert": p.expert,
                    "moves": {r.mode: r.moves[p.index] for r in self.results},
                }
                for p in self.positions
            ],
        }


def measure(
    casebase_path: str | os.PathLike[str],
    games_path: str | os.PathLike[str],
    settings: FidelitySettings,
    modes: Sequence[str] = DEFAULT_MODES,
    *,
    player: str | None = None,
    exact_name: bool = False,
    positions: int | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    cluster: str | None = None,
) -> Fidelity:
    """Replay the expert's moves of ``games_path`` with each of ``modes``.

    ``modes`` are :class:`~fidelity.modes.FidelityMode` names; ``player`` defaults to the casebase's
    expert; ``positions`` samples that many of the expert's moves evenly
    (:func:`fidelity.positions.spread`). Raises ValueError on bad input before any work.
    """
    modes = parse_modes(modes)
    if not modes or len(set(modes)) != len(modes):
        raise ValueError(
            f"modes {list(map(str, modes))}: give each of {', '.join(FIDELITY_MODES)} at most once"
        )
    if positions is not None and positions < 1:
        raise ValueError(f"--positions must be at least 1, not {positions}")
    if settings.seed < 0:
        raise ValueError(f"--seed must not be negative, not {settings.seed}")
    casebase = Casebase.load(casebase_path)
    settings = settings.resolved()
    expert = player or casebase.expert
    held_out = read_positions(
        games_path, expert, exact_name=exact_name, seen=casebase_games(casebase)
    )
    if not held_out.positions:
        raise ValueError(f"{games_path}: the games of {expert!r} have no moves of theirs")
    if min(settings.tolerance, settings.judge_tolerance) < 0:
        raise ValueError("--tolerance and --judge-tolerance must not be negative")
    if not 0 <= settings.case_weight_percent <= 100:
        raise ValueError(
            f"--case-weight must lie in 0..100 (percent), not {settings.case_weight_percent}"
        )
    if settings.prior != PriorSource.CASES and {FidelityMode.PRIOR, FidelityMode.GUIDED} & set(
        modes
    ):
        Loader().model(settings.model)  # a bad model file stops the run before any work
    if FidelityMode.JUDGED_CHOOSER in modes and Loader().chooser(settings.chooser) is None:
        raise ValueError(
            f"mode {FidelityMode.JUDGED_CHOOSER} needs a chooser: --chooser {settings.chooser}"
            " names none"
        )
    engine_name = None
    # a cluster's nodes check it themselves
    if {FidelityMode.STOCKFISH, *JUDGED_MODES} & set(modes) and not cluster:
        probe = open_engine(settings.judge)
        engine_name = probe.id.get("name", settings.judge)
        probe.quit()
    sample = [held_out.positions[i] for i in spread(len(held_out.positions), positions)]
    run = Fidelity(
        expert=expert,
        # the casebase's rating is its expert's: another player's games are not rated by it
        elo=casebase.elo if expert == casebase.expert else None,
        casebase={
            "path": str(casebase_path),
            "expert": casebase.expert,
            "cases": len(casebase),
            "games": casebase.num_games,
            "sha256": file_sha256(casebase_path),
        },
        games={
            "path": str(games_path),
            "read": held_out.games_read,
            "expert_games": held_out.expert_games,
            "skipped": dict(held_out.skipped),
            "damaged": held_out.damaged,
            "seen_in_casebase": held_out.seen,
            "positions": len(held_out.positions),
        },
        settings={
            "seed": settings.seed,
            "positions": positions,
            "config": settings.config.name,
            "weights": settings.config.label,
            "modes": [str(m) for m in modes],
            "guided_depth": settings.guided_depth,
            "guided_nodes": settings.guided_nodes,
            "guided_movetime": settings.guided_movetime,
            "judge": settings.judge,
            "judge_depth": settings.judge_depth,
            "prior": settings.prior,
            "model": settings.model,
            "case_weight_percent": settings.case_weight_percent,
            "tolerance": settings.tolerance,
            "judge_tolerance": settings.judge_tolerance,
            "neighbours": settings.neighbours,
            "temperature_tenths": settings.temperature_tenths,
        },
        positions=sample,
    )
    for mode in modes:
        start = time.perf_counter()
        moves = play_positions(
            sample, mode, settings, workers=workers, progress=progress, cluster=cluster
        )
        run.results.append(
            ModeResult(
                mode, settings.describe(mode, engine_name), moves, time.perf_counter() - start
            )
        )
    return run


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as indented JSON, atomically."""
    write_atomic(Path(path), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
