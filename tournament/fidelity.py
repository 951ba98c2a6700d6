"""Fidelity: how often the engine plays the expert's own move in games its casebase has not seen.

The positions come from :mod:`tournament.heldout`; the engine gets each with the game's
history and scores when its move equals the expert's. Modes: ``pure`` (the thesis's agent),
``prior`` (the prior's favourite, unvetted), ``search`` (the built-in search's own best move),
``guided`` (the prior's proposals vetted by the built-in search, at a fixed depth or node count),
``judged`` (the same proposals judged by an outside UCI engine at a fixed depth) and
``stockfish`` (that engine alone at the same depth, the reference point of Maia-style studies).

Every position's agent is seeded from (seed, position index) and every Stockfish search
starts from a new game (cleared hash, one thread), so results do not depend on the number
of worker processes or on which positions a run samples.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from common.files import write_atomic
from engine.agents import defaults
from engine.agents.endings import TablebaseAgent
from engine.agents.factory import Loader, make_agent
from engine.agents.guided import GuidedAgent
from engine.agents.modes import OptionValue, weight_values
from engine.outside.launch import LaunchError, launch
from engine.search.limits import SearchLimits
from engine.style.model import generic_model
from engine.style.personal import choose_model
from tournament.cluster import Failed, distribute, table_files
from tournament.heldout import (
    PHASES,
    Position,
    casebase_games,
    plain_uci,
    read_positions,
)
from tournament.schedule import Configuration
from tournament.stats import Share

FORMAT = "cbr-chess-fidelity"
#: The ways the fidelity bench can play a position.
FIDELITY_MODES = ("pure", "generic", "prior", "search", "guided", "judged", "likely", "expert", "stockfish")
#: The modes the outside engine plays in: alone, or as guided mode's judge (with Selection argmax,
#: the error model's likeliest move, or a move drawn by it).
JUDGED_MODES = ("judged", "likely", "expert")
DEFAULT_STOCKFISH = "/usr/games/stockfish"
#: The guided mode's default search: reproducible (nodes, not time), about 0.4 s a position here.
DEFAULT_GUIDED_NODES = 10_000


def spread(count: int, n: int | None) -> list[int]:
    """``n`` indices spread evenly over ``range(count)`` (the middle of ``n`` equal strata);
    all of them when ``n`` is None or not below ``count``."""
    if n is None or n >= count:
        return list(range(count))
    return [(2 * i + 1) * count // (2 * n) for i in range(n)]


def position_seed(seed: int, index: int) -> int:
    """The generator seed of position ``index`` in a run with master ``seed``."""
    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, np.uint64)[0])


# -- the players -------------------------------------------------------------------


@dataclass(frozen=True)
class FidelitySettings:
    """What determines a run's moves (besides the positions)."""

    casebase: str  # path of the .npz
    config: Configuration
    seed: int = 0
    guided_depth: int | None = None
    guided_nodes: int | None = DEFAULT_GUIDED_NODES
    stockfish: str = DEFAULT_STOCKFISH
    stockfish_depth: int = 10
    #: Guided mode's prior (engine.style.prior) and, for a model's, the model file and the cases' weight.
    prior: str = defaults.PRIOR
    #: A model file, or ``auto``: the casebase's personal model where there is one (engine.style.personal).
    model: str = defaults.MODEL
    case_weight: float = defaults.CASE_WEIGHT_PERCENT / 100
    #: Guided mode's Tolerance and JudgeTolerance (centipawns).
    tolerance: int = defaults.TOLERANCE
    judge_tolerance: int = defaults.JUDGE_TOLERANCE
    #: The endgame tables' folder (option Tables); "" for the engine's default.
    tables: str = ""

    def describe(self, mode: str, engine_name: str | None = None) -> str:
        """How ``mode`` plays, for the table and the JSON."""
        weights = f"weights {self.config.name} ({self.config.label})"
        prior = {"cases": "the cases' votes", "model": f"model {Path(self.model).name}",
                 "blend": f"model {Path(self.model).name} and the cases (weight {self.case_weight:g})"}[self.prior]
        if mode == "pure":
            return f"PureAgent, {weights}"
        if mode == "prior":
            return f"favourite of the prior: {prior}, {weights}"
        if mode == "generic":
            return f"favourite of the generic model {generic_model().name} alone"
        bound = f"depth {self.guided_depth}" if self.guided_depth is not None else f"{self.guided_nodes} nodes"
        if mode == "search":
            return f"the guided search's own best move, {bound}"
        engine = f"{engine_name or self.stockfish}, depth {self.stockfish_depth}"
        if mode == "guided":
            return f"GuidedAgent, prior: {prior}, {weights}, {bound}, tolerance {self.tolerance} cp"
        if mode == "judged":
            return f"GuidedAgent, prior: {prior}, {weights}, judged by {engine}, tolerance {self.judge_tolerance} cp"
        if mode in JUDGED_MODES:
            return f"GuidedAgent, prior: {prior}, {weights}, judged by {engine}, Selection {mode} (the error model)"
        return engine

    def values(self, mode: str) -> dict[str, OptionValue]:
        """The engine's options that make ``mode``'s agent (:func:`engine.agents.factory.make_agent`):
        the search mode is guided mode with neither cases nor model, so it plays the search's move."""
        tables: dict[str, OptionValue] = {"Tables": self.tables} if self.tables else {}
        if mode == "pure":
            return {"Mode": "pure", **weight_values(self.config.weights), **tables}
        if mode == "generic":
            return {**tables, "Mode": "guided", "Prior": "model", "Model": str(generic_model())}
        values: dict[str, OptionValue] = {
            **tables, "Mode": "guided", **weight_values(self.config.weights),
            "Prior": "cases" if mode == "search" else self.prior,
            "Model": self.model, "CaseWeight": round(100 * self.case_weight), "Tolerance": self.tolerance,
            "JudgeTolerance": self.judge_tolerance}
        if mode in JUDGED_MODES:
            values |= {"Judge": self.stockfish, "JudgeDepth": self.stockfish_depth,
                       "Selection": mode if mode != "judged" else defaults.SELECTIONS[0]}
        return values

    def resolved(self) -> FidelitySettings:
        """These settings with model ``auto`` made the file it means for the casebase (so that the
        results name it and a cluster's nodes get it)."""
        if self.model != defaults.MODEL:
            return self
        return dataclasses.replace(self, model=choose_model(Casebase.load(self.casebase)).path)

    def for_mode(self, mode: str) -> FidelitySettings:
        """These settings as ``mode`` needs them: without the outside engine where it plays no part."""
        return self if mode in (*JUDGED_MODES, "stockfish") else dataclasses.replace(self, stockfish="")

    # what a cluster's workers need (tournament.cluster.Portable)

    def cargo(self) -> dict[str, Path]:
        model = {"model.npz": Path(self.resolved().model)} if self.prior != "cases" else {}
        return {"casebase.npz": Path(self.casebase), **model, **table_files(self.tables)}

    def unpacked(self, root: Path) -> Self:
        model = str(root / "model.npz") if self.prior != "cases" else self.model
        return dataclasses.replace(self, casebase=str(root / "casebase.npz"), model=model, tables=str(root / "tables"))

    def programs(self) -> list[str]:
        return [self.stockfish] if self.stockfish else []


