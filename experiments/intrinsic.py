"""Each player of a round robin rated by its own moves, beside its expert's rating from the expert's
own.

    python -m experiments.intrinsic RUN_DIR --judge /usr/games/stockfish [--casebases casebases]
        [--positions N] [--plot OUT.png]

RUN_DIR is what ``python -m tournament run --out RUN_DIR`` writes: its games (results.pgn, or
games/*.pgn while the run is unfinished) and its players (tournament.json; a player's id is its
name in the PGN and, for an expert, its casebase's file name). Every player's moves are judged as
``python -m profiling.intrinsic`` judges them (from move 9, depth 12, MultiPV 10; every move unless
--positions), each in a journal of its own (RUN_DIR/intrinsic/ID.dD.mK.jsonl: a stopped bench goes
on where it stopped). The table gives, for each player, its intrinsic rating on the experts' line
(engine/strength/rating.py) with the 95 % interval of the positions' bootstrap, its expert's own
(the error profile stored in CASEBASES/ID.npz: python -m profiling), the difference and the
judged moves. Beside them, the engine's fitted model read on its expert's own positions, with
the 95 % interval of the bootstrap of its moves (each refit read there) and the difference's ±
combining it with the expert's: each player's rating is read on its own positions, and an
engine's games may be easier or harder than its expert's, which the last column removes (Regan
reads every fit on one reference set). The last column needs no refit: the engine's mean loss in
its own positions against the loss its expert's fitted model expects in them, as Elo on the
line's slope, with a bootstrap of whole games.
The plot (--plot) draws the engine's rating against the expert's, with both intervals and the
line y = x. docs/strength.md, "The intrinsic rating of any games".
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import chess.pgn
import numpy as np

from casebase.format import Casebase, CasebaseError
from common.cli import positive_int
from common.files import file_sha256
from common.paths import PROJECT_ROOT as ROOT
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import Profile
from engine.strength.rating import RESAMPLES, ImpliedRating, implied_rating, rating_of
from experiments.intrinsic_table import Row, plot, table
from profiling import ProfileError
from profiling.games import targets
from profiling.intrinsic import Intrinsic, Report, intrinsic, rate
from profiling.judging import DEPTH, MULTIPV
from profiling.workers import HERE, Where, add_where_arguments, where_of
from tournament.store import MANIFEST, RESULTS


def against_model(report: Report, expert: Profile, *, seed: int = 0) -> tuple[float, float, float]:
    """The player's mean loss in its positions against the loss ``expert``'s fitted model expects
    in the same positions (profiling.games.targets), read as Elo on the rating line's slope, and
    the 95 % interval of a bootstrap of whole games (a game's moves are not independent: one bad
    position brings others): a reading of the player against its expert that needs no refit."""
    profile = report.profile
    played, expected = profile.own_loss, targets(expert, profile)
    game = np.asarray(profile.casebase.game)[profile.rows]
    games, where = np.unique(game, return_inverse=True)
    lost, asked = np.bincount(where, played, len(games)), np.bincount(where, expected, len(games))
    moves = np.bincount(where, minlength=len(games))
    rng = np.random.default_rng(seed)
    picks = [rng.integers(0, len(games), len(games)) for _ in range(RESAMPLES)]
    resampled = [
        rating_of(lost[k].sum() / moves[k].sum()) - rating_of(asked[k].sum() / moves[k].sum())
        for k in picks
    ]
    low, high = np.percentile(resampled, [2.5, 97.5])
    return rating_of(played.mean()) - rating_of(expected.mean()), float(low), float(high)


def read_on(report: Report, reference: Profile) -> ImpliedRating:
    """The player's fit read on the ``reference`` profile's positions, with the bootstrap of the
    player's moves (each refit read there)."""
    r, profile = report.result, report.profile
    return implied_rating(
        profile.loss,
        profile.played.astype(np.int64),
        ErrorModel(r.sensitivity, r.consistency),
        reference=reference.loss,
    )


def run_games(run: Path) -> list[Path]:
    """The run's games: results.pgn once the run is complete, else each finished game's file."""
    if run.is_file():
        return [run]
    if (run / RESULTS).exists():
        return [run / RESULTS]
    games = sorted((run / "games").glob("*.pgn"))
    if not games:
        raise SystemExit(
            f"experiments.intrinsic: {run}: no {RESULTS} and no games/*.pgn: not a"
            " tournament's run directory"
        )
    return games


def players(run: Path, games: list[Path]) -> list[str]:
    """The run's players by id (tournament.json), or the names of its PGN, most games first."""
    manifest = run / MANIFEST
    if run.is_dir() and manifest.exists():
        return [str(p["id"]) for p in json.loads(manifest.read_text(encoding="utf-8"))["players"]]
    names: Counter[str] = Counter()
    for path in games:
        with open(path, encoding="utf-8", errors="replace") as f:
            while (headers := chess.pgn.read_headers(f)) is not None:
                names.update((headers.get("White", "?"), headers.get("Black", "?")))
    return [name for name, _ in names.most_common()]


