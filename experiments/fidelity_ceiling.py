"""Where the guided mode's fidelity comes from, and the most its design could reach (search.md).

    python -m experiments.fidelity_ceiling [--positions 200] [--nodes 10000] [--workers 2]

Needs the held-out casebases and games of ``make fidelity`` (casebases/heldout/); Stockfish
(``/usr/games/stockfish``) for its rows, which are left out when it is missing.

On the same positions as ``make fidelity`` (every expert's held-out moves, sampled with
:func:`fidelity.positions.spread`, each agent seeded as there), the casebase proposes (the 256
nearest cases, adapted as in pure mode) and one search of ``--nodes`` nodes scores every root
move exactly down to 200 cp below the best, for all the proposed moves and the expert's own.
From that one search per position, without searching again, the table shows:

- *prior's top*: the move with the most votes (k 64, tau 4), what the casebase alone predicts;
- *proposed*: the expert's move is among the 64 nearest cases' adapted moves;
- *search's best*: what the search alone predicts;
- *guided T*: the guided mode's decision (search.md §3) at Tolerance T, and the best over a
  grid of Neighbours, Temperature and Tolerance;
- *similarity-gated*: a rule outside search.md, the casebase's choice (Tolerance 100) only
  where the nearest case is nearly the position (Sim at least 245), the search's elsewhere;
- *Stockfish depth d*, the issue's reference point at depth 10;
- *ceiling*: the expert's move is proposed and sound at Tolerance 50, so that a perfect
  choice among the sound proposed moves would find it: the most any selection rule could
  reach with this search and these proposals.

Two tables: by expert, and by game phase and by the nearest case's similarity.

Asking for more exact root scores costs the search some depth at a fixed node count, so the
*guided 50* row can come out slightly below ``make fidelity``'s guided share.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
from tqdm import tqdm

from casebase.format import Casebase
from casebase.phases import PHASES
from common.paths import PROJECT_ROOT as ROOT
from common.stats import wilson
from engine.agents.guided import GuidedAgent
from engine.agents.guided_options import GuidedSettings
from engine.agents.modes import default_settings
from engine.cbr.adaptation import candidate_moves
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget
from engine.search.scores import MATE
from engine.style.personal import casebase_files
from engine.style.prior import AdaptedCase, vote_shares
from fidelity.positions import Position, plain_uci, read_positions, spread
from fidelity.replay import open_engine, position_seed
from fidelity.settings import DEFAULT_GUIDED_NODES, DEFAULT_JUDGE

HELD_OUT = ROOT / "casebases" / "heldout"
RETRIEVED = 256
MAX_TOLERANCE = 200
TOLERANCES = (0, 25, 50, 100, 200)
GRID = list(itertools.product((16, 64, 256), (2.0, 4.0, 8.0, 1000.0), TOLERANCES))
STOCKFISH_DEPTHS = (1, 5, 10)


@dataclass
class Measured:
    """One position: the expert's move, the cases' adapted moves, the search's root scores."""

    expert: chess.Move
    phase: str
    cases: list[AdaptedCase]  # most similar first
    best: chess.Move
    score: int
    scores: dict[chess.Move, int]  # exact root scores (at least best - MAX_TOLERANCE)
    stockfish: dict[int, chess.Move | None] = field(default_factory=dict)  # by depth

    def prior(self, k: int = 64, temperature: float = 4.0) -> dict[chess.Move, float]:
        return vote_shares(self.cases[:k], temperature)

    def top(self) -> chess.Move | None:
        prior = self.prior()
        return max(prior, key=prior.__getitem__) if prior else None

    def guided(self, k: int = 64, temperature: float = 4.0, tolerance: int = 50) -> chess.Move:
        """The guided mode's move (search.md §3, argmax) with these options."""
        prior = self.prior(k, temperature)
        sound = [m for m, s in self.scores.items() if s >= self.score - tolerance and m in prior]
        # best score first among equal votes, as the agent does
        return max(sound, key=lambda m: (prior[m], self.scores[m])) if sound else self.best

    def gated(self) -> chess.Move:
        """Not search.md: the casebase decides (Tolerance 100) only where its nearest case is
        nearly the position (Sim at least 245), the search alone (Tolerance 0) elsewhere."""
        near = bool(self.cases) and self.cases[0].sim >= 245
        return self.guided(tolerance=100 if near else 0)

    def similarity_band(self) -> str:
        sim = self.cases[0].sim if self.cases else -1
        return "Sim 256" if sim == 256 else "Sim 240-255" if sim >= 240 else "Sim < 240"


_casebases: dict[str, Casebase] = {}


def measure(job: tuple[str, Position, int]) -> tuple[str, int, Measured]:
    path, position, nodes = job
    casebase = _casebases.get(path) or _casebases.setdefault(path, Casebase.load(path))
    settings = default_settings(
        GuidedSettings, weights=WEIGHT_CONFIGS["balanced"], neighbours=RETRIEVED
    )
    agent = GuidedAgent(casebase, settings, position_seed(0, position.index))
    board = position.board()
    candidates = candidate_moves(board)
    cases, _ = agent.adapted_cases(board, candidates)
    expert = next(m for m in candidates if plain_uci(board, m) == position.expert)
    result = Searcher().search(
        board,
        Budget(nodes=nodes),
        prior=vote_shares(cases[:64], 4.0),
        moves=candidates,
        tolerance=MAX_TOLERANCE,
        exact={c.move for c in cases} | {expert},
    )
    assert result.move is not None and result.score is not None
    scores = {
        m: s.score
        for m, s in result.scores.items()
        if s.exact and s.score >= result.score - MAX_TOLERANCE
    }
    return (
        path,
        position.index,
        Measured(expert, position.phase, cases, result.move, result.score, scores),
    )


