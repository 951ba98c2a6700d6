"""Judge the expert's own moves with a UCI engine, fit the error model, store it beside the
casebase.

A seeded sample of the expert's positions (from move 9) is judged by the engine: its best moves and
the expert's, at a fixed depth. Each finished position is kept in a journal, so a stopped or failed
run goes on where it stopped when run again. The fitted error model and the rating it implies are
stored beside the casebase, in FILE.profile.npz for FILE.npz (``python -m casebase info`` shows
them), with their provenance (the casebase's SHA-256, the judge, the project's version, the date).
docs/strength.md §1. With --play, the engine's own choices on the first of those positions are
recorded beside them for the play-time calibration (§3); with --engine-games, its choices in
positions of its own games too (a round robin's PGN: profiling.games).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from casebase.format import Casebase, CasebaseError
from casebase.info import describe_profile
from common.cli import positive_int
from common.paths import casebase_path
from engine.strength.calibration import PLAY_JUDGE_DEPTH
from engine.strength.likelihood import CALIBRATION_POSITIONS
from engine.strength.profile import Profile
from profiling import ProfileError, command_status
from profiling.games import add_games
from profiling.judging import POSITIONS, Settings, add_judge_arguments
from profiling.pipeline import add_play, make_profile
from profiling.play import PlaySettings
from profiling.workers import add_where_arguments, where_of


def _not_kept(path: str, record: str, give: str) -> None:
    """Say that the profile made again dropped its ``record`` (strength.md §3), and what to
    ``give`` to store it again."""
    print(
        f"profiling: {path}: the {record} it had is not kept (strength.md §3): give {give} to"
        " store it again",
        file=sys.stderr,
    )


def _profile(args: argparse.Namespace) -> None:
    if args.engine_games and (args.engine_games_journal is None or args.engine_games_play is None):
        raise ProfileError(
            "--engine-games needs --engine-games-journal and --engine-games-play (the journals of"
            " the judged positions and of the engine's choices)"
        )
    path = casebase_path(args.casebase)
    casebase = Casebase.load(path)
    # never stored over: the user should see it
    if casebase.profile_problem is not None and not casebase.profile_stale:
        raise ProfileError(
            f"{path}: error profile refused: {casebase.profile_problem}; the file is left as it is"
            " (move it away, or build the casebase again with python -m casebase build, then"
            " profile it)"
        )
    settings = Settings(
        positions=args.positions, depth=args.depth, multipv=args.multipv, seed=args.seed
    )
    existing = Profile.of(casebase)
    if not (args.report and existing is not None and args.judge is None and args.journal is None):
        make_profile(
            casebase,
            settings,
            args.judge,
            args.journal,
            progress=not args.quiet,
            where=where_of(args),
        )
        casebase = Casebase.load(path)
        if args.play is not None:
            add_play(
                casebase,
                PlaySettings(args.play_positions, args.judge_depth),
                args.judge,
                args.play,
                progress=not args.quiet,
                where=where_of(args),
            )
            casebase = Casebase.load(path)
        # a profile made again drops it: say so
        elif existing is not None and existing.play is not None:
            _not_kept(path, "play-time record", "--play with its journal")
        if args.engine_games:
            add_games(
                casebase,
                args.engine_games,
                args.engine_games_player or Path(path).stem,
                PlaySettings(args.engine_games_positions, args.judge_depth),
                args.judge,
                args.engine_games_journal,
                args.engine_games_play,
                progress=not args.quiet,
                where=where_of(args),
            )
            casebase = Casebase.load(path)
        elif existing is not None and existing.games is not None:
            _not_kept(path, "games record", "--engine-games with its journals")
        if not args.quiet:
            print(
                f"{casebase.expert}: error profile {describe_profile(casebase)}; written to {path}."
            )
    if args.report:
        from profiling.report import draw_report

        draw_report(casebase, args.report)
        if not args.quiet:
            print(f"report written to {args.report}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (1 with a message on stderr on bad input,
    130 when interrupted: the judged positions are kept in the journal)."""
    parser = argparse.ArgumentParser(
        prog="python -m profiling",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "casebase",
        metavar="FILE.npz",
        help="the casebase; a bare NAME is NAME.npz in the casebase folder",
    )
    add_judge_arguments(parser)
    add_where_arguments(parser)
    parser.add_argument(
        "--positions",
        type=positive_int,
        default=POSITIONS,
        metavar="N",
        help=f"positions to judge (default {POSITIONS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="which positions are drawn (default 0)")
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="FILE.jsonl",
        help="where the judged positions are kept (default FILE.profile.jsonl beside the"
        " casebase, removed once the profile is stored; a named one is kept)",
    )
    parser.add_argument(
        "--play",
        type=Path,
        metavar="FILE.jsonl",
        help="also record the engine's own choices on the profile's first positions, as it plays"
        " them with the judge, for the play-time calibration (docs/strength.md §3), kept in"
        " this journal",
    )
    parser.add_argument(
        "--play-positions",
        type=positive_int,
        default=CALIBRATION_POSITIONS,
        metavar="N",
        help=f"the profile's positions played with --play (default {CALIBRATION_POSITIONS})",
    )
    parser.add_argument(
        "--judge-depth",
        type=positive_int,
        default=PLAY_JUDGE_DEPTH,
        metavar="D",
        help="the engine's judge's depth with --play and --engine-games (default"
        f" {PLAY_JUDGE_DEPTH})",
    )
    parser.add_argument(
        "--engine-games",
        nargs="+",
        type=Path,
        metavar="GAMES.pgn",
        help="also record the engine's own choices in positions of its own games (a round robin's"
        " PGN), for the play-time calibration (docs/strength.md §3)",
    )
    parser.add_argument(
        "--engine-games-player",
        metavar="NAME",
        help="the engine's name in those games (default: the casebase's file name without .npz,"
        " as a round robin names it)",
    )
    parser.add_argument(
        "--engine-games-positions",
        type=positive_int,
        default=CALIBRATION_POSITIONS,
        metavar="N",
        help="the games' positions judged and played with --engine-games (default"
        f" {CALIBRATION_POSITIONS})",
    )
    parser.add_argument(
        "--engine-games-journal",
        type=Path,
        metavar="FILE.jsonl",
        help="with --engine-games: where the games' judged positions are kept",
    )
    parser.add_argument(
        "--engine-games-play",
        type=Path,
        metavar="FILE.jsonl",
        help="with --engine-games: where the engine's choices in them are kept",
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="OUT.png",
        help="draw the profile beside the other casebases' of its folder (needs matplotlib:"
        " pip install 'cbr-chess[plots]')",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    args = parser.parse_args(argv)
    return command_status("profiling", lambda: _profile(args), (CasebaseError, ProfileError))


if __name__ == "__main__":
    sys.exit(main())
