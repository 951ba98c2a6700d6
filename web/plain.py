"""A move's reasons in plain words, the page's and the PGN's (issue #41, item 14): where the idea
comes from (which of the expert's games, and how the case's move was adapted), its precedent by the
learned similarity (issue #61), what else the expert considered, whether it is sound, and how often
the expert errs like this. The numbers that are the same for every move (the style model, the error
model's parameters) are not repeated here: :func:`parameters` gives them once. Everything is read
from :func:`web.reasons.shape`'s shaping of the engine's record, never from its English.
"""

from __future__ import annotations

from typing import Any

import chess.pgn

from web.reasons import percent

#: The most other moves named as considered.
CONSIDERED = 3
#: The reasons of a move the expert's error model chose, sound or not (``Selection calibrated``,
#: ``likely``).
CHOSEN_BY_ERRORS = ("calibrated", "likely")
#: Below this share of the expected score (in percent) a move loses nothing worth a word.
NEGLIGIBLE_LOSS = 0.05


def plain(reasons: dict[str, Any], position: dict[str, Any] | None = None) -> dict[str, Any]:
    """``lines``, the move's :func:`sentences`, and the game's :func:`parameters`."""
    return {"lines": sentences(reasons, position), "parameters": parameters(reasons)}


def sentences(reasons: dict[str, Any], position: dict[str, Any] | None = None) -> list[str]:
    """Short sentences for a person: the idea's source and its precedent, the alternatives, the
    soundness, the error rate (each only where the record has it); ``position`` is the case's own
    position and move (``Experts.case``), which says how the expert's move there became this one."""
    played = reasons.get("played")
    if played is None:
        return []
    lines = [
        _source(played, reasons.get("case"), position, reasons.get("prior")),
        _precedent(played, reasons.get("precedent")),
    ]
    if (prior := reasons.get("prior")) is not None:
        lines.append(_considered(played, prior))
    if (verdict := reasons.get("verdict")) is not None:
        lines.append(_soundness(played, verdict))
    if played.get("loss") is not None:
        lines.append(_error_rate(played))
    return [line for line in lines if line]


def parameters(reasons: dict[str, Any]) -> dict[str, str]:
    """What is the same for every move of a game, said once: the style model and where the error
    model's parameters come from (absent keys: the record has none)."""
    out = {}
    prior, played = reasons.get("prior"), reasons.get("played") or {}
    if prior is not None and prior.get("model"):
        out["style model"] = str(prior["model"])
    if played.get("calibration"):
        out["error model"] = str(played["calibration"])
    return out


def pgn_comments(game: chess.pgn.Game, records: dict[int, dict[str, Any]]) -> None:
    """Comment a game's engine moves (``records`` by ply) in plain words (the engine's own lines
    where its record could not be read), and say the parameters once, in the game's first
    comment."""
    said: dict[str, str] = {}
    for ply, node in enumerate(game.mainline()):
        record = records.get(ply)
        if record:
            node.comment = " ".join(record["plain"]["lines"] or record["reasons"]["words"]).replace(
                "}", ")"
            )
            said = record["plain"]["parameters"] | said  # the first move's, where two differ
    if said:
        game.comment = "; ".join(f"{key}: {value}" for key, value in said.items()).replace("}", ")")


def _game(case: dict[str, Any], position: dict[str, Any] | None) -> str:
    """``Mukavec, S. – Kosteniuk, Alexandra, EU-ch U12 Girls 1996, move 1``."""
    year = position["year"] if position else case["date"][:4]
    return f"{case['white']} – {case['black']}, {case['event']} {year}, move {case['move']}"


