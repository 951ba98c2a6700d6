"""The style model's file and its inference in numpy: a learned move prior (playing never needs
torch).

A residual network over the piece planes of :mod:`engine.style.planes`: a 3 x 3 convolution stem,
``blocks`` residual blocks of two 3 x 3 convolutions, and a 1 x 1 convolution head with 64
outputs per square, the logit of moving from that square to each of the 64 squares. Batch
normalisation is folded into the convolutions when a model is exported, so inference is
convolutions, additions and ReLUs.

File (format ``cbr-chess-model``, version 1): an ``.npz`` with ``format``, ``version``,
``meta`` (JSON: ``blocks``, ``filters``, ``planes`` and how it was trained) and float16
arrays ``stem.w`` (F x 12 x 3 x 3), ``stem.b`` (F), ``block{i}.conv{1,2}.w``/``.b``
(F x F x 3 x 3, F), ``head.w`` (64 x F x 1 x 1) and ``head.b`` (64).

A *personal* model (``python -m learn personalise``) holds only the arrays it changed; its
``meta`` names the model it was made on top of (``base``: the file's name and SHA-256), which
is looked for beside it and then among the shipped models, and must be a whole model.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import os
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from common.bounded import read_npz
from common.files import atomic_file, file_sha256
from engine.style.planes import FORMAT_ID, MOVES, PLANES, encode_board, legal_indices

FORMAT_NAME = "cbr-chess-model"
FORMAT_VERSION = 1
#: The most a model file's arrays may take together (issue #69): the shipped 8x96 takes 3 MiB, a
#: 20x256 (lc0's T40 size) some 100 MiB.
MODEL_MOST = 256 << 20
#: What a personal model says of itself in its metadata (``personal``).
PERSONAL_KEYS = frozenset({"expert", "casebase", "top1", "generic_top1", "validation_games"})


class ModelError(Exception):
    """A model file is missing, damaged, foreign or inconsistent; the message says which."""


def array_shapes(blocks: int, filters: int) -> dict[str, tuple[int, ...]]:
    """The arrays of a model with ``blocks`` residual blocks of ``filters`` filters, and their
    shapes."""
    shapes: dict[str, tuple[int, ...]] = {"stem.w": (filters, PLANES, 3, 3), "stem.b": (filters,)}
    for i in range(blocks):
        for conv in ("conv1", "conv2"):
            shapes[f"block{i}.{conv}.w"] = (filters, filters, 3, 3)
            shapes[f"block{i}.{conv}.b"] = (filters,)
    shapes["head.w"] = (64, filters, 1, 1)
    shapes["head.b"] = (64,)
    return shapes


def generic_model() -> Path:
    """The shipped generic style model (made by ``make model``), package data of
    :mod:`engine.style`."""
    return Path(str(importlib.resources.files("engine.style") / "models" / "style.npz"))


def save_model(
    path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]
) -> None:
    """Write a model file atomically, weights as float16; ValueError if the arrays do not fit
    ``meta`` (a personal model's, with a ``base`` in ``meta``, may hold only some of them)."""
    expected = array_shapes(int(meta["blocks"]), int(meta["filters"]))
    wrong = {k: np.shape(arrays[k]) for k in arrays if np.shape(arrays[k]) != expected.get(k)}
    if wrong or (set(arrays) != set(expected) and "base" not in meta):
        raise ValueError(
            f"the arrays do not fit {meta['blocks']} blocks of {meta['filters']} filters: {wrong}"
        )
    meta = {"planes": FORMAT_ID, **meta}
    if meta["planes"] != FORMAT_ID:
        raise ValueError(
            f"a model of the planes {meta['planes']!r} cannot be saved for {FORMAT_ID!r}"
        )
    members: dict[str, Any] = {
        "format": np.array(FORMAT_NAME),
        "version": np.array(FORMAT_VERSION),
        "meta": np.array(json.dumps(meta, sort_keys=True)),
    }
    members |= {k: np.asarray(v, dtype=np.float16) for k, v in arrays.items()}
    with atomic_file(path) as f:
        np.savez(f, **members)


def _conv3(x: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """A 3 x 3 convolution with padding 1 over N x 8 x 8 x C activations (channels last)."""
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))  # N x 8 x 8 x C x 3 x 3
    n, c = x.shape[0], x.shape[3]
    return (windows.reshape(n * 64, c * 9) @ weights).reshape(n, 8, 8, -1) + bias


