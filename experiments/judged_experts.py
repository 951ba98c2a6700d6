"""The shipped experts as :mod:`experiments.judging` refits them: each one's casebase, stored
profile, journal entries and games record (:class:`Expert`), a journal entry cut to fewer of the
judge's lines (:func:`truncated`), and what the tables compare and how they say it."""

from __future__ import annotations

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
from engine.strength.profile import Profile
from profiling import ProfileError
from profiling.fitted import SYSTEM, fitted_numbers
from profiling.games import targets
from profiling.intrinsic import read_games
from profiling.journal import JOURNAL, Journal
from profiling.judging import MULTIPV, Settings, analyse
from profiling.pipeline import judged_profile, profile_of

Judged = list[tuple[int, dict[str, Any]]]


def played_line(entry: dict[str, Any], multipv: int) -> int | None:
    """The line of the judge's MultiPV search the expert's move was (0: the best), or None where it
    was not among them and was scored alone (the entry then holds one move more than the lines:
    :func:`profiling.judging.judge_position`)."""
    lines = min(multipv, chess.Board(entry["fen"]).legal_moves.count())
    if len(entry["moves"]) > lines:
        return None
    return int(entry["played"])


def truncated(entry: dict[str, Any], lines: int, multipv: int = MULTIPV) -> dict[str, Any]:
    """The journal entry the judge would have written with MultiPV ``lines`` instead of ``multipv``:
    its first ``lines`` lines and, where the expert's move is not among them, that move scored alone
    (its MultiPV score standing in for that search's where the longer search held it), best first as
    :func:`profiling.judging.judge_position` orders them."""
    moves, scores, played = entry["moves"], entry["scores"], int(entry["played"])
    alone = played_line(entry, multipv) is None
    kept = [i for i in range(len(moves)) if not (alone and i == played)][:lines]
    if played not in kept:
        kept.append(played)
    # stable: as the judge's sort of its lines, then the move
    order = sorted(kept, key=lambda i: -scores[i])
    return {
        **entry,
        "moves": [moves[i] for i in order],
        "scores": [scores[i] for i in order],
        "played": order.index(played),
    }


@dataclass
class Expert:
    """A shipped expert's casebase and stored profile, the journal entries it was fitted from (in
    its order), and its games record's judged positions (None without one)."""

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
        """The mean of the games record's targets (what the engine's choices in its games are set to
        lose) by ``fitted``'s model, on the games' positions with their first ``lines`` lines (None:
        all)."""
        if self.games is None or self.games_judged is None:
            return None
        judged = [
            (row, entry if lines is None else truncated(entry, lines, self.multipv))
            for row, entry in self.games_judged
        ]
        return float(targets(fitted, judged_profile(self.games, judged)).mean())


def load(expert_id: str, folder: Path) -> Expert:
    """The shipped expert ``expert_id`` as ``folder``'s casebase holds it, with its journals'
    entries."""
    shipped = shipped_experts()[expert_id]
    journals = shipped.journals()
    casebase = Casebase.load(folder / f"{expert_id}.npz", tell=False)
    profile = Profile.of(casebase)
    if profile is None or "journal" not in journals:
        raise SystemExit(
            f"{folder / expert_id}.npz has no profile fitted from the shipped journals: make"
            " casebases"
        )
    settings = Settings(
        positions=len(profile.rows),
        depth=int(profile.meta["depth"]),
        multipv=int(profile.meta["multipv"]),
    )
    journal = Journal(
        journals["journal"], {"journal": JOURNAL, "expert": casebase.expert, **settings.header()}
    )
    judged = analyse(casebase, journal, settings, None, progress=False)
    if not np.array_equal([row for row, _ in judged], profile.rows):
        raise SystemExit(
            f"{folder / expert_id}.npz: its profile is not the shipped journal's: make casebases"
        )
    games = games_judged = None
    if profile.games is not None and "engine_games_journal" in journals:
        read = read_games([shipped.round_robin], expert_id, exact=True)
        drawn = Settings(
            positions=len(profile.games.moves), depth=settings.depth, multipv=settings.multipv
        )
        games_journal = Journal(
            journals["engine_games_journal"],
            {"journal": JOURNAL, "expert": read.player, **drawn.header()},
        )
        games, games_judged = (
            read.casebase,
            analyse(read.casebase, games_journal, drawn, None, progress=False),
        )
    return Expert(
        expert_id,
        casebase,
        profile,
        judged,
        {**journal.header, "seed": settings.seed, "first_move": settings.first_move},
        games,
        games_judged,
    )


