"""The small error profile and play-time record the tests judge a copy of a casebase for, with a
scripted judge (judge_helpers.scripted): the play-time calibration's tests, the judge's provenance
and ``make strength``'s."""

from __future__ import annotations

from profiling.judging import Settings
from profiling.play import PlaySettings

#: The profile's positions and the play-time record's (a few: each is a judged position; 24 profile
#: positions left Kosteniuk's own network from the master network an unusable fit, of infinite
#: consistency, and 32 left it so once the network was written half way: 36 were enough, 40 leave a
#: margin).
PROFILE, PLAYED = (
    Settings(positions=40, depth=2, multipv=4),
    PlaySettings(positions=16, judge_depth=2),
)
