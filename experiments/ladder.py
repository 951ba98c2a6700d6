"""The ladder: each expert's calibrated engine against Stockfish at fixed UCI_Elo levels.

    python -m experiments.ladder [--casebases casebases/kosteniuk-2200.npz ...]
        [--elos 1800 2200 2600]
        [--games 10] [--tc 40/10] [--option Selection=calibrated] [--judge /usr/games/stockfish]
        [--workers 2 | --cluster ADDRESS] [--out bench/out/ladder]

Every casebase (default: the seven ladder experts of data/experts.tsv) plays Debian's Stockfish
15.1 limited to each ``UCI_Elo`` of ``--elos``, ``--games`` games a level (colours alternating),
in guided mode with ``--option``s (default ``Selection=calibrated``: the expert's calibrated choice,
strength.md) and the outside judge ``--judge``. The games are the tournament's own, one run per
casebase under ``--out`` (resumable: run again to go on). The engine's measured rating is fitted
to its games with the Stockfish levels fixed at their UCI_Elo (tournament/elo.py).

Prints per expert: its own rating (the median of its games'), the measured rating with its 95 %
interval, and the gap; then the Spearman correlation of measured and own ratings, the mean
absolute gap, and (``--plot``) measured against own rating as a PNG.
"""

from __future__ import annotations

import argparse
import csv
import shlex
import subprocess
import sys
from pathlib import Path

from casebase.format import Casebase
from common.figures import new_figure, save_png
from common.paths import PROJECT_ROOT as ROOT
from common.stats import spearman
from engine.outside.clock import TimeControl
from experiments.strength import STOCKFISH, match_command, tally
from tournament.elo import Estimate, fit_ratings


def ladder_casebases() -> list[Path]:
    """The shipped ladder experts' casebases, by rating (``make casebases``)."""
    with open(ROOT / "data" / "experts.tsv", newline="", encoding="utf-8") as f:
        return [
            ROOT / "casebases" / f"{row['file']}.npz"
            for row in csv.DictReader(f, delimiter="\t")
            if row["ladder"] == "yes"
        ]


def measured(results: dict[int, list[float]]) -> Estimate:
    """The rating of a player with ``results`` (scores) against opponents of known ratings."""
    levels = sorted(results)
    games = [(0, 1 + k, s) for k, level in enumerate(levels) for s in results[level]]
    return fit_ratings(
        1 + len(levels), games, fixed={1 + k: float(level) for k, level in enumerate(levels)}
    )[0]


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.ladder", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--casebases", type=Path, nargs="+", default=None)
    parser.add_argument("--elos", type=int, nargs="+", default=[1800, 2200, 2600])
    parser.add_argument(
        "--games", type=int, default=10, help="games per level, rounded up to even (default 10)"
    )
    parser.add_argument(
        "--tc", default="40/10", help="time control (default 40/10: 40 moves in 10 s, repeating)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=None,
        metavar="NAME=VALUE",
        help="our engine's options (default Selection=calibrated)",
    )
    parser.add_argument(
        "--judge", default=str(STOCKFISH), metavar="PATH", help="option Judge ('' for none)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", metavar="ADDRESS")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stockfish", type=Path, default=STOCKFISH)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "ladder")
    parser.add_argument("--plot", type=Path, metavar="OUT.png", help="measured against own rating")
    args = parser.parse_args()
    if not args.stockfish.exists():
        print(
            f"{args.stockfish} not found: apt-get install stockfish; nothing measured",
            file=sys.stderr,
        )
        return 0
    options = args.option if args.option is not None else ["Selection=calibrated"]
    casebases = args.casebases or ladder_casebases()
    control = TimeControl.parse(args.tc)
    rounds = (args.games + 1) // 2
    rows = []
    for path in casebases:
        out = args.out / path.stem
        command = match_command(
            args, path, "guided", "balanced", rounds, control, options, "Ladder", out
        )
        print("$ " + shlex.join(command), file=sys.stderr)
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            print(
                f"{path.stem}: the tournament failed (exit {done.returncode}); its finished games"
                f" are kept in {out}",
                file=sys.stderr,
            )
            return done.returncode
        tallies = tally(out, path.stem)
        results = {int(name.removeprefix("sf")): t.results for name, t in tallies.items()}
        rows.append((Casebase.load(path), measured(results), results))
    print(
        f"\nguided mode, {' '.join(options)}, judge {args.judge or 'none'}, against Stockfish 15.1"
        f" UCI_Elo {', '.join(map(str, args.elos))}; {control}; games in {args.out}\n"
    )
    print(
        "| expert | own rating | "
        + " | ".join(f"vs {e}" for e in args.elos)
        + " | measured (95 %) | gap |"
    )
    print("|---|---:|" + "---:|" * len(args.elos) + "---|---:|")
    for casebase, estimate, results in rows:
        cells = " | ".join(
            f"{sum(results.get(e, [])):g}/{len(results.get(e, []))}" for e in args.elos
        )
        print(
            f"| {casebase.expert} | {casebase.elo} | {cells} | {estimate.rating:.0f}"
            f" ({estimate.low:.0f}..{estimate.high:.0f}) |"
            f" {estimate.rating - (casebase.elo or 0):+.0f} |"
        )
    own = [float(c.elo or 0) for c, _, _ in rows]
    found = [e.rating for _, e, _ in rows]
    if len(rows) > 1:
        rho = spearman(own, found)
        gap = sum(abs(a - b) for a, b in zip(own, found)) / len(rows)
        print(f"\nSpearman (measured, own) {rho:+.2f}; mean absolute gap {gap:.0f} Elo")
    if args.plot:
        figure, ax = new_figure(6, 5)
        ax.errorbar(
            own,
            found,
            yerr=[[e.rating - e.low for _, e, _ in rows], [e.high - e.rating for _, e, _ in rows]],
            fmt="o",
            capsize=3,
        )
        for casebase, estimate, _ in rows:
            ax.annotate(
                casebase.expert.split()[-1],
                (casebase.elo or 0, estimate.rating),
                fontsize=8,
                xytext=(4, 4),
                textcoords="offset points",
            )
        span = [min(own + found) - 100, max(own + found) + 100]
        ax.plot(span, span, color="0.6", lw=1, label="measured = own")
        ax.set_xlabel("the expert's own rating (median of the games)")
        ax.set_ylabel("calibrated engine's rating against Stockfish UCI_Elo")
        ax.legend()
        ax.grid(alpha=0.3)
        save_png(figure, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
