"""Which style model proposes, whatever its format: a model of this project (``.npz``) or an lc0
network (``.pb.gz``), both run in numpy, and the shipped default among them.

Both give :class:`PriorModel`'s prior over legal moves. The shipped default network is, of those
found: the master network made here (``engine/style/models/master.pb.gz``), else Maia-1900 as its
authors ship it; where neither is shipped, the 8x96 (``style.npz``), with the reason.
"""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import chess

from engine.style.lc0 import is_network, load_network
from engine.style.model import StyleModel, generic_model

#: The shipped lc0 networks, best first: the master network (made here), then Maia-1900.
DEFAULT_NETWORKS = ("master.pb.gz", "maia-1900.pb.gz")


class PriorModel(Protocol):
    """What guided mode asks of a style model: the expert's probability of each legal move."""

    @property
    def path(self) -> Path | None: ...

    @property
    def meta(self) -> dict[str, Any]: ...

    @property
    def personal(self) -> dict[str, Any] | None: ...

    @property
    def weights_sha256(self) -> str:
        """The SHA-256 of the weights as loaded: which network it is, whatever its file or label
        says."""
        ...

    def describe(self) -> str: ...

    def prior(self, board: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Move, float]: ...

    def priors(
        self, boards: Sequence[chess.Board], moves: Sequence[Sequence[chess.Move]]
    ) -> list[dict[chess.Move, float]]: ...


def load_model(path: str | os.PathLike[str]) -> PriorModel:
    """The style model in the file ``path``: an lc0 network (``.pb.gz``) or a model of this project;
    :class:`~engine.style.model.ModelError` saying what is wrong."""
    return load_network(path) if is_network(path) else StyleModel.load(path)


def shipped_folder() -> Path:
    """The shipped models and networks (package data of :mod:`engine.style`)."""
    return Path(str(importlib.resources.files("engine.style") / "models"))


def shipped(name: str) -> Path | None:
    """The shipped model or network called ``name`` (``maia-1900``, ``master``, ``style``), None if
    none is."""
    for suffix in (".pb.gz", ".npz"):
        path = shipped_folder() / f"{name}{suffix}"
        try:
            if path.is_file():
                return path
        except (
            OSError,
            ValueError,
        ):  # a name the system refuses (too long, a NUL) names no shipped model
            return None
    return None


def model_path(setting: str) -> str:
    """The file option Model names: a shipped model's name (``maia-1900``) or a file's path as it
    is."""
    found = shipped(setting) if setting and "/" not in setting and "." not in setting else None
    return str(found) if found is not None else setting


def model_file_name(stem: str, path: str | os.PathLike[str]) -> str:
    """A name for a copy of the model file ``path`` (a cluster's cargo) that keeps what kind of file
    it is: ``model.pb.gz`` for an lc0 network, ``model.npz`` for a model of this project."""
    return stem + (".pb.gz" if is_network(path) else ".npz")


def default_model() -> tuple[Path, str]:
    """The shipped default style model and why: the best shipped lc0 network, else the 8x96."""
    for name in DEFAULT_NETWORKS:
        path = shipped_folder() / name
        if path.is_file():
            return path, f"the shipped network {name}"
    return generic_model(), "no lc0 network is shipped: the 8x96"