def expert_of(
    player: str, folder: Path, digests: dict[str, str]
) -> tuple[Intrinsic | None, str, str, Profile | None]:
    """The expert's own rating (the casebase's stored profile), the expert's name, a note, and the
    profile."""
    path = folder / f"{player}.npz"
    if not path.exists():
        return None, "", "no casebase", None
    try:
        casebase = Casebase.load(path)
    except CasebaseError as exc:
        return None, "", f"casebase refused: {exc}", None
    note = (
        ""
        if digests.get(player) in (None, file_sha256(path))
        else f"{path.name} is not the casebase the run played"
    )
    profile = Profile.of(casebase)
    if profile is None:
        return None, casebase.expert, "the casebase has no error profile", None
    return rate(profile), casebase.expert, note, profile


def rate_players(
    run: Path,
    judge: str | None,
    casebases: Path,
    *,
    players_of_run: list[str] | None = None,
    positions: int | None = None,
    depth: int = DEPTH,
    multipv: int = MULTIPV,
    journals: Path | None = None,
    expert_id: str | None = None,
    progress: bool = True,
    where: Where = HERE,
) -> tuple[list[Path], list[Row]]:
    """The run's games and each player's row: its moves judged (resuming its journal under
    ``journals``, default RUN_DIR/intrinsic; on the workers or cluster of ``where``) and rated
    beside its expert's profile in ``casebases``."""
    games = run_games(run)
    run_dir = run if run.is_dir() else run.parent
    manifest = run_dir / MANIFEST
    digests = (
        {
            str(p["id"]): str(p.get("sha256"))
            for p in json.loads(manifest.read_text(encoding="utf-8"))["players"]
            if p.get("kind") == "casebase"
        }
        if run.is_dir() and manifest.exists()
        else {}
    )
    folder = journals or run_dir / "intrinsic"
    rows = []
    for player in players_of_run or players(run, games):
        own_casebase = (casebases / f"{player}.npz").exists()
        expert, expert_name, note, profile = expert_of(
            player if own_casebase or not expert_id else expert_id, casebases, digests
        )
        common, against = None, None
        try:
            report = intrinsic(
                games,
                player,
                judge,
                positions=positions,
                depth=depth,
                multipv=multipv,
                exact=True,
                progress=progress,
                journal=folder / f"{player}.d{depth}.m{multipv}.jsonl",
                where=where,
            )
            engine: Intrinsic | None = report.result
            common = None if profile is None else read_on(report, profile)
            against = None if profile is None else against_model(report, profile)
        except ProfileError as exc:
            engine, note = None, " ".join(str(exc).split())
        rows.append(Row(player, engine, expert, expert_name, note, common, against))
    return games, rows


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.intrinsic",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "run", type=Path, metavar="RUN_DIR", help="a tournament's run directory (or one PGN file)"
    )
    parser.add_argument(
        "--judge",
        metavar="PATH",
        help="a UCI engine, e.g. /usr/games/stockfish (needed unless"
        " the journals hold every position)",
    )
    parser.add_argument(
        "--casebases",
        type=Path,
        default=ROOT / "casebases",
        metavar="DIR",
        help="the experts' casebases, ID.npz (default casebases/)",
    )
    parser.add_argument(
        "--players", nargs="+", metavar="ID", help="only these players (default: all the run's)"
    )
    parser.add_argument(
        "--positions",
        type=positive_int,
        metavar="N",
        help="judge a seeded sample of N moves a player (default: every move from move 9 on)",
    )
    parser.add_argument("--depth", type=positive_int, default=DEPTH, metavar="D")
    parser.add_argument("--multipv", type=positive_int, default=MULTIPV, metavar="K")
    parser.add_argument(
        "--journals",
        type=Path,
        metavar="DIR",
        help="where the journals are kept (default RUN_DIR/intrinsic)",
    )
    parser.add_argument(
        "--expert",
        metavar="ID",
        help="the expert of every player without a casebase of its own"
        " (CASEBASES/ID.npz), e.g. for one expert's engine at several UCI_Elo settings",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="OUT.png",
        help="draw the engines' ratings against the experts'",
    )
    add_where_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args()
    games, rows = rate_players(
        args.run,
        args.judge,
        args.casebases,
        players_of_run=args.players,
        positions=args.positions,
        depth=args.depth,
        multipv=args.multipv,
        journals=args.journals,
        expert_id=args.expert,
        progress=not args.quiet,
        where=where_of(args),
    )
    print(heading(games, args.depth, args.multipv))
    print(table(rows))
    for row in rows:
        if row.note and row.engine is not None and row.expert is not None:
            print(f"note: {row.player}: {row.note}")
    if args.plot:
        plot(rows, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def heading(games: list[Path], depth: int, multipv: int) -> str:
    """The table's first line: which games, judged how."""
    return (
        f"{', '.join(str(g) for g in games[:3])}{' ...' if len(games) > 3 else ''}: judged at depth"
        f" {depth}, MultiPV {multipv}; ratings on the experts' line (engine/strength/rating.py), 95"
        " % intervals of the positions' bootstrap; the difference's ± combines both"
    )


if __name__ == "__main__":
    sys.exit(main())
