"""The error profile's arrays, their dtypes, and the checks they must pass with the cases they
judge.

The profile is a file of its own beside the casebase (:mod:`casebase.profilefile`; a casebase of
the format before issue #39 may still hold it inside). :func:`check_profile` is what every profile
made or read passes: one being made is refused on its first fault, while a casebase read from a file
keeps its cases and only loses the profile, with the reason (``Casebase.profile_problem``).
:func:`casebase.profile_provenance.check_provenance` says whether a profile file was made for
this very casebase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from casebase.checks import PROMOTIONS, CasebaseError, check_numbers, kind, shown
from casebase.speed import SPEEDS, UNKNOWN

#: The error profile's arrays (version 2), all present or none.
PROFILE_DTYPES = {
    "profile_row": np.int32,
    "profile_moves": np.uint16,
    "profile_scores": np.int32,
    "profile_played": np.int16,
}
#: The play-time record (issue #29), optional, all present or none: for the profile's first Q
#: positions, the moves the engine's judge scored exactly as it plays (Q×W, encoded as
#: ``profile_moves``, best first is not required), their play-time scores, the prior proposed for
#: each, and each move's score as the profile's judge gives it.
PLAY_DTYPES = {
    "profile_play_moves": np.uint16,
    "profile_play_scores": np.int32,
    "profile_play_prior": np.float32,
    "profile_play_judged": np.int32,
}
#: The games record (issue #29), optional, all present or none: the same for R positions of the
#: engine's own games (``python -m profiling --games``), with each position's best score by the
#: profile's judge and the loss the expert's fitted model expects there (the calibration's target).
GAMES_DTYPES = {
    "profile_games_moves": np.uint16,
    "profile_games_scores": np.int32,
    "profile_games_prior": np.float32,
    "profile_games_judged": np.int32,
    "profile_games_best": np.int32,
    "profile_games_target": np.float32,
}
#: The profile's scores are the judge's, as the engine reads every score: centipawns, mates beyond
#: them up to the mate score (``engine.search.scores.MATE``; this layer cannot import it).
SCORE_BOUND = 100_000


def check_profile(
    profile: Mapping[str, np.ndarray] | None,
    meta: Mapping[str, Any],
    cases: Mapping[str, np.ndarray],
) -> None:
    """The error profile's arrays (:data:`PROFILE_DTYPES`) and ``meta["profile"]``, both or neither:
    of one length, naming cases among ``cases`` (by the names of :data:`CASE_DTYPES`), real moves
    best first with the case's own move among them, scores a judge can give, and a description
    with a usable fit. Raise :class:`CasebaseError` saying what is wrong; a casebase read from a
    file keeps its cases and only drops such a profile (``Casebase.profile_problem``)."""
    if profile is None:
        if "profile" in meta:
            raise CasebaseError("metadata describes an error profile whose arrays are missing")
        return
    if "profile" not in meta:
        raise CasebaseError("error profile arrays without their description in the metadata")
    if not isinstance(meta["profile"], dict):
        raise CasebaseError(
            f"the error profile's description in the metadata is a {kind(meta['profile'])},"
            " not a JSON object"
        )
    p = len(profile["profile_row"])
    k = profile["profile_moves"].shape[-1] if profile["profile_moves"].ndim == 2 else -1
    for name, dtype in PROFILE_DTYPES.items():
        array = profile[name]  # the records' arrays are _check_play's and _check_games's
        shape = (p, k) if name in ("profile_moves", "profile_scores") else (p,)
        if array.dtype != dtype or array.shape != shape:
            raise CasebaseError(
                f"profile array {name!r} has dtype {array.dtype} and shape {array.shape},"
                f" expected {np.dtype(dtype)} of shape {shape}"
            )
    if p == 0 or k == 0:
        raise CasebaseError("the error profile holds no judged position")
    _check_profile_moves(profile, cases)
    _check_profile_scores(profile)
    _check_profile_meta(meta["profile"], p)
    _check_play(profile, meta["profile"], p)
    _check_games(profile, meta["profile"])


def _check_play(profile: Mapping[str, np.ndarray], description: Mapping[str, Any], p: int) -> None:
    """The play-time record (:data:`PLAY_DTYPES`), where there is one: all four arrays of one
    shape, at most the profile's positions, real moves with none missing before the last, scores
    a judge can give, priors within 0..1, and its description (``positions``, ``judge_depth``)."""
    play = _check_record(profile, description, PLAY_DTYPES, "play", "play-time record")
    if play is not None:
        if len(profile["profile_play_moves"]) > p:
            raise CasebaseError(
                f"the play-time record holds {len(profile['profile_play_moves'])} positions: no"
                f" more than the profile's {p}"
            )
        _check_stored_fit(play.get("fit"))


def _check_games(profile: Mapping[str, np.ndarray], description: Mapping[str, Any]) -> None:
    """The games record (:data:`GAMES_DTYPES`), where there is one: as a play-time record, with each
    position's best score a judge can give and a target loss within 0..1."""
    if _check_record(profile, description, GAMES_DTYPES, "games", "games record") is None:
        return
    if (np.abs(profile["profile_games_best"].astype(np.int64)) > SCORE_BOUND).any():
        raise CasebaseError(
            f"the games record's best scores lie beyond the mate score (±{SCORE_BOUND:,} cp)"
        )
    target = profile["profile_games_target"]
    if not (np.isfinite(target) & (target >= 0) & (target <= 1)).all():
        raise CasebaseError("the games record's target losses are not all numbers within 0..1")