class _AgentPlayer:
    """A fresh agent for every position, seeded from the position's index; with
    ``prior_only`` a guided agent's prior picks the move, unvetted."""

    def __init__(self, make: Callable[[int], TablebaseAgent], seed: int, limits: SearchLimits,
                 loader: Loader, prior_only: bool = False) -> None:
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
        self.limit = chess.engine.Limit(depth=depth)

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
            f"stockfish mode: {exc}. Install Stockfish (Debian/Ubuntu: apt install stockfish, which"
            " puts it at /usr/games/stockfish), give its path with --stockfish PATH, or leave stockfish"
            " out of --modes") from None
    if "Threads" in engine.options:
        engine.configure({"Threads": 1})
    return engine


class _PositionWorker:
    """Plays positions in one process with one mode's player (see :mod:`tournament.pool`)."""

    def __init__(self, mode: str, settings: FidelitySettings) -> None:
        self.player: _AgentPlayer | _UciPlayer
        if mode == "stockfish":
            self.player = _UciPlayer(settings.stockfish, settings.stockfish_depth)
            return
        # the engine's own agents (tables included); one model and one judge process for the
        # worker, every position a new game (its seed, the judge's hash cleared)
        casebase = None if mode == "search" else Casebase.load(settings.casebase)
        values, loader = settings.values(mode), Loader()
        limits = SearchLimits() if mode == "pure" else SearchLimits(depth=settings.guided_depth,
                                                                    nodes=settings.guided_nodes)

        def make(seed: int) -> TablebaseAgent:
            agent = make_agent(values, casebase, loader)
            agent.new_game(seed)
            return agent

        self.player = _AgentPlayer(make, settings.seed, limits, loader, prior_only=mode in ("prior", "generic"))

    def __call__(self, position: Position) -> tuple[int, str | None]:
        return position.index, self.player.move(position)

    def close(self) -> None:
        self.player.close()


