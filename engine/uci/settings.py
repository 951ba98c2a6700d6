"""The protocol's own options typed once from their values
(:func:`engine.agents.options.settings_of`): how a move is said and timed. They are no part of the
agent: changing one remakes none."""

from __future__ import annotations

import dataclasses

from engine.agents.defaults import Explain
from engine.agents.options import setting


@dataclasses.dataclass(frozen=True)
class ProtocolSettings:
    """Option by option, how the protocol says and times a move."""

    explain: Explain = setting("Explain", Explain)
    lines: int = setting("MultiPV", int)
    overhead: int = setting("Move Overhead", int)
    human_time: bool = setting("HumanTime", bool)
    wdl: bool = setting("UCI_ShowWDL", bool)
