"""Starting an outside UCI engine (Stockfish, another copy of this engine): the one launcher that
the judge, the tournament's opponents and the fidelity bench share, over python-chess's client."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

import chess.engine

#: How long an engine may take to answer ``uci`` with ``uciok``.
START_TIMEOUT = 10.0


class LaunchError(Exception):
    """The engine did not start; the message says why (missing, not a UCI engine, too slow)."""


def launch(command: Sequence[str], *, timeout: float = START_TIMEOUT, own_group: bool = False) -> chess.engine.SimpleEngine:
    """The UCI engine ``command`` (program and arguments), started and past ``uciok``.

    ``own_group`` puts it in a process group of its own, so that a Ctrl-C meant for us does
    not reach it (a judge is stopped by us, at the right moment).
    """
    program = command[0] if command else ""
    if shutil.which(program) is None:
        raise LaunchError(f"no engine at {program or '(empty command)'}")
    try:
        return chess.engine.SimpleEngine.popen_uci(list(command), timeout=timeout, setpgrp=own_group)
    except TimeoutError:
        raise LaunchError(f"{program} did not answer uciok within {timeout:.2g} s") from None
    except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
        raise LaunchError(f"{program} does not start as a UCI engine ({exc or type(exc).__name__})") from None
