"""A UCI fuzzer (issue #28): thousands of random, malformed and hostile lines, and what came back.

    # about 10 minutes on 2 busy cores
    python -m testing.fuzz_uci --lines 4000 --seed 1
    # the counts and examples as JSON
    python -m testing.fuzz_uci --lines 500 --seed 7 --json out.json

It drives ``uci_main.py`` (or ``--engine "CMD ARGS"``) as a subprocess over its stdin and stdout
directly, byte by byte, not through python-chess's client, because it must send what no client
sends: lines with NUL bytes or bytes that are not UTF-8, 100,000-token ``searchmoves``, option
values of 3,000 characters. Sessions follow each other, each with one scenario (mode ``pure``,
``guided`` or ``chess0``; a ``Judge`` that is ``/bin/cat``, ``/bin/false``, a liar written into a
temporary folder, or ``/usr/games/stockfish``; ``UCI_LimitStrength``, ``Selection calibrated`` or
``likely``, ``Model``; a ``Casebase`` that is the shipped Kosteniuk casebase, a missing file, a
damaged one, garbage) and then random lines: ``setoption`` of every option the engine declares in
answer to ``uci`` (valid and invalid values), ``position`` (valid, illegal, malformed), ``go`` in
every form (``depth``, ``nodes``, ``movetime``, clocks down to ``wtime 1``, ``infinite``, ``ponder``
then ``ponderhit`` or ``stop``, ``searchmoves``), ``ucinewgame``, ``isready``, ``stop``, garbage
(fuzz_uci_lines.py).

The fuzzer keeps the engine's state (the position in force, the searches running; fuzz_uci_state.py)
and counts, as faults: illegal ``bestmove`` (and ``ponder``) moves, moves outside the legal
``searchmoves``, illegal moves in a ``pv``, a ``bestmove`` that is not the first move of the last
principal variation, a ``go`` with no ``bestmove`` within its limits and ``--margin`` (a ``go`` with
no limit, or a long one, is stopped after a while, and the margin counts from the ``stop``),
``isready`` answered slower than 0.5 s (not counting the ``isready`` that follows a change of
options, which may load a casebase: those are reported apart), stdout lines over 4 KB or that are
not UCI, tracebacks on stderr, an engine that dies, or that does not quit, or whose children outlive
it. Each fault comes with the lines before it. The exit status is 1 if there was any fault.

The state is kept as docs/usage.md says this engine keeps it, where UCI leaves a choice: a line's
first known command counts (unknown words before it are skipped), words are split as Python
splits them (a no-break space separates), a ``position`` with an illegal move or a bad FEN leaves
the position as it was, ``ucinewgame`` sets the start position. Another engine (``--engine``) that
plays the moves before an illegal one, or splits at ASCII spaces only, shows those differences as
faults too (Stockfish 15.1 also prints a banner and ``Unknown command`` lines, and dies on some
malformed FENs). The check of the pv's first move counts ``multipv 1`` lines marked as bounds,
which fastchess's own check skips.

Bounded: at most ``--lines`` lines and ``--time-limit`` seconds (each session also quits after a
few hundred lines); the values of ``Hash`` and ``Threads`` that the engine accepts are kept small
(a judge gets them) unless ``--unsafe-resources``; out-of-range values are sent as they are.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from testing.fuzz_uci_driver import Fuzzer
from testing.fuzz_uci_sessions import Fixtures
from testing.fuzz_uci_state import FAULTS


def print_report(report: dict[str, object]) -> None:
    """The counts, the faults and their first examples, for people."""
    counts, faults, examples = report["counts"], report["faults"], report["examples"]
    assert isinstance(counts, dict) and isinstance(faults, dict) and isinstance(examples, dict)
    print(f"seed {report['seed']}, {report['seconds']} s")
    for key in (
        "sessions",
        "lines sent",
        "go sent",
        "bestmove received",
        "isready sent",
        "readyok received",
        "stdout lines",
        "stderr lines",
        "stderr lines with 'Traceback'",
        "isready slower than 0.5 s after a change or a huge line (not a fault)",
    ):
        print(f"  {key:56s} {counts.get(key, 0)}")
    print(f"  slowest readyok (s): {report['slowest readyok (s)']}")
    print(
        "  latest bestmove past its deadline (s):"
        f" {report['latest bestmove past its deadline (s)']}"
    )
    print("faults:")
    for kind, count in faults.items():
        print(f"  {kind:56s} {count}")
    for kind, found in examples.items():
        for n, example in enumerate(found, 1):
            print(f"\n--- {kind}, example {n} ({FAULTS.get(kind, '')})")
            for line in example:
                print("    " + line[:300])


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.fuzz_uci",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--lines", type=int, default=4000, help="lines to send in all")
    parser.add_argument(
        "--seed", type=int, default=1, help="the random lines' seed (and the first scenario)"
    )
    parser.add_argument("--time-limit", type=float, default=540.0, help="seconds in all")
    parser.add_argument(
        "--session-lines", type=int, default=250, help="lines per engine session, on average"
    )
    parser.add_argument(
        "--engine", default="", help="another engine's command line (no scenario flags then)"
    )
    parser.add_argument(
        "--margin", type=float, default=2.0, help="seconds a bestmove may come after the go's limit"
    )
    parser.add_argument(
        "--work-depth", type=int, default=4, help="a go depth up to this is a bounded search"
    )
    parser.add_argument(
        "--work-nodes", type=int, default=100_000, help="a go nodes up to this is a bounded search"
    )
    parser.add_argument(
        "--work-seconds",
        type=float,
        default=20.0,
        help="seconds a bounded depth or nodes search may take",
    )
    parser.add_argument(
        "--load-seconds",
        type=float,
        default=20.0,
        help="extra seconds for the first go after options changed (a casebase or judge loads)",
    )
    parser.add_argument(
        "--max-wait",
        type=float,
        default=4.0,
        help="a search with no bound, or a longer one, is stopped within this many seconds",
    )
    parser.add_argument(
        "--recover", type=float, default=5.0, help="seconds after a late go's stop before killing"
    )
    parser.add_argument(
        "--isready-timeout",
        type=float,
        default=60.0,
        help="seconds before an isready is unanswered",
    )
    parser.add_argument(
        "--quit-timeout", type=float, default=5.0, help="seconds the engine may take to quit"
    )
    parser.add_argument(
        "--context", type=int, default=8, help="transcript lines kept before each example"
    )
    parser.add_argument("--examples", type=int, default=3, help="examples kept per fault")
    parser.add_argument(
        "--unsafe-resources", action="store_true", help="send Hash and Threads up to their maxima"
    )
    parser.add_argument("--json", type=Path, help="write the report here as JSON too")
    parser.add_argument("--log", type=Path, help="write every line sent and received here, timed")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)  # so that the engine is ended too
    folder = Path(tempfile.mkdtemp(prefix="fuzz-uci-"))
    try:
        os.environ["LIAR_SEED"] = str(args.seed)
        scratch = folder / "cwd"
        scratch.mkdir()
        fuzzer = Fuzzer(args, Fixtures.make(folder, random.Random(args.seed)), scratch)
        try:
            fuzzer.run()
        finally:
            fuzzer.kill()
        report = fuzzer.report()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=True))
    faults = report["faults"]
    assert isinstance(faults, dict)
    return 1 if any(faults.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
