"""What the judging buys (issue #62): the shipped experts' stored journals refitted with less judging,
nothing judged again.

    python -m experiments.judging lines [IDS ...] [--lines 1 2 3 5]
    python -m experiments.judging records [IDS ...] [--sizes 100 200] [--resamples 100]
    python -m experiments.judging positions [IDS ...] [--sizes 100 200 400 800] [--stop-within PCT]

Each reads the shipped experts' casebases and profiles (``casebases/ID.npz``, made by ``make casebases``
from the journals in ``data/profiles/``; ``--casebases DIR`` another folder) and their journals, and
refits as the project fits (:func:`profiling.pipeline.profile_of`: Regan's model, the implied rating and
its bootstrap; :func:`engine.strength.calibration.set_on`: the sensitivity the engine plays), against what
the shipped profile holds. IDS default to every shipped expert with a profile.

- ``lines``: every judged position cut to what the judge writes with MultiPV K (:func:`truncated`): the K
  best of the ten, and the expert's move scored alone where it is not among them (its MultiPV-10 score
  standing in for that search; the share of such positions shown). Per expert: the fit, the implied rating
  against its bootstrap, the rating on the line refitted at K lines, and the loss a move the games record's
  targets ask (the expert's fitted model on the games' positions, their lines cut alike).
- ``records``: the calibration the engine plays (:func:`experiments.play.calibration_of`) with each record
  left out or cut to its first N positions: its expected loss a move in the engine's games and in the
  expert's, beside the spread of N random positions and the whole record's bootstrap; and how far a
  UCI_Elo setting moves (strength.md §4), and where the profile fit's loss takes the play-time record's place.
- ``positions``: the profile refitted on its first N judged positions, and with ``--stop-within PCT`` where
  ``cbr-chess new``'s judging stops on the journal: the fit, the implied rating and its intervals (the
  bootstrap's, widened, and with the headers' prior, :func:`player.rating.estimate`), the games' targets.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.format import Casebase
from casebase.shipped import shipped_experts
from common.cli import positive_int
from common.paths import PROJECT_ROOT as ROOT
from engine.strength.calibration import CALIBRATION_POSITIONS, set_on
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import PlayRecord, Profile
from engine.strength.rating import RATING_LINE
from experiments.judges import first_of, picked
from experiments.play import calibration_of
from player.rating import estimate, positions_needed
from player.stages import first_round, judged_in_rounds
from profiling import ProfileError
from profiling.fitted import SYSTEM, fitted_numbers, rating_systems
from profiling.games import targets
from profiling.intrinsic import read_games
from profiling.journal import JOURNAL, Journal
from profiling.judging import MULTIPV, Settings, analyse
from profiling.pipeline import judged_profile, profile_of

Judged = list[tuple[int, dict[str, Any]]]


def played_line(entry: dict[str, Any], multipv: int) -> int | None:
    """The line of the judge's MultiPV search the expert's move was (0: the best), or None where it was
    not among them and was scored alone (the entry then holds one move more than the lines:
    :func:`profiling.judging.judge_position`)."""
    lines = min(multipv, chess.Board(entry["fen"]).legal_moves.count())
    if len(entry["moves"]) > lines:
        return None
    return int(entry["played"])


def truncated(entry: dict[str, Any], lines: int, multipv: int = MULTIPV) -> dict[str, Any]:
    """The journal entry the judge would have written with MultiPV ``lines`` instead of ``multipv``: its
    first ``lines`` lines and, where the expert's move is not among them, that move scored alone (its
    MultiPV score standing in for that search's where the longer search held it), best first as
    :func:`profiling.judging.judge_position` orders them."""
    moves, scores, played = entry["moves"], entry["scores"], int(entry["played"])
    alone = played_line(entry, multipv) is None
    kept = [i for i in range(len(moves)) if not (alone and i == played)][:lines]
    if played not in kept:
        kept.append(played)
    order = sorted(kept, key=lambda i: -scores[i])  # stable: as the judge's sort of its lines, then the move
    return {**entry, "moves": [moves[i] for i in order], "scores": [scores[i] for i in order],
            "played": order.index(played)}


@dataclass
class Expert:
    """A shipped expert's casebase and stored profile, the journal entries it was fitted from (in its
    order), and its games record's judged positions (None without one)."""

    id: str
    casebase: Casebase
    profile: Profile
    judged: Judged
    header: dict[str, Any]
    games: Casebase | None
    games_judged: Judged | None

    @property
    def multipv(self) -> int:
        return int(self.header["multipv"])

    def refit(self, judged: Judged) -> Profile:
        """The profile of ``judged`` (entries of this expert's positions), fitted and summarised as
        :func:`profiling.pipeline.make_profile` does."""
        return profile_of(self.casebase, judged, self.header)

    def games_loss(self, fitted: Profile, lines: int | None = None) -> float | None:
        """The mean of the games record's targets (what the engine's choices in its games are set to lose)
        by ``fitted``'s model, on the games' positions with their first ``lines`` lines (None: all)."""
        if self.games is None or self.games_judged is None:
            return None
        judged = [(row, entry if lines is None else truncated(entry, lines, self.multipv))
                  for row, entry in self.games_judged]
        return float(targets(fitted, judged_profile(self.games, judged)).mean())


