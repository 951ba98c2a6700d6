"""Another judge: how far the calibrated engine's loss moves when it plays with a judge of another
version than the one its profile was judged by (issue #42, docs/strength.md §3, "Another judge").

    python -m experiments.judges kosteniuk-2200 --judge /usr/games/stockfish --other PATH \
        [PATH ...] \
        [--positions 200] [--out bench/out/judges]

The shipped casebase's calibration (the sensitivity, prior weight and consistency the engine plays,
set with its profile's judge) is kept. On the first ``--positions`` positions of its play-time
record the engine assesses each position as the record does (:func:`profiling.play.record_play`,
judge depth 10, the position's game held out), once with each judge given (``--judge`` itself, then
each ``--other``) as its own judge, and the moves it chooses among are scored as the profile scores
moves, by the profile's judge (``--judge``) at the profile's depth. So only the play-time judge
changes, and every loss is on the profile's scale. Each judge's journal is kept in ``--out``, so a
stopped run goes on where it stopped. The rows: the player's own moves, the shipped record's choice,
and the choice with each judge; the gaps are against the shipped record.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from common.cli import positive_int
from common.paths import PROJECT_ROOT as ROOT
from engine.outside.launch import launch
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.strength.profile import PlayRecord
from experiments.play import COLUMNS, calibration_of, cells, measured, own, shipped
from profiling.journal import Journal
from profiling.play import PlaySettings, play_arrays, record_play
from profiling.workers import add_where_arguments, where_of


def judge_name(command: str) -> str:
    """The ``id name`` the engine at ``command`` reports."""
    engine = launch([command])
    try:
        return str(engine.id.get("name", Path(command).name))
    finally:
        engine.quit()


def picked(play: PlayRecord, index: slice | np.ndarray) -> PlayRecord:
    """The record's positions ``index`` (a slice, or an array of positions: a resample)."""
    return replace(
        play, **{f.name: getattr(play, f.name)[index] for f in fields(play) if f.name != "meta"}
    )


def first_of(play: PlayRecord, count: int) -> PlayRecord:
    """The record's first ``count`` positions."""
    return picked(play, slice(count))


def rows(expert: str, args: argparse.Namespace) -> dict[str, np.ndarray]:
    """The player's moves, the shipped record's choice and each judge's, on the record's first
    positions."""
    casebase, profile = shipped(expert)
    assert profile.play is not None
    count = min(args.positions, len(profile.play.moves))
    model = calibration_of(casebase).model
    first = profile.first(count)
    found = {
        "the player (own moves)": own(first),
        f"shipped record ({profile.meta.get('judge')})": measured(
            model, first_of(profile.play, count)
        ),
    }
    settings = PlaySettings(positions=count)
    for command in [args.judge, *args.other]:
        # in the header: a journal of another engine's choices is refused
        name = judge_name(command)
        journal = Journal(
            args.out / f"{expert}.{Path(command).name}.play.jsonl",
            {**settings.header(casebase, profile), "played_with": name},
        )
        entries = record_play(
            casebase, profile, settings, command, journal, referee=args.judge, where=where_of(args)
        )
        play = PlayRecord.of(play_arrays(entries), first.scores[:, 0], first.own_loss, {})
        found[f"played with {name}"] = measured(model, play)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.judges",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "experts", nargs="+", help="expert ids with casebases/ID.npz and its play-time record"
    )
    parser.add_argument(
        "--judge", default=DEBIAN_STOCKFISH, help="the profile's judge (it scores every loss)"
    )
    parser.add_argument(
        "--other", nargs="+", default=[], help="judges of other versions to play with"
    )
    parser.add_argument(
        "--positions", type=positive_int, default=200, help="the play-time record's first positions"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "out" / "judges",
        help="where the journals are kept",
    )
    add_where_arguments(parser)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        "| expert | who | positions | "
        + " | ".join(COLUMNS)
        + " |\n|---|---|---:|"
        + "---:|" * len(COLUMNS)
    )
    for expert in args.experts:
        found = rows(expert, args)
        for who, measures in found.items():
            print(
                f"| {expert} | {who} | {len(measures)} | " + " | ".join(cells(measures)) + " |",
                flush=True,
            )
        reference = list(found.values())[1]  # the shipped record's choice
        for who, measures in list(found.items())[2:]:
            gap = 100 * (measures[:, 0].mean() / reference[:, 0].mean() - 1)
            cp = 100 * (measures[:, 1].mean() / reference[:, 1].mean() - 1)
            print(
                f"\n{expert}, {who}: expected loss {gap:+.1f} % (expected score), {cp:+.1f} %"
                " (cp) against the shipped record"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