def play_positions(
    positions: Sequence[Position], mode: str, settings: FidelitySettings, *,
    workers: int | None = None, progress: bool | None = None, cluster: str | None = None,
) -> dict[int, str | None]:
    """The move ``mode`` plays in each position (UCI, castling as the king's step), by index:
    on ``workers`` local processes, or as tasks of the Ray cluster at ``cluster``."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(positions)))
    moves: dict[int, str | None] = {}
    chunk = 8 if cluster else max(1, min(8, len(positions) // (workers * 16)))
    where, results = distribute(_PositionWorker, (mode, settings.for_mode(mode)), positions, workers=workers,
                                cluster=cluster, chunksize=chunk)
    with tqdm(total=len(positions), unit="pos", desc=f"{mode} on {where}",
              file=sys.stderr, disable=None if progress is None else not progress) as bar:
        for result in results:
            if isinstance(result, Failed):
                raise RuntimeError(f"{mode}: {len(result.items)} positions failed on the cluster: {result.reason}")
            index, move = result
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


def measure(
    casebase_path: str | os.PathLike[str],
    games_path: str | os.PathLike[str],
    settings: FidelitySettings,
    modes: Sequence[str] = FIDELITY_MODES,
    *,
    player: str | None = None,
    exact_name: bool = False,
    positions: int | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    cluster: str | None = None,
) -> Fidelity:
    """Replay the expert's moves of ``games_path`` with each of ``modes``.

    ``player`` defaults to the casebase's expert; ``positions`` samples that many of the
    expert's moves evenly (:func:`spread`). Raises ValueError on bad input before any work.
    """
    unknown = [m for m in modes if m not in FIDELITY_MODES]
    if unknown or not modes or len(set(modes)) != len(modes):
        raise ValueError(f"modes {list(modes)}: give each of {', '.join(FIDELITY_MODES)} at most once")
    if positions is not None and positions < 1:
        raise ValueError(f"--positions must be at least 1, not {positions}")
    if settings.seed < 0:
        raise ValueError(f"--seed must not be negative, not {settings.seed}")
    casebase = Casebase.load(casebase_path)
    settings = settings.resolved()
    expert = player or casebase.expert
    held_out = read_positions(games_path, expert, exact_name=exact_name, seen=casebase_games(casebase))
    if not held_out.positions:
        raise ValueError(f"{games_path}: the games of {expert!r} have no moves of theirs")
    if min(settings.tolerance, settings.judge_tolerance) < 0:
        raise ValueError("--tolerance and --judge-tolerance must not be negative")
    if not 0 <= settings.case_weight <= 1:
        raise ValueError(f"--case-weight must lie in 0..1, not {settings.case_weight}")
    if settings.prior != "cases" and {"prior", "guided"} & set(modes):
        Loader().model(settings.model)  # a bad model file stops the run before any work
    engine_name = None
    if {"stockfish", *JUDGED_MODES} & set(modes) and not cluster:  # a cluster's nodes check it themselves
        probe = open_engine(settings.stockfish)
        engine_name = probe.id.get("name", settings.stockfish)
        probe.quit()
    sample = [held_out.positions[i] for i in spread(len(held_out.positions), positions)]
    run = Fidelity(
        expert=expert,
        # the casebase's rating is its expert's: another player's games are not rated by it
        elo=casebase.elo if expert == casebase.expert else None,
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
                  "stockfish": settings.stockfish, "stockfish_depth": settings.stockfish_depth,
                  "prior": settings.prior, "model": settings.model, "case_weight": settings.case_weight,
                  "tolerance": settings.tolerance, "judge_tolerance": settings.judge_tolerance},
        positions=sample,
    )
    for mode in modes:
        start = time.perf_counter()
        moves = play_positions(sample, mode, settings, workers=workers, progress=progress, cluster=cluster)
        run.results.append(ModeResult(mode, settings.describe(mode, engine_name), moves,
                                      time.perf_counter() - start))
    return run


def write_json(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Write ``data`` as indented JSON, atomically."""
    write_atomic(Path(path), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
