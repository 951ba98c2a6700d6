"""Training data from casebases: every case is a (position, move) example.

Examples are split into training and validation by *game*, so that no validation position
comes from a game the network trained on; both the split and the order of every epoch
follow from the seed alone, so a run is reproducible and an interrupted one resumes exactly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from casebase.format import Casebase
from engine.style.planes import encode, move_index


@dataclass
class Examples:
    """Cases of one or more casebases: bitboards, colours, move indices and a game id each."""

    boards: np.ndarray  # N x 8 uint64
    turn: np.ndarray  # N bool
    moves: np.ndarray  # N int64, engine.style.planes.move_index
    game: np.ndarray  # N int64, distinct across the casebases
    sources: list[str]

    def __len__(self) -> int:
        return len(self.turn)

    @classmethod
    def load(cls, paths: Sequence[str | os.PathLike[str]]) -> Examples:
        """The cases of the casebases at ``paths`` (CasebaseError if one is bad)."""
        parts = [Casebase.load(path) for path in paths]
        offsets = np.cumsum([0] + [cb.num_games for cb in parts])
        return cls(
            boards=np.concatenate([np.asarray(cb.boards) for cb in parts]),
            turn=np.concatenate([np.asarray(cb.turn) for cb in parts]),
            moves=np.concatenate(
                [move_index(cb.from_square, cb.to_square, cb.turn) for cb in parts]
            ),
            game=np.concatenate(
                [np.asarray(cb.game, dtype=np.int64) + off for cb, off in zip(parts, offsets)]
            ),
            sources=[str(path) for path in paths],
        )

    def split(self, validation: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Row numbers of the training and the validation examples: a ``validation`` share
        of the games, drawn with ``seed``."""
        games = int(self.game.max()) + 1 if len(self) else 0
        held = np.random.Generator(np.random.PCG64([seed, 1])).random(games) < validation
        in_validation = held[self.game]
        return np.flatnonzero(~in_validation), np.flatnonzero(in_validation)

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The planes and move indices of the examples ``rows``."""
        return encode(self.boards[rows], self.turn[rows]), self.moves[rows]


def epoch_order(rows: np.ndarray, seed: int, epoch: int, limit: int | None = None) -> np.ndarray:
    """The training rows of ``epoch`` in their shuffled order (the first ``limit`` of them)."""
    return _sample(rows, [seed, 2, epoch], limit)


def validation_sample(rows: np.ndarray, seed: int, limit: int) -> np.ndarray:
    """The validation rows whose top-1 is reported: a seeded sample of ``limit`` of them."""
    return _sample(rows, [seed, 3], limit)


def _sample(rows: np.ndarray, key: list[int], limit: int | None) -> np.ndarray:
    order = np.random.Generator(np.random.PCG64(key)).permutation(rows)
    return order if limit is None else order[:limit]


def batches(order: np.ndarray, size: int, skip: int = 0) -> Iterator[np.ndarray]:
    """``order`` in consecutive batches of ``size`` rows (the last one may be smaller),
    leaving out the first ``skip`` batches (a resumed epoch)."""
    for start in range(skip * size, len(order), size):
        yield order[start : start + size]