def _check_record(
    profile: Mapping[str, np.ndarray],
    description: Mapping[str, Any],
    dtypes: Mapping[str, type],
    key: str,
    what: str,
) -> dict[str, Any] | None:
    """A record of the engine's own choices (``dtypes``, named ``profile_KEY_*``), where there is
    one: its arrays, the moves' four of one shape and the others one value a position, real moves
    with none missing before the last, scores a judge can give, priors within 0..1, and its
    description ``description[key]`` (``positions``, ``judge_depth``), which is returned."""
    present = [name for name in dtypes if name in profile]
    if not present:
        if key in description:
            raise CasebaseError(
                f"the error profile's description has a {what} whose arrays are missing"
            )
        return None
    if len(present) < len(dtypes):
        raise CasebaseError(f"the {what} is incomplete (has only {', '.join(present)})")
    shape = profile[f"profile_{key}_moves"].shape
    for name, dtype in dtypes.items():
        expected = (
            shape if name.rsplit("_", 1)[1] in ("moves", "scores", "prior", "judged") else shape[:1]
        )
        if profile[name].dtype != dtype or profile[name].shape != expected or len(shape) != 2:
            raise CasebaseError(
                f"{what} array {name!r} has dtype {profile[name].dtype} and shape"
                f" {profile[name].shape}, expected {np.dtype(dtype)} of the moves'"
                f" {'two-dimensional shape' if expected == shape else 'length'}"
            )
    q, w = shape
    if not q or not w:
        raise CasebaseError(f"the {what} holds {q} positions of {w} moves: at least one")
    codes = profile[f"profile_{key}_moves"].astype(np.int64)
    moved = _check_moves(codes, f"a position of the {what} has no move", f"the {what}'s move")
    for field in ("scores", "judged"):
        if (
            moved & (np.abs(profile[f"profile_{key}_{field}"].astype(np.int64)) > SCORE_BOUND)
        ).any():
            raise CasebaseError(
                f"the {what}'s {field} scores lie beyond the mate score (±{SCORE_BOUND:,} cp)"
            )
    prior = profile[f"profile_{key}_prior"]
    if not (np.isfinite(prior) & (prior >= 0) & (prior <= 1))[moved].all():
        raise CasebaseError(f"the {what}'s priors are not all numbers within 0..1")
    record = description.get(key)
    if not isinstance(record, dict):
        raise CasebaseError(
            f"the error profile's description has no {what} {key!r}"
            if record is None
            else f"the error profile's {key!r} is a {kind(record)}, not a JSON object"
        )
    if record.get("positions") != q:
        raise CasebaseError(
            f"the {what}'s description says {shown(record.get('positions'))} positions,"
            f" its arrays hold {q}"
        )
    depth = record.get("judge_depth")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise CasebaseError(
            f"the {what}'s judge depth is {shown(depth)}, not a positive whole number"
        )
    return record


