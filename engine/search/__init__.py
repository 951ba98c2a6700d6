"""The built-in alpha-beta search and what it stands on: evaluation, move order, hashing, scores,
results, the leaves it needs not search, and the limits of a move (search.md §2-4)."""