def _source(
    played: dict[str, Any],
    case: dict[str, Any] | None,
    position: dict[str, Any] | None,
    prior: dict[str, Any] | None,
) -> str:
    san = played["san"]
    if case is None:
        # pure mode without a case in the record: nothing to name
        if played.get("case_move") is not None:
            return ""
        if prior is not None and prior.get("model"):
            return f"{san} is the style model's idea: none of the expert's near cases played it."
        return ""
    expert = _name(case["expert"])
    near = (
        "this very position"
        if case["similarity"] >= 256
        else f"a similar position ({case['similarity']}/256)"
    )
    own = position["san"] if position else played.get("case_move")
    votes = (
        ""
        if case.get("votes") is None
        else f"; {case['voters']} of its {case['cases']} near cases voted for it,"
        f" {_percent(percent(case['votes']))} of the votes"
    )
    if own is None or own == san:
        return (
            f"From {expert}'s game {_game(case, position)}: {expert} played {san} in {near}{votes}."
        )
    return (
        f"From {expert}'s game {_game(case, position)}: there, in {near}, {expert} played {own}; on"
        f" this board the nearest legal move to it is {san}{votes}."
    )


def _precedent(played: dict[str, Any], precedent: dict[str, Any] | None) -> str:
    """The precedent (docs/explain.md): the nearest case by the learned similarity that speaks for
    the move, "A position 94 % alike by the learned similarity, from Carlsen's game ..., where
    Carlsen played Rd1."; where none of those looked at does, the nearest, said so."""
    if precedent is None:
        return ""
    case, own, san = precedent["case"], precedent["case_move"], played["san"]
    expert = _name(case["expert"])
    line = (
        f"A position {precedent['alike']:.0f} % alike by the learned similarity, from {expert}'s"
        f" game {_game(case, None)}, where {expert} played {own['san']}"
    )
    if not precedent["played"]:
        return (
            f"{line}; of the {precedent['nearest']} nearest, none played {san} or a move like it."
        )
    return line + (
        "."
        if own["uci"] == played["uci"]
        else f"; on this board the nearest legal move to it is {san}."
    )


def _considered(played: dict[str, Any], prior: dict[str, Any]) -> str:
    others = [m for m in prior["prior"]["moves"] if m["uci"] != played["uci"]][:CONSIDERED]
    if not others:
        return "The expert had no other idea here."
    named = ", ".join(f"{m['san']} ({_percent(m['share'])})" for m in others)
    return f"The expert also considered {named}."


def _soundness(played: dict[str, Any], verdict: dict[str, Any]) -> str:
    who = "the search" if verdict["by"] == "search" else verdict["by"]
    if verdict["score"] is None:
        return f"Not checked: {who} stopped before it scored a move."
    if played["reason"] == "search":
        return f"None of the expert's ideas held up, so {who}'s best move was played instead."
    if verdict["best"] == played["san"]:
        return f"It is {who}'s best move too ({verdict['score']})."
    mine = played.get("score")
    if mine is None:
        return (
            f"{who.capitalize()} preferred {verdict['best']} ({verdict['score']}); it did not"
            " score this move."
        )
    scored = f"{who} scores it {mine}; its best move, {verdict['best']}, {verdict['score']}."
    # the error model may choose a move outside the tolerance (its loss is the next sentence); the
    # prior's rules may not
    return (
        scored[0].upper() + scored[1:]
        if played["reason"] in CHOSEN_BY_ERRORS
        else f"Sound: {scored}"
    )


def _error_rate(played: dict[str, Any]) -> str:
    if played["loss"] < NEGLIGIBLE_LOSS:
        return "It loses nothing worth counting against the best move."
    line = f"It gives away {_percent(played['loss'])} of the expected score"
    if played.get("often") is None:
        return line + "."
    expert = _name(str(played["expert"]))
    return (
        f"{line}: {expert} errs this much or more in {_percent(played['often'])} of"
        f" {played['phase']} moves."
    )


def _name(expert: str) -> str:
    """The expert as the sentences name them: ``Carlsen`` of ``Carlsen, Magnus``."""
    return expert.split(",")[0]


def _percent(share: float) -> str:
    return f"{share:g} %"