#: The likelihood fit a play-time record may store (the engine reads it instead of fitting again).
STORED_FIT = ("sensitivity", "consistency", "prior_weight", "expected_loss", "positions")
#: The largest prior weight a stored fit may have (the shipped experts' are about 0.5; a weight of
#: hundreds makes every chance 0 or 1 and the sensitivity impossible to set).
MAX_PRIOR_WEIGHT = 20.0


def _check_stored_fit(fit: Any) -> None:
    """A stored fit, where there is one: finite numbers, a positive sensitivity and consistency, and
    the SHA-256 of the model it was made with."""
    if fit is None:
        return
    if not isinstance(fit, dict):
        raise CasebaseError(f"the play-time record's fit is a {kind(fit)}, not a JSON object")
    check_numbers(fit, STORED_FIT, "the play-time record's fit")
    if (
        fit["sensitivity"] <= 0
        or fit["consistency"] <= 0
        or abs(fit["prior_weight"]) > MAX_PRIOR_WEIGHT
    ):
        raise CasebaseError(
            "the play-time record's fit is not usable (its sensitivity and consistency must be"
            f" positive, its prior weight within ±{MAX_PRIOR_WEIGHT})"
        )
    if isinstance(fit["positions"], float) or fit["positions"] < 1:
        raise CasebaseError(
            f"the play-time record's fit has {shown(fit['positions'])} positions, not a"
            " positive whole number"
        )
    if not isinstance(fit.get("model"), str):
        raise CasebaseError(
            f"the play-time record's fit names its model by {shown(fit.get('model'))}, not a"
            " SHA-256"
        )


def _check_moves(codes: np.ndarray, empty: str, what: str) -> np.ndarray:
    """Rows of move codes, 0 for none: each row has a first move and no gap before its last (else
    ``empty``), and every code present is a move (from and to squares apart, a promotion
    knight..queen or none; else ``what`` and the code). Returns where moves are."""
    present = codes != 0
    if not present[:, 0].all() or (present[:, 1:] & ~present[:, :-1]).any():
        raise CasebaseError(f"{empty}, or a gap among them")
    from_square, to_square, promotion = codes & 63, codes >> 6 & 63, codes >> 12
    bad = present & ((from_square == to_square) | ~np.isin(promotion, PROMOTIONS))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise CasebaseError(
            f"{what} {codes[i, j]} (position {i}) is not a move: from"
            f" {from_square[i, j]} to {to_square[i, j]}, promotion {promotion[i, j]}"
        )
    return present


def _check_profile_moves(
    profile: Mapping[str, np.ndarray], cases: Mapping[str, np.ndarray]
) -> None:
    """The cases named, the judged moves (real moves, best first, zeros only after the last) and
    the expert's among them: the case's own move."""
    n = len(cases["turn"])
    rows, played = profile["profile_row"], profile["profile_played"].astype(np.int64)
    if rows.min() < 0 or rows.max() >= n:
        raise CasebaseError(f"the error profile names a case outside 0..{n - 1}")
    codes = profile["profile_moves"].astype(np.int64)
    present = _check_moves(
        codes,
        "a position of the error profile has no judged move",
        "the error profile's judged move",
    )
    p = len(rows)
    if (
        played.min() < 0
        or played.max() >= codes.shape[1]
        or not present[np.arange(p), played].all()
    ):
        raise CasebaseError("the error profile's played move is not among its judged moves")
    own = (
        np.asarray(cases["from_square"])[rows].astype(np.int64)
        | np.asarray(cases["to_square"])[rows].astype(np.int64) << 6
        | np.asarray(cases["promotion"])[rows].astype(np.int64) << 12
    )
    wrong = np.flatnonzero(codes[np.arange(p), played] != own)
    if len(wrong):
        raise CasebaseError(
            f"the error profile's played move of position {wrong[0]} is not case"
            f" {rows[wrong[0]]}'s move ({len(wrong)} of {p} positions): a profile of other games"
        )


