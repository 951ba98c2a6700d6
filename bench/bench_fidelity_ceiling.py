"""Where the guided mode's fidelity comes from, and the most its design could reach (issue 5).

    python bench/bench_fidelity_ceiling.py [--positions 200] [--nodes 10000] [--workers 2]

Needs the held-out casebases and games of ``make fidelity`` (casebases/heldout/); Stockfish
(``/usr/games/stockfish``) for its rows, which are left out when it is missing.

On the same positions as ``make fidelity`` (every expert's held-out moves, sampled with
:func:`tournament.fidelity.spread`, each agent seeded as there), the casebase proposes (the 256
nearest cases, adapted as in pure mode) and one search of ``--nodes`` nodes scores every root
move exactly down to 200 cp below the best, for all the proposed moves and the expert's own.
From that one search per position, without searching again, the table shows:

- *prior's top*: the move with the most votes (k 64, tau 4), what the casebase alone predicts;
- *proposed*: the expert's move is among the 64 nearest cases' adapted moves;
- *search's best*: what the search alone predicts;
- *guided T*: the guided mode's decision (search.md §3) at Tolerance T, and the best over a
  grid of Neighbours, Temperature and Tolerance;
- *ceiling*: the expert's move is proposed and sound at Tolerance 50, so that a perfect
  choice among the sound proposed moves would find it: the most any selection rule could
  reach with this search and these proposals;
- *Stockfish depth d*, the issue's reference point at depth 10.

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
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from casebase.format import Casebase  # noqa: E402
from engine.adaptation import candidate_moves  # noqa: E402
from engine.guided import AdaptedCase, GuidedAgent, vote_shares  # noqa: E402
from engine.search import Searcher  # noqa: E402
from engine.weights import WEIGHT_CONFIGS  # noqa: E402
from tournament.fidelity import (  # noqa: E402
    DEFAULT_STOCKFISH,
    Position,
    open_engine,
    plain_uci,
    position_seed,
    read_positions,
    spread,
    wilson,
)

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
    cases: list[AdaptedCase]  # most similar first
    best: chess.Move
    score: int
    scores: dict[chess.Move, int]  # exact root scores (at least best - MAX_TOLERANCE)

    def prior(self, k: int, temperature: float) -> dict[chess.Move, float]:
        return vote_shares(self.cases[:k], temperature)

    def guided(self, k: int = 64, temperature: float = 4.0, tolerance: int = 50) -> chess.Move:
        """The guided mode's move (search.md §3, argmax) with these options."""
        prior = self.prior(k, temperature)
        sound = [m for m, s in self.scores.items() if s >= self.score - tolerance and m in prior]
        # best score first among equal votes, as the agent does
        return max(sound, key=lambda m: (prior[m], self.scores[m])) if sound else self.best


_casebases: dict[str, Casebase] = {}


def measure(job: tuple[str, Position, int]) -> tuple[str, int, Measured]:
    path, position, nodes = job
    casebase = _casebases.get(path) or _casebases.setdefault(path, Casebase.load(path))
    agent = GuidedAgent(casebase, WEIGHT_CONFIGS["balanced"], position_seed(0, position.index),
                        neighbours=RETRIEVED)
    board = position.board()
    candidates = candidate_moves(board)
    cases, _ = agent.adapted_cases(board, candidates)
    expert = next(m for m in candidates if plain_uci(board, m) == position.expert)
    result = Searcher().search(
        board, nodes=nodes, prior=vote_shares(cases[:64], 4.0), moves=candidates,
        tolerance=MAX_TOLERANCE, exact={c.move for c in cases} | {expert},
    )
    assert result.move is not None and result.score is not None
    scores = {m: s.score for m, s in result.scores.items()
              if s.exact and s.score >= result.score - MAX_TOLERANCE}
    return path, position.index, Measured(expert, cases, result.move, result.score, scores)


