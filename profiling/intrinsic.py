"""The intrinsic rating of any games: one player's moves in a PGN (a human's, or an engine's in a
round robin's PGN) judged as the experts' error profiles are, read on the experts' rating line.

    python -m profiling.intrinsic GAMES.pgn --player NAME --judge /usr/games/stockfish

The player's moves from move 9 on are judged by the outside engine (its MultiPV best moves and
the player's own, at a fixed depth: profiling.judging), Regan's error model is fitted to them, and
its expected loss per move is read on the rating line of engine/strength/rating.py: the experts'
scale, not Stockfish's UCI_Elo or CCRL's. Every move is judged unless --positions says how many
(a seeded sample). A journal (--journal) keeps each judged position, so that a stopped run goes
on where it stopped. docs/strength.md, "The intrinsic rating of any games".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from casebase.builder import build, collect
from casebase.format import Casebase
from casebase.games import WITHOUT_EXPERT, BuildError, GameFilter
from common.cli import positive_int
from common.files import write_atomic
from engine.strength.profile import MISTAKE_CP, Profile
from engine.strength.rating import RATING_SPREAD
from profiling import ProfileError, command_status
from profiling.journal import JOURNAL, Journal
from profiling.judging import DEPTH, MULTIPV, Settings, add_judge_arguments, analyse, sample
from profiling.pipeline import profile_of
from profiling.workers import HERE, Where, add_where_arguments, where_of

#: How many of the names present a message lists when the player's name matches no game.
NAMES_LISTED = 10


@dataclass(frozen=True)
class Games:
    """The player's moves read from the PGN files, as a casebase of their cases (not stored)."""

    casebase: Casebase
    files: list[str]
    games: int  # the player's games read
    damaged: int  # of them, cut at a move that could not be read (the moves before it kept)
    both: int  # games where both sides' names match: passed over

    @property
    def player(self) -> str:
        return self.casebase.expert

    @property
    def spellings(self) -> list[str]:
        """The name as the games spell it, most games first."""
        return list(self.casebase.meta.get("spellings") or {})


def read_games(
    paths: Sequence[str | os.PathLike[str]],
    player: str,
    *,
    exact: bool = False,
    progress: bool | None = False,
) -> Games:
    """The games of ``player`` in ``paths``, read as the casebase builder reads an expert's
    (casebase.builder: the same name matching, damaged games kept up to the move that could not be
    read and counted). :class:`ProfileError` where the input is not PGN, or the name matches no
    game (the message lists the names that occur most)."""
    try:
        selection = GameFilter(player, exact_name=exact)
    except BuildError as exc:
        raise ProfileError(str(exc)) from None
    try:
        casebase = build(paths, selection, workers=1, progress=progress)
    except BuildError as exc:
        raise ProfileError(_no_game(paths, selection) or str(exc)) from None
    counts = casebase.meta["counts"]
    return Games(
        casebase,
        [str(path) for path in paths],
        casebase.num_games,
        int(counts.get("games_damaged", 0)),
        int(counts.get("games_both_match", 0)),
    )


def _no_game(paths: Sequence[str | os.PathLike[str]], selection: GameFilter) -> str | None:
    """Where no game has the player: what to say, with the names that occur most (the games'
    headers read again: where no name matches, no move is parsed)."""
    try:
        collection = collect(paths, selection, workers=1, progress=False)
    except BuildError:
        return None
    if collection.games or sum(collection.outcomes.values()) > collection.outcomes[WITHOUT_EXPERT]:
        return None
    common = ", ".join(f"{name} ({n})" for name, n in collection.names.most_common(NAMES_LISTED))
    exact = " (taken literally)" if selection.exact_name else ""
    return (
        f"no game of {', '.join(str(p) for p in paths)} has a player matching"
        f" {selection.player!r}{exact}; the names that occur most (games): {common or 'none'}"
    )


@dataclass(frozen=True)
class Intrinsic:
    """The intrinsic rating of the judged moves and the statistics beside it."""

    moves: int  # judged moves
    rating: float  # on the experts' line (engine/strength/rating.py)
    low: float  # the 95 % interval of the positions' bootstrap
    high: float
    wide_low: float  # the same, widened by the spread of rated players about the line
    wide_high: float
    expected_loss: float  # the fitted model's per move (expected score): what the rating reads
    mean_loss: float  # the played moves' mean loss (expected score)
    # their mean centipawn loss (each clipped at engine.strength.profile.CP_LOSS_CLIP)
    mean_cp_loss: float
    mistakes: float  # share of moves losing MISTAKE_CP or more
    first_choice: float  # share of moves that are the judge's first choice
    sensitivity: float
    consistency: float


def rated_summary(profile: Profile) -> dict[str, Any]:
    """The profile's summary with its bootstrap's interval: the stored one, else made now (a profile
    stored before the summary held ``bootstrap_low..high``)."""
    return profile.meta if "bootstrap_low" in profile.meta.get("rating", {}) else profile.summary()


