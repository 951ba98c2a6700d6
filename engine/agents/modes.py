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
from engine.style.profile import SPEED_POSITIONS

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.syzygy import SyzygyTables
    from endgame.tablebase import Tablebase
    from engine.agents.base import Agent
    from engine.agents.guided import GuidedAgent
    from engine.cbr.learned import LearnedIndex
    from engine.outside.judge import Judge
    from engine.style.chooser import Chooser
    from engine.style.loader import PriorModel

#: Seeds are 1..SEED_MAX; 0 asks for a fresh seed every game.
SEED_MAX = 2**31 - 1

#: v1, v2, v3 (cbr-agent.md §5) as spins of hundredths.
WEIGHT_OPTIONS = ("DistanceWeight", "FromDistanceWeight", "FromContentWeight")
#: What each weighs (cbr-agent.md §5).
WEIGHT_DOCS = ("v1 × 100: nearness of the moves' squares over their contents",
               "v2 × 100: in nearness, the from squares over the to squares",
               "v3 × 100: in contents, the from squares over the to squares")


class Resources(Protocol):
    """What a mode's factory may load besides the casebase (kept across agents)."""

    def model(self, path: str) -> PriorModel | None:
        """The style model at ``path``, or None (with the reason told to the user)."""

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The outside engine at ``command`` as a judge, started if it can be (else told why)."""

    def chooser(self, setting: str) -> Chooser | None:
        """The chooser option Chooser names (:func:`engine.style.chooser.chooser_path`), or None: none,
        or (with the reason told to the user) one that cannot be read."""

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


def _pure_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], resources: Resources) -> Agent:
    from engine.agents.pure import PureAgent

    learned = _learned(casebase, resources) if casebase is not None and values["Similarity"] == "learned" else None
    return PureAgent(casebase, weights_of(values), 0, learned)


def _learned(casebase: Casebase, resources: Resources,
             otherwise: str = "the shallow similarity plays") -> LearnedIndex | None:
    """The learned similarity's index of ``casebase`` (its embeddings made by the shipped default network),
    or None with the reason told, and ``otherwise``: what follows."""
    from casebase.checks import CasebaseError
    from casebase.embeddings import read_embeddings
    from engine.cbr.learned import learned_index
    from engine.style.lc0 import is_network, shared_network
    from engine.style.loader import default_model
    from engine.style.model import ModelError

    network, _ = default_model()
    try:
        if not is_network(network):
            raise ModelError(f"{network.name} is no lc0 network")
        model = shared_network(network)
        return learned_index(casebase, model, lambda: read_embeddings(casebase, network, model.weights_sha256))
    except (CasebaseError, ModelError, ValueError) as exc:
        resources.tell(f"the learned similarity cannot play: {exc}; {otherwise}")
        return None


def _style_model(setting: str, casebase: Casebase | None, resources: Resources) -> PriorModel | None:
    """The model of option Model: a file named (or a shipped model's name), or (``auto``) the expert's own
    network, else the shipped default network (engine.style.personal); the choice is told."""
    if setting != defaults.MODEL:
        from engine.style.loader import model_path

        return resources.model(model_path(setting))
    from engine.style.personal import choose_model

    choice = choose_model(casebase)  # a personal model comes loaded: it was read to be checked
    resources.tell(choice.note)
    return choice.model if choice.model is not None else resources.model(choice.path)


def _guided_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], resources: Resources) -> Agent:
    from casebase.embeddings import embeddings_path
    from engine.agents.guided import GuidedAgent
    from engine.style.chooser import chooser_path

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
        speed=str(values["Speed"]),
        chooser=resources.chooser(str(values["Chooser"])) if values["Judge"] and selection in DRAWN_BY_CHOOSER
        and not (selection is Selection.LIKELY and rating is not None) else None,
    )
    if casebase is not None and casebase.path is not None and embeddings_path(casebase.path).is_file():
        agent.precedents = _learned(casebase, resources, "no precedents by the learned similarity")
    _tell_chooser(agent, values, resources)
    if rating is not None and agent.calibration is not None:
        resources.tell(f"strength limited to {rating}: {agent.calibration.source}{_drawn(agent)}")
        if selection is Selection.LIKELY and values["Judge"] and chooser_path(str(values["Chooser"])) is not None:
            resources.tell("Chooser: not played at a rating (UCI_LimitStrength): the error model's likeliest move")
    elif agent.calibration is not None:  # Selection calibrated or likely: the strength the profile implies
        why = "Selection auto, with a judge and the casebase's error profile: " if selection is Selection.AUTO else ""
        resources.tell(f"strength: {agent.calibration.expert}'s own, about {agent.calibration.rating:.0f} on the"
                       f" experts' rating line (strength.md §2): {why}{agent.calibration.source}{_drawn(agent)};"
                       " UCI_LimitStrength with UCI_Elo sets another")
    elif selection is Selection.AUTO and casebase is not None:
        lacking = " and ".join(([] if values["Judge"] else ["a judge (option Judge)"])
                               + ([] if casebase.profile is not None else ["an error profile in the casebase"]))
        resources.tell(f"strength: not {casebase.expert}'s own (the sound move the prior likes best): Selection auto"
                       f" plays the expert's error model only with {lacking} (strength.md §4);"
                       " UCI_LimitStrength with UCI_Elo sets a rating")
    return agent


#: The selections the chooser may play (``auto`` as it is decided: calibrated with a judge).
DRAWN_BY_CHOOSER = (Selection.LIKELY, Selection.CALIBRATED, Selection.AUTO)


def _drawn(agent: GuidedAgent) -> str:
    """What the strength line adds where the chooser draws the calibrated choice: its strength."""
    strength = agent.chooser_strength()
    if agent.selection is not Selection.CALIBRATED or strength is None:
        return ""
    return f"; the chooser draws at strength {strength:.2f}, to lose as much (search.md §9)"


def _tell_chooser(agent: GuidedAgent, values: Mapping[str, OptionValue], resources: Resources) -> None:
    """Say that a chooser named cannot draw the calibrated choice: it has no reference positions to set
    its strength on (search.md §9)."""
    from engine.style.chooser import chooser_path

    if agent.selection is not Selection.CALIBRATED or not values["Judge"] or agent.chooser is not None:
        return
    path = chooser_path(str(values["Chooser"]))
    chooser = None if path is None else resources.chooser(str(values["Chooser"]))
    if chooser is not None and chooser.reference is None:
        resources.tell(f"Chooser {path}: no reference positions to set its strength on (python -m learn.chooser"
                       " reference): Selection calibrated draws by the error model")


def _chess0_agent(_: Casebase | None, values: Mapping[str, OptionValue], __: Resources) -> Agent:
    from engine.agents.chess0 import Chess0Agent

    return Chess0Agent(str(values["Style"]), int(values["Depth"]), int(values["DepthDeviation"]),
                       int(values["Window"]))


def default_casebase() -> Path:
    """The shipped casebase played when none is given (built by ``make casebases``)."""
    return casebase_folder() / f"{defaults.CASEBASE}.npz"


#: Modes by the name the ``Mode`` option uses; a new mode is one more entry.
MODES: dict[str, Mode] = {
    "pure": Mode(_pure_agent, "the thesis's agent: the most similar case's move, adapted",
                 "playing uniformly random legal moves",
                 (Option("Similarity", "combo", defaults.SIMILARITY, choices=("shallow", "learned"),
                         doc="pure: how cases are retrieved: `shallow`, the thesis's similarity of the boards' squares (the"
                             " most similar case's move, adapted); `learned`, the cosine of the positions' embeddings by the"
                             " default network's trunk (`X.embed.npz` beside the casebase, `python -m casebase embed`): the"
                             " 128 nearest cases vote, each for its move where legal, else the move it adapts to (issue #61)"),)),
    "guided": Mode(
        _guided_agent,
        "the k nearest cases vote, an alpha-beta search vetoes unsound moves (search.md)",
        "playing the search's best move",
        (
            Option("Neighbours", "spin", defaults.NEIGHBOURS, 1, 1024,
                   doc="guided: k, how many of the most similar cases vote"),
            Option("Temperature", "spin", defaults.TEMPERATURE_TENTHS, 1, 10_000,
                   doc="guided: τ × 10 (tenths of a similarity point; 40 = τ 4): a case's vote is"
                       " exp((Sim − Sim_best) / τ)"),
            Option("Tolerance", "spin", defaults.TOLERANCE, 0, 1000,
                   doc="guided: the soundness margin, centipawns a move may score below the search's best and still be"
                       " sound (a move that lets a win above +200 cp slip to a draw never is)"),
            Option("Selection", "combo", defaults.SELECTION.value, choices=tuple(s.value for s in Selection),
                   doc="guided: `auto` plays `calibrated` where a judge (option `Judge`) scores the moves and the casebase"
                       " has an error profile (the expert's own strength; the engine says so in an `info string`), `argmax`"
                       " otherwise (strength.md §4); `argmax` plays the sound move with the largest prior, `sample` draws a"
                       " sound move by its prior; `calibrated` draws among the judged moves"
                       " by the expert's error model (the prior times the chance of making that move's loss, fitted to the"
                       " expert's own moves: strength.md), `likely` plays that model's most likely move"),
            Option("Prior", "combo", defaults.PRIOR.value, choices=tuple(p.value for p in PriorSource),
                   doc="guided: where the prior comes from: `cases` (the nearest cases' votes), `model` (the style model),"
                       " `blend` (the model, and the cases' votes where the position itself is a case)"),
            Option("Model", "string", defaults.MODEL,
                   doc="guided: the style model: an lc0 network (`.pb.gz`: Maia, a Leela net), a model of this project"
                       " (`.npz`: `make model`, `python -m learn train`) or a shipped one's name (`maia-1900`, `style`:"
                       " the 8x96); `auto`: the expert's own network made from this casebase (`X.pb.gz` beside it, or"
                       " shipped: `learn personalise`), else the shipped default network, the master network"
                       " made here (`master`: Maia-1900 fine-tuned on master games, `make master`) where shipped, else Maia-1900;"
                       " lc0 networks run in numpy on every platform (personal.md §2)"),
            Option("CaseWeight", "spin", defaults.CASE_WEIGHT_PERCENT, 0, 100,
                   doc="guided, `Prior blend`: the cases' weight in percent where the nearest case is the position itself"),
            Option("Judge", "string", defaults.JUDGE,
                   doc="guided: an outside UCI engine that judges the proposals instead of the built-in search, e.g."
                       " `/usr/games/stockfish` (see \"An outside judge\" in docs/usage.md); `--judge`"),
            Option("JudgeDepth", "spin", defaults.JUDGE_DEPTH, 0, 99,
                   doc="guided, with a judge: its depth; 0 = the `go`'s limits and the clock (the calibrated choice: its"
                       " calibration's depth, 10, within the clock)"),
            Option("JudgeTolerance", "spin", defaults.JUDGE_TOLERANCE, 0, 1000,
                   doc="guided, with a judge: centipawns (its scale) a proposal may score below its best and still be"
                       " sound"),
            Option("Chooser", "string", defaults.CHOOSER,
                   doc="guided with a judge: the chooser file that picks the move among the judged ones (issue #40;"
                       " search.md, \"The chooser\"): `Selection likely` its likeliest, `calibrated` (and `auto`) a draw"
                       " at the expert's strength (a chooser with reference positions); `auto`: the shipped"
                       " `engine/style/models/chooser.npz` where there is one, `off` (or empty): the error model chooses;"
                       " `likely` not at a rating (`UCI_LimitStrength`)"),
            Option("UCI_LimitStrength", "check", defaults.LIMIT_STRENGTH,
                   doc="guided: play at the rating `UCI_Elo` by the expert's error model (`Selection calibrated` with the"
                       " sensitivity of that rating; the expert's prior is kept; strength.md §4)"),
            Option("UCI_Elo", "spin", defaults.UCI_ELO, *defaults.UCI_ELO_RANGE,
                   doc="guided, with `UCI_LimitStrength`: the rating to play at"),
            Option("Speed", "combo", defaults.SPEED, choices=defaults.SPEED_SETTINGS,
                   doc="guided, by the expert's error model: which speed's profile it plays; `auto`, the speed the"
                       " game's clock implies (`go wtime …` at the start of a game, or with `movestogo`; none for"
                       f" `depth`, `nodes` or `movetime`), where the profile has one ({SPEED_POSITIONS} judged positions);"
                       " `all`, all the expert's games; or a class, whatever the clock; `UCI_Elo` wins (strength.md §3)"),
        ),
    ),
    "chess0": Mode(
        _chess0_agent,
        "Chess0's engines, no casebase: Style classic (fixed-depth alpha-beta) or adaptive",
        "searching alone",
        (
            Option("Style", "combo", defaults.CHESS0_STYLE.value, choices=tuple(s.value for s in Chess0Style),
                   doc="chess0: `classic` (fixed depth, static evaluation, no quiescence, no randomness) or `adaptive`"),
            Option("Depth", "spin", defaults.CHESS0_DEPTH, 1, 20,
                   doc="chess0: the classic depth, the adaptive style's base depth"),
            Option("DepthDeviation", "spin", defaults.CHESS0_DEPTH_DEVIATION, 0, 10,
                   doc="chess0, adaptive: the opening's depth is `Depth` minus this"),
            Option("Window", "spin", defaults.CHESS0_WINDOW, 0, 1000,
                   doc="chess0, adaptive: the randomisation window, centipawns; a root move this close to the best may be"
                       " drawn"),
        ),
        casebase=False,
    ),
}


def engine_options() -> list[Option]:
    """Every option the engine declares: the common ones, then each mode's own."""
    options = [
        Option("Casebase", "string", str(default_casebase()),
               doc="the expert's casebase (`.npz` from `python -m casebase build`, or a casebase's name); `--casebase`"),
        Option("Mode", "combo", defaults.MODE, choices=tuple(MODES),
               doc="`guided` (the default: the project's best self-contained play): the nearest cases vote, a search"
                   " vetoes unsound moves; `pure`: the thesis's agent, the most similar case's move adapted"
                   " (cbr-agent.md); `chess0`: Chess0's engines, no casebase; `--mode`"),
        *(Option(name, "spin", defaults.WEIGHT_HUNDREDTHS, 0, 100, doc=f"{doc}; `--weights`")
          for name, doc in zip(WEIGHT_OPTIONS, WEIGHT_DOCS, strict=True)),
        Option("Seed", "spin", defaults.SEED, 0, SEED_MAX,
               doc="the generator's seed, restarted at every `ucinewgame`; 0 = a fresh seed each game, told in an"
                   " `info string` so the game can be replayed; `--seed`"),
        Option("Tables", "string", str(default_folder()),
               doc="every mode: the endgame tables' folder (`make tables`); KQK and KRK are made there at first use"
                   " (a second each); empty (`<empty>`): no tables"),
        Option("SyzygyPath", "string", defaults.SYZYGY_PATH,
               doc="every mode: folders of Syzygy tables (separated as the system separates paths, `:` here), probed"
                   " by python-chess: where they cover the position, the engine plays the move that keeps the best"
                   " result and reaches it soonest (distance to zeroing), after our own `Tables`; a folder that cannot"
                   " be read is told once"),
        Option("UCI_ShowWDL", "check", defaults.SHOW_WDL,
               doc="`wdl W D L` (per mille, for the side to move) beside every score, from a rough model of the score"
                   " (a mate: `1000 0 0`)"),
        Option("Explain", "combo", defaults.EXPLAIN.value, choices=tuple(e.value for e in defaults.Explain),
               doc="what decided each move: `text`, English `info string` lines; `json`, also the decision's record as"
                   " one `info string json {...}` line before them (docs/explain.md); `off`, neither"),
        Option("MultiPV", "spin", defaults.MULTI_PV, 1, 256,
               doc="guided: the move played and the expert's next N−1 most likely moves as analysis lines (`info"
                   " multipv k …`), line 1 the move played, then by the prior, each with the search's or judge's"
                   " score and an `info string` with its share (search.md §8)"),
        Option("Move Overhead", "spin", defaults.MOVE_OVERHEAD_MS, 0, 5000,
               doc="milliseconds kept back from every time limit, for the GUI's lag"),
        Option("HumanTime", "check", defaults.HUMAN_TIME,
               doc="on a clock alone (no `depth`, `nodes`, `mate`, `movetime`, `infinite` or `ponder`), hold the chosen"
                   " move until a person at that clock would play it: `remaining / movestogo + increment` (movestogo 30"
                   " when not told) times a tenth for the only move, a fifth for a recapture, a quarter for the expert's"
                   " own move in this very position, else a half (quiet) to twice (sharp: many captures and checks,"
                   " close scores); never over a third of the clock nor into its last 10 s; `stop` ends the wait"
                   " (web.md)"),
        Option("Ponder", "check", defaults.PONDER,
               doc="declared so that GUIs ponder: `go ponder` thinks on the opponent's time, the clock starts at"
                   " `ponderhit` (search.md §4)"),
        Option("Threads", "spin", defaults.THREADS, 1, 1024,
               doc="the standard option; this engine searches on one thread, so it goes to the judge, when one is set"),
        Option("Hash", "spin", defaults.HASH_MB, 1, 65536,
               doc="the standard option, MB; this engine keeps a table per move, so it goes to the judge, when one is"
                   " set"),
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
