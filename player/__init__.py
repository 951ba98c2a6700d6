"""``cbr-chess new``: any player's engine from a PGN in one command (issue #42).

Seven stages, each resumable in the player's folder (``players/<slug>/``): the casebase, the
held-out games, the personal model, the judged profile, the play-time record, a calibration match
and its games record, and the report (docs/usage.md, "A new player's engine").
"""

from __future__ import annotations


class PlayerError(Exception):
    """The command cannot go on; the message says why. What was finished is kept."""
