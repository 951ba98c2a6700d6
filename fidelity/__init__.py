"""The fidelity benches: the expert's moves in held-out games replayed by each mode, and the
cross-expert table of personal models."""