def add_stockfish(positions: list[Position], measured: list[Measured]) -> None:
    """Stockfish's move at each of :data:`STOCKFISH_DEPTHS` into ``measured``."""
    engine = open_engine(DEFAULT_JUDGE)
    try:
        for position, m in zip(positions, measured, strict=True):
            board = position.board()
            for depth in STOCKFISH_DEPTHS:
                m.stockfish[depth] = engine.play(
                    board, chess.engine.Limit(depth=depth), game=object()
                ).move
    finally:
        engine.quit()


def share(hits: list[bool], interval: bool = False) -> str:
    """``hits``' share of true, as a percentage (and its 95 % interval)."""
    if not hits:
        return "–"
    text = f"{100 * sum(hits) / len(hits):.1f} %"
    if interval:
        low, high = wilson(sum(hits), len(hits))
        text += f" ({100 * low:.0f}–{100 * high:.0f})"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.fidelity_ceiling", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--positions", type=int, default=200, help="per expert (default 200)")
    parser.add_argument(
        "--nodes",
        type=int,
        default=DEFAULT_GUIDED_NODES,
        help=f"search nodes per position (default {DEFAULT_GUIDED_NODES}, the fidelity bench's)",
    )
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    casebases = casebase_files(sorted(HELD_OUT.glob("*.npz")))
    if not casebases:
        sys.exit(
            f"no held-out casebases in {HELD_OUT}: run `make fidelity` (or its casebase"
            " targets) first"
        )
    positions: dict[str, list[Position]] = {}
    for path in casebases:
        expert = Casebase.load(path).expert
        held = read_positions(path.with_suffix(".pgn"), expert).positions
        positions[str(path)] = [held[i] for i in spread(len(held), args.positions)]
    jobs = [(path, p, args.nodes) for path, sample in positions.items() for p in sample]
    start = time.perf_counter()
    measured: dict[tuple[str, int], Measured] = {}
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for done, index, m in tqdm(
            pool.imap_unordered(measure, jobs, chunksize=4),
            total=len(jobs),
            unit="pos",
            desc="propose + search",
            file=sys.stderr,
        ):
            measured[done, index] = m
    seconds = time.perf_counter() - start
    everything = list(measured.values())
    stockfish = shutil.which(DEFAULT_JUDGE) is not None
    if stockfish:
        for name, sample in tqdm(positions.items(), desc="stockfish", file=sys.stderr):
            add_stockfish(sample, [measured[name, p.index] for p in sample])
    grid_best = max(GRID, key=lambda g: sum(m.guided(*g) == m.expert for m in everything))
    k, tau, t = grid_best
    rows: list[tuple[str, Callable[[Measured], chess.Move | None]]] = [
        ("prior's top move (k 64, tau 4)", Measured.top),
        ("search's best move", lambda m: m.best),
        *((f"guided, Tolerance {t}", lambda m, t=t: m.guided(tolerance=t)) for t in TOLERANCES),
        (f"guided, best of the grid (k {k}, tau {tau:g}, T {t})", lambda m: m.guided(*grid_best)),
        ("similarity-gated Tolerance (not search.md)", Measured.gated),
        *(
            (f"Stockfish depth {d}", lambda m, d=d: m.stockfish[d])
            for d in STOCKFISH_DEPTHS
            if stockfish
        ),
    ]
    bounds: list[tuple[str, Callable[[Measured], bool]]] = [
        ("expert's move proposed (k 64)", lambda m: m.expert in m.prior()),
        (
            "ceiling: expert's move proposed and sound at 50",
            lambda m: m.expert in m.prior() and m.scores.get(m.expert, -MATE) >= m.score - 50,
        ),
    ]
    print(
        f"\n{len(jobs)} positions, search {args.nodes} nodes, {seconds:.0f} s on"
        f" {args.workers} workers"
    )
    by_expert = {
        Path(path).stem: [measured[path, p.index] for p in sample]
        for path, sample in positions.items()
    }
    by_kind: dict[str, list[Measured]] = {
        name: [] for name in (*PHASES, "Sim 256", "Sim 240-255", "Sim < 240")
    }
    for m in everything:
        by_kind[m.phase].append(m)
        by_kind[m.similarity_band()].append(m)
    for groups in (by_expert, by_kind):
        print(
            "\n| share of the expert's moves | all | "
            + " | ".join(f"{name} ({len(group)})" for name, group in groups.items())
            + " |"
        )
        print("|---|---:|" + "---:|" * len(groups))
        tests = [(label, lambda m, play=play: play(m) == m.expert) for label, play in rows] + bounds
        for label, hit in tests:
            print(
                f"| {label} | {share([hit(m) for m in everything], True)} | "
                + " | ".join(share([hit(m) for m in group]) for group in groups.values())
                + " |"
            )
    if not stockfish:
        print(f"\n(Stockfish rows left out: no {DEFAULT_JUDGE}; apt install stockfish)")


if __name__ == "__main__":
    main()
