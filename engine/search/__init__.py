"""The built-in alpha-beta search and what it stands on: evaluation, move order, hashing, scores,
results, the leaves it needs not search, and the limits of a move (search.md §2-4)."""

from enum import StrEnum


class Search(StrEnum):
    """The built-in searches, by the words of option Search: the alpha-beta (§2) and the one the
    network leads (§10)."""

    ALPHABETA = "alphabeta"
    PUCT = "puct"
