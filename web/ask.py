"""Ask the expert: the expert's likeliest move in a position and the chance of every candidate (the
distribution the calibrated choice draws from), each with its score and what it loses, from a
short-lived engine process of that expert, and why in the words of a game's cards (web/plain.py); on
request the same chances at several ratings, in the same engine session (the page's rating slider).

With a judge the engine plays ``Selection likely``: the argmax of the record's ``chances``
(docs/explain.md). Without one, ``Selection argmax`` (the sound move the prior likes best) and the
prior's shares. A rating is ``UCI_LimitStrength`` with ``UCI_Elo`` and ``Selection likely``.
"""

from __future__ import annotations

from typing import Any

import chess
import chess.engine

from engine.outside.launch import start
from web.games import QUIT_SECONDS, START_SECONDS, engine_command
from web.plain import sentences
from web.reasons import OPTIONS, first_record, gather, percent, pov_text
from web.scores import MATE_CP, centipawns

#: The most candidate moves asked for.
MAX_LINES = 8
#: The lines asked of the engine, whose scores the candidates take: the record's ranked lists hold
#: at most 16.
SCORED = 16
#: A candidate this far below the best move (centipawns, a pawn: a mistake) is marked as losing a
#: lot.
LOSING = 100
#: The ratings the slider shows the chances at (UCI_Elo, within its range).
RATINGS = (1000, 1500, 2000, 2500, 3000)

Ranks = dict[int, chess.engine.InfoDict]


async def ask(
    board: chess.Board,
    casebase: str,
    lines: int,
    limit: chess.engine.Limit,
    *,
    judge: str | None = None,
    mode: str | None = None,
    ratings: bool = False,
) -> dict[str, Any]:
    """The expert's likeliest move in ``board``, its ``lines`` first MultiPV lines, every candidate
    with its chance, and (``ratings``) the candidates' chances at each of :data:`RATINGS`."""
    if board.is_game_over():
        return {
            "best": None,
            "lines": [],
            "candidates": [],
            "more": 0,
            "more_chance": None,
            "reasons": gather([]),
            "plain": [],
            "strings": [],
            "over": board.result(),
        }
    outside = await start(engine_command(casebase, judge, mode), timeout=START_SECONDS)
    try:
        own = {"Selection": "likely" if judge else "argmax", **OPTIONS}
        strings, ranks, best = await _think(outside.protocol, board, limit, own)
        at_ratings = []
        for elo in RATINGS if ratings else ():
            rated: chess.engine.ConfigMapping = {
                "Selection": "likely",
                "UCI_LimitStrength": True,
                "UCI_Elo": elo,
                **OPTIONS,
            }
            said, scored, move = await _think(outside.protocol, board, limit, rated)
            at_ratings.append(
                {
                    "elo": elo,
                    "best": None if move is None else board.san(move),
                    **candidates(said, scored),
                }
            )
    finally:
        await outside.quit(QUIT_SECONDS)
    reasons = gather(strings)
    shown = {rank: info for rank, info in ranks.items() if rank <= lines}
    answer = {
        "best": None if best is None else board.san(best),
        "lines": _lines(board, shown, reasons),
        **candidates(strings, ranks),
        "reasons": reasons,
        "plain": sentences(reasons),
        "strings": strings,
        "over": None,
    }
    return answer | {"ratings": at_ratings} if ratings else answer


async def _think(
    engine: chess.engine.UciProtocol,
    board: chess.Board,
    limit: chess.engine.Limit,
    options: chess.engine.ConfigMapping,
) -> tuple[list[str], Ranks, chess.Move | None]:
    """One search with ``options``: its info strings, its MultiPV lines by rank, and its move."""
    strings: list[str] = []
    ranks: Ranks = {}
    with await engine.analysis(
        board, limit, multipv=SCORED, options=options, info=chess.engine.INFO_ALL
    ) as analysis:
        async for info in analysis:
            if "string" in info:
                strings.append(info["string"])
            if "multipv" in info and info.get("pv"):
                ranks[info["multipv"]] = info
        best = await analysis.wait()
    return strings, ranks, best.move


def candidates(strings: list[str], ranks: Ranks) -> dict[str, Any]:
    """Every candidate of the record, likeliest first: its ``chance`` (percent of the calibrated
    choice's; None without one, ranked then by the prior), its ``share`` of the prior, its score
    for the side to move and its ``loss`` below the best move (centipawns, from the MultiPV lines;
    None where unscored), ``losing`` when that is :data:`LOSING` or more; and how many ``more`` the
    record left out, with their ``more_chance``."""
    found = first_record(strings)
    record = None if found is None else found[1]
    guided = None if record is None else record.get("guided")
    if guided is None:
        return {"candidates": [], "more": 0, "more_chance": None}
    prior = {m["uci"]: percent(m["share"]) for m in guided["proposal"]["prior"]["moves"]}
    chances = guided["choice"]["chances"]
    ranked = chances if chances["moves"] else guided["proposal"]["prior"]
    scores = {info["pv"][0].uci(): info["score"] for info in ranks.values() if "score" in info}
    best = centipawns(guided["verdict"]["score"])
    out = []
    for move in ranked["moves"]:
        score = scores.get(move["uci"])
        cp = None if score is None else score.relative.score(mate_score=MATE_CP + 1000)
        loss = None if cp is None or best is None else max(best - cp, 0)
        out.append(
            {
                "san": move["san"],
                "uci": move["uci"],
                "chance": percent(move["share"]) if chances["moves"] else None,
                "share": prior.get(move["uci"]),
                "score": None if score is None else pov_text(score),
                "loss": loss,
                "losing": loss is not None and loss >= LOSING,
            }
        )
    listed = sum(c["chance"] or 0.0 for c in out)
    return {
        "candidates": out,
        "more": ranked["total"] - len(out),
        "more_chance": round(max(100.0 - listed, 0.0), 1) if chances["moves"] else None,
    }


def _lines(board: chess.Board, ranks: Ranks, reasons: dict[str, Any]) -> list[dict[str, Any]]:
    """The MultiPV lines by rank: the move, its share of the prior (in percent, from the record)
    and its score for the side to move."""
    prior = reasons["prior"]
    shares = {} if prior is None else {m["uci"]: m["share"] for m in prior["prior"]["moves"]}
    out = []
    for rank, info in sorted(ranks.items()):
        move, score = info["pv"][0], info.get("score")
        out.append(
            {
                "rank": rank,
                "san": board.san(move),
                "share": shares.get(move.uci(), 0.0),
                "score": None if score is None else pov_text(score),
            }
        )
    return out
