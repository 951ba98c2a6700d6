"""Per move: does the calibrated choice lose what the players lost? (issue #29)

    python -m experiments.play kosteniuk-2200 carlsen-2800 ... --judge /usr/games/stockfish \
        [--positions 200] [--out bench/out/play]

Tables of the expert's own moves beside the calibrations' choices among the moves the engine's
judge scores as it plays (:mod:`profiling.play`):

- *profile fit*: the sensitivity of the likelihood fit on the profile's moves (before issue #29);
- *play record alone*: the sensitivity set on the engine's own choices in the play-time record's
  positions (where the casebase has a games record too; the default before it);
- *play-time fit*: the sensitivity ``Selection calibrated`` plays (on the games record, where there
  is one).

From each calibration's chances come the expected loss (expected score and centipawns, as the
profiles judge moves: Stockfish at depth 12) and the expected share of mistakes (50 cp or more).

1. **Recorded**: the shipped casebase (``casebases/ID.npz``) on the positions of its play-time
   record (the game of each held out of retrieval), where the play-time fit is made: it should
   hit the expert's loss there.
2. **In its own games**: the same on the positions of the shipped casebase's games record (its
   engine's own round-robin games), beside the loss the expert's fitted model expects there.
3. **Held out**: the held-out casebase (``casebases/heldout/ID.npz``, made by ``make fidelity``'s
   rules, with its profile and record) on the player's moves from move 9 on in the held-out games
   (``casebases/heldout/ID.pgn``, a seeded sample of ``--positions``), judged as the profiles are
   (:func:`profiling.intrinsic.judge_games`) and played as the record plays
   (:func:`profiling.play.record_play`). Both journals of each expert are kept in ``--out``, so a
   stopped run goes on where it stopped.
4. **UCI_Elo per move**: on the same held-out moves, each ``--ratings`` setting's expected loss
   read on the rating line (``engine.strength.rating.rating_of``), beside the player's own moves'.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from casebase.format import Casebase
from common.paths import PROJECT_ROOT as ROOT
from engine.agents.factory import Loader, make_agent
from engine.agents.guided import GuidedAgent
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.strength.calibration import Calibration, set_on
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import MISTAKE_CP, PlayRecord, Profile
from engine.strength.rating import rating_of
from profiling.games import choices_in
from profiling.intrinsic import read_games
from profiling.play import PlaySettings, play_arrays
from profiling.workers import add_where_arguments, where_of

#: The table's columns: expected loss (expected score %, centipawns), mistakes (%) and first
#: choices (%: moves losing nothing against the profile judge's best).
COLUMNS = ("loss %", "loss cp", "mistakes %", "first choice %")


def measured(model: ErrorModel, play: PlayRecord) -> np.ndarray:
    """Per position: the expected loss (expected score), centipawn loss, mistake and first choice of
    ``model``'s choice."""
    p = model.probabilities(play.loss, play.log_prior)
    cp = play.cp_loss  # 0 where no move: its chance is 0
    return np.stack(
        [
            (p * np.nan_to_num(play.true_loss)).sum(1),
            (p * cp).sum(1),
            (p * (cp >= MISTAKE_CP)).sum(1),
            (p * (cp == 0)).sum(1),
        ],
        1,
    )


def own(profile: Profile) -> np.ndarray:
    """Per position: the player's own move's loss, centipawn loss, mistake and first choice."""
    cp = profile.cp_loss
    return np.stack([profile.own_loss, cp, cp >= MISTAKE_CP, cp == 0], 1).astype(np.float64)


def calibration_of(casebase: Casebase) -> Calibration:
    """The calibration the engine plays ``casebase`` with by default with a judge at hand (without
    one found, the one it would play with one, not the one sized to the built-in search: strength.md
    §7)."""
    loader = Loader()
    agent = make_agent({"Mode": "guided", "Selection": "calibrated"}, casebase, loader).agent
    loader.close()
    assert isinstance(agent, GuidedAgent)
    calibration = agent.calibration if agent.sizing is None else agent.sizing.asked
    assert calibration is not None
    return calibration


def compared(
    casebase: Casebase, play: PlayRecord, player: np.ndarray, who: str = "the player (own moves)"
) -> dict[str, np.ndarray]:
    """The rows of the player (``who``) and of each calibration's choice: the profile's fit, the
    play-time fit on the casebase's play-time record alone (where it has a games record too), and
    the one the engine plays."""
    calibration = calibration_of(casebase)
    fitted = calibration.fitted or calibration.model
    profile = Profile.of(casebase)
    rows = {who: player, "profile fit": measured(fitted, play)}
    if profile is not None and profile.play is not None and profile.games is not None:
        rows["play record alone"] = measured(set_on(fitted, profile.play), play)
    return {**rows, "play-time fit": measured(calibration.model, play)}


def shipped(expert: str) -> tuple[Casebase, Profile]:
    casebase = Casebase.load(ROOT / "casebases" / f"{expert}.npz")
    profile = Profile.of(casebase)
    if profile is None or profile.play is None:
        raise SystemExit(f"casebases/{expert}.npz has no play-time record: make casebases")
    return casebase, profile


def recorded_rows(expert: str) -> dict[str, np.ndarray]:
    """On the positions of the shipped casebase's play-time record."""
    casebase, profile = shipped(expert)
    assert profile.play is not None
    return compared(casebase, profile.play, own(profile.first(len(profile.play.moves))))


