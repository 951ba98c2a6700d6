"""Endgame tables: generation time, memory and file size of the small ones, and the speed of a
probe and of a distance-to-mate-optimal move (the four-man tables when ``make tables`` made them).

    python -m bench.tables
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from endgame import default_folder
from endgame.check import random_position
from endgame.retrograde import ENDINGS, generate
from endgame.tablebase import Stored, Tablebase


def main() -> None:
    # no options: --help only
    argparse.ArgumentParser(prog="python -m bench.tables", description=__doc__).parse_args()
    print(f"{'ending':<8} {'generation s':>13} {'peak MB':>8} {'file KB':>8} {'longest mate':>13}")
    with tempfile.TemporaryDirectory() as folder:
        for ending in ("KQK", "KRK"):
            started = time.perf_counter()
            table = generate(ending)
            seconds = time.perf_counter() - started
            path = Path(folder) / f"{ending}.npz"
            Stored.of(table).save(path)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"{ending:<8} {seconds:>13.2f} {peak:>8.0f} {path.stat().st_size / 1e3:>8.1f}"
                f" {table.longest_mate():>13}"
            )
    tables = Tablebase(default_folder())
    rng = np.random.default_rng(0)
    print(f"\n{'ending':<8} {'probe µs':>9} {'best move ms':>13}   (tables in {default_folder()})")
    for ending in ENDINGS:
        if tables.table(ending) is None:
            print(f"{ending:<8} {'no table: make tables':>24}")
            continue
        boards = [random_position(ending, rng) for _ in range(500)]
        started = time.perf_counter()
        for board in boards:
            tables.probe(board)
        probe = (time.perf_counter() - started) / len(boards) * 1e6
        started = time.perf_counter()
        for board in boards[:100]:
            tables.best(board)
        best = (time.perf_counter() - started) / 100 * 1e3
        print(f"{ending:<8} {probe:>9.0f} {best:>13.2f}")


if __name__ == "__main__":
    main()
