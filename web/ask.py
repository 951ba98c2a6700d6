"""Ask the expert: the expert's candidate moves in a position, with their shares of the prior
(the engine's MultiPV lines), from a short-lived engine process of that expert."""

from __future__ import annotations

from typing import Any

import chess
import chess.engine

from engine.outside.launch import start
from web.games import QUIT_SECONDS, START_SECONDS, engine_command
from web.reasons import gather

#: The most candidate moves asked for.
MAX_LINES = 8


async def ask(board: chess.Board, casebase: str, lines: int, limit: chess.engine.Limit, *,
              judge: str | None = None, mode: str | None = None) -> dict[str, Any]:
    """The expert's ``lines`` likeliest moves in ``board`` (MultiPV) and the reasons of its choice."""
    if board.is_game_over():
        return {"best": None, "lines": [], "reasons": gather([]), "strings": [], "over": board.result()}
    outside = await start(engine_command(casebase, judge, mode), timeout=START_SECONDS)
    strings: list[str] = []
    try:
        with await outside.protocol.analysis(board, limit, multipv=max(1, min(lines, MAX_LINES)),
                                         info=chess.engine.INFO_ALL) as analysis:
            async for info in analysis:
                if "string" in info:
                    strings.append(info["string"])
            best = await analysis.wait()
    finally:
        await outside.quit(QUIT_SECONDS)
    reasons = gather(strings)
    return {"best": None if best.move is None else board.san(best.move), "lines": reasons["lines"],
            "reasons": reasons, "strings": strings, "over": None}