class StyleModel:
    """A loaded model: :meth:`logits` of every from-to move, :meth:`prior` over legal moves.

    Fit once, query many: :meth:`load` reads and checks the file, the weights are kept as
    float32 matrices ready for the convolutions.
    """

    def __init__(
        self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any], path: Path | None = None
    ) -> None:
        self.meta = dict(meta)
        self.path = path
        self.blocks, self.filters = int(meta["blocks"]), int(meta["filters"])

        def matrix(name: str) -> np.ndarray:
            w = np.asarray(arrays[name], dtype=np.float32)  # out x in x kh x kw
            return np.ascontiguousarray(w.transpose(1, 2, 3, 0).reshape(-1, w.shape[0]))

        def vector(name: str) -> np.ndarray:
            return np.asarray(arrays[name], dtype=np.float32)

        self.stem = (matrix("stem.w"), vector("stem.b"))
        self.residual = [
            (
                matrix(f"block{i}.conv1.w"),
                vector(f"block{i}.conv1.b"),
                matrix(f"block{i}.conv2.w"),
                vector(f"block{i}.conv2.b"),
            )
            for i in range(self.blocks)
        ]
        self.head = (matrix("head.w"), vector("head.b"))

    @functools.cached_property
    def weights_sha256(self) -> str:
        """The SHA-256 of the weights as loaded: what the network is, whatever its file or label
        says (two experts' personal models whose fits chose 0 epochs are one network, the generic
        one's)."""
        digest = hashlib.sha256()
        for layer in (self.stem, *self.residual, self.head):
            for array in layer:
                digest.update(array.tobytes())
        return digest.hexdigest()

    def describe(self) -> str:
        """``6x64, validation top-1 34.1 %`` (``Magnus Carlsen's personal 8x96``): the model in a
        few words. A personal model whose fit chose 0 epochs holds the generic model's weights, and
        says so."""
        if self.personal:
            size = f"{self.blocks}x{self.filters}"
            if self.personal.get("epochs") == 0:
                return (
                    f"the generic {size} (no epoch of {self.personal['expert']}'s games improved on"
                    " it)"
                )
            return f"{self.personal['expert']}'s personal {size}"
        top1 = self.meta.get("validation_top1")
        return f"{self.blocks}x{self.filters}" + (
            f", validation top-1 {100 * top1:.1f} %" if top1 else ""
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StyleModel:
        """Read and check a model file; raise :class:`ModelError` saying what is wrong."""
        path = Path(path)
        try:
            if not path.is_file():
                raise ModelError(f"{path}: no such model file")
            arrays = read_npz(path, MODEL_MOST, "model")
        except ModelError:
            raise
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
            raise ModelError(f"{path}: not a model file, or a damaged one ({exc})") from exc
        if "format" not in arrays or str(arrays.pop("format")) != FORMAT_NAME:
            raise ModelError(f"{path}: not a {FORMAT_NAME} file (another program's .npz?)")
        version = int(arrays.pop("version", -1))
        if version != FORMAT_VERSION:
            raise ModelError(
                f"{path}: model format version {version}, this engine reads {FORMAT_VERSION}"
            )
        try:
            meta = json.loads(str(arrays.pop("meta")))
            expected = array_shapes(int(meta["blocks"]), int(meta["filters"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path}: damaged metadata ({exc})") from exc
        if meta.get("planes") != FORMAT_ID:
            raise ModelError(
                f"{path}: made for the planes {meta.get('planes')!r}; this engine encodes positions"
                f" as {FORMAT_ID!r} (retrain it with make model)"
            )
        personal = meta.get("personal")
        if personal is not None and not (
            isinstance(personal, dict) and PERSONAL_KEYS <= set(personal)
        ):
            raise ModelError(
                f"{path}: damaged metadata (a personal model records"
                f" {', '.join(sorted(PERSONAL_KEYS))})"
            )
        if "base" in meta:
            base = _base_model(path, meta["base"])
            if (base.blocks, base.filters) != (int(meta["blocks"]), int(meta["filters"])):
                raise ModelError(f"{path}: its base {base.path} has another shape")
            arrays = base.arrays() | arrays
        for name, shape in expected.items():
            if name not in arrays:
                raise ModelError(f"{path}: missing array {name!r}")
            if arrays[name].shape != shape:
                raise ModelError(
                    f"{path}: array {name!r} has shape {arrays[name].shape}, expected {shape}"
                )
            if not np.isfinite(arrays[name]).all():
                raise ModelError(f"{path}: array {name!r} holds values that are not finite")
        if set(arrays) != set(expected):
            raise ModelError(f"{path}: unexpected arrays {sorted(set(arrays) - set(expected))}")
        return cls(arrays, meta, path)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights in the file's layout (out x in x kh x kw), as :func:`save_model` takes
        them."""

        def weights(matrix: np.ndarray, k: int) -> np.ndarray:
            return matrix.reshape(-1, k, k, matrix.shape[1]).transpose(3, 0, 1, 2)

        arrays = {
            "stem.w": weights(self.stem[0], 3),
            "stem.b": self.stem[1],
            "head.w": weights(self.head[0], 1),
            "head.b": self.head[1],
        }
        for i, (w1, b1, w2, b2) in enumerate(self.residual):
            arrays |= {
                f"block{i}.conv1.w": weights(w1, 3),
                f"block{i}.conv1.b": b1,
                f"block{i}.conv2.w": weights(w2, 3),
                f"block{i}.conv2.b": b2,
            }
        return arrays

    @property
    def personal(self) -> dict[str, Any] | None:
        """What a personal model says of itself (expert, casebase, validation), None for a generic
        one."""
        return self.meta.get("personal")

    def trunk(self, planes: np.ndarray, blocks: int | None = None) -> np.ndarray:
        """The trunk's activations (N x 8 x 8 x F) of N positions' planes (N x 12 x 8 x 8), after
        its first ``blocks`` residual blocks (all of them by default)."""
        x = np.ascontiguousarray(planes.transpose(0, 2, 3, 1), dtype=np.float32)
        return self._blocks(
            np.maximum(_conv3(x, *self.stem), 0), 0, self.blocks if blocks is None else blocks
        )

    def _blocks(self, x: np.ndarray, start: int, stop: int) -> np.ndarray:
        for w1, b1, w2, b2 in self.residual[start:stop]:
            y = np.maximum(_conv3(x, w1, b1), 0)
            x = np.maximum(_conv3(y, w2, b2) + x, 0)
        return x

    def logits(self, planes: np.ndarray) -> np.ndarray:
        """Logits (N x 4096, index ``from * 64 + to``) of N positions' planes."""
        return self.logits_after(self.trunk(planes, 0), 0)

    def logits_after(self, x: np.ndarray, blocks: int) -> np.ndarray:
        """Logits from the activations ``x`` after the first ``blocks`` blocks (of this model, or of
        another whose first ``blocks`` are the same: a personal model and its base share them)."""
        x = self._blocks(x, blocks, self.blocks)
        n = x.shape[0]
        w, b = self.head
        out = x.reshape(n * 64, -1) @ w + b  # one row per from-square, 64 to-squares
        return out.reshape(n, MOVES)

    def prior(self, board: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Move, float]:
        """The model's probability of each of ``moves`` (legal on ``board``), summing to 1."""
        return self.priors([board], [moves])[0]

    def priors(
        self, boards: Sequence[chess.Board], moves: Sequence[Sequence[chess.Move]]
    ) -> list[dict[chess.Move, float]]:
        """:meth:`prior` of many positions in one batch (faster per position)."""
        if not boards:
            return []
        logits = self.logits(np.concatenate([encode_board(b, b.turn) for b in boards]))
        return [
            dict(zip(ms, softmax(row[legal_indices(b, list(ms))]).tolist())) if ms else {}
            for b, ms, row in zip(boards, moves, logits)
        ]


def _base_model(path: Path, base: Any) -> StyleModel:
    """The whole model a personal model at ``path`` was made on top of: the file named in ``base``
    beside it, or the shipped generic model, whichever has the SHA-256 ``base`` records."""
    try:
        name, digest = str(base["file"]), str(base["sha256"])
    except (KeyError, TypeError) as exc:
        raise ModelError(f"{path}: damaged metadata (base {exc})") from exc
    for candidate in (path.parent / name, generic_model()):
        if (
            candidate.is_file()
            and candidate.resolve() != path.resolve()
            and file_sha256(candidate) == digest
        ):
            model = StyleModel.load(candidate)
            if "base" in model.meta:
                raise ModelError(f"{path}: its base {candidate} is itself a personal model")
            return model
    raise ModelError(
        f"{path}: made on top of the model {name} (sha256 {digest[:12]}...), which is neither"
        f" beside it nor the shipped generic model (personalise again: python -m learn personalise)"
    )


def softmax(x: np.ndarray) -> np.ndarray:
    """``x``'s softmax (float64 where ``x`` is), shifted by its largest value so that nothing
    overflows."""
    e = np.exp(x - x.max())
    return np.asarray(e / e.sum())
