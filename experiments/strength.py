"""Playing strength against Stockfish at calibrated Elo levels: one table.

    python -m experiments.strength [--games 100] [--tc 40/20] [--elos 1350 1800] [--mode guided]
        [--cluster ADDRESS]

Our engine on one casebase (default the Carlsen casebase, ``make casebases``) plays Debian's
Stockfish 15.1 (``/usr/games/stockfish``) with ``UCI_LimitStrength=true`` at each ``UCI_Elo``
in ``--elos``, ``--games`` games per level (rounded up to even), colours alternating. The
games are the tournament's own (``python -m tournament run`` with the Stockfish levels as
reference engines; the command is printed), in ``--out`` (default under bench/out/, named after
the settings), so an interrupted bench resumes when run again and a finished one only prints.

Per opponent: games, W/D/L and score from our side, the Elo difference with its 95 % interval
(logistic model fitted to the games with the tournament's fit, tournament/elo.py: maximum
likelihood with one virtual draw as a prior, so a clean sweep stays finite), our engine's
nodes per second (the nodes and search time it reported in its last ``info`` line of each move,
summed), the average thinking time per move of each side (charged to the clocks, so it
includes the UCI round trip), and how the games ended. The full tournament report goes to
``report.md`` in the run directory.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from common.paths import PROJECT_ROOT as ROOT
from engine.outside.clock import TimeControl
from engine.outside.stockfish import DEBIAN_STOCKFISH
from tournament.elo import fit_ratings
from tournament.game import points

STOCKFISH = Path(DEBIAN_STOCKFISH)
CASEBASE = ROOT / "casebases" / "carlsen-2800.npz"
#: The issue's target: the guided Carlsen scores at least this against UCI_Elo 1350.
TARGET = (1350, 0.5)


@dataclass
class Tally:
    """Our side of the games against one opponent."""

    results: list[float] = field(default_factory=list)
    terminations: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    seconds: float = 0.0
    their_moves: int = 0
    their_seconds: float = 0.0
    nodes: int = 0
    search_seconds: float = 0.0


def engine_spec(stockfish: Path, elo: int) -> str:
    """The tournament's ``--engine`` text of Stockfish limited to ``elo``."""
    return (
        f"name=sf{elo} cmd={shlex.quote(str(stockfish))} option.UCI_LimitStrength=true"
        f" option.UCI_Elo={elo} elo={elo}"
    )


def match_command(
    args: argparse.Namespace,
    casebase: Path,
    mode: str,
    config: str,
    rounds: int,
    control: TimeControl,
    options: list[str],
    event: str,
    out: Path,
) -> list[str]:
    """The round robin's command line of ``casebase``'s engine (``mode``, weight ``config`` and the
    UCI ``options``) against Stockfish at each of ``args.elos``, ``rounds`` rounds at ``control``,
    with ``args``'s seed, workers or cluster, Stockfish and judge: ``event`` against Stockfish, its
    games and report in ``out`` (this pipeline's and :mod:`experiments.ladder`'s)."""
    return [
        sys.executable,
        "-m",
        "tournament",
        "run",
        "--casebases",
        str(casebase),
        "--mode",
        mode,
        "--configs",
        config,
        "--rounds",
        str(rounds),
        "--tc",
        str(control),
        "--seed",
        str(args.seed),
        *(("--cluster", args.cluster) if args.cluster else ("--workers", str(args.workers))),
        *[a for elo in args.elos for a in ("--engine", engine_spec(args.stockfish, elo))],
        *(("--judge", args.judge) if args.judge else ()),
        *[a for option in options for a in ("--option", option)],
        "--event",
        f"{event} against Stockfish",
        "--out",
        str(out),
    ]


def tally(directory: Path, player: str) -> dict[str, Tally]:
    """Per opponent, what ``player`` did in the run's finished games (with their effort files)."""
    out: dict[str, Tally] = {}
    for path in sorted((directory / "games").glob("*.pgn")):
        with open(path, encoding="utf-8") as f:
            headers = chess.pgn.read_headers(f)
        if headers is None or player not in (headers["White"], headers["Black"]):
            continue
        ours, theirs = ("white", "black") if headers["White"] == player else ("black", "white")
        t = out.setdefault(headers["Black" if ours == "white" else "White"], Tally())
        t.results.append(points(headers["Result"], ours == "white"))
        t.terminations[headers.get("Termination", "?")] += 1
        stats_path = path.with_suffix(".json")
        if stats_path.exists():
            stats = json.loads(stats_path.read_text(encoding="utf-8"))
            t.moves += stats[ours]["moves"]
            t.seconds += stats[ours]["seconds"]
            t.their_moves += stats[theirs]["moves"]
            t.their_seconds += stats[theirs]["seconds"]
            if stats[ours]["nodes"] is not None and stats[ours]["search_seconds"]:
                t.nodes += stats[ours]["nodes"]
                t.search_seconds += stats[ours]["search_seconds"]
    return out


