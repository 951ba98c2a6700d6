"""The speed benchmarks: the builder, retrieval, start-up, the round robin, the search, the style
model, the endgame tables and the cluster, each a table (``python -m bench.NAME``; ``make bench``).
The experiments behind docs/results.md's figures are the package ``experiments``."""