def load(expert_id: str, folder: Path) -> Expert:
    """The shipped expert ``expert_id`` as ``folder``'s casebase holds it, with its journals' entries."""
    shipped = shipped_experts()[expert_id]
    journals = shipped.journals()
    casebase = Casebase.load(folder / f"{expert_id}.npz", tell=False)
    profile = Profile.of(casebase)
    if profile is None or "journal" not in journals:
        raise SystemExit(f"{folder / expert_id}.npz has no profile fitted from the shipped journals: make casebases")
    settings = Settings(positions=len(profile.rows), depth=int(profile.meta["depth"]),
                        multipv=int(profile.meta["multipv"]))
    journal = Journal(journals["journal"], {"journal": JOURNAL, "expert": casebase.expert, **settings.header()})
    judged = analyse(casebase, journal, settings, None, progress=False)
    if not np.array_equal([row for row, _ in judged], profile.rows):
        raise SystemExit(f"{folder / expert_id}.npz: its profile is not the shipped journal's: make casebases")
    games = games_judged = None
    if profile.games is not None and "engine_games_journal" in journals:
        read = read_games([shipped.round_robin], expert_id, exact=True)
        drawn = Settings(positions=len(profile.games.moves), depth=settings.depth, multipv=settings.multipv)
        games_journal = Journal(journals["engine_games_journal"], {"journal": JOURNAL, "expert": read.player,
                                                                   **drawn.header()})
        games, games_judged = read.casebase, analyse(read.casebase, games_journal, drawn, None, progress=False)
    return Expert(expert_id, casebase, profile, judged, {**journal.header, "seed": settings.seed,
                                                         "first_move": settings.first_move}, games, games_judged)


def experts(ids: Sequence[str], folder: Path) -> list[Expert]:
    """The experts asked for (all shipped experts with a profile where none is), loaded."""
    chosen = list(ids) or [i for i, e in shipped_experts().items() if e.journals() and (folder / f"{i}.npz").is_file()]
    return [load(expert_id, folder) for expert_id in chosen]


def numbers(profile: Profile) -> dict[str, float]:
    """What the tables compare of a fitted profile: s, c, the expected loss and the implied rating with
    the half widths of its bootstrap and widened intervals."""
    fit, rating = profile.meta["fit"], profile.meta["rating"]
    return {"s": fit["sensitivity"], "c": fit["consistency"], "loss": fit["expected_loss"],
            "implied": rating["implied"], "boot": (rating["bootstrap_high"] - rating["bootstrap_low"]) / 2,
            "wide": (rating["high"] - rating["low"]) / 2}


def change(new: float, old: float) -> str:
    """``new`` against ``old`` in percent."""
    return f"{100 * (new / old - 1):+.1f} %"


def line_of(fits: dict[str, dict[str, float]], systems: dict[str, str], multipv: int
            ) -> tuple[tuple[float, float], float]:
    """The rating line and its spread fitted across the FIDE experts of ``fits`` (id -> numbers) as
    :func:`profiling.fitted.fitted_numbers` fits them (the line alone: the joint fits are not remade)."""
    rated = [{"rating": f["rating"], "expected_loss": f["loss"], "prior_weight": 0.0, "sensitivity": f["s"],
              "consistency": f["c"], "judge": None, "depth": None, "multipv": multipv}
             for expert_id, f in fits.items() if systems.get(expert_id) == SYSTEM]
    try:
        found = fitted_numbers(rated, "python -m experiments.judging lines")
    except ProfileError as exc:  # too few FIDE-rated experts among those chosen
        raise SystemExit(f"lines: the rating line is fitted across the FIDE-rated experts chosen: {exc}") from None
    return found.rating_line, found.rating_spread