def _check_profile_scores(profile: Mapping[str, np.ndarray]) -> None:
    """Scores a judge gives (within the mate score), best first, not all alike."""
    present = profile["profile_moves"] != 0
    scores = profile["profile_scores"].astype(np.int64)
    beyond = present & (np.abs(scores) > SCORE_BOUND)
    if beyond.any():
        raise CasebaseError(
            f"the error profile's score {scores[beyond][0]} lies beyond the mate score"
            f" (±{SCORE_BOUND:,} cp)"
        )
    if ((scores[:, 1:] > scores[:, :-1]) & present[:, 1:]).any():
        raise CasebaseError("the error profile's judged moves are not best first")
    worst = np.where(present, scores, scores[:, :1]).min(axis=1)
    if not (worst < scores[:, 0]).any():
        raise CasebaseError(
            "every judged move of the error profile scores the same as its position's best:"
            " nothing to fit the error model to"
        )


#: What ``meta["profile"]`` must hold (numbers, finite) for the engine and ``casebase info`` to read
#: it.
PROFILE_META = {
    "fit": ("sensitivity", "consistency", "expected_loss", "mean_log_likelihood"),
    "rating": ("implied", "low", "high"),
    "all": ("mean_cp_loss", "mistakes", "first_choice"),
}
#: What it may hold besides (profiles stored before issue #29 lack the bootstrap's own interval).
PROFILE_META_OPTIONAL = {"rating": ("bootstrap_low", "bootstrap_high")}


def _check_profile_meta(description: Mapping[str, Any], p: int) -> None:
    """The description says as many positions as the arrays hold, and finite numbers where it is
    read: a fit with a positive sensitivity and consistency, the implied rating, the statistics;
    the same of each speed class's, where it has them (profiles made before issue #42 do not)."""
    if description.get("positions") != p:
        raise CasebaseError(
            f"the error profile's description says {shown(description.get('positions'))} positions,"
            f" its arrays hold {p}"
        )
    _check_fitted(description, "the error profile's")
    counts = description.get("speed_positions", {})
    if (
        not isinstance(counts, dict)
        or set(counts) - {*SPEEDS, UNKNOWN}
        or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts.values())
        or (counts and sum(counts.values()) != p)
    ):
        raise CasebaseError(
            f"the error profile's speed_positions are {shown(counts)}: not a count of each speed"
            f" class ({', '.join((*SPEEDS, UNKNOWN))}) adding up to its {p} positions"
        )
    speeds = description.get("speeds", {})
    if not isinstance(speeds, dict):
        raise CasebaseError(f"the error profile's 'speeds' is a {kind(speeds)}, not a JSON object")
    for speed, values in speeds.items():
        what = f"the error profile's {speed} speed"
        if speed not in SPEEDS:
            raise CasebaseError(
                f"the error profile has a fit of the speed {shown(speed)}: not one of"
                f" {', '.join(SPEEDS)}"
            )
        if not isinstance(values, dict):
            raise CasebaseError(f"{what} is a {kind(values)}, not a JSON object")
        if values.get("positions") != counts.get(speed):
            raise CasebaseError(
                f"{what} says {shown(values.get('positions'))} positions, its speed_positions"
                f" {shown(counts.get(speed))}"
            )
        _check_fitted(values, f"{what}'s")


def _check_fitted(values: Mapping[str, Any], what: str) -> None:
    """``values`` (a description, or its speed class's) holds finite numbers where they are read: a
    fit with a positive sensitivity and consistency, the implied rating, the statistics (``what``:
    whose)."""
    for part, keys in PROFILE_META.items():
        numbers = values.get(part)
        if not isinstance(numbers, dict):
            raise CasebaseError(
                f"{what} description has no {part!r}"
                if numbers is None
                else f"{what} {part!r} is a {kind(numbers)}, not a JSON object"
            )
        check_numbers(
            numbers,
            keys + tuple(k for k in PROFILE_META_OPTIONAL.get(part, ()) if k in numbers),
            f"{what} {part}",
        )
    fit = values["fit"]
    if fit["sensitivity"] <= 0 or fit["consistency"] <= 0:
        raise CasebaseError(
            f"{what} fit is not usable (sensitivity {fit['sensitivity']},"
            f" consistency {fit['consistency']}: both must be positive)"
        )