def stockfish_moves(positions: list[Position], depth: int) -> list[str | None]:
    """Stockfish's move at ``depth`` in each position (castling as the king's step)."""
    engine = open_engine(DEFAULT_STOCKFISH)
    moves: list[str | None] = []
    try:
        for position in positions:
            board = position.board()
            played = engine.play(board, chess.engine.Limit(depth=depth), game=object()).move
            moves.append(None if played is None else plain_uci(board, played))
        return moves
    finally:
        engine.quit()


def share(hits: list[bool], interval: bool = False) -> str:
    """``hits``' share of true, as a percentage (and its 95 % interval)."""
    text = f"{100 * sum(hits) / len(hits):.1f} %"
    if interval:
        low, high = wilson(sum(hits), len(hits))
        text += f" ({100 * low:.0f}–{100 * high:.0f})"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=200, help="per expert (default 200)")
    parser.add_argument("--nodes", type=int, default=10_000, help="search nodes per position")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    casebases = sorted(HELD_OUT.glob("*.npz"))
    if not casebases:
        sys.exit(f"no held-out casebases in {HELD_OUT}: run `make fidelity` (or its casebase"
                 " targets) first")
    positions: dict[str, list[Position]] = {}
    for path in casebases:
        expert = Casebase.load(path).expert
        held = read_positions(path.with_suffix(".pgn"), expert).positions
        positions[str(path)] = [held[i] for i in spread(len(held), args.positions)]
    jobs = [(path, p, args.nodes) for path, sample in positions.items() for p in sample]
    start = time.perf_counter()
    measured: dict[tuple[str, int], Measured] = {}
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for path, index, m in tqdm(pool.imap_unordered(measure, jobs, chunksize=4), total=len(jobs),
                                   unit="pos", desc="propose + search", file=sys.stderr):
            measured[path, index] = m
    seconds = time.perf_counter() - start
    rows: list[tuple[str, Callable[[Measured], bool]]] = [
        ("prior's top move (k 64, tau 4)", lambda m: max(m.prior(64, 4.0).items(), key=lambda x: x[1],
                                                          default=(None, 0))[0] == m.expert),
        ("expert's move proposed (k 64)", lambda m: m.expert in m.prior(64, 4.0)),
        ("search's best move", lambda m: m.best == m.expert),
        *((f"guided, Tolerance {t}", lambda m, t=t: m.guided(tolerance=t) == m.expert) for t in TOLERANCES),
        ("ceiling: expert's move proposed and sound at 50",
         lambda m: m.expert in m.prior(64, 4.0) and m.scores.get(m.expert, -10**9) >= m.score - 50),
    ]
    everything = list(measured.values())
    best_k, best_tau, best_t = max(GRID, key=lambda g: sum(m.guided(*g) == m.expert for m in everything))
    rows.append((f"guided, best of the grid (k {best_k}, tau {best_tau:g}, T {best_t})",
                 lambda m: m.guided(best_k, best_tau, best_t) == m.expert))
    names = [Path(p).stem for p in positions]
    print(f"\n{len(jobs)} positions, search {args.nodes} nodes, {seconds:.0f} s on {args.workers} workers\n")
    print("| predictor | all | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for label, hit in rows:
        per = [share([hit(measured[path, p.index]) for p in sample]) for path, sample in positions.items()]
        print(f"| {label} | {share([hit(m) for m in everything], True)} | " + " | ".join(per) + " |")
    if shutil.which(DEFAULT_STOCKFISH) is None:
        print(f"\n(Stockfish rows left out: no {DEFAULT_STOCKFISH}; apt install stockfish)")
        return
    for depth in STOCKFISH_DEPTHS:
        hits = {path: [move == p.expert for move, p in zip(stockfish_moves(sample, depth), sample, strict=True)]
                for path, sample in positions.items()}
        print(f"| Stockfish depth {depth} | {share([h for v in hits.values() for h in v], True)} | "
              + " | ".join(share(v) for v in hits.values()) + " |")


if __name__ == "__main__":
    main()
