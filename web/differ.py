"""What differs between two experts asked about one position (issue #41, item 15), in words: whether
they share one style model (a personal model whose fit chose 0 epochs is the generic one: compared
by the weights' SHA-256 the engine reports, not by the labels, which name each expert; issue #53),
their own cases' votes, the move each would play, their repertoire's first moves and their error
profiles. Read from the asks' records and the casebases' facts, never from the engine's English.
"""

from __future__ import annotations

from typing import Any

from web.experts import Experts

#: The most moves named of a list (votes, first moves).
NAMED = 3


def compared(
    experts: Experts, ids: list[str], names: list[str], answers: list[dict[str, Any]]
) -> list[str]:
    """The differences between two experts' answers (nothing for one expert)."""
    if len(ids) != 2:
        return []
    return differences(names, answers, [experts.facts(i) for i in ids])


def differences(
    names: list[str], answers: list[dict[str, Any]], facts: list[dict[str, Any]]
) -> list[str]:
    """Sentences on the two experts' style models, their cases' votes and choices here, and their
    repertoire and error profile (``facts``: :meth:`Experts.facts` of each)."""
    lines = []
    priors = [answer["reasons"].get("prior") for answer in answers]
    if priors[0] is not None and priors[1] is not None:
        lines.append(_models(names, priors[0], priors[1]))
        lines += [_votes(name, prior) for name, prior in zip(names, priors)]
    bests = [answer["best"] for answer in answers]
    if None not in bests:
        lines.append(
            f"Both would play {bests[0]}."
            if bests[0] == bests[1]
            else f"{names[0]} would play {bests[0]}, {names[1]} {bests[1]}."
        )
    lines += [_repertoire(name, fact) for name, fact in zip(names, facts)]
    lines += [_profile(name, fact) for name, fact in zip(names, facts)]
    return [line for line in lines if line]


def _models(names: list[str], first: dict[str, Any], second: dict[str, Any]) -> str:
    """Whether the two experts play with one network: compared by what the models are, the SHA-256
    of their weights that the engine reports (their labels name each expert, so they always differ),
    or, from an engine that reports none, by what they propose here."""
    if not (first["model"] and second["model"]):
        return ""
    digests = first.get("model_sha256"), second.get("model_sha256")
    same = (
        digests[0] == digests[1] if None not in digests else first["proposes"] == second["proposes"]
    )
    if same and None not in digests:
        return (
            f"{names[0]} and {names[1]} share one style model, the same network ({first['model']};"
            f" weights {str(digests[0])[:12]}): what differs is the experts' own cases, their"
            " repertoire and their error profile."
        )
    if same:
        return (
            f"Both style models propose alike here ({first['model']}): what differs is the experts'"
            " own cases, their repertoire and their error profile."
        )
    return (
        f"Their style models are different networks: {names[0]}'s is {first['model']},"
        f" {names[1]}'s {second['model']}."
    )


def _votes(name: str, prior: dict[str, Any]) -> str:
    votes = prior["votes"] if prior["model"] else prior["prior"]
    if votes is None:
        return (
            f"{name}'s {prior['cases']} nearest cases are not this position: they do not vote here."
        )
    named = ", ".join(f"{m['san']} {m['share']:g} %" for m in votes["moves"][:NAMED])
    return f"{name}'s own cases vote {named}."


def _repertoire(name: str, fact: dict[str, Any]) -> str:
    sides = [
        f"as {colour.capitalize()} {moves[0][0]} ({moves[0][1]} games)"
        for colour, moves in fact["first_moves"].items()
        if moves
    ]
    return f"{name}'s first moves: {', '.join(sides)}." if sides else ""


def _profile(name: str, fact: dict[str, Any]) -> str:
    profile = fact.get("profile")
    if not profile or not profile.get("rating") or not profile.get("all"):
        return f"{name} has no error profile."
    return (
        f"{name}'s error profile: an implied rating of {profile['rating']['implied']:.0f},"
        f" {100 * profile['all']['mistakes']:.0f} % of moves losing 50 cp or more."
    )
