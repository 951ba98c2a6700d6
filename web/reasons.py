"""A move's reasons, read from the engine's record of it: the one ``info string json {...}`` line an
engine started with ``Explain json`` sends per move (docs/explain.md), shaped into what the page
draws (bars in percent, the verdict, why it was played, the case, the precedent). Nothing here reads
the engine's lines in words: those are kept as they came, for the PGN's comments.
"""

from __future__ import annotations

import json
from typing import Any

import chess.engine

#: The option the page's engines are started with: the record as JSON beside the words.
OPTIONS = {"Explain": "json"}
#: What starts the record's line, and the record's version this page reads.
PREFIX = "json "
VERSION = 1


def record_of(string: str) -> dict[str, Any] | None:
    """The record in an ``info string`` (its text after ``info string``), or None when it holds none
    (or one of a version this page does not read)."""
    if not string.startswith(PREFIX):
        return None
    try:
        record = json.loads(string[len(PREFIX) :])
    except ValueError:
        return None
    return record if isinstance(record, dict) and record.get("version") == VERSION else None


def first_record(strings: list[str]) -> tuple[int, dict[str, Any]] | None:
    """The first record among a move's ``info string`` texts, and where it is; None without one."""
    return next(((i, r) for i, s in enumerate(strings) if (r := record_of(s)) is not None), None)


def gather(strings: list[str]) -> dict[str, Any]:
    """A move's ``info string`` texts as its reasons: the record's, shaped for the page (all None
    without a record), and the lines in words that followed the record (the move's, for people)."""
    found = first_record(strings)
    reasons = shape({} if found is None else found[1])
    reasons["words"] = [] if found is None else strings[found[0] + 1 :]
    return reasons


def shape(record: dict[str, Any]) -> dict[str, Any]:
    """What the page draws of a record: ``prior`` (bars), ``verdict``, ``played``, ``case``,
    ``precedent`` (guided mode's, as the record has it: docs/explain.md), ``similarity`` (pure
    mode's ties) and ``notes``; None where the record has none."""
    out: dict[str, Any] = {
        "reason": record.get("reason"),
        "prior": None,
        "verdict": None,
        "played": None,
        "case": None,
        "precedent": None,
        "similarity": None,
        "notes": [note["text"] for note in record.get("notes", [])],
    }
    move = record.get("move")
    if move is None:
        return out
    out["played"] = {"san": move["san"], "uci": move["uci"], "reason": record["reason"]}
    if guided := record.get("guided"):
        out |= _guided(guided)
        out["played"] |= _choice(guided["choice"])
    elif pure := record.get("pure"):
        out["case"] = pure["case"] | {"side": pure["side"]}
        out["similarity"] = {
            "similarity": pure["case"]["similarity"],
            "tied": pure["tied"],
            "count": pure["count"],
        }
        out["played"] |= {
            "case_move": pure["case_move"]["san"],
            "adapted": pure["case_move"]["uci"] != move["uci"],
        }
    return out


def percent(share: float) -> float:
    """A share (0–1) in percent, to a tenth."""
    return round(100 * share, 1)


def bars(ranked: dict[str, Any]) -> dict[str, Any]:
    """A ranked list of the record as the page's bars: the moves' SAN and percent, and how many
    more."""
    moves = [
        {"san": m["san"], "uci": m["uci"], "share": percent(m["share"])} for m in ranked["moves"]
    ]
    return {"moves": moves, "more": ranked["total"] - len(moves)}


def score_text(score: dict[str, int] | None) -> str | None:
    """``+35 cp``, ``mate in 2``, ``mated in 3`` (None: no score)."""
    if score is None:
        return None
    if "mate" in score:
        return f"mate in {score['mate']}" if score["mate"] > 0 else f"mated in {-score['mate']}"
    return f"{score['cp']:+d} cp"


def pov_text(score: chess.engine.PovScore) -> str:
    """An ``info`` line's score as the record's are shown (:func:`score_text`): for the side to
    move, the one sign of every score on the page."""
    relative = score.relative
    mate = relative.mate()
    return score_text({"mate": mate} if mate is not None else {"cp": relative.score() or 0}) or ""


def _guided(guided: dict[str, Any]) -> dict[str, Any]:
    proposal, verdict = guided["proposal"], guided["verdict"]
    voting = proposal["case_weight"] > 0 and proposal["model"] is not None
    prior = {
        "source": proposal["source"],
        "model": proposal["model"],
        "model_sha256": proposal.get("model_sha256"),
        "cases": proposal["cases"],
        "expert": proposal["expert"],
        "similarity": proposal["similarity"],
        "prior": bars(proposal["prior"]),
        "proposes": bars(proposal["proposes"]) if proposal["model"] else None,
        "votes": bars(proposal["votes"]) if voting else None,
        "case_weight": percent(proposal["case_weight"]),
        "voting": voting,
    }
    best = verdict["best"]
    shaped = {
        "by": verdict["judge"] or "search",
        "best": None if best is None else best["san"],
        "score": score_text(verdict["score"]),
    }
    shaped |= {
        key: verdict[key]
        for key in ("depth", "nodes", "seconds", "proposed", "scored", "sound", "tolerance")
    }
    return {
        "prior": prior,
        "verdict": shaped,
        "case": guided["case"],
        "precedent": guided["precedent"],
    }


def _choice(choice: dict[str, Any]) -> dict[str, Any]:
    top = choice["top"]
    shaped = {
        "share": percent(choice["move"]["share"]),
        "top": None if top is None else top["san"],
        "top_share": None if top is None else percent(top["share"]),
        "score": score_text(choice["score"]),
        "chooser": choice.get("chooser") is not None,
    }
    if choice["loss"] is not None:
        shaped |= {
            "loss": percent(choice["loss"]),
            "expert": choice["expert"],
            "phase": choice["phase"],
            "often": None if choice["often"] is None else percent(choice["often"]),
            "chances": choice["chances"]["total"],
            "calibration": choice["calibration"],
        }
    return shaped