def games_rows(expert: str) -> dict[str, np.ndarray]:
    """On the positions of the shipped casebase's games record: beside what the expert's fitted
    model expects there (only the loss is known of it)."""
    casebase, profile = shipped(expert)
    if profile.games is None:
        return {}
    expected = np.full((len(profile.games.target), len(COLUMNS)), np.nan)
    expected[:, 0] = profile.games.target
    return compared(casebase, profile.games, expected, "the expert's model")


def held_out(expert: str, args: argparse.Namespace) -> tuple[Casebase, PlayRecord, Profile]:
    """The held-out casebase, its choices on the player's moves in the held-out games, and those
    moves judged."""
    folder = ROOT / "casebases" / "heldout"
    casebase = Casebase.load(folder / f"{expert}.npz")
    games = read_games([folder / f"{expert}.pgn"], casebase.expert)
    profile, entries, _ = choices_in(
        casebase,
        games,
        PlaySettings(positions=args.positions),
        args.judge,
        args.out / f"{expert}.judged.jsonl",
        args.out / f"{expert}.play.jsonl",
        where=where_of(args),
    )
    return (
        casebase,
        PlayRecord.of(play_arrays(entries), profile.scores[:, 0], profile.own_loss, {}),
        profile,
    )


def held_out_rows(expert: str, args: argparse.Namespace) -> dict[str, np.ndarray]:
    """On the player's moves in the held-out games, played by the held-out casebase."""
    casebase, play, profile = held_out(expert, args)
    return compared(casebase, play, own(profile))


def ratings_table(experts: list[str], args: argparse.Namespace) -> None:
    """UCI_Elo per move: each set rating's expected loss on the held-out moves, read on the rating
    line."""
    print(
        f"\nUCI_Elo on the held-out moves: the rating line's reading of the expected loss\n\n"
        f"| expert | {' | '.join(str(r) for r in args.ratings)} | own (the player's moves) |"
    )
    print("|---|" + "---:|" * (len(args.ratings) + 1))
    for expert in experts:
        casebase, play, profile = held_out(expert, args)
        calibration = calibration_of(casebase)
        measured_at = [
            rating_of(measured(calibration.at_rating(r).model, play)[:, 0].mean())
            for r in args.ratings
        ]
        print(
            f"| {expert} | "
            + " | ".join(f"{m:.0f}" for m in measured_at)
            + f" | {rating_of(float(profile.own_loss.mean())):.0f} |",
            flush=True,
        )


def table(title: str, experts: list[str], rows_of: Callable[[str], dict[str, np.ndarray]]) -> None:
    """Print one table, expert by expert and pooled, with the pooled gaps to the players."""
    print(f"\n{title}\n\n| expert | who | positions | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---:|" + "---:|" * len(COLUMNS))
    pooled: dict[str, list[np.ndarray]] = {}
    for expert in experts:
        for who, rows in rows_of(expert).items():
            pooled.setdefault(who, []).append(rows)
            print(
                f"| {expert} | {who} | {len(rows)} | " + " | ".join(cells(rows)) + " |", flush=True
            )
    for who, parts in pooled.items():
        print(
            f"| all | {who} | {sum(len(p) for p in parts)} | "
            + " | ".join(cells(np.concatenate(parts)))
            + " |"
        )
    reference, *fits = pooled
    player = np.concatenate(pooled[reference]).mean(0)
    for who in fits:
        mean = np.concatenate(pooled[who]).mean(0)
        gaps = [f"expected loss {100 * (mean[0] / player[0] - 1):+.1f} % (expected score)"]
        if not np.isnan(player[1:]).any():  # the expert's model in the games gives its loss alone
            gaps += [
                f"{100 * (mean[1] / player[1] - 1):+.1f} % (cp)",
                f"mistakes {100 * (mean[2] - player[2]):+.1f} points",
                f"first choices {100 * (mean[3] - player[3]):+.1f} points",
            ]
        print(f"\n{who} against {reference}: {', '.join(gaps)}")


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.play",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "experts",
        nargs="+",
        help="expert ids with casebases/ID.npz, casebases/heldout/ID.npz and ID.pgn",
    )
    parser.add_argument("--judge", default=DEBIAN_STOCKFISH)
    parser.add_argument(
        "--positions", type=int, default=200, help="held-out moves per expert (a seeded sample)"
    )
    parser.add_argument(
        "--ratings",
        type=int,
        nargs="+",
        default=[1600, 2000, 2400, 2800],
        help="the UCI_Elo settings of the third table",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "out" / "play",
        help="where the journals are kept",
    )
    add_where_arguments(parser)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    table(
        "Recorded: the play-time record's positions of the shipped casebase",
        args.experts,
        recorded_rows,
    )
    table(
        "In its own games: the games record's positions of the shipped casebase",
        args.experts,
        games_rows,
    )
    table(
        "Held out: the player's moves in the held-out games",
        args.experts,
        lambda e: held_out_rows(e, args),
    )
    ratings_table(args.experts, args)
    return 0


def cells(rows: np.ndarray) -> list[str]:
    """A table row's cells: the mean of each of :data:`COLUMNS` over the positions (blank where
    unknown)."""
    mean = rows.mean(0)
    return [f"{100 * mean[0]:.2f}"] + [
        "" if np.isnan(m) else f"{f * m:.1f}" for f, m in zip((1, 100, 100), mean[1:])
    ]


if __name__ == "__main__":
    sys.exit(main())
