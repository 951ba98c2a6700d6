"""Endgame tables: distance-to-mate by retrograde analysis (:mod:`endgame.retrograde`), their
files and probing (:mod:`endgame.tablebase`), checks against the rules (:mod:`endgame.check`).

Importing the package is cheap (no numpy): the UCI loop reads :func:`default_folder` early.
"""

from __future__ import annotations

from pathlib import Path

from common.paths import data_folder


def default_folder() -> Path:
    """Where the engine keeps its tables (``make tables`` fills it; KQK and KRK are made at first
    use)."""
    return data_folder() / "tables"
