"""Where Stockfish is installed, for option ``Judge auto`` (issue #67): looked for once a process.

``$CBR_CHESS_STOCKFISH`` names it where it is set (a path, or ``none``: not looked for, as the test
suite sets it so that its engines play as they did before ``auto``); else ``stockfish`` on ``PATH``
(Windows' included), else the places Debian, a source build and Homebrew put it.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

#: The variable that names the Stockfish ``Judge auto`` takes (a path, or ``none``).
VARIABLE = "CBR_CHESS_STOCKFISH"
#: Where Debian's package puts it: the judge the benches and commands default to.
DEBIAN_STOCKFISH = "/usr/games/stockfish"
#: Where it is looked for besides ``PATH``.
PLACES = (DEBIAN_STOCKFISH, "/usr/local/bin/stockfish", "/opt/homebrew/bin/stockfish")


@functools.cache
def installed_stockfish() -> str | None:
    """The command of the Stockfish installed here, or None (looked for once a process)."""
    named = os.environ.get(VARIABLE)
    if named is not None:
        return None if named.strip().lower() in ("", "none") else named
    found = shutil.which("stockfish")
    if found is not None:
        return found
    return next(
        (place for place in PLACES if Path(place).is_file() and os.access(place, os.X_OK)), None
    )
