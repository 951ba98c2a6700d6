"""``cbr-chess new PGN --player NAME``: the player's engine in one command, with its report
(docs/usage.md, "A new player's engine"). Stop it at any moment and run it again: it goes on.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from casebase.format import CasebaseError
from casebase.games import BuildError
from casebase.speed import SPEEDS
from common.cli import positive_int
from engine.outside.clock import TimeControl
from engine.outside.launch import LaunchError
from engine.outside.stockfish import DEBIAN_STOCKFISH, installed_stockfish
from engine.style.model import ModelError
from player import PlayerError
from player.run import new
from player.stages import Folder, Options, slug_of
from profiling import ProfileError
from profiling.cache import default_folder, judge_name
from tournament.runner import GamesFailed

#: Where a judge is looked for when none is given (Debian's stockfish package).
DEFAULT_JUDGE = DEBIAN_STOCKFISH
SPEED_CHOICES = (*SPEEDS, "all")


def _parser() -> argparse.ArgumentParser:
    defaults = Options(Path(), "", "", Path())
    parser = argparse.ArgumentParser(
        prog="cbr-chess new",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "pgn", type=Path, metavar="PGN", help="the player's games (any PGN holding them)"
    )
    parser.add_argument(
        "--player",
        required=True,
        metavar="NAME",
        help="the player's name, however the PGN spells it (the casebase builder's matching)",
    )
    parser.add_argument(
        "--judge",
        metavar="PATH",
        help=f"the judging UCI engine (default: stockfish on the PATH, else {DEFAULT_JUDGE})",
    )
    parser.add_argument(
        "--speed",
        choices=SPEED_CHOICES,
        default="all",
        help="only the games of this speed (default all)",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="the player's folder (default players/SLUG/)"
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="judge, play the calibration match and record its games on the Ray cluster at ADDRESS"
        " (the judge must be on every node)",
    )
    parser.add_argument(
        "--holdout",
        type=float,
        default=defaults.holdout,
        metavar="F",
        help="the share of the player's latest games held out for the report (default"
        f" {defaults.holdout})",
    )
    parser.add_argument(
        "--positions",
        type=positive_int,
        default=defaults.positions,
        metavar="N",
        help="the most of the player's positions judged for the profile (default"
        f" {defaults.positions})",
    )
    parser.add_argument(
        "--stop-within",
        type=percent,
        default=100 * defaults.stop_within,
        metavar="PCT",
        help="stop judging the profile once the stated rating interval is at most PCT %% wider than"
        " all --positions would make it; 0: judge them all (default"
        f" {100 * defaults.stop_within:g})",
    )
    parser.add_argument(
        "--heldout-positions",
        type=positive_int,
        default=defaults.heldout_positions,
        metavar="N",
        help="the held-out games' positions judged for the report (default"
        f" {defaults.heldout_positions})",
    )
    parser.add_argument(
        "--play-positions",
        type=positive_int,
        default=defaults.play_positions,
        metavar="N",
        help="the profile's positions the engine plays for its calibration (default"
        f" {defaults.play_positions})",
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        default=defaults.games,
        metavar="N",
        help=f"the calibration match's games, colours alternating: an odd N plays N - 1, at least 2"
        f" (default {defaults.games})",
    )
    parser.add_argument(
        "--tc", default=defaults.tc, help=f"the match's time control (default {defaults.tc})"
    )
    parser.add_argument(
        "--record-positions",
        type=positive_int,
        default=defaults.record_positions,
        metavar="N",
        help=f"the match's positions of the engine judged and played for its games record"
        f" (default {defaults.record_positions})",
    )
    parser.add_argument(
        "--opponent",
        type=Path,
        metavar="X.npz",
        help="the match's opponent (default: the shipped expert nearest the player's implied"
        " rating)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="local worker processes for the casebase, the judging (a judge each) and the match"
        " (default: all cores)",
    )
    parser.add_argument(
        "--cache",
        type=cache_folder,
        default=default_folder(),
        metavar="DIR",
        help="the positions judged by every run, by judge, depth and MultiPV, taken from there"
        f" rather than judged again; 'none': no cache (default {default_folder()})",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    return parser


def percent(text: str) -> float:
    """A percentage of 0 or more (``--stop-within``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value < 1000:  # NaN too
        raise argparse.ArgumentTypeError(f"a percentage from 0 on, not {text}")
    return value


def cache_folder(text: str) -> Path | None:
    """``--cache``'s folder; None for ``none`` (no cache)."""
    return None if text == "none" else Path(text)


def _judge(given: str | None) -> str:
    """The judge's command, once it answered as a UCI engine: a wrong one is said now, not after the
    casebase and the personal model (minutes for a player of thousands of games)."""
    judge = given if given and given != "auto" else installed_stockfish() or DEFAULT_JUDGE
    if shutil.which(judge) is None:
        raise PlayerError(
            f"no judge at {judge}: give a UCI engine with --judge PATH (apt-get install stockfish)"
        )
    try:
        judge_name(judge)
    except LaunchError as exc:
        raise PlayerError(f"--judge {judge}: {exc}") from None
    return str(Path(judge).resolve()) if Path(judge).exists() else judge


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; 0 with the report written, 1 with a message on bad input or a failure
    (what was finished is kept), 130 when interrupted."""
    args = _parser().parse_args(argv)
    try:
        if not 0 < args.holdout < 1:
            raise PlayerError(f"--holdout takes a share between 0 and 1, not {args.holdout}")
        slug = slug_of(args.player)
        options = Options(
            pgn=args.pgn,
            player=args.player,
            judge=_judge(args.judge),
            out=args.out or Path("players") / slug,
            speed=args.speed,
            cluster=args.cluster,
            holdout=args.holdout,
            positions=args.positions,
            stop_within=args.stop_within / 100,
            heldout_positions=args.heldout_positions,
            play_positions=args.play_positions,
            games=args.games,
            tc=args.tc,
            record_positions=args.record_positions,
            opponent=args.opponent,
            workers=args.workers,
            cache=args.cache,
        )
        if not args.pgn.is_file():
            raise PlayerError(f"{args.pgn}: no such file")
        TimeControl.parse(args.tc)  # said now, not after the hours of judging before the match
        if args.opponent is not None and not args.opponent.is_file():
            raise PlayerError(f"--opponent {args.opponent}: no such casebase")
        report = new(options, Folder(options.out, slug), progress=not args.quiet)
    except (
        PlayerError,
        BuildError,
        CasebaseError,
        ProfileError,
        ModelError,
        LaunchError,
        GamesFailed,
        ValueError,
        OSError,
    ) as exc:
        print(f"cbr-chess new: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "cbr-chess new: interrupted; what was finished is kept: run the same command to go on",
            file=sys.stderr,
        )
        return 130
    print(report.read_text(encoding="utf-8"), file=sys.stderr)
    print(
        f"cbr-chess new: the report is {report}; play the engine with: cbr-chess --casebase"
        f" {options.out / (slug + '.npz')} --judge {options.judge}",
        file=sys.stderr,
    )
    return 0
