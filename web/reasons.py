"""The engine's ``info string`` lines read back into fields the page draws (bars, verdicts, the case).

The engine writes these lines for people (engine/agents/explain.py, engine/uci/lines.py); this is
the one place that reads them. A line no pattern knows is kept as text, so a new wording shows
up on the page unparsed rather than lost.
"""

from __future__ import annotations

import re
from typing import Any

#: ``Nf3 35%`` or ``g6 <1%`` inside a ranked list.
_SHARE = re.compile(r"(?P<san>[^\s,;:]+) (?P<share><1%|\d+%)")
_MORE = re.compile(r" and (\d+) more")

_PRIOR = re.compile(r"^the style model \((?P<model>.*?)\) proposes (?P<proposes>[^;]*)(?:; (?P<rest>.*))?$")
_CASES = re.compile(r"^(?P<cases>\d+) nearest cases of (?P<expert>.+?) \(similarity (?P<best>\d+) to (?P<worst>\d+)/256\)"
                    r"(?: \(stop came after \d+ of \d+ adaptations\))?(?P<tail>.*)$")
_VOTES = re.compile(r"^ vote (?P<votes>.*?), weighing (?P<weight><1%|\d+%): prior (?P<prior>.*)$")
_CASES_ONLY = re.compile(r"^ propose (?P<prior>.*)$")
_SEARCH = re.compile(r"^search depth (?P<depth>\d+), (?P<nodes>\d+) nodes: best (?P<best>\S+) \((?P<score>[^)]*)\)"
                     r"(?:; (?P<sound>\d+) of (?P<proposed>\d+) proposed moves sound \(within (?P<tolerance>\d+) cp\))?")
_JUDGE = re.compile(r"^judge (?P<judge>[^:]+): depth (?P<depth>\d+), (?P<seconds>[\d.]+) s, (?P<nodes>\d+) nodes: "
                    r"best (?P<best>\S+) \((?P<score>[^)]*)\)(?:; it scored (?P<scored>\d+) of (?P<proposed>\d+) "
                    r"proposed moves, (?P<sound>\d+) sound \(within (?P<tolerance>\d+) cp\))?")
_PLAYED = re.compile(r"^played (?P<san>[^\s,(]+)(?P<why>.*)$")
_LOSS = re.compile(r"it loses (?P<loss>[\d.]+) % of the expected score(?:; (?P<expert>.+?) loses that much or more in "
                   r"(?P<often><1%|\d+%) of (?P<phase>\w+) moves)?")
_ADAPTED = re.compile(r"^(?P<san>\S+) adapted from case (?P<case>\d+) of (?P<expert>.+?): (?P<game>.*), "
                      r"(?P<date>[\d?]{4}\.[\d?]{2}\.[\d?]{2}), move (?P<move>\d+) \(ply (?P<ply>\d+)\); "
                      r"similarity (?P<similarity>\d+)/256; (?P<votes><1%|\d+%) of the votes "
                      r"from (?P<from>\d+) of (?P<of>\d+) cases")
_PURE_CASE = re.compile(r"^case (?P<case>\d+) of (?P<expert>.+?): (?P<game>.*), (?P<date>[\d?]{4}\.[\d?]{2}\.[\d?]{2}), "
                        r"move (?P<move>\d+) \(ply (?P<ply>\d+), (?P<side>White|Black) to move\)$")
_PURE_SIMILARITY = re.compile(r"^similarity (?P<similarity>\d+)/256; (?P<tied>\d+) of (?P<count>\d+) cases")
_PURE_MOVE = re.compile(r"^case move (?P<case_move>\S+); played (?P<san>\S+) \((?P<relation>the case move itself|adapted)")
_LINE = re.compile(r"^line (?P<rank>\d+): (?P<san>\S+), (?P<share><1%|\d+%) of the prior(?:, (?P<score>.*))?$")
#: Lines about the game's set-up rather than a move.
_SETUP = ("model:", "judge:", "seed ", "guided mode:", "pure mode:", "chess0 mode:", "strength limited")


def percent(text: str) -> float:
    """``49%`` as 49.0; ``<1%`` as 0.5 (the engine rounds shares under half a percent to it)."""
    return 0.5 if text == "<1%" else float(text.rstrip("%"))


def ranked(text: str) -> dict[str, Any]:
    """``d6 49%, e6 26% and 18 more`` as {"moves": [{"san", "share"}...], "more": 18}."""
    more = _MORE.search(text)
    body = text[: more.start()] if more else text
    moves = [{"san": m["san"], "share": percent(m["share"])} for m in _SHARE.finditer(body)]
    return {"moves": moves, "more": int(more.group(1)) if more else 0}