def rate(profile: Profile) -> Intrinsic:
    """The intrinsic rating of a profile's judged moves: the profile's own summary
    (engine.strength.profile: the fit, the implied rating and the loss statistics, as the experts'
    stored profiles have them), and the bootstrap's interval alone beside the widened one."""
    summary = rated_summary(profile)
    rating, stats, fitted = summary["rating"], summary["all"], summary["fit"]
    played = profile.loss[np.arange(len(profile.rows)), profile.played.astype(np.int64)]
    return Intrinsic(
        moves=int(summary["positions"]),
        rating=float(rating["implied"]),
        low=float(rating["bootstrap_low"]),
        high=float(rating["bootstrap_high"]),
        wide_low=float(rating["low"]),
        wide_high=float(rating["high"]),
        expected_loss=float(fitted["expected_loss"]),
        mean_loss=float(played.mean()),
        mean_cp_loss=float(stats["mean_cp_loss"]),
        mistakes=float(stats["mistakes"]),
        first_choice=float(stats["first_choice"]),
        sensitivity=float(fitted["sensitivity"]),
        consistency=float(fitted["consistency"]),
    )


@dataclass(frozen=True)
class Report:
    """What the command prints and writes: the games read, how they were judged, the rating."""

    games: Games
    settings: Settings
    judge: str | None
    eligible: int  # the player's moves from move settings.first_move on
    skipped: int  # of those drawn, forced moves (or moves the stored position cannot show)
    result: Intrinsic
    # the judged moves, fitted: to read the fit elsewhere (experiments/intrinsic.py)
    profile: Profile

    def lines(self) -> list[str]:
        g, s, r = self.games, self.settings, self.result
        sampled = (
            "all"
            if s.positions >= self.eligible
            else f"a sample (seed {s.seed}) of the {self.eligible}"
        )
        lines = [
            f"{g.player}{'' if g.spellings == [g.player] else ' (' + '; '.join(g.spellings) + ')'}:"
            f" {g.games} games in {', '.join(Path(f).name for f in g.files)}"
            + (
                f" ({g.damaged} damaged: cut at the move that could not be read, the moves"
                " before it judged)"
                if g.damaged
                else " (none damaged)"
            )
            + (f"; {g.both} games where both names match passed over" if g.both else ""),
            f"judged moves: {r.moves} ({sampled} moves from move {s.first_move} on"
            + (f", {self.skipped} forced ones passed over" if self.skipped else "")
            + f"), judged by {self.judge} at depth {s.depth}, MultiPV {s.multipv}",
            f"intrinsic rating: {r.rating:.0f} on the experts' rating line"
            " (engine/strength/rating.py; not Stockfish's UCI_Elo or CCRL scale)",
            f"  95 % interval of the positions' bootstrap: {r.low:.0f}..{r.high:.0f}",
            f"  95 % interval widened by the line's spread of rated players ({RATING_SPREAD:.0f}"
            f" Elo): {r.wide_low:.0f}..{r.wide_high:.0f}",
            f"mean loss: {100 * r.mean_loss:.2f} % of the expected score, {r.mean_cp_loss:.1f} cp"
            f" (the fitted model expects {100 * r.expected_loss:.2f} % a move: s"
            f" {r.sensitivity:.4f}, c {r.consistency:.2f})",
            f"mistakes (moves losing {MISTAKE_CP} cp or more): {100 * r.mistakes:.1f} %",
            f"first choice (the judge's best move played): {100 * r.first_choice:.1f} %",
        ]
        return lines

    def as_json(self) -> dict[str, Any]:
        g, s = self.games, self.settings
        return {
            "player": g.player,
            "spellings": g.spellings,
            "files": g.files,
            "games": g.games,
            "games_damaged": g.damaged,
            "games_both_match": g.both,
            "judge": self.judge,
            "depth": s.depth,
            "multipv": s.multipv,
            "seed": s.seed,
            "first_move": s.first_move,
            "eligible_moves": self.eligible,
            "skipped": self.skipped,
            "mistake_cp": MISTAKE_CP,
            "rating_spread": RATING_SPREAD,
            **asdict(self.result),
        }


def default_journal(games: Games, settings: Settings) -> Path:
    """Where the judged positions are kept when no journal is named: in the temporary folder, named
    by the games' files, the player and the judging, so that the same command goes on where a
    stopped one stopped; removed once the rating is made (as a profile's default journal is)."""
    shas = " ".join(str(source.get("sha256")) for source in games.casebase.meta["sources"])
    files = hashlib.blake2b(shas.encode(), digest_size=8).hexdigest()
    name = "".join(c if c.isalnum() else "_" for c in games.player)[:40]
    return (
        Path(tempfile.gettempdir())
        / f"cbr-intrinsic-{files}-{name}-d{settings.depth}-m{settings.multipv}.jsonl"
    )


