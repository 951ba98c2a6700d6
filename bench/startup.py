"""Engine start-up: time from launch to ``uciok``, to ``readyok`` (casebase loaded) and to the first
move.

    python -m bench.startup [--pgn masters-2500plus.pgn.gz] [--runs 5]

Measured with a casebase of the shipped size (Kosteniuk's 121 games, built into bench/out/)
and with a ~1 M-case casebase (a prefix of the masters casebase of bench/retrieval.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.retrieval import DEFAULT_PGN, OUT, ROOT, masters_casebase
from casebase.format import Casebase


def one_start(casebase: Path) -> tuple[float, float, float]:
    """Seconds from launch to uciok, readyok and the first bestmove."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "uci_main.py"), "--casebase", str(casebase)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    marks = []
    for command, answer in (
        ("uci", "uciok"),
        ("isready", "readyok"),
        ("go movetime 1000", "bestmove"),
    ):
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        while not (line := proc.stdout.readline()).startswith(answer):
            if not line:
                raise RuntimeError(f"engine ended before {answer}")
        marks.append(time.perf_counter() - start)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    return marks[0], marks[1], marks[2]


def small_casebase() -> Path:
    path = OUT / "kosteniuk-2200.npz"
    if not path.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "casebase",
                "build",
                "data/experts/kosteniuk-2200.pgn",
                "--quiet",
                "--player",
                "Kosteniuk, Alexandra",
                "-o",
                str(path),
            ],
            cwd=ROOT,
            check=True,
        )
    return path


def large_casebase(pgn: Path, cases: int = 1_000_000) -> Path:
    path = OUT / f"masters-{cases}.npz"
    if not path.exists():
        masters_casebase(pgn, cases).save(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.startup",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'casebase':<28} {'cases':>9} {'uciok ms':>9} {'readyok ms':>11} {'1st move ms':>12}"
        f"   (median of {args.runs})"
    )
    for path in (small_casebase(), large_casebase(args.pgn)):
        runs = [one_start(path) for _ in range(args.runs)]
        cases = len(Casebase.load(path))
        uciok, readyok, move = (statistics.median(r[i] for r in runs) * 1000 for i in range(3))
        print(f"{path.name:<28} {cases:>9} {uciok:>9.0f} {readyok:>11.0f} {move:>12.0f}")


if __name__ == "__main__":
    main()