def elo_difference(results: list[float]) -> tuple[float, float, float]:
    """Our rating minus the opponent's, with its 95 % interval, from our game scores."""
    estimate = fit_ratings(2, [(0, 1, s) for s in results], fixed={1: 0.0})[0]
    return estimate.rating, estimate.low, estimate.high


def table(tallies: dict[str, Tally]) -> str:
    """The bench's table, opponents in the order of their Elo."""
    lines = [
        "| opponent | games | W/D/L | score | Elo difference (95 %) | our nodes/s"
        " | our s/move | SF s/move | terminations |",
        "|---|---:|---|---:|---|---:|---:|---:|---|",
    ]
    for name in sorted(tallies, key=lambda n: (len(n), n)):
        t = tallies[name]
        n = len(t.results)
        wins, draws = t.results.count(1.0), t.results.count(0.5)
        diff, low, high = elo_difference(t.results)
        nps = f"{t.nodes / t.search_seconds:,.0f}" if t.search_seconds else "n/a"
        ours = f"{t.seconds / t.moves:.2f}" if t.moves else "n/a"
        theirs = f"{t.their_seconds / t.their_moves:.2f}" if t.their_moves else "n/a"
        ends = ", ".join(f"{k} {v}" for k, v in t.terminations.most_common())
        lines.append(
            f"| {name} | {n} | {wins}/{draws}/{n - wins - draws} | {100 * sum(t.results) / n:.1f} %"
            f" | {diff:+.0f} ({low:+.0f} .. {high:+.0f}) | {nps} | {ours} | {theirs} | {ends} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.strength", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--casebase", type=Path, default=CASEBASE)
    parser.add_argument("--mode", default="guided", help="engine mode (default guided)")
    parser.add_argument(
        "--config", default="balanced", help="weight configuration (default balanced)"
    )
    parser.add_argument(
        "--elos", type=int, nargs="+", default=[1350, 1800], help="Stockfish UCI_Elo levels"
    )
    parser.add_argument(
        "--games", type=int, default=100, help="games per level, rounded up to even (default 100)"
    )
    parser.add_argument(
        "--tc",
        default="40/20",
        help="time control, PGN style (default 40/20: 40 moves in 20 s, repeating)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on the Ray cluster at ADDRESS (pip install -e '.[cluster]')",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stockfish", type=Path, default=STOCKFISH)
    parser.add_argument(
        "--judge",
        default="",
        metavar="PATH",
        help="an outside UCI engine judging our proposals (option Judge), e.g."
        " /usr/games/stockfish",
    )
    parser.add_argument(
        "--out", type=Path, help="run directory (default: bench/out/strength-MODE-TC-GAMES)"
    )
    args = parser.parse_args()
    if not args.stockfish.exists():
        print(
            f"{args.stockfish} not found: install Debian's Stockfish with `apt-get install"
            " stockfish` (or give --stockfish PATH); nothing measured",
            file=sys.stderr,
        )
        return 0
    if not args.casebase.exists():
        print(
            f"{args.casebase} not found: build the shipped casebases with `make casebases`"
            " (or give --casebase FILE)",
            file=sys.stderr,
        )
        return 2
    if args.games < 1:
        parser.error("--games must be at least 1")
    rounds = math.ceil(args.games / 2)
    control = TimeControl.parse(args.tc)
    out = args.out or ROOT / "bench" / "out" / (
        f"strength-{args.mode}{'-judged' if args.judge else ''}"
        f"-{str(control).replace('/', 'in')}-{2 * rounds}"
    )
    command = match_command(
        args, args.casebase, args.mode, args.config, rounds, control, [], "Strength", out
    )
    print("$ " + shlex.join(command), file=sys.stderr)
    start = time.perf_counter()
    # The tournament's report goes to report.md; its progress bar (stderr) stays on the terminal.
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(
            f"the tournament failed (exit {done.returncode}); finished games are kept in {out}",
            file=sys.stderr,
        )
        return done.returncode
    tallies = tally(out, args.casebase.stem)
    judged = f", judged by {args.judge}" if args.judge else ""
    where = f"the Ray cluster at {args.cluster}" if args.cluster else f"{args.workers} workers"
    print(
        f"\n{args.casebase.stem}, mode {args.mode} ({args.config}){judged}, against Stockfish with"
        f" UCI_LimitStrength; time control {control} (repeating); {wall / 60:.1f} min wall time"
        f" for this invocation, {where}; games and report.md in {out}\n"
    )
    print(table(tallies))
    elo, share = TARGET
    target = tallies.get(f"sf{elo}")
    if target is not None:
        score = sum(target.results) / len(target.results)
        print(
            f"\ntarget: {args.mode} {args.casebase.stem} scores >= {share:.0%} against UCI_Elo"
            f" {elo}: {'met' if score >= share else 'not met'} ({100 * score:.1f} %)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
