"""Speed of the compiled move generator and search (engine/compiled/, issue #73): perft's nodes a
second on one core at depth 5 of the Chess Programming Wiki's six positions, the compile's time
cold (a fresh cache folder) and cached (a second process), a check against python-chess on random
positions, and the search's nodes a second and depth reached on ten middlegame positions.

    python -m bench.compiled [--depth 5] [--positions 1000] [--check-depth 2] [--search-seconds 1]

The issue's bar: at least 3 million perft nodes a second; a cold compile within 60 s, a cached
start within 3 s; at least 500 thousand search nodes a second.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

import chess
import numpy as np

from common.paths import PROJECT_ROOT as ROOT

# Each position's published count at depth 5 (https://www.chessprogramming.org/Perft_Results).
POSITIONS = {
    "initial": (chess.STARTING_FEN, 4_865_609),
    "kiwipete": (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        193_690_690,
    ),
    "position 3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 674_624),
    "position 4": ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 15_833_292),
    "position 5": ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 89_941_194),
    "position 6": (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        164_075_551,
    ),
}

# Middlegames for the search's speed: openings' main lines ten to fifteen moves in, and CPW's
# kiwipete and position 6.
MIDDLEGAMES = {
    "QGD orthodox": "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9",
    "Ruy Lopez closed": "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9",
    "Najdorf English": "rn1qkb1r/1p3ppp/p2pbn2/4p3/4P3/1NN1BP2/PPP3PP/R2QKB1R b KQkq - 2 8",
    "Dragon Yugoslav": "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9",
    "King's Indian": "r1bq1rk1/pppnn1bp/3p2p1/3Ppp2/2P1P3/2N2P2/PP2B1PP/R1BQNRK1 w - - 0 10",
    "French Tarrasch": "r1bqk2r/pp1nbppp/2n1p3/2ppP3/3P1P2/2PB1N2/PP4PP/RNBQK2R w KQkq - 3 8",
    "Caro-Kann classical": "r2q1rk1/pp1nbppp/2p1pn2/5b2/2BP4/2N1PN2/PP2QPPP/R1B2RK1 w - - 4 9",
    "Catalan": "rnbq1rk1/p1p1bppp/1p2pn2/3p4/2PP4/5NP1/PP2PPBP/RNBQ1RK1 w - - 0 7",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "position 6": "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
}

# Run in a fresh process: the time to import the package and make its first calls, each of which
# compiles (or loads from the cache) what it calls; with argument "search", the search's too.
_START = """
import json, sys, time
start = time.perf_counter()
import chess, numpy
from engine.compiled import movegen
movegen.perft_board(chess.Board(), 2)
movegen.generate_captures(movegen.state_of(chess.Board()), numpy.zeros(256, "int32"))
if sys.argv[1:] == ["search"]:
    from engine.compiled.search import CompiledSearch
    CompiledSearch().search(chess.Board(), depth=2)
