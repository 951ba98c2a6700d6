"""Ask the expert: the expert's candidate moves in a position, with their shares of the prior
(the engine's MultiPV lines, the shares from its record of the move), from a short-lived engine
process of that expert."""

from __future__ import annotations

from typing import Any

import chess
import chess.engine

from engine.outside.launch import start
from web.games import QUIT_SECONDS, START_SECONDS, engine_command
from web.reasons import OPTIONS, gather, pov_text

#: The most candidate moves asked for.
MAX_LINES = 8


async def ask(board: chess.Board, casebase: str, lines: int, limit: chess.engine.Limit, *,
              judge: str | None = None, mode: str | None = None) -> dict[str, Any]:
    """The expert's ``lines`` likeliest moves in ``board`` (MultiPV) and the reasons of its choice."""
    if board.is_game_over():
        return {"best": None, "lines": [], "reasons": gather([]), "strings": [], "over": board.result()}
    outside = await start(engine_command(casebase, judge, mode), timeout=START_SECONDS)
    strings: list[str] = []
    ranks: dict[int, chess.engine.InfoDict] = {}
    try:
        with await outside.protocol.analysis(board, limit, multipv=max(1, min(lines, MAX_LINES)), options=OPTIONS,
                                         info=chess.engine.INFO_ALL) as analysis:
            async for info in analysis:
                if "string" in info:
                    strings.append(info["string"])
                if "multipv" in info and info.get("pv"):
                    ranks[info["multipv"]] = info
            best = await analysis.wait()
    finally:
        await outside.quit(QUIT_SECONDS)
    reasons = gather(strings)
    return {"best": None if best.move is None else board.san(best.move), "lines": _lines(board, ranks, reasons),
            "reasons": reasons, "strings": strings, "over": None}


def _lines(board: chess.Board, ranks: dict[int, chess.engine.InfoDict], reasons: dict[str, Any]) -> list[dict[str, Any]]:
    """The MultiPV lines by rank: the move, its share of the prior (in percent, from the record)
    and its score for the side to move."""
    prior = reasons["prior"]
    shares = {} if prior is None else {m["uci"]: m["share"] for m in prior["prior"]["moves"]}
    out = []
    for rank, info in sorted(ranks.items()):
        move, score = info["pv"][0], info.get("score")
        out.append({"rank": rank, "san": board.san(move), "share": shares.get(move.uci(), 0.0),
                    "score": None if score is None else pov_text(score)})
    return out

