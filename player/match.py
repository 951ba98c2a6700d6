"""Stage 6 of ``cbr-chess new``, the calibration match (docs/usage.md, "A new player's engine"): its
opponent, the shipped expert nearest the player's rating (built from its games where the casebase
folder has none), the match's settings, and the games record it adds to the profile."""

from __future__ import annotations

import csv
from pathlib import Path

from casebase.format import Casebase
from casebase.profilefile import profile_path
from casebase.shipped import REGISTRY, shipped_data, shipped_experts
from common.paths import casebase_folder
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from engine.strength.profile import Profile
from player.rating import estimate
from player.shipped import make_casebase, shipped_profile
from player.stages import Folder, Options, judging_where
from profiling.games import add_games
from profiling.play import PlaySettings
from tournament.players import casebase_entrant
from tournament.runner import TournamentSettings, run

#: The shipped experts' registry and games (the calibration match's opponents; an installed engine's
#: copy).
EXPERTS = shipped_data() / REGISTRY


def rating_band(expert_id: str) -> int | None:
    """The rating band an expert's id ends in (``ivanchuk-2700``: 2700)."""
    digits = expert_id.rsplit("-", 1)[-1]
    return int(digits) if digits.isdigit() else None


def nearest_expert(rating: float) -> str:
    """The shipped FIDE-rated expert whose band is nearest ``rating`` (data/experts.tsv)."""
    with open(EXPERTS, newline="", encoding="utf-8") as f:
        bands = {
            row["file"]: band
            for row in csv.DictReader(f, delimiter="\t")
            if row["rating_system"] == "FIDE" and (band := rating_band(row["file"])) is not None
        }
    return min(bands, key=lambda expert: (abs(bands[expert] - rating), expert))


def opponent(options: Options, folder: Folder) -> Path:
    """The calibration match's opponent: ``--opponent``, else the shipped expert nearest the
    player's rating (the implied one with the headers' prior, :mod:`player.rating`; its casebase
    from the casebase folder, else built from its PGN)."""
    if options.opponent is not None:
        return options.opponent
    casebase = Casebase.load(folder.casebase)
    profile = Profile.of(casebase)
    assert profile is not None
    expert = nearest_expert(estimate(casebase, profile).rating)
    shipped = casebase_folder() / f"{expert}.npz"
    if shipped.exists():
        return shipped
    made = folder.root / "opponent" / f"{expert}.npz"
    if not made.exists():
        make_casebase(shipped_experts()[expert], made, options.workers)
    if not profile_path(made).exists():
        shipped_profile(made, expert)
    return made


def match_settings(options: Options, folder: Folder) -> TournamentSettings:
    """The calibration match: the player's calibrated engine against the opponent, colours
    alternating, at ``tc`` with the judge (Selection auto: calibrated where a profile is)."""
    return TournamentSettings(
        entrants=(casebase_entrant(folder.casebase), casebase_entrant(opponent(options, folder))),
        configs=tuple(parse_configurations(["balanced"])),
        rounds=max(1, options.games // 2),
        mode="guided",
        control=TimeControl.parse(options.tc),
        event=f"cbr-chess new: {options.player}'s calibration match",
        judge=options.judge,
    )


def calibration_match(options: Options, folder: Folder) -> list[Path]:
    """(6) The calibration match (resumable per game), then its games record stored with the profile
    (the engine's choices in positions of its own games), both on Ray with ``--cluster``."""
    pgn = run(
        match_settings(options, folder),
        folder.match,
        workers=options.workers,
        progress=False,
        cluster=options.cluster,
    )
    add_games(
        Casebase.load(folder.casebase),
        [pgn],
        folder.slug,
        PlaySettings(options.record_positions, options.judge_depth),
        options.judge,
        folder.journal("games"),
        folder.journal("games.play"),
        progress=False,
        where=judging_where(options),
        cache=options.cache,
    )
    return [
        pgn,
        folder.journal("games"),
        folder.journal("games.play"),
        profile_path(folder.casebase),
    ]
