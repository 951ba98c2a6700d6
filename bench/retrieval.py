"""Time per move of retrieval at 10 k … 4 M cases, next to the memory floor measured in the same run.

    python -m bench.retrieval [--pgn masters-2500plus.pgn.gz] [--sizes 10000 100000 1000000 4000000]

The casebases are prefixes of one "all players" casebase built from a large PGN (by default
the shipped data/masters-2500plus.pgn.gz; --pgn takes any big PGN collection) and cached in
bench/out/. The floor is numpy reading the scanner's
columns once (``np.bitwise_or.reduce``): no scan can be faster than streaming its data.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import chess
import numpy as np

from casebase.format import GAME_COLUMNS, Casebase
from common.paths import PROJECT_ROOT as ROOT
from engine.agents.pure import PureAgent
from engine.cbr.retrieval import CaseIndex
from engine.cbr.weights import WEIGHT_CONFIGS

OUT = ROOT / "bench" / "out"
DEFAULT_PGN = ROOT / "data" / "masters-2500plus.pgn.gz"
CASES_PER_GAME = 85  # about, in the masters collection: sizes the build


def masters_casebase(pgn: Path, cases: int) -> Casebase:
    """The first ``cases`` cases of an all-players casebase of ``pgn``, built once into bench/out/."""
    games = int(cases / CASES_PER_GAME * 1.1) + 10
    cached = sorted(OUT.glob(f"{pgn.name.split('.')[0]}-*-games.npz"), key=lambda p: int(p.stem.split("-")[-2]))
    for path in cached:
        casebase = Casebase.load(path)
        if len(casebase) >= cases:
            return prefix(casebase, cases)
    if not pgn.exists():
        sys.exit(f"{pgn} is not here: pass --pgn with a large PGN collection (~{games} games for {cases} cases)")
    path = OUT / f"{pgn.name.split('.')[0]}-{games}-games.npz"
    print(f"building {path.name} from {pgn} (once; cached in {OUT})", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "casebase", "build", str(pgn), "--all-players",
                    "--max-games", str(games), "-o", str(path)], cwd=ROOT, check=True)
    return masters_casebase(pgn, cases)


def prefix(casebase: Casebase, n: int) -> Casebase:
    """The casebase's first ``n`` cases (with the games they come from)."""
    if n >= len(casebase):
        return casebase
    games = int(casebase.game[n - 1]) + 1
    white = int(np.count_nonzero(casebase.turn[:n]))
    # The counts describe the prefix (a casebase's counts must match its arrays).
    counts = {**casebase.meta["counts"], "cases_white": white, "cases_black": n - white, "games_used": games}
    return Casebase(
        boards=casebase.boards[:n], turn=casebase.turn[:n], from_square=casebase.from_square[:n],
        to_square=casebase.to_square[:n], promotion=casebase.promotion[:n], game=casebase.game[:n],
        ply=casebase.ply[:n], games={c: casebase.games[c][:games] for c in GAME_COLUMNS},
        meta={**casebase.meta, "counts": counts},
    )


def query_positions(casebase: Casebase, count: int, seed: int = 0) -> list[chess.Board]:
    """Positions spread over the casebase, both colours, with legal moves."""
    rows = np.random.default_rng(seed).choice(len(casebase), size=count, replace=False)
    return [casebase.board(int(r)) for r in rows]


def best_of(repeats: int, work) -> float:
    """The fastest of ``repeats`` runs of ``work()``, in milliseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def measure(casebase: Casebase, queries: list[chess.Board], repeats: int) -> dict[str, float]:
    start = time.perf_counter()
    index = CaseIndex.of(casebase)  # the agent below shares this fit
    fit = time.perf_counter() - start
    columns = {c: index.scanner(c).columns for c in chess.COLORS}  # exactly what a scan reads
    floor = {c: best_of(repeats, lambda c=c: np.bitwise_or.reduce(columns[c], axis=1)) for c in chess.COLORS}
    scan = [best_of(repeats, lambda b=b: index.most_similar(b)) for b in queries]
    floors = [floor[b.turn] for b in queries]
    scanned = statistics.mean(index.count(b.turn) for b in queries)
    agent = PureAgent(casebase, WEIGHT_CONFIGS["balanced"], 1)
    move = [best_of(repeats, lambda b=b: agent.choose(b)) for b in queries]
    return {
        "cases": len(casebase),
        "scanned": scanned,
        "fit": fit,
        "floor": statistics.mean(floors),
        "scan": statistics.mean(scan),
        "move": statistics.mean(move),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 4_000_000])
    parser.add_argument("--queries", type=int, default=20, help="positions timed per size")
    parser.add_argument("--repeats", type=int, default=5, help="runs per position (the fastest counts)")
    args = parser.parse_args()
    full = masters_casebase(args.pgn, max(args.sizes))
    print(f"{'cases':>9} {'scanned':>9} {'fit s':>6} {'floor ms':>9} {'scan ms':>8} {'x floor':>8}"
          f" {'ms/1M':>6} {'move ms':>8}")
    for size in args.sizes:
        casebase = prefix(full, size)
        r = measure(casebase, query_positions(casebase, args.queries), args.repeats)
        print(f"{r['cases']:>9} {r['scanned']:>9.0f} {r['fit']:>6.2f} {r['floor']:>9.3f} {r['scan']:>8.3f}"
              f" {r['scan'] / r['floor']:>8.2f} {r['scan'] / r['scanned'] * 1e6:>6.2f} {r['move']:>8.3f}")
    print("scanned: cases of the side to move (the colour filter); floor: numpy reading the scan's"
          " columns once; x floor: scan / floor; ms/1M: scan time per million scanned cases;"
          " move: the whole pure-mode move (retrieval, draw, adaptation, explanation).")


if __name__ == "__main__":
    main()
