"""The experiments behind docs/results.md's figures, one module a pipeline, each run as
``python -m experiments.NAME`` from the source tree (results.md names the command beside each
figure): strength and ladder against Stockfish, the profiles, the intrinsic ratings, what the
calibrated choice loses per move (play), under load (load) and by mode (losses), guided mode's
fidelity ceiling, what an experiment costs (cost), and what the judging buys (judging)."""