def experts(ids: Sequence[str], folder: Path) -> list[Expert]:
    """The experts asked for (all shipped experts with a profile where none is), loaded."""
    chosen = list(ids) or [
        i for i, e in shipped_experts().items() if e.journals() and (folder / f"{i}.npz").is_file()
    ]
    return [load(expert_id, folder) for expert_id in chosen]


def numbers(profile: Profile) -> dict[str, float]:
    """What the tables compare of a fitted profile: s, c, the expected loss and the implied rating
    with the half widths of its bootstrap and widened intervals."""
    fit, rating = profile.meta["fit"], profile.meta["rating"]
    return {
        "s": fit["sensitivity"],
        "c": fit["consistency"],
        "loss": fit["expected_loss"],
        "implied": rating["implied"],
        "boot": (rating["bootstrap_high"] - rating["bootstrap_low"]) / 2,
        "wide": (rating["high"] - rating["low"]) / 2,
    }


def change(new: float, old: float) -> str:
    """``new`` against ``old`` in percent."""
    return f"{100 * (new / old - 1):+.1f} %"


def line_of(
    fits: dict[str, dict[str, float]], systems: dict[str, str], multipv: int
) -> tuple[tuple[float, float], float]:
    """The rating line and its spread fitted across the FIDE experts of ``fits`` (id -> numbers) as
    :func:`profiling.fitted.fitted_numbers` fits them (the line alone: the joint fits are not
    remade)."""
    rated = [
        {
            "rating": f["rating"],
            "expected_loss": f["loss"],
            "prior_weight": 0.0,
            "sensitivity": f["s"],
            "consistency": f["c"],
            "judge": None,
            "depth": None,
            "multipv": multipv,
        }
        for expert_id, f in fits.items()
        if systems.get(expert_id) == SYSTEM
    ]
    try:
        found = fitted_numbers(rated, "python -m experiments.judging lines")
    except ProfileError as exc:  # too few FIDE-rated experts among those chosen
        raise SystemExit(
            f"lines: the rating line is fitted across the FIDE-rated experts chosen: {exc}"
        ) from None
    return found.rating_line, found.rating_spread


def stored_games_agree(chosen: list[Expert], games_full: dict[str, float | None]) -> None:
    """Stop unless each expert's games record's targets as stored are what its journals' refit gives
    (``games_full``): the comparisons would otherwise measure another fit than the shipped one."""
    for e in chosen:
        stored = e.profile.games
        if (
            stored is not None
            and games_full[e.id] is not None
            and abs(float(stored.target.mean()) - (games_full[e.id] or 0)) >= 1e-6
        ):
            raise SystemExit(
                f"{e.id}: its games record's targets are not its journals' refit: make casebases"
            )


def range_of(changes: list[float]) -> str:
    """The mean and range of ``changes`` (percent); empty where no expert has a games record."""
    return (
        f"{np.mean(changes):+.1f} % ({min(changes):+.1f}..{max(changes):+.1f})" if changes else ""
    )


def sizes_within(total: int, sizes: list[int], what: str) -> list[int]:
    """``total`` (the whole record) and those of ``sizes`` below it; the others said on stderr, left
    out."""
    if over := [n for n in sizes if n >= total]:
        print(
            f"{what} holds {total} positions: --sizes {' '.join(map(str, over))} left out",
            file=sys.stderr,
        )
    return [total, *(n for n in sizes if n < total)]


def on_line(line: tuple[float, float], loss: float) -> float:
    """The rating ``line`` gives an expected loss (as engine.strength.rating.rating_of reads its
    own)."""
    return line[0] + line[1] * math.log(100 * loss)
