"""The journal of judged positions: one JSON line per finished position, by case key, so that a
judge that fails or a user who stops loses nothing finished (docs/strength.md §1).

The first line is the header: what kind of journal it is and what the entries depend on (the
expert, depth, MultiPV, the judge's name; a play-time journal's, the style model that played it); a
journal of another kind or other settings is refused (:class:`common.journal.Journal`, here raising
:class:`~profiling.ProfileError`).
"""

from __future__ import annotations

from common import journal
from profiling import ProfileError

#: The header's ``journal`` value: what says a file is a profile journal (the play-time
#: calibration's journal has its own, :data:`profiling.play.PLAY_JOURNAL`).
JOURNAL = "cbr-chess-profile-journal"


class Journal(journal.Journal):
    """The judged positions of one expert, one JSON line each by case key (a cut-off last line is
    ignored)."""

    error = ProfileError
    default_kind = JOURNAL
    #: A play-time journal names the style model that played it
    #: (:func:`engine.style.personal.model_sha256`): resuming one of another model is refused by its
    #: caller, and reading a finished one is not.
    checked_later = ("judge", "model")

    def describe(self, kind: str | None) -> str:
        return "profile" if kind == JOURNAL else "play-time"
