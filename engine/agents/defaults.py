"""The one set of defaults of the agents' settings: the engine's options, the agents'
constructors, the tournament and the fidelity bench all read them here (cheap to import)."""

from __future__ import annotations

from enum import StrEnum

from engine.style.prior import PriorSource


class Selection(StrEnum):
    """Guided mode's ways of choosing (option Selection): among the sound proposed moves, or
    among the judged moves by the expert's error model (strength.md)."""

    #: the sound proposed move the prior likes best
    ARGMAX = "argmax"
    #: one drawn by the prior among the sound proposed moves
    SAMPLE = "sample"
    #: one drawn by the expert's error model among the judged moves (the expert's own mistakes)
    CALIBRATED = "calibrated"
    #: the error model's most likely judged move
    LIKELY = "likely"
    #: the default: ``calibrated`` where a judge plays and the casebase has an error profile (the
    #: expert's own strength), ``argmax`` otherwise (strength.md §4)
    AUTO = "auto"

    @property
    def calibrated(self) -> bool:
        """Whether it chooses by the expert's error model."""
        return self in (Selection.CALIBRATED, Selection.LIKELY)


class Chess0Style(StrEnum):
    """Chess0's engines (option Style)."""

    CLASSIC = "classic"
    ADAPTIVE = "adaptive"


class Explain(StrEnum):
    """How the engine tells what decided each move (option Explain; docs/explain.md)."""

    #: ``info string`` lines in words
    TEXT = "text"
    #: the same, and the record itself as one JSON ``info string`` line before them
    JSON = "json"
    #: none of the record's lines
    OFF = "off"


#: The engine's mode unless told otherwise: guided, the project's best self-contained play
#: (pure, the thesis's agent, is one option away).
MODE = "guided"

#: Milliseconds kept back from every clock budget (Stockfish's default; Python's pauses are
#: covered by the search's own margins).
MOVE_OVERHEAD_MS = 10

#: Option Explain's default: the record in words.
EXPLAIN = Explain.TEXT

# Guided mode (search.md)
NEIGHBOURS = 64
#: tau of the votes, in tenths of a similarity point (UCI spins are whole numbers).
TEMPERATURE_TENTHS = 40
#: The soundness margin of the built-in search (centipawns).
TOLERANCE = 50
PRIOR = PriorSource.BLEND
#: Option Model's default: the casebase's personal model where there is one, else the generic model.
MODEL = "auto"
#: The cases' weight in the blend where the position itself is a case (percent).
CASE_WEIGHT_PERCENT = 50
#: How far below its best the built-in search scores proposals exactly when the error model
#: chooses (centipawns): a move losing more is all but never drawn.
EXPERT_TOLERANCE = 300
#: UCI_Elo's default and range (the shipped experts' middle; what the rating line reaches).
UCI_ELO = 2500
UCI_ELO_RANGE = (1000, 3000)
#: The soundness margin on an outside judge's scale (25: measured best for fidelity, search.md §7).
JUDGE_TOLERANCE = 25
#: The outside engine's depth in the fidelity bench (alone, and as guided mode's judge): the bench
#: searches to a fixed depth, not for a time, so that its results do not depend on the machine's load.
BENCH_DEPTH = 10

# Chess0's engines
CHESS0_DEPTH = 4
CHESS0_DEPTH_DEVIATION = 2
#: The adaptive style's randomisation window: root moves this close to the best are drawn among.
CHESS0_WINDOW = 50