print(json.dumps(time.perf_counter() - start))
"""


def perft_table(depth: int) -> None:
    from engine.compiled.movegen import perft_board

    print(f"\nPerft to depth {depth}, bulk-counted, one core\n")
    print(f"{'position':<12} {'nodes':>12} {'published':>9} {'seconds':>8} {'Mnodes/s':>9}")
    nodes_all, seconds_all = 0, 0.0
    for name, (fen, published) in POSITIONS.items():
        board = chess.Board(fen)
        perft_board(board, 1)  # compiled (or loaded) before the clock starts
        start = time.perf_counter()
        nodes = perft_board(board, depth)
        seconds = time.perf_counter() - start
        nodes_all, seconds_all = nodes_all + nodes, seconds_all + seconds
        same = "-" if depth != 5 else ("yes" if nodes == published else "NO")
        print(f"{name:<12} {nodes:>12} {same:>9} {seconds:>8.2f} {nodes / seconds / 1e6:>9.1f}")
    print(f"{'all':<12} {nodes_all:>12} {'':>9} {seconds_all:>8.2f}", end="")
    print(f" {nodes_all / seconds_all / 1e6:>9.1f}")


def compile_table() -> None:
    print("\nStart-up in a fresh process: import and first calls (s); the process's wall time\n")
    print(f"{'compiled':<24} {'cache':<8} {'first calls':>11} {'process':>8}")
    for label, argv in (("move generator", []), ("move generator + search", ["search"])):
        with tempfile.TemporaryDirectory(prefix="numba-bench-") as folder:
            env = {**os.environ, "NUMBA_CACHE_DIR": folder, "PYTHONPATH": str(ROOT)}
            for cache in ("cold", "cached"):
                start = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-c", _START, *argv],
                    env=env,
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                )
                wall = time.perf_counter() - start
                if done.returncode != 0:
                    why = done.stderr.strip().splitlines()[-1:] or ["no message"]
                    print(
                        f"{label:<24} {cache:<8} failed (exit status {done.returncode}): {why[0]}"
                    )
                    continue
                first = float(done.stdout.strip().splitlines()[-1])
                print(f"{label:<24} {cache:<8} {first:>11.2f} {wall:>8.2f}")


def check_table(count: int, depth: int, seed: int) -> None:
    from engine.compiled.board import MAX_MOVES, move_of, reference_perft, state_of
    from engine.compiled.movegen import generate, perft_board

    rng = random.Random(seed)
    starts = [fen for fen, _ in POSITIONS.values()]
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    same_moves = same_perft = 0
    for i in range(count):
        board = chess.Board(starts[i % len(starts)])
        for _ in range(rng.randrange(1, 120)):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(rng.choice(legal))
        n = generate(state_of(board), moves)
        ours = sorted(move_of(int(code), board).uci() for code in moves[:n])
        same_moves += ours == sorted(move.uci() for move in board.legal_moves)
        same_perft += perft_board(board, depth) == reference_perft(board, depth)
    print(f"\nAgainst python-chess on {count} random positions (seed {seed})\n")
    print(
        f"legal moves equal: {same_moves}/{count}; perft depth {depth} equal: {same_perft}/{count}"
    )


def search_table(seconds: float) -> None:
    from engine.compiled.search import CompiledSearch

    print(f"\nThe search, {seconds:g} s a position, a fresh 16 MiB table each, one core\n")
    print(f"{'position':<20} {'depth':>5} {'seldepth':>8} {'nodes':>10} {'knodes/s':>9}  best")
    CompiledSearch(1).search(chess.Board(), depth=2)  # compiled (or loaded) before the clock
    nodes_all, seconds_all = 0, 0.0
    for name, fen in MIDDLEGAMES.items():
        board = chess.Board(fen)
        search = CompiledSearch(16)
        start = time.perf_counter()
        result = search.search(board, deadline=time.monotonic() + seconds)
        spent = time.perf_counter() - start
        nodes_all, seconds_all = nodes_all + result.nodes, seconds_all + spent
        line = result.lines[0]
        print(
            f"{name:<20} {result.depth:>5} {result.seldepth:>8} {result.nodes:>10}"
            f" {result.nodes / spent / 1e3:>9.0f}  {board.san(line.move)} {line.score:+d}"
        )
    print(f"{'all':<20} {'':>5} {'':>8} {nodes_all:>10} {nodes_all / seconds_all / 1e3:>9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compiled", description=__doc__)
    parser.add_argument("--depth", type=int, default=5, help="perft's depth (default 5)")
    parser.add_argument("--positions", type=int, default=1000, help="random positions checked")
    parser.add_argument("--check-depth", type=int, default=2, help="their perft's depth")
    parser.add_argument("--seed", type=int, default=73)
    parser.add_argument(
        "--search-seconds", type=float, default=1.0, help="the search's time a position"
    )
    args = parser.parse_args()
    from engine.compiled.jit import available

    why_not = available()
    if why_not is not None:
        sys.exit(why_not)
    compile_table()
    perft_table(args.depth)
    check_table(args.positions, args.check_depth, args.seed)
    search_table(args.search_seconds)


if __name__ == "__main__":
    main()
