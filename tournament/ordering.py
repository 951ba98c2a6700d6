"""The thesis's *longest ordering* (experiment.md §2): the longest sequence of distinct players
in which each scored more points than the next in their head-to-head games.

That is the longest simple path in the "scored more than" digraph, NP-hard in general and
solved exactly here by dynamic programming over subsets (2**n states, vectorised with numpy;
fine up to :data:`MAX_PLAYERS`).

Several orderings may share the longest length. The one reported is, when one of them follows
the Elo order (ranking indices strictly increase), the lexicographically smallest such one;
otherwise the lexicographically smallest of all. So "matches Elo order" means: some longest
ordering follows the experts' Elo.
"""

from __future__ import annotations

import numpy as np

MAX_PLAYERS = 20


def longest_ordering(beats: np.ndarray) -> list[int]:
    """The longest ordering as 0-based positions in ranking order (0 = highest Elo).

    ``beats[i, j]`` is True when player i scored more than player j against each other;
    players are listed by Elo, highest first.
    """
    beats = np.asarray(beats, dtype=bool)
    n = len(beats)
    if beats.shape != (n, n) or beats.diagonal().any():
        raise ValueError("beats must be a square matrix with a False diagonal")
    if n > MAX_PLAYERS:
        raise ValueError(f"the exact longest ordering is limited to {MAX_PLAYERS} players, not {n}")
    if n == 0:
        return []
    increasing = _longest_increasing(beats)
    starts = _path_starts(beats)
    length = max(int(np.bitwise_count(mask)) for mask in np.flatnonzero(starts))
    if len(increasing) == length:
        return increasing
    return _smallest_path(beats, starts, length)


def follows_elo(ordering: list[int]) -> bool | None:
    """True when the ranking indices strictly increase (the thesis's "matches Elo order").

    None for an ordering of fewer than two players: no pair was separated, so it says nothing.
    """
    if len(ordering) < 2:
        return None
    return all(a < b for a, b in zip(ordering, ordering[1:]))


def _longest_increasing(beats: np.ndarray) -> list[int]:
    """Lexicographically smallest among the longest paths that only go to lower-ranked players."""
    n = len(beats)
    reach = [1] * n  # longest increasing path starting at i
    for i in reversed(range(n)):
        reach[i] = 1 + max((reach[j] for j in range(i + 1, n) if beats[i, j]), default=0)
    best = max(reach)
    path = [reach.index(best)]
    while len(path) < best:
        i = path[-1]
        path.append(next(j for j in range(i + 1, n) if beats[i, j] and reach[j] == reach[i] - 1))
    return path


def _path_starts(beats: np.ndarray) -> np.ndarray:
    """``starts[mask]``: bit set of the players v from which a path visits exactly ``mask``."""
    n = len(beats)
    successors = [sum(1 << int(j) for j in np.flatnonzero(beats[v])) for v in range(n)]
    masks = np.arange(1 << n, dtype=np.uint32)
    sizes = np.bitwise_count(masks)
    starts = np.zeros(1 << n, dtype=np.uint32)
    for v in range(n):
        starts[1 << v] = 1 << v
    for size in range(2, n + 1):
        layer = masks[sizes == size]
        for v in range(n):
            bit = np.uint32(1 << v)
            with_v = layer[(layer & bit) != 0]
            ok = (starts[with_v ^ bit] & np.uint32(successors[v])) != 0
            starts[with_v[ok]] |= bit
    return starts


def _smallest_path(beats: np.ndarray, starts: np.ndarray, length: int) -> list[int]:
    """Lexicographically smallest path of ``length`` players, chosen player by player."""
    masks = np.arange(len(starts), dtype=np.uint32)
    sizes = np.bitwise_count(masks)
    path: list[int] = []
    used = np.uint32(0)
    for step in range(length):
        rest = masks[(sizes == length - step) & ((masks & used) == 0)]
        possible = int(np.bitwise_or.reduce(starts[rest])) if len(rest) else 0
        v = next(
            v for v in range(len(beats)) if possible >> v & 1 and (not path or beats[path[-1], v])
        )
        path.append(v)
        used |= np.uint32(1 << v)
    return path
