"""Retrieval by the learned similarity (issue #61): the cases nearest a position by the cosine of
their embeddings (:mod:`casebase.embeddings`, made by a network's trunk), centred on the cases'
mean, among those of its side to move.

Fit once, query many (as scikit-learn's ``NearestNeighbors``): the stored int8 embeddings are made
unit float32 rows once a casebase; a query embeds the board, with its game's history, by the same
network and takes the ``k`` largest dot products, exactly (a product of one vector with the rows:
about 3 ms for 130,000 cases on one core, ``python -m bench.retrieval``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Protocol

import chess
import numpy as np

from casebase.embeddings import Embeddings
from casebase.format import Casebase
from lc0net.embedding import Embedder, unit

#: How many of the nearest cases vote (pure mode's learned similarity), and the votes' temperature:
#: a case's vote is exp((similarity - 1) / TEMPERATURE), the similarity a cosine. Chosen on 1,200
#: held-out positions of four ladder experts that make fidelity never plays, among k 64..256 and T
#: 0.02..0.2 (docs/results/2026-11-29-learned-similarity.md).
NEAREST = 128
TEMPERATURE = 0.05


class LearnedIndex:
    """A casebase's cases as unit embeddings, by side to move, and the embedder that made them."""

    def __init__(self, casebase: Casebase, vectors: np.ndarray, embedder: Embedder) -> None:
        if len(vectors) != len(casebase) or vectors.shape[1] != embedder.dimensions:
            raise ValueError(
                f"{vectors.shape} embeddings for {len(casebase)} cases of {embedder.dimensions}"
                " numbers"
            )
        self.casebase, self.embedder = casebase, embedder
        turn = np.asarray(casebase.turn)
        self._rows = {colour: np.flatnonzero(turn == colour) for colour in chess.COLORS}
        stored = unit(vectors)
        #: The cases' mean embedding: the trunk's activations are all positive, so every two
        #: positions look alike until it is taken away
        #: (docs/results/2026-11-29-learned-similarity.md: what centring bought)
        self.centre = (
            stored.mean(axis=0) if len(stored) else np.zeros(embedder.dimensions, dtype=np.float32)
        )
        self._vectors = {
            colour: unit(stored[rows] - self.centre) for colour, rows in self._rows.items()
        }
        # the forward's scratch is per call, but one query at a time keeps memory flat
        self._lock = threading.Lock()

    def count(self, colour: chess.Color) -> int:
        """How many cases have ``colour`` to move."""
        return len(self._rows[colour])

    def nearest(self, board: chess.Board, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` cases nearest ``board`` with its side to move: rows (casebase order) and cosine
        similarities (-1..1), nearest first; ties in casebase order; empty where no case has that
        side to move."""
        colour = board.turn
        rows = self._rows[colour]
        if not len(rows):
            return rows, np.empty(0, dtype=np.float32)
        with self._lock:
            query = unit((self.embedder.of_boards([board])[0] - self.centre)[None])[0]
        sims = self._vectors[colour] @ query
        k = min(k, len(rows))
        top = np.argpartition(-sims, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
        top = top[np.lexsort((top, -sims[top]))]  # nearest first, then casebase order
        return rows[top], sims[top]


class Embedding(Protocol):
    """What the learned index needs of a network: which it is, and its embedder of positions."""

    @property
    def weights_sha256(self) -> str: ...

    def embedder(self, dimensions: int) -> Embedder: ...


#: Each casebase's learned index and the SHA-256 of the network that embeds, while the casebase
#: lives.
_INDEXES: weakref.WeakKeyDictionary[Casebase, tuple[str, LearnedIndex]] = (
    weakref.WeakKeyDictionary()
)


def learned_index(
    casebase: Casebase, network: Embedding, read: Callable[[], Embeddings]
) -> LearnedIndex:
    """The learned index of ``casebase`` by ``network``, its embeddings ``read`` (and checked to be
    that network's) and fitted on first use, then shared while the casebase lives; one a casebase,
    the last network's (another network's is fitted again)."""
    made = _INDEXES.get(casebase)
    if made is not None and made[0] == network.weights_sha256:
        return made[1]
    embeddings = read()
    index = LearnedIndex(
        casebase, embeddings.vectors, network.embedder(int(embeddings.meta["dimensions"]))
    )
    _INDEXES[casebase] = (network.weights_sha256, index)
    return index
