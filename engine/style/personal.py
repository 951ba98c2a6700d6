"""Which style model proposes for a casebase: the expert's own network, else the shipped default
network; where no lc0 network is shipped, the expert's personal 8x96 where there is one.

The ``Model`` option's default, ``auto``, means the expert's own lc0 network (made by ``python -m
learn personalise``) when one is found for the casebase, else the shipped default network (the
master network, else Maia-1900: :func:`engine.style.loader.default_model`); where no network is
shipped, the casebase's personal 8x96 when one is found for it, else the shipped generic 8x96. A
model file named explicitly always wins. An own network is looked for beside the casebase as
``X.pb.gz`` (with the ``X.toml`` that says whose it is), then among the shipped ones
(``engine/style/models/personal/X.pb.gz``). A personal 8x96 is looked for

1. beside the casebase, as ``X.model.npz`` for ``X.npz`` (where ``learn personalise`` writes it);
2. among the shipped personal models, ``engine/style/models/personal/X.npz`` (``make personal``),

and is used only if it was made from this very casebase (same expert, cases, games, source
files and build options): a personal model made from all of an expert's games must not play
on a casebase that keeps some of them aside, as the fidelity bench's does. One that cannot be
read is refused with its reason, and the generic model plays: one beside the casebase is the
user's own, and playing the shipped personal model in its place would hide that it is broken.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from casebase.embeddings import SUFFIX as EMBED_SUFFIX
from casebase.format import Casebase
from casebase.profilefile import SUFFIX as PROFILE_SUFFIX
from common.files import file_sha256
from common.text import clip
from engine.style.lc0 import FORWARD, is_network, provenance
from engine.style.lc0 import SUFFIX as NETWORK_SUFFIX
from engine.style.loader import default_model
from engine.style.model import ModelError, StyleModel, generic_model

#: How a personal model beside its casebase ``X.npz`` is named: ``X.model.npz``.
SUFFIX = ".model.npz"


def casebase_files(paths: Iterable[Path]) -> list[Path]:
    """The casebases among ``paths``: a folder's ``*.npz`` also holds the personal models
    (``X.model.npz``), error profiles (``X.profile.npz``) and embeddings (``X.embed.npz``) that sit
    beside their casebases."""
    return [
        path for path in paths if not path.name.endswith((SUFFIX, PROFILE_SUFFIX, EMBED_SUFFIX))
    ]


def personal_folder() -> Path:
    """The shipped personal models (package data of :mod:`engine.style`)."""
    return Path(str(importlib.resources.files("engine.style") / "models" / "personal"))


def beside(casebase_path: str | Path) -> Path:
    """Where ``learn personalise`` writes the personal model of the casebase at
    ``casebase_path``."""
    path = Path(casebase_path)
    return path.with_name(path.stem + SUFFIX)


def candidates(casebase_path: str | Path) -> list[Path]:
    """Where the personal model of the casebase at ``casebase_path`` is looked for, in order
    (nowhere for an empty path)."""
    if not Path(casebase_path).name:
        return []
    return [beside(casebase_path), personal_folder() / Path(casebase_path).name]


def casebase_identity(casebase: Casebase) -> dict[str, Any]:
    """What a personal model records of the casebase it was made from (JSON-ready)."""
    return {
        "expert": casebase.expert,
        "cases": len(casebase),
        "games": casebase.num_games,
        "sources": [str(s.get("sha256")) for s in casebase.meta.get("sources", [])],
        "options": casebase.meta.get("options", {}),
    }


def casebase_digest(casebase: Casebase) -> str:
    """The SHA-256 of :func:`casebase_identity`: what an expert's own network records of its
    casebase."""
    return hashlib.sha256(
        json.dumps(casebase_identity(casebase), sort_keys=True).encode()
    ).hexdigest()


def network_candidates(casebase_path: str | Path) -> list[Path]:
    """Where the expert's own network of the casebase at ``casebase_path`` is looked for, in
    order."""
    path = Path(casebase_path)
    if not path.name:
        return []
    return [
        path.with_name(path.stem + NETWORK_SUFFIX),
        personal_folder() / (path.stem + NETWORK_SUFFIX),
    ]


def sidecar(network: Path) -> Path:
    """The ``X.toml`` beside the network ``X.pb.gz`` (:func:`engine.style.lc0.provenance` reads
    it)."""
    return network.with_name(network.name.removesuffix(NETWORK_SUFFIX) + ".toml")


@dataclass(frozen=True)
class ModelChoice:
    """The model file to play, the personal model itself (loaded and checked; None for the generic
    model, which the caller loads as it loads any model), and what to tell the user."""

    path: str
    model: StyleModel | None
    note: str
    #: The expert's own lc0 network (``path``), made from this casebase.
    own: bool = False

    @property
    def personal(self) -> bool:
        """Whether the model was made for this casebase (a personal 8x96 or the expert's own
        network)."""
        return self.model is not None or self.own

    def files(self, stem: str) -> dict[str, Path]:
        """A personal model's files by the names they take beside the casebase ``stem.npz`` (where
        Model auto looks for them): a cluster's or a worker's cargo. None for a shipped default
        model."""
        if self.own:
            return {
                stem + NETWORK_SUFFIX: Path(self.path),
                f"{stem}.toml": sidecar(Path(self.path)),
            }
        return {stem + SUFFIX: Path(self.path)} if self.personal else {}


def choose_model(casebase: Casebase | None) -> ModelChoice:
    """The expert's own network made from ``casebase``, else the shipped default network; where no
    network is shipped, the personal model made from ``casebase`` where one is found, else the
    generic model.

    A personal model beside the casebase that cannot be read is refused with its reason, and the
    generic model plays: never, silently, the shipped personal model in its place."""
    default, reason = default_model()
    if is_network(default):
        mine = own_network(casebase, reason)
        if mine is not None:
            return mine
        own = beside(casebase.path) if casebase is not None and casebase.path is not None else None
        # the user's own, made by learn personalise
        named = f" {own}" if own is not None and own.is_file() else ""
        return ModelChoice(
            str(default),
            None,
            f"model: {reason} (run in {FORWARD}; a personal 8x96{named} plays with"
            f" option Model{named})",
        )
    return personal_choice(casebase, reason)


def model_sha256(casebase: Casebase | None) -> str:
    """The SHA-256 of the style model file the engine plays ``casebase`` with by default (option
    Model's ``auto``, :func:`choose_model`): which model a record of its choices was made with."""
    return file_sha256(choose_model(casebase).path)


def own_network(casebase: Casebase | None, reason: str) -> ModelChoice | None:
    """The expert's own network made from ``casebase`` (:func:`network_candidates`), None where
    there is none. One whose ``X.toml`` is missing, unreadable or names another casebase is passed
    over."""
    if casebase is None or casebase.path is None:
        return None
    digest = None
    for path in network_candidates(casebase.path):
        if not path.is_file():
            continue
        try:
            info = provenance(path).get("personal")
        except ModelError:
            continue
        digest = digest or casebase_digest(casebase)
        if not isinstance(info, dict) or info.get("casebase") != digest:
            continue
        try:
            gain = (
                f"; on the expert's latest {int(info['validation_games'])} games top-1"
                f" {100 * float(info['top1']):.1f} %, {info.get('base', 'the base network')}"
                f" {100 * float(info['base_top1']):.1f} %"
            )
        except (KeyError, TypeError, ValueError):
            gain = ""
        same = (
            "; its fit chose 0 epochs: the base network's weights"
            if info.get("epochs") == 0
            else ""
        )
        return ModelChoice(
            str(path),
            None,
            f"model: the own network of {casebase.expert} ({path}{gain}{same};"
            f" run in {FORWARD}; else {reason})",
            own=True,
        )
    return None


def personal_choice(casebase: Casebase | None, reason: str = "the 8x96 asked for") -> ModelChoice:
    """The personal 8x96 made from ``casebase`` where one is found, else the generic 8x96
    (``reason``: why no lc0 network plays, told in the note)."""
    generic = str(generic_model())
    if casebase is None or casebase.path is None:
        return ModelChoice(generic, None, f"model: the generic model (no casebase; {reason})")
    passed: list[str] = []
    for path in candidates(casebase.path):
        if not path.is_file():
            continue
        try:
            model = StyleModel.load(path)
            info = _personal_info(model)
        except LOAD_ERRORS as exc:
            text = _one_line(exc)
            # numpy's own words: say which file, as ModelError does
            if not isinstance(exc, ModelError):
                text = f"{path}: not a model file, or a damaged one ({text})"
            why = f"cannot load the personal model: {text}"
            if path == beside(casebase.path):
                shipped = personal_folder() / Path(casebase.path).name
                instead = (
                    "; the shipped personal model is not played in its place"
                    if shipped.is_file()
                    else ""
                )
                return ModelChoice(
                    generic, None, f"model: the generic model ({why}; {reason}{instead})"
                )
            passed.append(why)
            continue
        made_for = info.get("casebase")
        if made_for != casebase_identity(casebase):
            made = (
                f"{made_for.get('cases')} cases"
                if isinstance(made_for, dict)
                else "not a personal model"
            )
            passed.append(
                f"{path} was made from another casebase ({made}; this one has {len(casebase)}"
                " cases)"
            )
            continue
        also = f"; passed over: {'; '.join(passed)}" if passed else ""
        same = (
            "; its fit chose 0 epochs: the generic model's weights"
            if info.get("epochs") == 0
            else ""
        )
        return ModelChoice(
            str(path),
            model,
            f"model: personal model of {casebase.expert} ({path}; on the expert's"
            f" latest {info['validation_games']} games top-1 {100 * info['top1']:.1f} %,"
            f" the generic model {100 * info['generic_top1']:.1f} %{same}{also}; {reason})",
        )
    why = "; ".join(passed) if passed else f"no personal model for {Path(casebase.path).name}"
    return ModelChoice(generic, None, f"model: the generic model ({why}; {reason})")


#: What reading a damaged model file may raise: the model's own checks, and what numpy raises on
#: arrays of a form they do not expect (a version that is not a number, a header claiming
#: terabytes).
LOAD_ERRORS = (ModelError, ValueError, TypeError, KeyError, IndexError, OSError, MemoryError)


def _personal_info(model: StyleModel) -> dict[str, Any]:
    """What a personal model says of itself, its numbers checked (the note formats them)."""
    info = model.personal or {}
    for key in ("top1", "generic_top1", "validation_games"):
        value = info.get(key)
        if key in info and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ModelError(
                f"{model.path}: damaged metadata (personal {key} is {clip(repr(value), 40)})"
            )
    return info


def _one_line(exc: BaseException) -> str:
    """An error's message on one line: its first sentence (numpy's second one advises loading a
    damaged file unsafely), cut to a sensible length."""
    text = " ".join(str(exc).split()).split(". ")[0]
    return clip(text + ")" * max(0, text.count("(") - text.count(")")), 300)
