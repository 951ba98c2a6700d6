"""A decision's record's notes in words (cbr-agent.md §6, search.md §5), each an ``info string``
line ahead of the record's own (:func:`engine.uci.explain.explain`): the fallback to a random move,
the judge's fate (starting, refused, failed, retired), the speed class whose profile the error model
plays, another judge than the profile's, an engine's own line and the tables' problem in their own
words.
"""

from __future__ import annotations

from engine.agents.record import (
    EngineLine,
    ListedMovesIllegal,
    NoAgent,
    Note,
    OtherJudge,
    SpeedProfile,
    TablesProblem,
)
from engine.outside.judge import START_TIMEOUT, JudgeEvent, JudgeNote


def note_text(note: Note) -> str:
    """A note in words: the fallback, the judge's fate, or the tables' problem in their own
    words."""
    if isinstance(note, TablesProblem):
        return note.problem
    if isinstance(note, EngineLine):
        return note.text
    if isinstance(note, NoAgent):
        return "no agent" if note.error is None else f"error while choosing a move: {note.error}"
    if isinstance(note, ListedMovesIllegal):
        return "none of the listed moves is legal here: choosing among all legal moves"
    if isinstance(note, SpeedProfile):
        return _speed_note(note)
    if isinstance(note, OtherJudge):
        return (
            f"the judge is {note.judge} but {note.expert}'s error profile was judged by"
            f" {note.profile_judge}: the calibrated strength may differ (strength.md §3, another"
            " judge)"
        )
    return _judge_note(note)


def _speed_note(note: SpeedProfile) -> str:
    """Which profile the error model plays this game: the speed's own, or all the expert's
    games'."""
    why = "option Speed" if note.forced else "the speed the clock implies"
    if note.played:
        counted = "" if note.positions is None else f" ({note.positions} positions)"
        return f"playing {note.expert}'s {note.speed} profile{counted}, {why}"
    counted = (
        "no profile by speed"
        if note.positions is None
        else f"{note.positions} positions < {note.needed}"
    )
    return (
        f"no {note.speed} profile of {note.expert} ({counted}), {why}: playing the profile of all"
        f" {note.expert}'s games"
    )


def _judge_note(note: JudgeNote) -> str:
    judge, why = f"judge {note.judge}", note.why
    return {
        JudgeEvent.STARTING: (
            f"{judge} is starting: the Python search judges until it is ready (it answers uciok"
            f" within {START_TIMEOUT:.2g} s, and the built-in search compiles once)"
        ),
        JudgeEvent.STILL_STARTING: f"{judge} is still starting: the Python search judged",
        JudgeEvent.REFUSED: (
            f"{judge} refused: {why}; the Python search judges until option Judge or the program"
            " changes"
        ),
        JudgeEvent.STILL_REFUSED: f"{judge} refused (see above): the Python search judged",
        JudgeEvent.FAILED: f"{judge} failed: {why}; it will be restarted at the next move",
        JudgeEvent.FAILED_FOR_THE_GAME: (
            f"{judge} failed: {why}; the Python search judges for the rest of the game"
        ),
        JudgeEvent.RETIRED: (
            f"{judge} retired after two faults this game: the Python search judges until the next"
            " game"
        ),
    }[note.event]
