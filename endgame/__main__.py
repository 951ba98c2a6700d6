"""``python -m endgame build|probe``: make the endgame tables, ask them about a position."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
from tqdm import tqdm

from endgame import default_folder
from endgame.check import check
from endgame.retrograde import ENDINGS, generate
from endgame.tablebase import Stored, Tablebase, TablebaseError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m endgame", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="make distance-to-mate tables by retrograde analysis")
    b.add_argument(
        "endings", nargs="*", metavar="ENDING", help=f"any of {', '.join(ENDINGS)} (default: all)"
    )
    b.add_argument(
        "--folder",
        type=Path,
        default=default_folder(),
        help="where the tables go (default: %(default)s)",
    )
    b.add_argument("--force", action="store_true", help="make them again even where a file exists")
    c = commands.add_parser(
        "check", help="compare each table with python-chess's rules on sampled positions"
    )
    c.add_argument("endings", nargs="*", metavar="ENDING", help="(default: all)")
    c.add_argument(
        "--positions", type=int, default=2000, help="sampled positions per ending (default 2000)"
    )
    c.add_argument("--folder", type=Path, default=default_folder())
    p = commands.add_parser("probe", help="the tables' verdict and best move in a position")
    p.add_argument("fen")
    p.add_argument("--folder", type=Path, default=default_folder())
    return parser


def build(endings: list[str], folder: Path, force: bool) -> None:
    """Make the tables of ``endings`` in ``folder``, with progress, time, memory and size."""
    folder.mkdir(parents=True, exist_ok=True)
    for ending in endings:
        path = folder / f"{ending}.npz"
        if path.exists() and not force:
            print(f"{path}: there already (--force to make it again)")
            continue
        started = time.perf_counter()
        with tqdm(
            desc=ending, unit=" plies", file=sys.stderr, disable=not sys.stderr.isatty()
        ) as bar:

            def progress(plies: int, won: int) -> None:
                bar.set_postfix_str(f"{won:,} won positions", refresh=False)
                bar.update(plies - bar.n)

            table = generate(ending, progress)
        seconds = time.perf_counter() - started
        Stored.of(table).save(path)
        wins = int((table.white_to_move > 0).sum())
        print(
            f"{path}: {ending}, longest mate {table.longest_mate()} moves, {wins:,} positions won"
            f" with the stronger side to move; {seconds:.1f} s, {peak_memory()}, file"
            f" {path.stat().st_size / 1e6:.2f} MB"
        )


def peak_memory() -> str:
    """This process's peak resident memory, in words: ``ru_maxrss`` counts KiB on Linux, bytes on
    macOS; Windows has no ``resource`` module."""
    try:
        import resource
    except ImportError:  # Windows
        return "peak memory not measured"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
        1024 * 1024 if sys.platform == "darwin" else 1024
    )
    return f"peak memory {peak:.0f} MB"


def check_all(endings: list[str], folder: Path, positions: int) -> int:
    """Check the tables of ``endings`` in ``folder``; 1 if one is missing or disagrees."""
    tables = Tablebase(folder, make=())
    failed = 0
    for ending in endings:
        if tables.table(ending) is None:
            print(
                f"{ending}: no table in {folder}"
                f" ({'; '.join(tables.problems) or 'run make tables'})"
            )
            failed = 1
            continue
        report = check(ending, tables, positions)
        verdict = "agree" if not report.disagreements else f"{len(report.disagreements)} DISAGREE"
        print(
            f"{ending}: {report.positions} sampled positions {verdict} with their successors"
            f" ({report.wins} won, {report.losses} lost, {report.draws} drawn for the side to move)"
        )
        for line in report.disagreements[:5]:
            print(f"  {line}")
        failed |= bool(report.disagreements)
    return failed


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command in ("build", "check"):
            unknown = set(args.endings) - set(ENDINGS)
            if unknown:
                raise ValueError(
                    f"no such ending: {', '.join(sorted(unknown))} (there are {', '.join(ENDINGS)})"
                )
            args.endings = args.endings or list(ENDINGS)
        if args.command == "build":
            build(args.endings, args.folder, args.force)
            return 0
        if args.command == "check":
            return check_all(args.endings, args.folder, args.positions)
        board = chess.Board(args.fen)
        tables = Tablebase(args.folder)
        found = tables.best(board)
        for problem in tables.problems:
            print(problem, file=sys.stderr)
        if found is None:
            print("no table covers this position (or it has no legal move)")
            return 1
        move, verdict = found
        print(f"{verdict.text()}: {board.san(move)}")
    except (OSError, ValueError, TablebaseError) as exc:
        print(f"python -m endgame {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
