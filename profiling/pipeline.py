"""Making an expert's error profile: judge the sampled positions (resuming the journal), fit the
error model, and store the profile in its own file beside the casebase (``X.profile.npz``),
atomically (docs/strength.md §1); then, where asked, the play-time record with it (§3).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.format import Casebase, CasebaseError, encode_move
from casebase.profile_checks import MAX_PRIOR_WEIGHT
from common.files import file_sha256
from engine.strength.likelihood import likelihood_fit
from engine.strength.profile import Profile, position
from engine.style.loader import PriorModel, load_model
from engine.style.personal import choose_model, model_sha256
from profiling import ProfileError
from profiling.journal import JOURNAL, Journal
from profiling.judging import Settings, analyse
from profiling.play import PlaySettings, play_arrays, record_play
from profiling.workers import HERE, Where


def make_profile(
    casebase: Casebase,
    settings: Settings,
    judge: str | None,
    journal_path: Path | None = None,
    *,
    progress: bool = True,
    where: Where = HERE,
    cache: Path | None = None,
) -> Profile:
    """Judge (resuming the journal, on the workers or cluster of ``where``, with the judged
    positions' ``cache`` folder where one is named: :mod:`profiling.cache`), fit, and store the
    profile beside the casebase file.

    The default journal (``FILE.profile.jsonl`` beside the casebase) is removed once the profile
    is stored; one named by ``journal_path`` is kept."""
    if casebase.path is None:
        raise ProfileError("the casebase has no file to store its profile in")
    keep = journal_path is not None
    journal_path = journal_path or casebase.path.with_suffix(".profile.jsonl")
    header = {"journal": JOURNAL, "expert": casebase.expert, **settings.header()}
    journal = Journal(journal_path, header)
    judged = analyse(
        casebase, journal, settings, judge, progress=progress, where=where, cache=cache
    )
    if not judged:
        raise ProfileError("no position could be judged")
    for row, entry in judged:  # the journal must be of this very expert's games
        board = position(casebase, row)
        if (
            entry["fen"].split()[:2] != board.fen().split()[:2]
            or entry["moves"][entry["played"]] != casebase.move(row).uci()
        ):
            raise ProfileError(
                f"{journal_path}: case {entry['key']} is another position or move than"
                f" the casebase's case {row}: a journal of other games"
            )
    profile = profile_of(
        casebase,
        judged,
        {**journal.header, "seed": settings.seed, "first_move": settings.first_move},
    )
    # what it was fitted from
    profile.meta["journal"] = {"name": journal_path.name, "sha256": file_sha256(journal_path)}
    store(casebase, profile)
    if not keep:
        journal_path.unlink(missing_ok=True)
    return profile


def profile_of(
    casebase: Casebase, judged: list[tuple[int, dict[str, Any]]], header: dict[str, Any]
) -> Profile:
    """The profile of the judged positions (rows of ``casebase`` and their journal entries), with
    the journal's ``header`` and the fitted summary as its ``meta``."""
    profile = judged_profile(casebase, judged)
    profile.meta = {**{k: v for k, v in header.items() if k != "journal"}, **profile.summary()}
    return profile


def judged_profile(casebase: Casebase, judged: list[tuple[int, dict[str, Any]]]) -> Profile:
    """The judged positions (rows of ``casebase`` and their journal entries) as a profile's arrays,
    not fitted (``meta`` empty): what the fit and the games record's targets are made from."""
    entries = [entry for _, entry in judged]
    width = max(len(entry["moves"]) for entry in entries)
    moves = np.zeros((len(entries), width), np.uint16)
    scores = np.zeros((len(entries), width), np.int32)
    for i, entry in enumerate(entries):
        moves[i, : len(entry["moves"])] = [
            encode_move(chess.Move.from_uci(m)) for m in entry["moves"]
        ]
        scores[i, : len(entry["scores"])] = entry["scores"]
    rows = np.array([row for row, _ in judged], np.int32)
    played = np.array([entry["played"] for entry in entries], np.int16)
    return Profile(casebase, rows, moves, scores, played, {})


def add_play(
    casebase: Casebase,
    settings: PlaySettings,
    judge: str | None,
    journal_path: Path,
    *,
    progress: bool = True,
    where: Where = HERE,
) -> Profile:
    """Record the engine's play-time choices on the casebase's profile positions (resuming the
    journal, which is kept; on the workers or cluster of ``where``) and store them with its
    profile (docs/strength.md §3)."""
    profile = Profile.of(casebase)
    if profile is None:
        raise ProfileError(
            "the casebase has no error profile to record the play-time choices on: profile it first"
        )
    journal = Journal(journal_path, settings.header(casebase, profile))
    entries = record_play(
        casebase, profile, settings, judge, journal, progress=progress, where=where
    )
    arrays = play_arrays(entries)
    profile.meta = {
        **profile.meta,
        "play": {
            "positions": len(entries),
            "judge_depth": settings.judge_depth,
            "seed": settings.seed,
            "judge": journal.header.get("judge"),
            "fit": _default_fit(casebase, profile),
        },
    }
    store(casebase, profile, arrays, journal.header.get("model"))
    return profile


def _played_model(casebase: Casebase) -> PriorModel:
    """The model the engine plays the casebase with by default (``Model auto``): the records'
    model."""
    choice = choose_model(casebase)
    model = choice.model if choice.model is not None else load_model(choice.path)
    assert model.path is not None
    return model


def _default_fit(casebase: Casebase, profile: Profile) -> dict[str, Any] | None:
    """The calibrated choice's likelihood fit with the model the engine plays by default (``Model
    auto``), and that model's SHA-256: the engine reads it instead of fitting again
    (engine.strength.likelihood.stored_fit). None where the fit is not usable (a handful of
    positions may drive it to an infinite consistency): the engine then fits at play time, and says
    why it cannot calibrate."""
    model = _played_model(casebase)
    assert model.path is not None
    found = likelihood_fit(profile, model)
    numbers = {
        "sensitivity": found.model.sensitivity,
        "consistency": found.model.consistency,
        "prior_weight": found.model.prior_weight,
        "expected_loss": found.expected,
    }
    usable = (
        all(math.isfinite(x) for x in numbers.values())
        and numbers["sensitivity"] > 0
        and numbers["consistency"] > 0
        and abs(numbers["prior_weight"]) <= MAX_PRIOR_WEIGHT
    )
    return (
        {**numbers, "positions": found.positions, "model": file_sha256(model.path)}
        if usable
        else None
    )


def store(
    casebase: Casebase,
    profile: Profile,
    play: dict[str, np.ndarray] | None = None,
    made_with: str | None = None,
) -> None:
    """Write ``profile`` and its records of the engine's choices (``play``: the play-time and games
    records' arrays) if any beside the casebase file (``X.profile.npz``, atomically), with its
    provenance: the casebase's SHA-256 and, with records, the SHA-256 of the model they were made
    with (``made_with``, as their journals say; None, a journal made before they said: the model
    played now)."""
    assert casebase.path is not None
    try:
        updated = casebase.with_profile(profile.meta, {**profile.arrays(), **(play or {})})
    except CasebaseError as exc:
        raise ProfileError(f"the profile does not fit the casebase: {exc}") from exc
    if play and made_with is None:
        made_with = model_sha256(casebase)
    updated.save_profile(made_with if play else None)
