"""Where the project's files live: the shipped ones beside the code, the built ones (casebases,
endgame tables) in the source tree when the engine runs from one, else in the user's data folder
(``~/.local/share/cbr-chess`` on Linux), so that an installed engine keeps what it builds; and what
tells that a file changed (:func:`file_state`)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

#: The folder that holds the packages: the source tree's root, or site-packages when installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def in_source_tree() -> bool:
    """Whether the engine runs from a source tree (a clone), not from an installed wheel."""
    return (PROJECT_ROOT / "pyproject.toml").is_file()


def data_folder() -> Path:
    """Where built files go: the source tree, or the user's data folder of an installed engine."""
    return PROJECT_ROOT if in_source_tree() else platformdirs.user_data_path("cbr-chess")


def casebase_folder() -> Path:
    """Where casebases are found by name (``make casebases`` fills it in a source tree)."""
    return data_folder() / "casebases"


def casebase_path(name: str) -> str:
    """A casebase's path: ``name`` as given, or, for a bare name (no folder, no ``.npz``), that
    casebase in :func:`casebase_folder` (``carlsen-2800`` is ``casebases/carlsen-2800.npz``)."""
    if not name or "/" in name or "\\" in name or name.endswith(".npz"):
        return name
    return str(casebase_folder() / f"{name}.npz")


def games_store() -> Path:
    """The web page's store of games (``cbr-chess web --store``): always the user's data folder, a
    clone's too, since the games are the user's own, not something built from the tree."""
    return platformdirs.user_data_path("cbr-chess") / "web-games.sqlite3"


#: What identifies a file's contents cheaply (:func:`file_state`).
FileState = tuple[object, ...]


def file_state(path: str) -> FileState:
    """What identifies a file's contents cheaply: its path, size and modification time (if
    it can be read at all; a path the system refuses is just a path)."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return (path,)
    return (path, stat.st_size, stat.st_mtime_ns)
