"""The expert's error profile: judging the expert's moves with an outside engine, the journal,
the fit, the report picture (``python -m profiling FILE.npz --judge PATH``; docs/strength.md §1).

- :mod:`profiling.judging`: which positions are judged, and judging them (the judge started
  by :mod:`engine.outside.launch`, its scores read by :mod:`engine.search.scores`);
- :mod:`profiling.journal`: the judged positions, one JSON line each, resumable;
- :mod:`profiling.workers`: where the judging runs (``--workers``, ``--cluster``): the positions
  handed to worker processes or a Ray cluster, their verdicts written to the journal here as they
  come;
- :mod:`profiling.pipeline`: judge, fit (:mod:`engine.strength.profile`), store beside the casebase
  (``X.profile.npz``);
- :mod:`profiling.play` and :mod:`profiling.games`: the engine's own choices recorded at play time,
  in the expert's positions and in positions of its own games (docs/strength.md §3);
- :mod:`profiling.fitted`: the numbers fitted across the shipped profiles, written as data
  (``engine/strength/models/fitted.json``);
- :mod:`profiling.report`: the picture (matplotlib, the optional extra ``plots``).
- :mod:`profiling.intrinsic`: the same judging and fit for any player's games in a PGN, read
  as a rating on the experts' line (``python -m profiling.intrinsic``; docs/strength.md §6).

The casebase layer only stores the profile (:mod:`casebase.profilefile`); the engine reads it and
plays by it (:mod:`engine.strength.calibration`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable


class ProfileError(Exception):
    """The profile cannot be made: no judge where one is needed, a journal of other settings, a
    judge that failed (the finished positions are kept); the message says which."""


def command_status(
    prog: str, work: Callable[[], object], errors: tuple[type[Exception], ...]
) -> int:
    """Run a judging command's ``work`` and return its exit status: 0 when done, 1 with ``prog:
    error: …`` on one line of stderr where it raised one of ``errors``, 130 when interrupted (the
    judged positions are kept in the journal)."""
    try:
        work()
    except errors as exc:
        print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"{prog}: interrupted; the judged positions are kept in the journal: run the same"
            " command to go on",
            file=sys.stderr,
        )
        return 130
    return 0
