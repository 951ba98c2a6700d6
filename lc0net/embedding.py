"""A position's embedding (issue #61): what an lc0 network's trunk makes of it (the activations
after its last residual block, 8 x 8 x filters), randomly projected to a few hundred numbers and
scaled to unit length, so that two positions' cosine similarity is the dot product of their
embeddings.

The projection is drawn from a fixed seed: the same network gives the same embeddings on every
machine, and embeddings made by another network (another SHA-256) are not comparable. Stored, an
embedding is int8 (:func:`quantized`): each row scaled so that its largest number is 127, which
costs nothing measurable in which cases come nearest
(docs/results/2026-11-29-learned-similarity.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from lc0net.forward import Forward
from lc0net.planes import planes

#: How many numbers an embedding keeps (docs/results/2026-11-29-learned-similarity.md: what fewer or
#: more cost and bought).
DIMENSIONS = 256
#: The projection's seed: part of what an embedding is.
SEED = 61
#: Positions evaluated in one forward pass.
BATCH = 256


class Embedder:
    """Embeddings of positions by one network: fit once (the projection drawn), query many."""

    def __init__(self, forward: Forward, dimensions: int = DIMENSIONS, seed: int = SEED) -> None:
        self.forward, self.dimensions, self.seed = forward, dimensions, seed
        rng = np.random.default_rng(seed)
        inputs = 64 * forward.filters
        self.projection = (rng.standard_normal((inputs, dimensions)) / np.sqrt(dimensions)).astype(
            np.float32
        )

    def of_planes(self, x: np.ndarray) -> np.ndarray:
        """The unit-length embeddings (N x dimensions, float32) of lc0's input planes ``x``."""
        trunk = self.forward.trunk(x)
        out = trunk.reshape(len(trunk), -1) @ self.projection
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.where(norms > 0, norms, 1)
        return out

    def of_boards(self, boards: Sequence[chess.Board]) -> np.ndarray:
        """The embeddings of ``boards``, each with its game's history (its move stack), in
        batches."""
        out = np.zeros((len(boards), self.dimensions), dtype=np.float32)
        for start in range(0, len(boards), BATCH):
            out[start : start + BATCH] = self.of_planes(planes(boards[start : start + BATCH]))
        return out


def quantized(vectors: np.ndarray) -> np.ndarray:
    """Embeddings as int8, each row scaled so that its largest number in size is 127 (cosine
    keeps)."""
    peak = np.abs(vectors).max(axis=1, keepdims=True)
    return np.rint(vectors * (127 / np.where(peak > 0, peak, 1))).astype(np.int8)


def unit(vectors: np.ndarray) -> np.ndarray:
    """Stored embeddings (int8 or float) as unit-length float32 rows, ready for dot products."""
    out = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1)