def _ints(match: re.Match[str], *names: str) -> dict[str, int | None]:
    return {name: None if match[name] is None else int(match[name]) for name in names}


def _players(game: str) -> dict[str, str]:
    """``White - Black, Event`` split where it can be: names hold commas (``Carlsen, Magnus``), so
    the event is what follows the black player's ``Last, First``."""
    white, _, rest = game.partition(" - ")
    parts = rest.split(", ")
    black, event = (", ".join(parts[:2]), ", ".join(parts[2:])) if len(parts) > 2 else (parts[0], ", ".join(parts[1:]))
    return {"white": white, "black": black, "event": event}


def parse_line(text: str) -> dict[str, Any]:
    """One info string as {"kind": ..., "text": text, ...fields}; kind "text" when no pattern knows it."""
    if m := _PRIOR.match(text):
        item: dict[str, Any] = {"kind": "prior", "model": m["model"], "proposes": ranked(m["proposes"])}
        rest = m["rest"] or ""
        if c := _CASES.match(rest):
            item |= {"cases": int(c["cases"]), "expert": c["expert"], "similarity": [int(c["best"]), int(c["worst"])]}
            if v := _VOTES.match(c["tail"]):
                item |= {"votes": ranked(v["votes"]), "case_weight": percent(v["weight"]), "prior": ranked(v["prior"])}
            else:
                item["note"] = c["tail"].lstrip(": ")
        return item | {"text": text}
    if c := _CASES.match(text):
        if p := _CASES_ONLY.match(c["tail"]):
            return {"kind": "prior", "cases": int(c["cases"]), "expert": c["expert"], "prior": ranked(p["prior"]),
                    "similarity": [int(c["best"]), int(c["worst"])], "text": text}
    if m := _SEARCH.match(text):
        return {"kind": "verdict", "by": "search", "best": m["best"], "score": m["score"], "text": text,
                **_ints(m, "depth", "nodes", "sound", "proposed", "tolerance")}
    if m := _JUDGE.match(text):
        return {"kind": "verdict", "by": m["judge"], "best": m["best"], "score": m["score"], "seconds": float(m["seconds"]),
                "text": text, **_ints(m, "depth", "nodes", "scored", "sound", "proposed", "tolerance")}
    if m := _ADAPTED.match(text):
        return {"kind": "case", "san": m["san"], "expert": m["expert"], "date": m["date"], "text": text,
                **_players(m["game"]), **_ints(m, "case", "move", "ply", "similarity", "from", "of"),
                "votes": percent(m["votes"])}
    if m := _PURE_CASE.match(text):
        return {"kind": "case", "expert": m["expert"], "date": m["date"], "side": m["side"], "text": text,
                **_players(m["game"]), **_ints(m, "case", "move", "ply")}
    if m := _PURE_SIMILARITY.match(text):
        return {"kind": "similarity", "text": text, **_ints(m, "similarity", "tied", "count")}
    if m := _PURE_MOVE.match(text):
        return {"kind": "played", "san": m["san"], "case_move": m["case_move"], "why": m["relation"], "text": text}
    if m := _PLAYED.match(text):
        item = {"kind": "played", "san": m["san"], "why": m["why"].lstrip(", "), "text": text}
        if loss := _LOSS.search(text):
            item |= {"loss": float(loss["loss"]), "expert": loss["expert"], "phase": loss["phase"],
                     "often": None if loss["often"] is None else percent(loss["often"])}
        return item
    if m := _LINE.match(text):
        return {"kind": "line", "rank": int(m["rank"]), "san": m["san"], "share": percent(m["share"]),
                "score": m["score"], "text": text}
    if text.startswith(_SETUP):
        return {"kind": "setup", "text": text}
    return {"kind": "text", "text": text}


def gather(lines: list[str]) -> dict[str, Any]:
    """A move's info strings as one record: the prior, the verdict, why it was played, the case,
    the MultiPV lines, the set-up lines and the rest (text), each in the engine's order."""
    reasons: dict[str, Any] = {"prior": None, "verdict": None, "played": None, "case": None, "similarity": None,
                               "lines": [], "setup": [], "text": []}
    for line in lines:
        item = parse_line(line)
        kind = item["kind"]
        if kind in ("setup", "text"):
            reasons[kind].append(item)
        elif kind == "line":
            reasons["lines"].append(item)
        elif reasons.get(kind) is None:
            reasons[kind] = item
        else:  # a second line of a kind the page shows once: keep it as text
            reasons["text"].append({"kind": "text", "text": line})
    return reasons