def stored_games_agree(chosen: list[Expert], games_full: dict[str, float | None]) -> None:
    """Stop unless each expert's games record's targets as stored are what its journals' refit gives
    (``games_full``): the comparisons would otherwise measure another fit than the shipped one."""
    for e in chosen:
        stored = e.profile.games
        if stored is not None and games_full[e.id] is not None \
                and abs(float(stored.target.mean()) - (games_full[e.id] or 0)) >= 1e-6:
            raise SystemExit(f"{e.id}: its games record's targets are not its journals' refit: make casebases")


def range_of(changes: list[float]) -> str:
    """The mean and range of ``changes`` (percent); empty where no expert has a games record."""
    return f"{np.mean(changes):+.1f} % ({min(changes):+.1f}..{max(changes):+.1f})" if changes else ""


def sizes_within(total: int, sizes: list[int], what: str) -> list[int]:
    """``total`` (the whole record) and those of ``sizes`` below it; the others said on stderr, left out."""
    if over := [n for n in sizes if n >= total]:
        print(f"{what} holds {total} positions: --sizes {' '.join(map(str, over))} left out", file=sys.stderr)
    return [total, *(n for n in sizes if n < total)]


def on_line(line: tuple[float, float], loss: float) -> float:
    """The rating ``line`` gives an expected loss (as engine.strength.rating.rating_of reads its own)."""
    return line[0] + line[1] * math.log(100 * loss)


