"""Speed of the style models side by side: one position at a time on one core, and batched.

    python -m bench.model [--model MODEL [MODEL ...]]

By default the numpy 8x96 (``style``) and the shipped default network (Maia-1900, run by lc0's backend),
measured in turn in one run. The positions are reached by their games' moves, so a network sees their
history. One core: BLAS is held to one thread (the variables are set before numpy loads), as a UCI
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

from engine.style.loader import default_model, load_model, model_path  # noqa: E402
from engine.style.model import generic_model  # noqa: E402

#: The positions, as the moves of their games from the start.
GAMES = [
    "",
    "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 g1f3 c7c6 e2e3 b8d7 d1c2 f8e7 f1e2 e8g8 e1g1",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 c1e3 e7e5 d4b3 c8e6 f2f3 f8e7 d1d2 e8g8 e1c1 b8d7",
]


def boards_of(games: list[str]) -> list[chess.Board]:
    """The position after each game's moves, with its move stack."""
    boards = []
    for moves in games:
        board = chess.Board()
        for uci in moves.split():
            board.push_uci(uci)
        boards.append(board)
    return boards


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", nargs="+", default=[str(generic_model()), str(default_model()[0])],
                        help="model files or shipped models' names (default: style and the default network)")
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    print(f"numpy {__import__('numpy').__version__}, one thread")
    for name in dict.fromkeys(args.model):  # without lc0's backend the default is the 8x96 itself
        measure(Path(model_path(name)), args.repeats)


def measure(path: Path, repeats: int) -> None:
    """Print one model's times: a position at a time (median, 90th percentile), and in batches."""
    model = load_model(path)
    boards = boards_of(GAMES)
    moves = [list(b.legal_moves) for b in boards]
    print(f"\nmodel {path} ({model.describe()})\n")
    print(f"{'what':<32} {'ms/position':>12}")
    single = []
    for _ in range(repeats):
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
