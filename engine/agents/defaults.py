"""The one set of defaults of the agents' settings: the engine's options, the agents'
constructors, the tournament and the fidelity bench all read them here (cheap to import)."""

from __future__ import annotations

#: Guided mode's ways of choosing: among sound proposed moves (argmax, sample), or among judged
#: moves by the expert's error model (expert draws, likely plays its most likely; strength.md).
SELECTIONS = ("argmax", "sample", "expert", "likely")
#: The selections that choose by the expert's error model.
CALIBRATED = ("expert", "likely")
#: Chess0's engines.
STYLES = ("classic", "adaptive")

#: Milliseconds kept back from every clock budget (Stockfish's default; Python's pauses are
#: covered by the search's own margins).
MOVE_OVERHEAD_MS = 10

# Guided mode (search.md)
NEIGHBOURS = 64
#: tau of the votes, in tenths of a similarity point (UCI spins are whole numbers).
TEMPERATURE_TENTHS = 40
#: The soundness margin of the built-in search (centipawns).
TOLERANCE = 50
PRIOR = "blend"
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

# Chess0's engines
CHESS0_DEPTH = 4
CHESS0_DEPTH_DEVIATION = 2
#: The adaptive style's randomisation window: root moves this close to the best are drawn among.
CHESS0_WINDOW = 50