def lines_table(chosen: list[Expert], counts: list[int]) -> None:
    systems = rating_systems(ROOT / "data" / "experts.tsv")
    full = {e.id: {**numbers(e.profile), "rating": float(e.casebase.elo or 0)} for e in chosen}
    full_line, full_spread = line_of(full, systems, MULTIPV)
    games_full = {e.id: e.games_loss(e.profile) for e in chosen}
    stored_games_agree(chosen, games_full)
    print(f"All ten lines (the shipped profiles): rating line {full_line}, spread {full_spread:.0f} Elo\n")
    print("| expert | lines | played move scored alone: at 10 lines % | a search more at these lines % | s | c"
          " | implied rating | its change | bootstrap 95 % half width | on the line refitted at these lines (change)"
          " | engine's loss in its games (targets' mean) |")
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
            games_cell = "" if games is None else f"{100 * games:.2f} % ({change(games, games_full[e.id] or 1)})"
            print(f"| {e.id} | {k} | {100 * outside:.1f} | {100 * new:.1f} | {f['s']:.3g} ({change(f['s'], old['s'])})"
                  f" | {f['c']:.2f} ({change(f['c'], old['c'])}) | {f['implied']:.0f} | {f['implied'] - old['implied']:+.0f}"
                  f" | {old['boot']:.0f} | {on_line(line, f['loss']):.0f} ({moved:+.0f}) | {games_cell} |", flush=True)
        deltas = np.array([f["implied"] - full[i]["implied"] for i, f in fits.items()])
        ratio = np.array([abs(f["implied"] - full[i]["implied"]) / full[i]["boot"] for i, f in fits.items()])
        refitted = np.array([on_line(line, f["loss"]) - on_line(full_line, full[i]["loss"]) for i, f in fits.items()])
        games_changes = [100 * (g / (games_full[e.id] or 1) - 1) for e, *_, g in rows if g is not None]
        summary.append(f"| {k} | {deltas.mean():+.0f} (sd {deltas.std(ddof=1):.0f}) | {ratio.max():.2f}"
                       f" | {line[0]:.0f} + {line[1]:.0f} ln | {spread:.0f} | {np.sqrt((refitted ** 2).mean()):.0f}"
                       f" | {np.median([100 * (f['s'] / full[i]['s'] - 1) for i, f in fits.items()]):+.0f} %"
                       f" | {np.median([100 * (f['c'] / full[i]['c'] - 1) for i, f in fits.items()]):+.0f} %"
                       f" | {range_of(games_changes)} |")
    print("\n| lines | implied rating's change, mean (sd) | largest change / bootstrap half width | rating line"
          f" (10 lines: {full_line[0]:.0f} + {full_line[1]:.0f} ln) | its spread (10: {full_spread:.0f}) | rms change on"
          " the refitted line | s's change, median | c's change, median | engine's loss in its games, mean (range) |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    print("\n".join(summary))


def losses_of(model: ErrorModel, record: PlayRecord) -> float:
    """What ``model``'s choices lose a move in ``record``'s positions, as the profile judges them."""
    return model.expected_loss(record.loss, record.log_prior, record.true_loss)


def spread_of(model: ErrorModel, record: PlayRecord, reference: PlayRecord, size: int, draws: int,
              rng: np.random.Generator) -> float:
    """The standard deviation, in percent of the whole record's calibration, of the loss in
    ``reference``'s positions of the sensitivity set on ``draws`` draws of ``size`` of ``record``'s
    positions (all of them: a bootstrap, drawn with replacement)."""
    whole = losses_of(set_on(model, record), reference)
    bootstrap = size == len(record.moves)
    found = [losses_of(set_on(model, picked(record, rng.choice(len(record.moves), size, replace=bootstrap))), reference)
             for _ in range(draws)]
    return float(100 * np.std(np.array(found) / whole, ddof=1))


def elo_offset(games: PlayRecord, play_loss: float | None, shipped: float) -> float:
    """How far (Elo) a UCI_Elo setting moves where the games' targets over ``play_loss`` (the expert's own
    loss a move in the play-time record's positions; None: no play-time record, the scale 1 the engine
    then takes) replace the ``shipped`` scale: the loss asked is the rating line's times that scale
    (strength.md §4), so the rating played is the set one plus B ln(scale / shipped) on the line
    rating = A + B ln(100 loss)."""
    scale = 1.0 if play_loss is None else float(games.target.mean()) / play_loss
    return RATING_LINE[1] * math.log(scale / shipped)


def elo_spread(games: PlayRecord, play: PlayRecord, size: int, draws: int, rng: np.random.Generator,
               shipped: float) -> float:
    """The standard deviation (Elo) of :func:`elo_offset` over ``draws`` draws of ``size`` of the play-time
    record's positions (all of them: a bootstrap)."""
    bootstrap = size == len(play.target)
    return float(np.std([elo_offset(games, float(rng.choice(play.target, size, replace=bootstrap).mean()), shipped)
                         for _ in range(draws)], ddof=1))


def records_table(chosen: list[Expert], sizes: list[int], draws: int) -> None:
    rng = np.random.default_rng(0)
    sizes = sorted(sizes, reverse=True)
    print("| expert | calibrated on | s | prior weight | loss a move in its games' positions (change)"
          " | spread: N random positions (all: bootstrap) | in the expert's positions (change) | UCI_Elo moves (Elo) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for e in chosen:
        calibration = calibration_of(e.casebase)
        fitted = calibration.fitted or calibration.model
        play, games = e.profile.play, e.profile.games
        if play is None:
            raise SystemExit(f"{e.id}: its profile has no play-time record to calibrate on: make casebases")
        play_sizes = sizes_within(len(play.moves), sizes, f"{e.id}'s play-time record")
        reference = games if games is not None else play  # where the engine's own games' positions are known
        variants: list[tuple[str, ErrorModel, str, str]] = []
        if games is not None:
            own = float(play.target.mean())
            for n in sizes_within(len(games.moves), sizes, f"{e.id}'s games record"):
                spread = spread_of(fitted, games, games, n, draws, rng)
                offset = elo_offset(first_of(games, n), own, calibration.target_scale)
                variants.append((f"games record, first {n}", set_on(fitted, first_of(games, n)), f"{spread:.1f} %",
                                 f"{offset:+.0f}"))
            for n in play_sizes:
                moved = elo_offset(games, float(play.target[:n].mean()), calibration.target_scale)
                elo_sd = elo_spread(games, play, n, draws, rng, calibration.target_scale)
                variants.append((f"games record; play-time record first {n}", calibration.model, "",
                                 f"{moved:+.0f} (sd {elo_sd:.0f})"))
            variants.append(("games record; play-time record left out", calibration.model, "",
                             f"{elo_offset(games, None, calibration.target_scale):+.0f}"))
            fitted_loss = float(e.profile.meta["fit"]["expected_loss"])
            variants.append(("games record; UCI_Elo scaled by the profile fit's expected loss instead",
                             calibration.model, "", f"{elo_offset(games, fitted_loss, calibration.target_scale):+.0f}"))
        for n in play_sizes:
            spread = spread_of(fitted, play, reference, n, draws, rng)
            left = "" if games is None else " (games record left out)"
            variants.append((f"play-time record, first {n}{left}", set_on(fitted, first_of(play, n)), f"{spread:.1f} %", ""))
        variants.append(("neither: the likelihood fit's s", fitted, "", ""))
        shipped = losses_of(calibration.model, reference), losses_of(calibration.model, play)
        for name, model, noise, elo in variants:
            in_games, in_own = losses_of(model, reference), losses_of(model, play)
            print(f"| {e.id} | {name} | {model.sensitivity:.3g} | {model.prior_weight:.2f}"
                  f" | {100 * in_games:.2f} % ({change(in_games, shipped[0])}) | {noise}"
                  f" | {change(in_own, shipped[1])} | {elo} |", flush=True)


def stopped_at(e: Expert, within: float) -> Profile:
    """The profile where ``cbr-chess new``'s judging stops on ``e``'s journal (player.stages.judged_in_rounds)."""
    return judged_in_rounds(lambda n: e.refit(e.judged[:n]), lambda p: positions_needed(e.casebase, p, len(e.judged),
                            within), first_round(CALIBRATION_POSITIONS), len(e.judged), within)[0]


def positions_table(chosen: list[Expert], sizes: list[int], within: float | None = None) -> None:
    print("| expert | positions | s | c | implied rating (change) | bootstrap 95 % half width | widened"
          " | with the header prior | engine's loss in its games (targets' mean) |")
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
            games_cell = "" if games is None else f"{100 * games:.2f} % ({change(games, games_full or 1)})"
            pooled.setdefault(label, []).append((f["implied"] - full["implied"], f["boot"], (prior.high - prior.low) / 2,
                                             abs(f["implied"] - full["implied"]) / full["boot"]))
            print(f"| {e.id} | {len(profile.rows)} | {f['s']:.4f} ({change(f['s'], full['s'])}) | {f['c']:.2f}"
                  f" ({change(f['c'], full['c'])}) | {f['implied']:.0f} ({f['implied'] - full['implied']:+.0f})"
                  f" | {f['boot']:.0f} | {f['wide']:.0f}"
                  f" | {(prior.high - prior.low) / 2:.0f} | {games_cell} |", flush=True)
    print("\n| positions | implied rating's change, rms | bootstrap half width, mean | with the header prior, mean"
          " | largest change / the full profile's bootstrap half width |")
    print("|---:|---:|---:|---:|---:|")
    for label, rows in pooled.items():
        a = np.array(rows)
        print(f"| {label} | {np.sqrt((a[:, 0] ** 2).mean()):.0f} | {a[:, 1].mean():.0f} | {a[:, 2].mean():.0f}"
              f" | {a[:, 3].max():.2f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.judging", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("lines", "records", "positions"):
        sub = commands.add_parser(name)
        sub.add_argument("ids", nargs="*", metavar="ID", help="shipped experts (default: all with a profile)")
        sub.add_argument("--casebases", type=Path, default=ROOT / "casebases", metavar="DIR")
        if name == "lines":
            sub.add_argument("--lines", type=positive_int, nargs="+", default=[1, 2, 3, 5])
        if name == "records":
            sub.add_argument("--sizes", type=positive_int, nargs="+", default=[100, 200])
            sub.add_argument("--resamples", type=positive_int, default=100, help="random draws of each size")
        if name == "positions":
            sub.add_argument("--sizes", type=positive_int, nargs="*", default=[100, 200, 400, 800])
            sub.add_argument("--stop-within", type=float, metavar="PCT",
                             help="also where cbr-chess new's judging stops with --stop-within PCT")
    args = parser.parse_args(argv)
    chosen = experts(args.ids, args.casebases)
    if args.command == "lines":
        lines_table(chosen, args.lines)
    elif args.command == "records":
        records_table(chosen, args.sizes, args.resamples)
    else:
        positions_table(chosen, args.sizes, None if args.stop_within is None else args.stop_within / 100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
