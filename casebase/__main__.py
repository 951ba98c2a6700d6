"""Command line: ``python -m casebase build|holdout|info|book|split|embed`` (``--help`` on each; the
error profile is ``python -m profiling``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from casebase.book import DEFAULT_MAX_PLY, write_book
from casebase.builder import build
from casebase.embeddings import (
    check_network,
    embeddings_path,
    make_embeddings,
    make_missing_embeddings,
)
from casebase.format import Casebase, CasebaseError
from casebase.games import BuildError, GameFilter
from casebase.holdout import held_out_games, write_pgn
from casebase.info import describe, summary
from casebase.speed import SPEEDS, UNKNOWN
from common.cli import positive_int
from common.paths import casebase_path


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pgn", nargs="+", help="PGN input files (.pgn or .pgn.gz)")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--player", metavar="NAME", help="the expert's name, e.g. 'Magnus Carlsen'")
    who.add_argument(
        "--all-players",
        action="store_true",
        help="every move of every game, both colours (a general 'masters' casebase)",
    )
    parser.add_argument(
        "--exact-name",
        action="store_true",
        help="match the name literally instead of by surname and initials",
    )
    parser.add_argument(
        "--min-elo",
        type=int,
        metavar="ELO",
        help="only games where the expert's own rating is at least ELO",
    )
    parser.add_argument(
        "--max-elo",
        type=int,
        metavar="ELO",
        help="only games where the expert's own rating is at most ELO",
    )
    parser.add_argument(
        "--speed",
        choices=(*SPEEDS, UNKNOWN),
        help="only games of this speed class (from the TimeControl tag, else the event's name)",
    )
    parser.add_argument(
        "--workers", type=positive_int, metavar="N", help="worker processes (default: all cores)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


def _selection(args: argparse.Namespace, **extra: object) -> GameFilter:
    return GameFilter(
        player=args.player or "",
        exact_name=args.exact_name,
        all_players=args.all_players,
        min_elo=args.min_elo,
        max_elo=args.max_elo,
        speed=args.speed,
        **extra,  # type: ignore[arg-type]
    )


def _build(args: argparse.Namespace) -> None:
    args.output = casebase_path(args.output)  # a bare name goes to the casebase folder
    selection = _selection(args, max_games=args.max_games, exclude_latest=args.exclude_latest)
    if args.embed is not None:
        check_network(args.embed)
    casebase = build(
        args.pgn, selection, workers=args.workers, progress=False if args.quiet else None
    )
    casebase.save(args.output)
    if not args.quiet:
        print(f"{summary(casebase)} Written to {args.output}.")
    if args.embed is not None:
        _write_embeddings(args.output, args.embed, args.workers, args.quiet)


def _holdout(args: argparse.Namespace) -> None:
    selection = _selection(args, exclude_latest=args.latest)
    games = held_out_games(
        args.pgn,
        selection,
        workers=args.workers,
        progress=False if args.quiet else None,
        kept=args.kept,
    )
    write_pgn(args.output, games)
    if not args.quiet:
        print(
            f"{len(games)} {'kept' if args.kept else 'held-out'} games of {selection.expert}"
            f" written to {args.output}."
        )


def _info(args: argparse.Namespace) -> None:
    casebase = Casebase.load(casebase_path(args.casebase))
    print(describe(casebase))
    if casebase.profile_problem is not None:  # the cases are sound, the file is not
        raise CasebaseError(f"{casebase.path}: error profile refused: {casebase.profile_problem}")


def _split(args: argparse.Namespace) -> None:
    casebase = Casebase.load(casebase_path(args.casebase), tell=False)
    if casebase.profile_problem is not None:
        raise CasebaseError(
            f"{casebase.path}: error profile refused: {casebase.profile_problem}; the file is"
            " left as it is"
        )
    if not casebase.profile_inside:
        raise CasebaseError(f"{casebase.path}: holds no error profile inside: nothing to split")
    # the model its play-time fit was made with
    fit = casebase.meta["profile"].get("play", {}).get("fit") or {}
    written = casebase.save_profile(fit.get("model"))
    print(f"{casebase.path}: the cases stay, the error profile is now in {written}.")


def _book(args: argparse.Namespace) -> None:
    casebase = Casebase.load(casebase_path(args.casebase))
    book, entries = write_book(
        args.output,
        casebase,
        min_games=args.min_games,
        max_ply=args.max_ply,
        by_results=args.by_results,
    )
    print(
        f"{casebase.expert}: {entries} moves in {len(book.games)} positions from the first"
        f" {args.max_ply} half-moves of {book.read} games ({book.read - book.replayed} cut short"
        f" where their cases do not chain from the standard start); written to {args.output}."
    )


def _embed(args: argparse.Namespace) -> None:
    path = casebase_path(args.casebase)
    if not args.missing:
        _write_embeddings(path, args.network, args.workers, args.quiet)
        return
    there = embeddings_path(path).exists()
    written = make_missing_embeddings(
        path, args.network, workers=args.workers, progress=not args.quiet
    )
    if not args.quiet:
        print(
            f"{written} is there already: kept, nothing made."
            if there and written
            else f"the cases' embeddings by {args.network} written to {written}."
            if written
            else f"another process is making the cases' embeddings of {path}; nothing written."
        )


def _write_embeddings(path: str, network: str, workers: int | None, quiet: bool) -> None:
    written = make_embeddings(path, network, workers=workers, progress=not quiet)
    if not quiet:
        print(f"the cases' embeddings by {network} written to {written}.")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (1 with a message on stderr on bad input)."""
    parser = argparse.ArgumentParser(prog="python -m casebase", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    build_parser = commands.add_parser("build", help="build an expert's casebase from PGN")
    _add_selection(build_parser)
    build_parser.add_argument(
        "--max-games", type=positive_int, metavar="N", help="use only the first N games"
    )
    build_parser.add_argument(
        "--exclude-latest",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="leave out the latest FRACTION of the expert's games by date",
    )
    build_parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.npz",
        help="the casebase file; a bare NAME (no folder, no .npz) is NAME.npz in the casebase"
        " folder, where the engine finds it as --casebase NAME",
    )
    build_parser.add_argument(
        "--embed",
        metavar="NET.pb.gz",
        help="then embed each case by this lc0 network's trunk, as the embed command does"
        " (option Similarity learned and guided mode's precedents; minutes for a large"
        " casebase)",
    )
    build_parser.set_defaults(run=_build)

    holdout_parser = commands.add_parser(
        "holdout", help="write the games that build --exclude-latest leaves out"
    )
    _add_selection(holdout_parser)
    holdout_parser.add_argument(
        "--latest",
        type=float,
        required=True,
        metavar="FRACTION",
        help="the latest FRACTION of the expert's games by date",
    )
    holdout_parser.add_argument(
        "--kept",
        action="store_true",
        help="write the games build --exclude-latest keeps instead (e.g. to fit on them alone)",
    )
    holdout_parser.add_argument("-o", "--output", required=True, metavar="HELDOUT.pgn")
    holdout_parser.set_defaults(run=_holdout)

    info_parser = commands.add_parser("info", help="describe a casebase file")
    info_parser.add_argument("casebase", metavar="FILE.npz")
    info_parser.set_defaults(run=_info)

    split_parser = commands.add_parser(
        "split",
        help="move the error profile a casebase holds inside (made before it had its own file) to"
        " FILE.profile.npz beside it",
    )
    split_parser.add_argument("casebase", metavar="FILE.npz")
    split_parser.set_defaults(run=_split)

    book_parser = commands.add_parser(
        "book",
        help="the expert's repertoire as a Polyglot opening book (.bin), for GUIs",
        description="Every move the expert played early in a game, weighted by the games that"
        " played it.",
    )
    book_parser.add_argument("casebase", metavar="FILE.npz")
    book_parser.add_argument("-o", "--output", required=True, metavar="BOOK.bin")
    book_parser.add_argument(
        "--min-games",
        type=positive_int,
        default=1,
        metavar="N",
        help="leave out moves played in fewer than N games (default 1)",
    )
    book_parser.add_argument(
        "--max-ply",
        type=positive_int,
        default=DEFAULT_MAX_PLY,
        metavar="N",
        help=f"only the first N half-moves of each game (default {DEFAULT_MAX_PLY})",
    )
    book_parser.add_argument(
        "--by-results",
        action="store_true",
        help="weigh a move by the expert's points with it (2 a win, 1 a draw, 0 a loss)",
    )
    book_parser.set_defaults(run=_book)

    embed_parser = commands.add_parser(
        "embed",
        help="each case's embedding by an lc0 network's trunk into FILE.embed.npz beside it (option"
        " Similarity learned)",
    )
    embed_parser.add_argument("casebase", metavar="FILE.npz")
    embed_parser.add_argument(
        "--network",
        required=True,
        metavar="NET.pb.gz",
        help="the lc0 network whose trunk embeds (the engine's default network:"
        " engine/style/models/master.pb.gz)",
    )
    embed_parser.add_argument(
        "--workers", type=positive_int, metavar="N", help="worker processes (default: all cores)"
    )
    embed_parser.add_argument("--quiet", action="store_true", help="no progress bar")
    embed_parser.add_argument(
        "--missing",
        action="store_true",
        help="only where FILE.embed.npz is not there yet, nor being made by another process"
        " (what the engine runs on the learned similarity's first use)",
    )
    embed_parser.set_defaults(run=_embed)

    args = parser.parse_args(argv)
    try:
        args.run(args)
    except (BuildError, CasebaseError) as exc:
        print(f"casebase: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("casebase: interrupted; nothing written", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
