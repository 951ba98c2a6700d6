"""What an outside engine's command raises when the engine fails, written once (its error, its
process ended: python-chess's ``EngineTerminatedError`` is an ``EngineError``, or no answer in
time), and the one way to end a python-chess engine that may no longer answer. The profile's
judge, the chooser's referee, the tournament's players and the web's games use them."""

from __future__ import annotations

import chess.engine

#: An outside engine failed: it answered with an error, its process ended, or it timed out.
ENGINE_FAILURES: tuple[type[Exception], ...] = (chess.engine.EngineError, TimeoutError)


def quit_engine(engine: chess.engine.SimpleEngine) -> None:
    """End an outside engine: by quit, or, where it no longer answers, by closing it."""
    try:
        engine.quit()
    except ENGINE_FAILURES:
        engine.close()
