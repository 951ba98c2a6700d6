"""Speed of the style model's numpy inference: one position at a time on one core, and batched.

    python -m bench.model [--model engine/style/models/style.npz]

One core: BLAS is held to one thread (the variables are set before numpy loads), as a UCI
engine with Threads 1 would run. The budget is 10 ms a position.
"""

from __future__ import annotations

import os

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import chess  # noqa: E402

from engine.style.model import StyleModel, generic_model  # noqa: E402

POSITIONS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9",
    "8/5pk1/6p1/3R4/r4P2/6KP/8/8 w - - 0 40",
]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=generic_model())
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    model = StyleModel.load(args.model)
    boards = [chess.Board(fen) for fen in POSITIONS]
    moves = [list(b.legal_moves) for b in boards]
    print(f"model {args.model} ({model.describe()}), numpy {__import__('numpy').__version__}, one thread\n")
    print(f"{'what':<32} {'ms/position':>12}")
    single = []
    for _ in range(args.repeats):
        for board, options in zip(boards, moves):
            start = time.perf_counter()
            model.prior(board, options)
            single.append(time.perf_counter() - start)
    print(f"{'one position (median)':<32} {1000 * statistics.median(single):>12.2f}")
    print(f"{'one position (90th percentile)':<32} {1000 * sorted(single)[int(0.9 * len(single))]:>12.2f}")
    for size in (16, 256):
        batch = (boards * (size // len(boards) + 1))[:size]
        legal = (moves * (size // len(moves) + 1))[:size]
        start = time.perf_counter()
        for _ in range(3):
            model.priors(batch, legal)
        per = (time.perf_counter() - start) / (3 * size)
        print(f"{f'batches of {size}':<32} {1000 * per:>12.2f}")


if __name__ == "__main__":
    main()