def judge_games(
    games: Games,
    settings: Settings,
    judge: str | None,
    journal_path: Path,
    *,
    progress: bool = True,
    where: Where = HERE,
    cache: Path | None = None,
) -> tuple[Profile, int]:
    """Judge the drawn moves (resuming the journal, on the workers or cluster of ``where``, with the
    judged positions' ``cache`` folder where one is named) and fit them: the profile of the judged
    moves, with its summary as ``meta``, and how many drawn moves were passed over (forced)."""
    journal = Journal(
        journal_path, {"journal": JOURNAL, "expert": games.player, **settings.header()}
    )
    judged = analyse(
        games.casebase, journal, settings, judge, progress=progress, where=where, cache=cache
    )
    if not judged:
        raise ProfileError(
            f"no position of {games.player} could be judged (every move drawn is forced)"
        )
    for row, entry in judged:  # a journal of these very games
        if entry["moves"][entry["played"]] != games.casebase.move(row).uci():
            raise ProfileError(
                f"{journal.path}: position {entry['key']} holds another move than the"
                " games': a journal of other games; name another with --journal"
            )
    # the drawn moves passed over: skipped before the last judged
    keys = sample(games.casebase, settings)[1]
    place = {key: i for i, key in enumerate(keys)}
    last = max(place.get(entry["key"], 0) for _, entry in judged)
    skipped = sum(1 for key in keys[: last + 1] if "skip" in journal.entries.get(key, {}))
    profile = profile_of(
        games.casebase,
        judged,
        {**journal.header, "seed": settings.seed, "first_move": settings.first_move},
    )
    return profile, skipped


def intrinsic(
    paths: Sequence[str | os.PathLike[str]],
    player: str,
    judge: str | None,
    *,
    positions: int | None = None,
    depth: int = DEPTH,
    multipv: int = MULTIPV,
    seed: int = 0,
    journal: Path | None = None,
    exact: bool = False,
    progress: bool = True,
    where: Where = HERE,
) -> Report:
    """The command's work: read the player's games, judge the moves from move 9 on (all, or a
    seeded sample of ``positions``; on the workers or cluster of ``where``), fit, and rate them.
    :class:`ProfileError` says what failed."""
    games = read_games(paths, player, exact=exact, progress=None if progress else False)
    eligible = len(sample(games.casebase, Settings(positions=1, seed=seed))[0])
    if not eligible:
        raise ProfileError(
            f"no position to judge: none of {games.player}'s {games.games} games reaches"
            f" move {Settings().first_move}"
        )
    settings = Settings(
        positions=min(positions or eligible, eligible), depth=depth, multipv=multipv, seed=seed
    )
    journal_path = journal if journal is not None else default_journal(games, settings)
    profile, skipped = judge_games(
        games, settings, judge, journal_path, progress=progress, where=where
    )
    if journal is None:
        journal_path.unlink(missing_ok=True)
    return Report(
        games, settings, profile.meta.get("judge"), eligible, skipped, rate(profile), profile
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (1 with a one-line message on stderr on bad
    input, 130 when interrupted: the positions judged are kept in the journal)."""
    parser = argparse.ArgumentParser(
        prog="python -m profiling.intrinsic",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("pgn", metavar="GAMES.pgn", nargs="+", help="the games (.pgn or .pgn.gz)")
    parser.add_argument(
        "--player",
        required=True,
        metavar="NAME",
        help="whose moves: a White/Black tag's name (matched as the casebase builder matches)",
    )
    parser.add_argument("--exact-name", action="store_true", help="take the name literally")
    add_judge_arguments(parser)
    add_where_arguments(parser)
    parser.add_argument(
        "--positions",
        type=positive_int,
        metavar="N",
        help="judge a seeded sample of N moves (default: every move from move 9 on)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="which moves a sample draws (default 0)"
    )
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="FILE.jsonl",
        help="keep the judged positions here: the same command goes on where it stopped"
        " (default: a journal in the temporary folder, removed once the rating is made)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="OUT.json", help="write the numbers to OUT.json"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no report on stdout"
    )
    args = parser.parse_args(argv)
    made: list[Report] = []

    def work() -> None:
        report = intrinsic(
            args.pgn,
            args.player,
            args.judge,
            positions=args.positions,
            depth=args.depth,
            multipv=args.multipv,
            seed=args.seed,
            journal=args.journal,
            exact=args.exact_name,
            progress=not args.quiet,
            where=where_of(args),
        )
        if args.json:
            write_atomic(args.json, json.dumps(report.as_json(), indent=2) + "\n")
        made.append(report)

    status = command_status("profiling.intrinsic", work, (ProfileError, OSError))
    if status:
        return status
    (report,) = made
    if not args.quiet:
        print("\n".join(report.lines()))
        if args.json:
            print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
