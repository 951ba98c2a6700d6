"""The games record: the engine's own choices in positions of its own games, for the play-time
calibration (docs/strength.md §3, issue #29).

The play-time record (:mod:`profiling.play`) holds the engine's choices in the expert's positions.
But the engine plays other positions: those its games bring, which are easier than the expert's
(its choices there lost from 16 % less to 21 % more than the expert's fitted model would, in a
round robin of the seven ladder engines calibrated on the expert's positions alone). So positions
of the engine's own games (a round robin's PGN, the engine's name as the player) are judged as
the profile judges the expert's (MultiPV at its depth: :mod:`profiling.intrinsic`), the engine's
choices there are recorded as the play-time record's are (:func:`profiling.play.record_play`),
and each position gets its target: the loss the expert's fitted model (the profile's s and c)
expects there. :mod:`engine.strength.calibration` then sets the sensitivity on this record (the
play-time record is the check on the expert's own positions). Both journals are kept and resumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from casebase.format import Casebase
from casebase.profile_checks import PLAY_DTYPES
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import Profile
from profiling import ProfileError
from profiling.intrinsic import Games, judge_games, read_games
from profiling.journal import Journal
from profiling.judging import DEPTH, MULTIPV, Settings
from profiling.pipeline import store
from profiling.play import PlaySettings, play_arrays, record_play
from profiling.workers import HERE, Where


def targets(profile: Profile, positions: Profile) -> np.ndarray:
    """The loss the expert's fitted model (``profile``'s s and c) expects in each of
    ``positions``."""
    fitted = profile.meta["fit"]
    model = ErrorModel(float(fitted["sensitivity"]), float(fitted["consistency"]))
    loss = positions.loss
    return np.asarray((model.probabilities(loss) * np.nan_to_num(loss)).sum(axis=-1))


def choices_in(
    casebase: Casebase,
    games: Games,
    settings: PlaySettings,
    judge: str | None,
    judged_path: Path,
    play_path: Path,
    *,
    depth: int = DEPTH,
    multipv: int = MULTIPV,
    progress: bool = True,
    where: Where = HERE,
    cache: Path | None = None,
) -> tuple[Profile, list[dict[str, Any]], str | None]:
    """The first ``settings.positions`` of the moves of ``games`` (a seeded sample from move 9)
    judged as a profile's (resuming the journal ``judged_path``; with the judged positions'
    ``cache`` folder where one is named), the engine's choices on ``casebase`` there
    (:func:`profiling.play.record_play`, resuming ``play_path``), both on the workers or cluster of
    ``where``, and the SHA-256 of the style model that made the choices (as their journal says;
    None: a journal made before it said)."""
    judged, _ = judge_games(
        games,
        Settings(positions=settings.positions, depth=depth, multipv=multipv),
        judge,
        judged_path,
        progress=progress,
        where=where,
        cache=cache,
    )
    journal = Journal(play_path, settings.header(casebase, judged))
    entries = record_play(
        casebase, judged, settings, judge, journal, progress=progress, where=where
    )
    return judged, entries, journal.header.get("model")


def add_games(
    casebase: Casebase,
    paths: Sequence[str | Path],
    player: str,
    settings: PlaySettings,
    judge: str | None,
    judged_path: Path,
    play_path: Path,
    *,
    progress: bool = True,
    where: Where = HERE,
    cache: Path | None = None,
) -> Profile:
    """Judge the first ``settings.positions`` of ``player``'s moves in ``paths`` (a seeded sample
    from move 9, resuming the journal ``judged_path``; with the judged positions' ``cache`` folder
    where one is named), record the engine's choices there (resuming ``play_path``; both on the
    workers or cluster of ``where``), and store them with the casebase's profile, beside its
    play-time record."""
    profile = Profile.of(casebase)
    if profile is None:
        raise ProfileError(
            "the casebase has no error profile to record the games beside: profile it first"
        )
    games = read_games(paths, player, exact=True, progress=False)
    judged, entries, made_with = choices_in(
        casebase,
        games,
        settings,
        judge,
        judged_path,
        play_path,
        depth=int(profile.meta.get("depth", DEPTH)),
        multipv=int(profile.meta.get("multipv", MULTIPV)),
        progress=progress,
        where=where,
        cache=cache,
    )
    n = len(entries)
    arrays = {
        name.replace("_play_", "_games_"): array for name, array in play_arrays(entries).items()
    }
    arrays["profile_games_best"] = judged.scores[:n, 0].astype(np.int32)
    arrays["profile_games_target"] = targets(profile, judged.first(n)).astype(np.float32)
    play = {
        name: np.asarray(casebase.profile[name])
        for name in PLAY_DTYPES
        if casebase.profile and name in casebase.profile
    }
    profile.meta = {
        **profile.meta,
        "games": {
            "positions": n,
            "judge_depth": settings.judge_depth,
            "seed": settings.seed,
            "judge": judged.meta.get("judge"),
            "player": games.player,
            "files": [Path(p).name for p in paths],
        },
    }
    stored = profile.records_model  # the play-time record's, kept beside the games
    if play and made_with is not None and stored is not None and made_with != stored:
        raise ProfileError(
            f"{play_path}: the engine's games were played with another style model"
            f" ({made_with[:12]}…) than its play-time record ({stored[:12]}…): record them with the"
            " same one"
        )
    store(casebase, profile, {**play, **arrays}, made_with)
    return profile
