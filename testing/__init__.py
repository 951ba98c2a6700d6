"""Tools that test the engine from outside, as a GUI, a bot or a cluster meets it: the UCI fuzzer
(``fuzz_uci``), PyChess and XBoard under Xvfb (``gui_pychess``, ``gui_xboard``), a lichess.org
stand-in for lichess-bot (``lichess_standin``) and the local Ray cluster the cluster tests run in
(``local_cluster``); each ``python -m testing.NAME``. They import none of the engine's packages
(a contract in pyproject.toml), so that they see only what a user's program sees."""
