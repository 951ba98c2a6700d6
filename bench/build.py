"""Casebase builder speed against python-chess's own PGN parsing, measured side by side.

Reads the first GAMES games of the masters collection (every move of both players is a case,
``--all-players``) and prints one table: python-chess's bare parse rate (``read_game`` and
replaying the main line, nothing stored), the builder with 1 worker and with all workers,
in games per second, with the ratios the builder is meant to reach.

    python -m bench.build [--pgn masters-2500plus.pgn.gz] [--games 3000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess.pgn

from casebase.builder import build
from casebase.games import GameFilter

DEFAULT_PGN = Path(__file__).resolve().parents[1] / "data" / "masters-2500plus.pgn.gz"
TARGET_ONE_WORKER = 0.70  # builder with 1 worker / bare parse
TARGET_TWO_WORKERS = 1.6  # builder with 2 workers / builder with 1 worker


def first_games(path: Path, count: int) -> tuple[str, int]:
    """The PGN text of the first ``count`` games of ``path`` (.pgn or .pgn.gz), and their number."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        handle = io.StringIO(f.read())
    games = 0
    while games < count and chess.pgn.skip_game(handle):
        games += 1
    return handle.getvalue()[: handle.tell()], games


def bare_parse(path: Path) -> None:
    """python-chess alone: read every game and replay its main line."""
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)


def best_time(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    args = parser.parse_args()
    if not args.pgn.exists():
        print(
            f"{args.pgn} is not here: this benchmark needs a large PGN such as the project's"
            f" masters-2500plus.pgn.gz; pass it with --pgn PATH."
        )
        return 0
    cores = os.cpu_count() or 1
    text, games = first_games(args.pgn, args.games)
    selection = GameFilter(all_players=True)
    with tempfile.TemporaryDirectory() as tmp:
        pgn = Path(tmp) / "games.pgn"
        pgn.write_text(text, encoding="utf-8")
        outputs: dict[int, bytes] = {}

        def builder(workers: int) -> Callable[[], None]:
            def run() -> None:
                out = Path(tmp) / f"{workers}.npz"
                build([pgn], selection, workers=workers, progress=False).save(out)
                outputs[workers] = out.read_bytes()

            return run

        rows = [
            (
                "python-chess bare parse (read_game + replay)",
                best_time(lambda: bare_parse(pgn), args.repeat),
            )
        ]
        rows.append(("builder, 1 worker", best_time(builder(1), args.repeat)))
        rows.append(
            (f"builder, {cores} workers (all cores)", best_time(builder(cores), args.repeat))
        )
    bare, one, many = (games / seconds for _, seconds in rows)
    print(
        f"{games} games of {args.pgn.name} ({len(text) / 1e6:.1f} MB), every move a case;"
        f" best of {args.repeat} runs; {cores} cores\n"
    )
    print(f"| {'what':<46} | {'seconds':>7} | {'games/s':>7} |")
    print(f"|{'-' * 48}|{'-' * 9}|{'-' * 9}|")
    for (name, seconds), rate in zip(rows, (bare, one, many)):
        print(f"| {name:<46} | {seconds:7.2f} | {rate:7.0f} |")
    print(
        f"\nbuilder 1 worker / bare parse:   {one / bare:.2f}  (target >= {TARGET_ONE_WORKER:.2f})"
    )
    print(
        f"builder {cores} workers / 1 worker: {many / one:.2f}  (target >= {TARGET_TWO_WORKERS:.2f}"
        f" with 2 workers)"
    )
    print(f"same casebase bytes with 1 and {cores} workers: {outputs[1] == outputs[cores]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
