"""Damaged copies of sound files, as a user's disk, an editor or another program leaves them:
personal models (issue #28, item 4) and casebases whose error profile is damaged (item 5), or
made for other cases (issue #39)."""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from casebase.profilefile import profile_path


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def damaged_model(sound: Path, damage: str) -> bytes:
    """The bytes of the model file ``sound`` with ``damage`` (one of :data:`MODEL_DAMAGE`)."""
    raw = sound.read_bytes()
    if damage == "truncated":
        return raw[: len(raw) // 2]
    if damage == "random bytes":
        return np.random.default_rng(28).integers(0, 256, len(raw), dtype=np.uint8).tobytes()
    if damage == "empty":
        return b""
    with np.load(sound) as npz:
        arrays = dict(npz)
    head = next(name for name in arrays if name.startswith("head.w"))
    if damage == "wrong shapes":
        arrays[head] = np.zeros((3, 3), np.float16)
    elif damage == "NaN weights":
        weights = arrays[head].copy()
        weights.flat[::7] = np.nan
        arrays[head] = weights
    else:
        raise ValueError(damage)
    return npz_bytes(arrays)


#: Each damaged model, and what the refusal says of it.
MODEL_DAMAGE = {
    "truncated": "not a model file, or a damaged one",
    "random bytes": "not a model file, or a damaged one",
    "wrong shapes": "has shape (3, 3), expected",
    "NaN weights": "holds values that are not finite",
    "empty": "not a model file, or a damaged one",
}


def rewrite_npz(
    source: Path, target: Path, meta: Callable[[Any], Any] | None = None, **arrays: np.ndarray
) -> Path:
    """A copy of the ``.npz`` file ``source`` at ``target``, its metadata made ``meta(metadata)``
    and the members ``arrays`` replaced, byte for byte otherwise: no check of the casebase code is
    passed."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as dst:
        for item in src.infolist():
            name = item.filename.removesuffix(".npy")
            if name == "meta" and meta is not None:
                with src.open(item) as f:
                    value = np.array(json.dumps(meta(json.loads(str(np.lib.format.read_array(f))))))
            elif name in arrays:
                value = arrays[name]
            else:
                dst.writestr(item, src.read(item))
                continue
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, value, allow_pickle=False)
            dst.writestr(item, buffer.getvalue())
    return target


def copy_profiled(source: Path, target: Path) -> Path:
    """A copy of the casebase file ``source`` at ``target``, with its profile file beside where it
    has one."""
    shutil.copy(source, target)
    if profile_path(source).is_file():
        shutil.copy(profile_path(source), profile_path(target))
    return target


def profile_arrays(path: Path) -> dict[str, np.ndarray]:
    """The stored ``profile_*`` arrays of the profile file (or old casebase file) ``path``."""
    with zipfile.ZipFile(path) as zf:
        return {
            name.removesuffix(".npy"): np.lib.format.read_array(zf.open(name))
            for name in zf.namelist()
            if name.startswith("profile_")
        }


def _description(
    change: Callable[[dict[str, Any]], None],
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def changed(description: dict[str, Any]) -> dict[str, Any]:
        change(description)
        return description

    return changed


def damage_profile(sound: Path, target: Path, damage: str) -> Path:
    """A copy of the profiled casebase ``sound`` (and its profile file beside) at ``target``, whose
    profile has ``damage`` (one of :data:`PROFILE_DAMAGE`)."""
    arrays = profile_arrays(profile_path(sound))
    scores = arrays["profile_scores"]
    changes: dict[str, Any] = {
        "meta garbage": {"meta": lambda meta: "garbage"},
        "fit garbage": {"meta": _description(lambda d: d.update(fit="garbage"))},
        "empty arrays": {name: array[:0] for name, array in arrays.items()},
        "moves all 65535": {"profile_moves": np.full_like(arrays["profile_moves"], 65535)},
        "scores of +-2^31": {
            "profile_scores": np.where(
                np.indices(scores.shape).sum(axis=0) % 2, 2**31 - 1, -(2**31)
            ).astype(np.int32)
        },
        "constant scores": {"profile_scores": np.full_like(scores, 17)},
        "NaN fit": {"meta": _description(lambda d: d["fit"].update(sensitivity=float("nan")))},
        "text interval": {"meta": _description(lambda d: d["rating"].update(bootstrap_low="2300"))},
        "play priors above 1": {"profile_play_prior": arrays["profile_play_prior"] * 3 + 0.5},
        "play scores cut": {"profile_play_scores": arrays["profile_play_scores"][:, :1]},
        "play positions": {"meta": _description(lambda d: d["play"].update(positions=7))},
        "play fit garbage": {
            "meta": _description(lambda d: d["play"]["fit"].update(consistency="x"))
        },
        "play fit prior weight": {
            "meta": _description(lambda d: d["play"]["fit"].update(prior_weight=-1e300))
        },
        "play arrays emptied": {
            name: array[:0, :0] for name, array in arrays.items() if "_play_" in name
        },
        "games targets above 1": {"profile_games_target": arrays["profile_games_target"] + 2},
        "games best cut": {"profile_games_best": arrays["profile_games_best"][:3]},
        "games undescribed": {"meta": _description(lambda d: d.pop("games"))},
        "another casebase's": {
            "meta": _description(lambda d: d["provenance"].update(casebase_sha256="0" * 64))
        },
        "no provenance": {"meta": _description(lambda d: d.pop("provenance"))},
    }[damage]
    os.makedirs(target.parent, exist_ok=True)
    shutil.copy(sound, target)
    rewrite_npz(profile_path(sound), profile_path(target), **changes)
    return target


#: The profile file of another casebase (built again differently): refused, and replaced by
#: profiling.
STALE = "another casebase's"
#: Each damaged profile, and what the refusal says of it.
PROFILE_DAMAGE = {
    "meta garbage": "the error profile's description in the metadata is a str, not a JSON object",
    "fit garbage": "the error profile's 'fit' is a str, not a JSON object",
    "empty arrays": "the error profile holds no judged position",
    "moves all 65535": "the error profile's judged move 65535 (position 0) is not a move",
    "scores of +-2^31": "lies beyond the mate score",
    "constant scores": (
        "every judged move of the error profile scores the same as its position's best"
    ),
    "NaN fit": "the error profile's fit sensitivity is nan, not a finite number",
    "text interval": "the error profile's rating bootstrap_low is '2300', not a finite number",
    "play priors above 1": "the play-time record's priors are not all numbers within 0..1",
    "play scores cut": "play-time record array 'profile_play_scores' has dtype int32 and shape",
    "play positions": "the play-time record's description says 7 positions, its arrays hold 400",
    "play arrays emptied": "the play-time record holds 0 positions of 0 moves",
    "play fit garbage": "the play-time record's fit consistency is 'x', not a finite number",
    "play fit prior weight": "its prior weight within ±20.0",
    "games targets above 1": "the games record's target losses are not all numbers within 0..1",
    "games best cut": "games record array 'profile_games_best' has dtype int32 and shape (3,)",
    "games undescribed": "the error profile's description has no games record 'games'",
    "another casebase's": (
        "made for another casebase (kosteniuk-2200.npz, SHA-256 000000000000…) than this one"
    ),
    "no provenance": "the error profile has no provenance",
}
