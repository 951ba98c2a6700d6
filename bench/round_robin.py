"""Speed of the pure-mode round robin: games per minute, by number of workers, side by side.

    python -m bench.round_robin [--rounds 3] [--configs thesis] [--workers 1 2]

Plays the thesis-sized experiment (7 shipped FIDE experts, 5 configurations, 3 rounds:
630 games) once per worker count and prints a table next to the thesis's own speed
(630 games in 20 minutes on 4 cores = 31.5 games/min). Needs the shipped casebases in
casebases/ (``make casebases``). Also checks that every worker count played the same games.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import chess.pgn

from common.paths import PROJECT_ROOT as ROOT
from engine.cbr.configurations import parse_configurations
from tournament.players import casebase_entrant
from tournament.runner import TournamentSettings, run

LADDER = [
    "kosteniuk-2200",
    "gaprindashvili-2300",
    "paehtz-2400",
    "miles-2500",
    "vanwely-2600",
    "ivanchuk-2700",
    "carlsen-2800",
]
THESIS_GAMES_PER_MINUTE = 630 / 20


def _moves(pgn: Path) -> tuple[list[str], int]:
    """Each game's moves (to compare runs) and the total number of plies."""
    games, plies = [], 0
    with open(pgn, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            moves = [m.uci() for m in game.mainline_moves()]
            games.append(" ".join(moves) + " " + game.headers["Result"])
            plies += len(moves)
    return games, plies


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.round_robin", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--casebases", type=Path, default=ROOT / "casebases")
    parser.add_argument("--configs", nargs="+", default=["thesis"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    paths = [args.casebases / f"{name}.npz" for name in LADDER]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(
            f"missing casebases ({', '.join(p.name for p in missing)}): run `make casebases`"
            f" first, or give --casebases DIR",
            file=sys.stderr,
        )
        return 2
    settings = TournamentSettings(
        entrants=tuple(casebase_entrant(p) for p in paths),
        configs=tuple(parse_configurations(args.configs)),
        rounds=args.rounds,
    )
    rows, reference = [], None
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            pgn = run(settings, out, workers=workers)
            seconds = time.perf_counter() - start
            games, plies = _moves(pgn)
        reference = reference or games
        rows.append((workers, len(games), plies, seconds, games == reference))
    print(
        "\n| workers | games | plies | seconds | games/min | plies/s | vs thesis (31.5 games/min,"
        " 4 cores) | same games |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for workers, count, plies, seconds, same in rows:
        rate = count / seconds * 60
        print(
            f"| {workers} | {count} | {plies} | {seconds:.1f} | {rate:.1f} | {plies / seconds:.0f}"
            f" | {rate / THESIS_GAMES_PER_MINUTE:.1f}x | {'yes' if same else 'NO'} |"
        )
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
