"""What the judging buys (issue #62): the shipped experts' stored journals refitted with less
judging, nothing judged again.

    python -m experiments.judging lines [IDS ...] [--lines 1 2 3 5]
    python -m experiments.judging records [IDS ...] [--sizes 100 200] [--resamples 100]
    python -m experiments.judging positions [IDS ...] [--sizes 100 200 400 800] [--stop-within PCT]

Each reads the shipped experts' casebases and profiles (``casebases/ID.npz``, made by ``make
casebases`` from the journals in ``data/profiles/``; ``--casebases DIR`` another folder) and their
journals, and refits as the project fits (:func:`profiling.pipeline.profile_of`: Regan's model, the
implied rating and its bootstrap; :func:`engine.strength.calibration.set_on`: the sensitivity the
engine plays), against what the shipped profile holds. IDS default to every shipped expert with a
profile.

- ``lines``: every judged position cut to what the judge writes with MultiPV K (:func:`truncated`):
  the K best of the ten, and the expert's move scored alone where it is not among them (its
  MultiPV-10 score standing in for that search; the share of such positions shown). Per expert: the
  fit, the implied rating against its bootstrap, the rating on the line refitted at K lines, and the
  loss a move the games record's targets ask (the expert's fitted model on the games' positions,
  their lines cut alike).
- ``records``: the calibration the engine plays (:func:`experiments.play.calibration_of`) with each
  record left out or cut to its first N positions: its expected loss a move in the engine's games
  and in the expert's, beside the spread of N random positions and the whole record's bootstrap; and
  how far a UCI_Elo setting moves (strength.md §4), and where the profile fit's loss takes the
  play-time record's place.
- ``positions``: the profile refitted on its first N judged positions, and with ``--stop-within
  PCT`` where ``cbr-chess new``'s judging stops on the journal: the fit, the implied rating and its
  intervals (the bootstrap's, widened, and with the headers' prior, :func:`player.rating.estimate`),
  the games' targets.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from common.cli import positive_int
from common.paths import PROJECT_ROOT as ROOT
from engine.strength.likelihood import CALIBRATION_POSITIONS
from engine.strength.profile import Profile
from experiments.judged_experts import (
    Expert,
    change,
    experts,
    line_of,
    numbers,
    on_line,
    played_line,
    range_of,
    stored_games_agree,
    truncated,
)
from experiments.judging_records import records_table
from player.rating import estimate, positions_needed
from player.stages import first_round, judged_in_rounds
from profiling.fitted import rating_systems
from profiling.judging import MULTIPV


def lines_table(chosen: list[Expert], counts: list[int]) -> None:
    systems = rating_systems(ROOT / "data" / "experts.tsv")
    full = {e.id: {**numbers(e.profile), "rating": float(e.casebase.elo or 0)} for e in chosen}
    full_line, full_spread = line_of(full, systems, MULTIPV)
    games_full = {e.id: e.games_loss(e.profile) for e in chosen}
    stored_games_agree(chosen, games_full)
    print(
        f"All ten lines (the shipped profiles): rating line {full_line}, spread"
        f" {full_spread:.0f} Elo\n"
    )
    print(
        "| expert | lines | played move scored alone: at 10 lines % | a search more at these lines"
        " % | s | c | implied rating | its change | bootstrap 95 % half width | on the line"
        " refitted at these lines (change) | engine's loss in its games (targets' mean) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    summary = []
    for k in counts:
        fits, rows = {}, []
        for e in chosen:
            played = [played_line(entry, e.multipv) for _, entry in e.judged]
            outside = sum(line is None for line in played) / len(played)
            new = sum(line is not None and line >= k for line in played) / len(played)
            profile = e.refit([(row, truncated(entry, k, e.multipv)) for row, entry in e.judged])
            fits[e.id] = {**numbers(profile), "rating": float(e.casebase.elo or 0)}
            games = e.games_loss(profile, k)
            rows.append((e, outside, new, fits[e.id], games))
        line, spread = line_of(fits, systems, k)
        for e, outside, new, f, games in rows:
            old = full[e.id]
            moved = on_line(line, f["loss"]) - on_line(full_line, old["loss"])
            games_cell = (
                ""
                if games is None
                else f"{100 * games:.2f} % ({change(games, games_full[e.id] or 1)})"
            )
            print(
                f"| {e.id} | {k} | {100 * outside:.1f} | {100 * new:.1f} | {f['s']:.3g}"
                f" ({change(f['s'], old['s'])}) | {f['c']:.2f} ({change(f['c'], old['c'])}) |"
                f" {f['implied']:.0f} | {f['implied'] - old['implied']:+.0f} | {old['boot']:.0f} |"
                f" {on_line(line, f['loss']):.0f} ({moved:+.0f}) | {games_cell} |",
                flush=True,
            )
        deltas = np.array([f["implied"] - full[i]["implied"] for i, f in fits.items()])
        ratio = np.array(
            [abs(f["implied"] - full[i]["implied"]) / full[i]["boot"] for i, f in fits.items()]
        )
        refitted = np.array(
            [
                on_line(line, f["loss"]) - on_line(full_line, full[i]["loss"])
                for i, f in fits.items()
            ]
        )
        games_changes = [
            100 * (g / (games_full[e.id] or 1) - 1) for e, *_, g in rows if g is not None
        ]
        summary.append(
            f"| {k} | {deltas.mean():+.0f} (sd {deltas.std(ddof=1):.0f}) | {ratio.max():.2f}"
            f" | {line[0]:.0f} + {line[1]:.0f} ln | {spread:.0f} |"
            f" {np.sqrt((refitted**2).mean()):.0f} |"
            f" {np.median([100 * (f['s'] / full[i]['s'] - 1) for i, f in fits.items()]):+.0f} % |"
            f" {np.median([100 * (f['c'] / full[i]['c'] - 1) for i, f in fits.items()]):+.0f} % |"
            f" {range_of(games_changes)} |"
        )
    print(
        "\n| lines | implied rating's change, mean (sd) | largest change / bootstrap half width |"
        f" rating line (10 lines: {full_line[0]:.0f} + {full_line[1]:.0f} ln) | its spread (10:"
        f" {full_spread:.0f}) | rms change on the refitted line | s's change, median | c's change,"
        " median | engine's loss in its games, mean (range) |"
    )
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    print("\n".join(summary))


def stopped_at(e: Expert, within: float) -> Profile:
    """The profile where ``cbr-chess new``'s judging stops on ``e``'s journal
    (player.stages.judged_in_rounds)."""
    return judged_in_rounds(
        lambda n: e.refit(e.judged[:n]),
        lambda p: positions_needed(e.casebase, p, len(e.judged), within),
        first_round(CALIBRATION_POSITIONS),
        len(e.judged),
        within,
    )[0]


def positions_table(chosen: list[Expert], sizes: list[int], within: float | None = None) -> None:
    print(
        "| expert | positions | s | c | implied rating (change) | bootstrap 95 % half width |"
        " widened | with the header prior | engine's loss in its games (targets' mean) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    pooled: dict[int | str, list[tuple[float, float, float, float]]] = {}
    for e in chosen:
        full = numbers(e.profile)
        games_full = e.games_loss(e.profile)
        fits: list[tuple[int | str, Profile]] = [(n, e.refit(e.judged[:n])) for n in sizes]
        if within is not None:
            fits.append((f"stop at {100 * within:g} %", stopped_at(e, within)))
        for label, profile in [*fits, (len(e.judged), e.profile)]:
            f = numbers(profile)
            prior = estimate(e.casebase, profile)
            games = e.games_loss(profile)
            games_cell = (
                "" if games is None else f"{100 * games:.2f} % ({change(games, games_full or 1)})"
            )
            pooled.setdefault(label, []).append(
                (
                    f["implied"] - full["implied"],
                    f["boot"],
                    (prior.high - prior.low) / 2,
                    abs(f["implied"] - full["implied"]) / full["boot"],
                )
            )
            print(
                f"| {e.id} | {len(profile.rows)} | {f['s']:.4f} ({change(f['s'], full['s'])}) |"
                f" {f['c']:.2f} ({change(f['c'], full['c'])}) | {f['implied']:.0f}"
                f" ({f['implied'] - full['implied']:+.0f}) | {f['boot']:.0f} | {f['wide']:.0f} |"
                f" {(prior.high - prior.low) / 2:.0f} | {games_cell} |",
                flush=True,
            )
    print(
        "\n| positions | implied rating's change, rms | bootstrap half width, mean | with the"
        " header prior, mean | largest change / the full profile's bootstrap half width |"
    )
    print("|---:|---:|---:|---:|---:|")
    for label, rows in pooled.items():
        a = np.array(rows)
        print(
            f"| {label} | {np.sqrt((a[:, 0] ** 2).mean()):.0f} | {a[:, 1].mean():.0f} |"
            f" {a[:, 2].mean():.0f} | {a[:, 3].max():.2f} |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.judging",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("lines", "records", "positions"):
        sub = commands.add_parser(name)
        sub.add_argument(
            "ids", nargs="*", metavar="ID", help="shipped experts (default: all with a profile)"
        )
        sub.add_argument("--casebases", type=Path, default=ROOT / "casebases", metavar="DIR")
        if name == "lines":
            sub.add_argument("--lines", type=positive_int, nargs="+", default=[1, 2, 3, 5])
        if name == "records":
            sub.add_argument("--sizes", type=positive_int, nargs="+", default=[100, 200])
            sub.add_argument(
                "--resamples", type=positive_int, default=100, help="random draws of each size"
            )
        if name == "positions":
            sub.add_argument("--sizes", type=positive_int, nargs="*", default=[100, 200, 400, 800])
            sub.add_argument(
                "--stop-within",
                type=float,
                metavar="PCT",
                help="also where cbr-chess new's judging stops with --stop-within PCT",
            )
    args = parser.parse_args(argv)
    chosen = experts(args.ids, args.casebases)
    if args.command == "lines":
        lines_table(chosen, args.lines)
    elif args.command == "records":
        records_table(chosen, args.sizes, args.resamples)
    else:
        positions_table(
            chosen, args.sizes, None if args.stop_within is None else args.stop_within / 100
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
