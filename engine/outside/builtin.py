"""Where the built-in search is installed, for option ``Judge builtin`` (and ``Judge auto`` where no
Stockfish is found): the program ``cbr-chess-search`` (:mod:`engine.uci.search_main`), run as any
outside judge is, so that it searches on a core of its own; looked for once a process.

``$CBR_CHESS_BUILTIN`` names it where it is set to a path; set to ``none``, ``Judge auto`` finds no
built-in search (the test suite sets it, beside ``CBR_CHESS_STOCKFISH=none``, so that its engines
play as they did before ``auto``), while ``Judge builtin`` still looks. Else the program beside the
running Python (a virtual environment's or an installed wheel's scripts), else on ``PATH``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import sys
from pathlib import Path

#: The variable that names the built-in search (a path, or ``none``: ``auto`` finds none).
VARIABLE = "CBR_CHESS_BUILTIN"
#: The built-in search's program, installed beside ``cbr-chess``.
PROGRAM = "cbr-chess-search"


def _named() -> str | None:
    named = os.environ.get(VARIABLE)
    return None if named is None else named.strip()


@functools.cache
def installed_search() -> str | None:
    """The command of the built-in search installed here, or None (looked for once a process)."""
    named = _named()
    if named and named.lower() != "none":
        return named
    scripts = Path(sys.executable).parent
    for name in (PROGRAM, f"{PROGRAM}.exe"):
        beside = scripts / name
        if beside.is_file() and os.access(beside, os.X_OK):
            return str(beside)
    return shutil.which(PROGRAM)


def search_for_auto() -> str | None:
    """The built-in search ``Judge auto`` takes where it finds no Stockfish: none where
    ``$CBR_CHESS_BUILTIN`` is ``none``, or where numba is not installed (the program would then
    judge with the Python search, slower than the engine's own vetting)."""
    named = _named()
    if named is not None and named.lower() in ("", "none"):
        return None
    if importlib.util.find_spec("numba") is None:
        return None
    return installed_search()


def is_builtin(command: str) -> bool:
    """Whether ``command`` runs the built-in search (whose choice is sized as the Python search's
    is: :mod:`engine.strength.sizing`)."""
    return Path(command).stem == PROGRAM


def not_for_auto() -> str:
    """Why ``Judge auto`` took no built-in search (where :func:`search_for_auto` is None)."""
    named = _named()
    if named is not None and named.lower() in ("", "none"):
        return f"{VARIABLE}=none"
    return missing()


def missing() -> str:
    """Why there is no built-in search: numba missing, or where it was looked for."""
    if importlib.util.find_spec("numba") is None:
        return "numba is not installed (pip install numba), so the search cannot be compiled"
    return f"{PROGRAM} is not installed beside {sys.executable} nor on PATH"
