"""Time per move of retrieval at 10 k … 4 M cases, next to the memory floor measured in the same
run; and the learned similarity beside the shallow one on a casebase with its embeddings.

    python -m bench.retrieval [--pgn masters-2500plus.pgn.gz] [--sizes 10000 100000 1000000 4000000]
    python -m bench.retrieval --learned casebases/carlsen-2800.npz

With ``--learned``: on one core (BLAS held to one thread), positions of the casebase's own games
with their history, the shallow retrieval (the most similar cases) beside the learned one (the query
embedded by the default network, then the 128 nearest by cosine), and pure mode's whole move with
each.

The casebases are prefixes of one "all players" casebase built from a large PGN (by default
the shipped data/masters-2500plus.pgn.gz; --pgn takes any big PGN collection) and cached in
bench/out/. The floor is numpy reading the scanner's
columns once (``np.bitwise_or.reduce``): no scan can be faster than streaming its data.
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    # one core, as a UCI engine with Threads 1 (set before numpy loads)
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import chess  # noqa: E402
import numpy as np  # noqa: E402

from casebase.embeddings import all_games, case_boards, read_embeddings  # noqa: E402
from casebase.format import GAME_COLUMNS, Casebase  # noqa: E402
from common.paths import PROJECT_ROOT as ROOT  # noqa: E402
from engine.agents.pure import PureAgent  # noqa: E402
from engine.cbr.learned import NEAREST, learned_index  # noqa: E402
from engine.cbr.retrieval import CaseIndex  # noqa: E402
from engine.cbr.weights import WEIGHT_CONFIGS  # noqa: E402
from engine.style.lc0 import load_network  # noqa: E402
from engine.style.loader import default_model  # noqa: E402

OUT = ROOT / "bench" / "out"
DEFAULT_PGN = ROOT / "data" / "masters-2500plus.pgn.gz"
CASES_PER_GAME = 85  # about, in the masters collection: sizes the build


def masters_casebase(pgn: Path, cases: int) -> Casebase:
    """The first ``cases`` cases of an all-players casebase of ``pgn``, built once into
    bench/out/."""
    games = int(cases / CASES_PER_GAME * 1.1) + 10
    cached = sorted(
        OUT.glob(f"{pgn.name.split('.')[0]}-*-games.npz"), key=lambda p: int(p.stem.split("-")[-2])
    )
    for path in cached:
        casebase = Casebase.load(path)
        if len(casebase) >= cases:
            return prefix(casebase, cases)
    if not pgn.exists():
        sys.exit(
            f"{pgn} is not here: pass --pgn with a large PGN collection (~{games} games for"
            f" {cases} cases)"
        )
    path = OUT / f"{pgn.name.split('.')[0]}-{games}-games.npz"
    print(f"building {path.name} from {pgn} (once; cached in {OUT})", file=sys.stderr)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "casebase",
            "build",
            str(pgn),
            "--all-players",
            "--max-games",
            str(games),
            "-o",
            str(path),
        ],
        cwd=ROOT,
        check=True,
    )
    return masters_casebase(pgn, cases)


def prefix(casebase: Casebase, n: int) -> Casebase:
    """The casebase's first ``n`` cases (with the games they come from)."""
    if n >= len(casebase):
        return casebase
    games = int(casebase.game[n - 1]) + 1
    white = int(np.count_nonzero(casebase.turn[:n]))
    # The counts describe the prefix (a casebase's counts must match its arrays).
    counts = {
        **casebase.meta["counts"],
        "cases_white": white,
        "cases_black": n - white,
        "games_used": games,
    }
    return Casebase(
        boards=casebase.boards[:n],
        turn=casebase.turn[:n],
        from_square=casebase.from_square[:n],
        to_square=casebase.to_square[:n],
        promotion=casebase.promotion[:n],
        game=casebase.game[:n],
        ply=casebase.ply[:n],
        games={c: casebase.games[c][:games] for c in GAME_COLUMNS},
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
    floor = {
        c: best_of(repeats, lambda c=c: np.bitwise_or.reduce(columns[c], axis=1))
        for c in chess.COLORS
    }
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


def measure_learned(path: Path, queries: int, repeats: int) -> None:
    """Print the shallow and the learned retrieval, and pure mode's move by each, on ``path``'s own
    positions."""
    casebase = Casebase.load(path)
    network_path = default_model()[0]
    network = load_network(network_path)
    start = time.perf_counter()
    index = learned_index(
        casebase, network, lambda: read_embeddings(casebase, network_path, network.weights_sha256)
    )
    fit = time.perf_counter() - start
    made = {row: board for row, board, _ in case_boards(casebase, all_games(casebase))}
    rows = np.random.default_rng(0).choice(len(casebase), size=queries, replace=False)
    boards = [made[int(r)] for r in rows]
    shallow = CaseIndex.of(casebase)
    embedder = index.embedder
    times = {
        "shallow: the most similar cases": [
            best_of(repeats, lambda b=b: shallow.most_similar(b)) for b in boards
        ],
        "learned: the query's embedding": [
            best_of(repeats, lambda b=b: embedder.of_boards([b])) for b in boards
        ],
        f"learned: the {NEAREST} nearest, embedding included": [
            best_of(repeats, lambda b=b: index.nearest(b, NEAREST)) for b in boards
        ],
    }
    for name, learned in (("shallow", None), ("learned", index)):
        agent = PureAgent(casebase, WEIGHT_CONFIGS["balanced"], 1, learned)
        times[f"pure mode's move, {name}"] = [
            best_of(repeats, lambda b=b, a=agent: a.choose(b)) for b in boards
        ]
    size = sum(p.stat().st_size for p in (path, path.with_suffix(".embed.npz")))
    print(
        f"{path.name}: {len(casebase)} cases; the learned index fitted in {fit:.2f} s; casebase"
        f" {path.stat().st_size / 1e6:.1f} MB, with its embeddings {size / 1e6:.1f} MB\n"
    )
    print(f"{'what (one core)':<48} {'ms (mean of ' + str(queries) + ')':>16}")
    for name, values in times.items():
        print(f"{name:<48} {statistics.mean(values):>16.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.retrieval",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 4_000_000]
    )
    parser.add_argument("--queries", type=int, default=20, help="positions timed per size")
    parser.add_argument(
        "--repeats", type=int, default=5, help="runs per position (the fastest counts)"
    )
    parser.add_argument(
        "--learned",
        type=Path,
        metavar="CASEBASE.npz",
        help="the learned similarity beside the shallow one on this casebase (its X.embed.npz"
        " beside it)",
    )
    args = parser.parse_args()
    if args.learned:
        measure_learned(args.learned, args.queries, args.repeats)
        return
    full = masters_casebase(args.pgn, max(args.sizes))
    print(
        f"{'cases':>9} {'scanned':>9} {'fit s':>6} {'floor ms':>9} {'scan ms':>8} {'x floor':>8}"
        f" {'ms/1M':>6} {'move ms':>8}"
    )
    for size in args.sizes:
        casebase = prefix(full, size)
        r = measure(casebase, query_positions(casebase, args.queries), args.repeats)
        print(
            f"{r['cases']:>9} {r['scanned']:>9.0f} {r['fit']:>6.2f} {r['floor']:>9.3f}"
            f" {r['scan']:>8.3f} {r['scan'] / r['floor']:>8.2f}"
            f" {r['scan'] / r['scanned'] * 1e6:>6.2f} {r['move']:>8.3f}"
        )
    print(
        "scanned: cases of the side to move (the colour filter); floor: numpy reading the scan's"
        " columns once; x floor: scan / floor; ms/1M: scan time per million scanned cases;"
        " move: the whole pure-mode move (retrieval, draw, adaptation, explanation)."
    )


if __name__ == "__main__":
    main()
