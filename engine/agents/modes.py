"""The ways the engine plays and their options: the registry every user of an agent reads.

A :class:`Mode` says how to make its agent from a casebase and the option values; a new mode
is one more entry of :data:`MODES` (docs/architecture.md, "Add a mode"). Agents are made by
:func:`engine.agents.factory.make_agent`; the UCI engine keeps its agent and what it loads in
:class:`engine.uci.resources.AgentBuilder`.

Importing this module is cheap (no numpy, no casebase code): the UCI loop imports it before
``uciok``, and the heavy modules load when the first agent is made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from common.paths import casebase_folder
from endgame import default_folder
from engine.agents import defaults
from engine.agents.defaults import Chess0Style, Selection
from engine.agents.options import Option, OptionRegistry, OptionValue
from engine.cbr.weights import Weights, from_hundredths
from engine.style.prior import PriorSource

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.syzygy import SyzygyTables
    from endgame.tablebase import Tablebase
    from engine.agents.base import Agent
    from engine.outside.judge import Judge
    from engine.style.model import StyleModel

#: Seeds are 1..SEED_MAX; 0 asks for a fresh seed every game.
SEED_MAX = 2**31 - 1

#: v1, v2, v3 (cbr-agent.md §5) as spins of hundredths.
WEIGHT_OPTIONS = ("DistanceWeight", "FromDistanceWeight", "FromContentWeight")


class Resources(Protocol):
    """What a mode's factory may load besides the casebase (kept across agents)."""

    def model(self, path: str) -> StyleModel | None:
        """The style model at ``path``, or None (with the reason told to the user)."""

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The outside engine at ``command`` as a judge, started if it can be (else told why)."""

    def tablebase(self, folder: str) -> Tablebase | None:
        """The endgame tables of ``folder`` (loaded as positions need them); None for "": no tables."""

    def syzygy(self, path: str) -> SyzygyTables | None:
        """The Syzygy tables of ``path`` (option SyzygyPath); None for "": none."""

    def tell(self, line: str) -> None:
        """Tell the user ``line`` (which model plays, and why), where there is a user to tell."""


AgentFactory = Callable[["Casebase | None", Mapping[str, OptionValue], Resources], "Agent"]


@dataclass(frozen=True)
class Mode:
    """A way of playing: how to make its agent from a casebase and the option values, what it
    does without a casebase, and its own options."""

    factory: AgentFactory
    summary: str
    without_casebase: str
    options: tuple[Option, ...] = field(default=())
    #: Whether it plays from a casebase at all (option Casebase is not even loaded otherwise).
    casebase: bool = True


def weights_of(values: Mapping[str, OptionValue]) -> Weights:
    """The weight list set by the three weight options (hundredths)."""
    return Weights(*(from_hundredths(int(values[name])) for name in WEIGHT_OPTIONS))


def weight_values(weights: Weights) -> dict[str, OptionValue]:
    """The three weight options (hundredths) that set ``weights``."""
    return dict(zip(WEIGHT_OPTIONS, weights.hundredths(), strict=True))


def _pure_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], _: Resources) -> Agent:
    from engine.agents.pure import PureAgent

    return PureAgent(casebase, weights_of(values), 0)


def _style_model(setting: str, casebase: Casebase | None, resources: Resources) -> StyleModel | None:
    """The model of option Model: a file named, or (``auto``) the casebase's personal model where
    there is one, else the generic model (engine.style.personal); the choice is told."""
    if setting != defaults.MODEL:
        return resources.model(setting)
    from engine.style.personal import choose_model

    choice = choose_model(casebase)  # a personal model comes loaded: it was read to be checked
    resources.tell(choice.note)
    return choice.model if choice.model is not None else resources.model(choice.path)


def _guided_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], resources: Resources) -> Agent:
    from engine.agents.guided import GuidedAgent

    if casebase is not None and casebase.profile_problem is not None:  # its cases play on, uncalibrated
        from engine.style.profile import refusal

        resources.tell(f"{refusal(casebase)}; playing without calibration (Selection calibrated and likely,"
                       " and UCI_LimitStrength, take the shipped experts' typical parameters)")
    prior = PriorSource(str(values["Prior"]))
    model = _style_model(str(values["Model"]), casebase, resources) if prior.uses_model else None
    selection, rating = Selection(str(values["Selection"])), None
    if values["UCI_LimitStrength"]:
        # the expert's own prior and error model, at the rating asked for (strength.md)
        rating = int(values["UCI_Elo"])
        selection = selection if selection.calibrated else Selection.CALIBRATED
    agent = GuidedAgent(
        casebase,
        weights_of(values),
        0,
        neighbours=int(values["Neighbours"]),
        temperature=int(values["Temperature"]) / 10,
        tolerance=int(values["Tolerance"]),
        selection=selection,
        prior=prior,
        model=model,
        case_weight=int(values["CaseWeight"]) / 100,
        judge=resources.judge(str(values["Judge"]), int(values["Threads"]), int(values["Hash"]))
        if values["Judge"] else None,
        judge_depth=int(values["JudgeDepth"]),
        judge_tolerance=int(values["JudgeTolerance"]),
        tablebase=resources.tablebase(str(values["Tables"])),
        rating=rating,
    )
    if rating is not None and agent.calibration is not None:
        resources.tell(f"strength limited to {rating}: {agent.calibration.source}")
    elif agent.calibration is not None:  # Selection calibrated or likely: the strength the profile implies
        why = "Selection auto, with a judge and the casebase's error profile: " if selection is Selection.AUTO else ""
        resources.tell(f"strength: {agent.calibration.expert}'s own, about {agent.calibration.rating:.0f} on the"
                       f" experts' rating line (strength.md §2): {why}{agent.calibration.source};"
                       " UCI_LimitStrength with UCI_Elo sets another")
    elif selection is Selection.AUTO and casebase is not None:
        lacking = " and ".join(([] if values["Judge"] else ["a judge (option Judge)"])
                               + ([] if casebase.profile is not None else ["an error profile in the casebase"]))
        resources.tell(f"strength: not {casebase.expert}'s own (the sound move the prior likes best): Selection auto"
                       f" plays the expert's error model only with {lacking} (strength.md §4);"
                       " UCI_LimitStrength with UCI_Elo sets a rating")
    return agent


def _chess0_agent(_: Casebase | None, values: Mapping[str, OptionValue], __: Resources) -> Agent:
    from engine.agents.chess0 import Chess0Agent

    return Chess0Agent(str(values["Style"]), int(values["Depth"]), int(values["DepthDeviation"]),
                       int(values["Window"]))


def default_casebase() -> Path:
    """The shipped casebase played when none is given (built by ``make casebases``)."""
    return casebase_folder() / "carlsen-2800.npz"


#: Modes by the name the ``Mode`` option uses; a new mode is one more entry.
MODES: dict[str, Mode] = {
    "pure": Mode(_pure_agent, "the thesis's agent: the most similar case's move, adapted",
                 "playing uniformly random legal moves"),
    "guided": Mode(
        _guided_agent,
        "the k nearest cases vote, an alpha-beta search vetoes unsound moves (search.md)",
        "playing the search's best move",
        (
            Option("Neighbours", "spin", defaults.NEIGHBOURS, 1, 1024),
            Option("Temperature", "spin", defaults.TEMPERATURE_TENTHS, 1, 10_000),
            # the soundness margin of the built-in search, in centipawns
            Option("Tolerance", "spin", defaults.TOLERANCE, 0, 1000),
            Option("Selection", "combo", Selection.AUTO.value, choices=tuple(s.value for s in Selection)),
            Option("Prior", "combo", defaults.PRIOR.value, choices=tuple(p.value for p in PriorSource)),
            # auto: the casebase's personal model where there is one, else the generic model
            Option("Model", "string", defaults.MODEL),
            Option("CaseWeight", "spin", defaults.CASE_WEIGHT_PERCENT, 0, 100),
            # an outside UCI engine that scores the proposals instead of the built-in search
            Option("Judge", "string", ""),
            Option("JudgeDepth", "spin", 0, 0, 99),  # 0: by the go's limits and the clock
            Option("JudgeTolerance", "spin", defaults.JUDGE_TOLERANCE, 0, 1000),
            # the standard options: the expert's error model at the rating UCI_Elo (strength.md)
            Option("UCI_LimitStrength", "check", False),
            Option("UCI_Elo", "spin", defaults.UCI_ELO, *defaults.UCI_ELO_RANGE),
        ),
    ),
    "chess0": Mode(
        _chess0_agent,
        "Chess0's engines, no casebase: Style classic (fixed-depth alpha-beta) or adaptive",
        "searching alone",
        (
            Option("Style", "combo", Chess0Style.CLASSIC.value, choices=tuple(s.value for s in Chess0Style)),
            # the classic depth; the adaptive style's base depth
            Option("Depth", "spin", defaults.CHESS0_DEPTH, 1, 20),
            Option("DepthDeviation", "spin", defaults.CHESS0_DEPTH_DEVIATION, 0, 10),
            # the adaptive style's randomisation window, in centipawns
            Option("Window", "spin", defaults.CHESS0_WINDOW, 0, 1000),
        ),
        casebase=False,
    ),
}


def engine_options() -> list[Option]:
    """Every option the engine declares: the common ones, then each mode's own."""
    options = [
        Option("Casebase", "string", str(default_casebase())),
        Option("Mode", "combo", defaults.MODE, choices=tuple(MODES)),
        *(Option(name, "spin", 50, 0, 100) for name in WEIGHT_OPTIONS),
        Option("Seed", "spin", 0, 0, SEED_MAX),
        # every mode plays the tables' move where they cover the position
        Option("Tables", "string", str(default_folder())),
        # Syzygy tables (python-chess's probing), as other engines: every mode plays their
        # won and drawn endings perfectly, beside our own tables
        Option("SyzygyPath", "string", ""),
        # a win/draw/loss estimate beside every score, as other engines show it
        Option("UCI_ShowWDL", "check", False),
        # what decided each move: in words, also as one JSON line, or not at all (docs/explain.md)
        Option("Explain", "combo", defaults.EXPLAIN.value, choices=tuple(e.value for e in defaults.Explain)),
        # the expert's N most likely moves as analysis lines, in modes with a prior (search.md §8)
        Option("MultiPV", "spin", 1, 1, 256),
        # milliseconds kept back from every clock budget, for the GUI's and the pipes' lag
        Option("Move Overhead", "spin", defaults.MOVE_OVERHEAD_MS, 0, 5000),
        # declared so that GUIs ponder with us: go ponder thinks on the opponent's time (search.md §4)
        Option("Ponder", "check", False),
        # the standard names; this engine searches on one thread with a table per move, so
        # they are the judge's (an outside engine set with option Judge)
        Option("Threads", "spin", 1, 1, 1024),
        Option("Hash", "spin", 16, 1, 65536),  # MB
    ]
    for mode in MODES.values():
        options += [o for o in mode.options if o.name not in {x.name for x in options}]
    return options


def option_registry() -> OptionRegistry:
    """The registry of every option, by name: where the UCI engine, the agent factory, the
    tournament and the fidelity bench look options up."""
    return OptionRegistry(engine_options())


def option_defaults() -> dict[str, OptionValue]:
    """Every option's default value, by name."""
    return option_registry().defaults()
