"""The one set of defaults of the agents' settings: the engine's options, the agents'
constructors, the cbr-chess command, the tournament and the fidelity bench all read them here
(cheap to import); no other module writes a default's value."""

from __future__ import annotations

from enum import StrEnum

from casebase.speed import SPEEDS
from engine.search import Search
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
    #: the default: ``calibrated`` where the casebase has an error profile (the expert's own
    #: strength; without a judge, sized to the built-in search's own loss: strength.md §7),
    #: ``argmax`` otherwise
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
#: The round robin's mode unless told otherwise: pure, the thesis's experiment (experiment.md).
TOURNAMENT_MODE = "pure"
#: The shipped expert played when no casebase is given (a name in the casebases' folder).
CASEBASE = "carlsen-2800"

# Every mode
#: The adaptation weights v1, v2, v3 (cbr-agent.md §5) in hundredths: the thesis's balanced 0.5
#: each.
WEIGHT_HUNDREDTHS = 50
#: 0: a fresh seed every game, told so that the game can be replayed.
SEED = 0
#: The expert's N most likely moves shown as analysis lines: 1, the move played alone.
MULTI_PV = 1
#: No Syzygy tables, no win/draw/loss beside the scores, no pondering unless the GUI asks.
SYZYGY_PATH = ""
SHOW_WDL = False
PONDER = False
#: The standard options, handed to an outside judge: one thread and a table of 16 MB (Stockfish's
#: own).
THREADS = 1
HASH_MB = 16

#: Milliseconds kept back from every clock budget (Stockfish's default; Python's pauses are
#: covered by the search's own margins).
MOVE_OVERHEAD_MS = 10
#: Option HumanTime's default: off, so that match runners keep their speed (the web page turns it
#: on).
HUMAN_TIME = False

#: Option Explain's default: the record in words.
EXPLAIN = Explain.TEXT

# Pure mode: option Similarity, how cases are retrieved (the thesis's shallow similarity by default)
SIMILARITY = "shallow"

# Guided mode (search.md)
NEIGHBOURS = 64
#: tau of the votes, in tenths of a similarity point (UCI spins are whole numbers).
TEMPERATURE_TENTHS = 40
#: The soundness margin of the built-in search (centipawns).
TOLERANCE = 50
SELECTION = Selection.AUTO
PRIOR = PriorSource.BLEND
#: Option Model's default: the casebase's personal model where there is one, else the generic model.
MODEL = "auto"
#: The cases' weight in the blend where the position itself is a case (percent).
CASE_WEIGHT_PERCENT = 50
#: How far below its best the built-in search scores proposals exactly when the error model
#: chooses (centipawns): a move losing more is all but never drawn.
EXPERT_TOLERANCE = 300
#: The expert's own strength unless UCI_LimitStrength asks for UCI_Elo's.
LIMIT_STRENGTH = False
#: UCI_Elo's default and range (the shipped experts' middle; what the rating line reaches).
UCI_ELO = 2500
UCI_ELO_RANGE = (1000, 3000)
#: Option Speed's words besides the speed classes (casebase.speed.SPEEDS): the class the game's
#: clock implies, or all the expert's games whatever the clock (strength.md §3).
SPEED_AUTO, SPEED_ALL = "auto", "all"
SPEED_SETTINGS = (SPEED_AUTO, SPEED_ALL, *SPEEDS)
#: Option Speed's default: the profile of the speed the clock implies, where the profile has one.
SPEED = SPEED_AUTO
#: Option Judge's words besides a program: Stockfish where it is installed (issue #67,
#: :mod:`engine.outside.stockfish`), else the built-in search; the built-in search (``builtin``,
#: ``cbr-chess-search``: :mod:`engine.outside.builtin`, issue #73); or none (the Python alpha-beta
#: judges; so does the empty value).
JUDGE_AUTO, JUDGE_BUILTIN, JUDGE_NONE = "auto", "builtin", "none"
#: Option Judge's default: Stockfish judges the proposals where it is installed, else the built-in
#: search.
JUDGE = JUDGE_AUTO
#: How guided mode searches without a judge (issue #67; search.md §10): ``alphabeta``, the built-in
#: alpha-beta; ``puct``, a search the style network leads among the moves the alpha-beta finds sound
#: (its value judging the leaves). The default stays the alpha-beta: against Stockfish the network's
#: search has not yet measured stronger (docs/results/2026-12-02-search-the-network-leads.md).
SEARCH = Search.ALPHABETA
#: The outside judge's depth: 0, by the go's limits and the clock.
JUDGE_DEPTH = 0
#: The soundness margin on an outside judge's scale (25: measured best for fidelity, search.md §7).
JUDGE_TOLERANCE = 25
#: Option Chooser's words besides a file: the shipped chooser where there is one, or none (issue
#: #40).
CHOOSER_AUTO, CHOOSER_OFF = "auto", "off"
#: Option Chooser's default: with a judge the shipped chooser plays (``Selection likely`` its
#: likeliest move, ``calibrated`` a draw at the expert's strength).
CHOOSER = CHOOSER_AUTO
#: The outside engine's depth in the fidelity bench (alone, and as guided mode's judge): the bench
#: searches to a fixed depth, not for a time, so that its results do not depend on the machine's
#: load.
BENCH_DEPTH = 10

# Chess0's engines
CHESS0_STYLE = Chess0Style.CLASSIC
CHESS0_DEPTH = 4
CHESS0_DEPTH_DEVIATION = 2
#: The adaptive style's randomisation window: root moves this close to the best are drawn among.
CHESS0_WINDOW = 50
