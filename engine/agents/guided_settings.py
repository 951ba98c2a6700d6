"""The guided mode's settings, typed once from the option values (:func:`engine.agents.options.settings_of`),
and its agent made from them with what it loads: the style model, the judge, the chooser, the tables,
the learned similarity's precedents; what the choice of strength implies is told to the user."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.agents.defaults import Selection
from engine.agents.modes import WEIGHT_OPTIONS, Resources, weights_from
from engine.agents.options import setting
from engine.cbr.weights import Weights
from engine.style.prior import PriorSource

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.tablebase import Tablebase
    from engine.agents.guided import GuidedAgent
    from engine.search.puct import Puct
    from engine.style.loader import PriorModel


def _tenths(value: object) -> float:
    return int(str(value)) / 10


def _percent(value: object) -> float:
    return int(str(value)) / 100


@dataclass(frozen=True)
class GuidedSettings:
    """Option by option, what makes a guided agent (docs/usage.md's table says what each does)."""

    weights: Weights = setting(WEIGHT_OPTIONS, weights_from)
    neighbours: int = setting("Neighbours", int)
    temperature: float = setting("Temperature", _tenths)
    tolerance: int = setting("Tolerance", int)
    selection: Selection = setting("Selection", Selection)
    prior: PriorSource = setting("Prior", PriorSource)
    model: str = setting("Model", str)
    case_weight: float = setting("CaseWeight", _percent)
    judge_option: str = setting("Judge", str)
    search: str = setting("Search", str)
    judge_depth: int = setting("JudgeDepth", int)
    judge_tolerance: int = setting("JudgeTolerance", int)
    chooser: str = setting("Chooser", str)
    limit_strength: bool = setting("UCI_LimitStrength", bool)
    elo: int = setting("UCI_Elo", int)
    speed: str = setting("Speed", str)
    tables: str = setting("Tables", str)
    threads: int = setting("Threads", int)
    hash_mb: int = setting("Hash", int)

    @property
    def judge(self) -> str:
        """The judge's command: the program option Judge names, the Stockfish installed (``auto``), or "" (none)."""
        from engine.agents import defaults

        word = self.judge_option.strip().lower()
        if word == defaults.JUDGE_AUTO:
            from engine.outside.stockfish import installed_stockfish

            return installed_stockfish() or ""
        return "" if word == defaults.JUDGE_NONE else self.judge_option

    @property
    def rating(self) -> int | None:
        """The rating asked for (``UCI_LimitStrength`` with ``UCI_Elo``), or None."""
        return self.elo if self.limit_strength else None

    @property
    def played_selection(self) -> Selection:
        """The Selection played: a rating is played by the expert's error model (strength.md)."""
        return Selection.CALIBRATED if self.rating is not None and not self.selection.calibrated else self.selection

    def files(self, casebase: str) -> list[str]:
        """The files these settings may read (the agent is remade when one changes): option Model's (the one
        named, or, ``auto``, the default network, the generic model and where the casebase's own models are
        looked for) and the chooser's."""
        from engine.agents import defaults
        from engine.strength.chooser import chooser_path
        from engine.style.loader import default_model, model_path

        chooser = chooser_path(self.chooser)
        named = [] if chooser is None else [str(chooser)]
        if self.model != defaults.MODEL:
            return [model_path(self.model), *named]
        from engine.style.model import generic_model
        from engine.style.personal import candidates, network_candidates, sidecar

        networks = network_candidates(casebase)
        return [str(default_model()[0]), str(generic_model()), *map(str, candidates(casebase)),
                *(str(p) for network in networks for p in (network, sidecar(network))), *named]


#: The selections the chooser may play (``auto`` as it is decided: calibrated with a judge).
DRAWN_BY_CHOOSER = (Selection.LIKELY, Selection.CALIBRATED, Selection.AUTO)


def make_guided(casebase: Casebase | None, settings: GuidedSettings, resources: Resources) -> GuidedAgent:
    """The guided agent of ``settings`` with what ``resources`` loads; what plays, and why, told."""
    from casebase.embeddings import embeddings_path
    from engine.agents.guided import GuidedAgent
    from engine.agents.precedent import learned_similarity

    if casebase is not None and casebase.profile_problem is not None:  # its cases play on, uncalibrated
        from engine.strength.profile import refusal

        resources.tell(f"{refusal(casebase)}; playing without calibration (Selection calibrated and likely,"
                       " and UCI_LimitStrength, take the shipped experts' typical parameters)")
    model = _style_model(settings.model, casebase, resources) if settings.prior.uses_model else None
    if settings.judge_option.strip().lower() == "auto":
        resources.tell(f"judge: Stockfish at {settings.judge} (Judge auto; Judge none plays without it)" if settings.judge
                       else "judge: none (Judge auto found no Stockfish on PATH nor in /usr/games, /usr/local/bin,"
                            " /opt/homebrew/bin): the built-in search judges")
    selection, rating = settings.played_selection, settings.rating
    judged = bool(settings.judge)
    tablebase = resources.tablebase(settings.tables)
    agent = GuidedAgent(
        casebase, settings.weights, 0, neighbours=settings.neighbours, temperature=settings.temperature,
        tolerance=settings.tolerance, selection=selection, prior=settings.prior, model=model,
        case_weight=settings.case_weight,
        judge=resources.judge(settings.judge, settings.threads, settings.hash_mb) if judged else None,
        judge_depth=settings.judge_depth, judge_tolerance=settings.judge_tolerance,
        tablebase=tablebase, rating=rating, speed=settings.speed,
        chooser=resources.chooser(settings.chooser) if judged and selection in DRAWN_BY_CHOOSER
        and not (selection is Selection.LIKELY and rating is not None) else None,
        puct=_puct(settings, model, tablebase, resources),
    )
    if casebase is not None and casebase.path is not None and embeddings_path(casebase.path).is_file():
        agent.precedents = learned_similarity(casebase, resources, "no precedents by the learned similarity")
    _tell_strength(agent, casebase, settings, resources)
    return agent


def _puct(settings: GuidedSettings, model: PriorModel | None, tablebase: Tablebase | None,
          resources: Resources) -> Puct | None:
    """The search the network leads, where option Search asks for it and the model is an lc0 network (a value
    head); None for the alpha-beta, said where ``puct`` was asked for and cannot be."""
    from engine.agents import defaults
    from engine.search.puct import POLICY_TEMPERATURE, Puct
    from engine.style.lc0 import Lc0Network

    if settings.search == defaults.SEARCH_ALPHABETA:
        return None
    if not isinstance(model, Lc0Network):
        if settings.judge == "":
            lacking = "no style model" if model is None else f"{model.describe()}, which has no value head"
            resources.tell(f"Search puct: {lacking} (an lc0 network leads it): the alpha-beta searches")
        return None
    network = model
    return Puct(lambda boards: network.evaluate(boards, POLICY_TEMPERATURE), tablebase)


def _style_model(setting: str, casebase: Casebase | None, resources: Resources) -> PriorModel | None:
    """The model of option Model: a file named (or a shipped model's name), or (``auto``) the expert's own
    network, else the shipped default network (engine.style.personal); the choice is told."""
    from engine.agents import defaults

    if setting != defaults.MODEL:
        from engine.style.loader import model_path

        return resources.model(model_path(setting))
    from engine.style.personal import choose_model

    choice = choose_model(casebase)  # a personal model comes loaded: it was read to be checked
    resources.tell(choice.note)
    return choice.model if choice.model is not None else resources.model(choice.path)


def _tell_strength(agent: GuidedAgent, casebase: Casebase | None, settings: GuidedSettings,
                   resources: Resources) -> None:
    """Say at what strength ``agent`` plays, and by what (strength.md §2-4)."""
    from engine.strength.chooser import chooser_path

    selection, rating = settings.played_selection, settings.rating
    _tell_chooser(agent, settings, resources)
    if agent.sizing is not None:
        said = "strength: " if rating is None else f"strength limited to {rating}: "
        source = (agent.calibration or agent.sizing.asked).source  # where the expert's loss comes from
        resources.tell(f"{said}{agent.sizing.describe()}: {source}")
    elif rating is not None and agent.calibration is not None:
        resources.tell(f"strength limited to {rating}: {agent.calibration.source}{_drawn(agent)}")
        if selection is Selection.LIKELY and settings.judge and chooser_path(settings.chooser) is not None:
            resources.tell("Chooser: not played at a rating (UCI_LimitStrength): the error model's likeliest move")
    elif agent.calibration is not None:  # Selection calibrated or likely: the strength the profile implies
        why = "Selection auto, with a judge and the casebase's error profile: " if selection is Selection.AUTO else ""
        resources.tell(f"strength: {agent.calibration.expert}'s own, about {agent.calibration.rating:.0f} on the"
                       f" experts' rating line (strength.md §2): {why}{agent.calibration.source}{_drawn(agent)};"
                       " UCI_LimitStrength with UCI_Elo sets another")
    elif selection is Selection.AUTO and casebase is not None and casebase.profile is None:
        resources.tell(f"strength: not {casebase.expert}'s own (the sound move the prior likes best): Selection auto"
                       " plays the expert's error model only with an error profile in the casebase (strength.md §4);"
                       " UCI_LimitStrength with UCI_Elo sets a rating")


def _drawn(agent: GuidedAgent) -> str:
    """What the strength line adds where the chooser draws the calibrated choice: its strength."""
    strength = agent.chooser_strength()
    if agent.selection is not Selection.CALIBRATED or strength is None:
        return ""
    return f"; the chooser draws at strength {strength:.2f}, to lose as much (search.md §9)"


def _tell_chooser(agent: GuidedAgent, settings: GuidedSettings, resources: Resources) -> None:
    """Say that a chooser named cannot draw the calibrated choice: it has no reference positions to set
    its strength on (search.md §9)."""
    from engine.strength.chooser import chooser_path

    if agent.selection is not Selection.CALIBRATED or not settings.judge or agent.chooser is not None:
        return
    path = chooser_path(settings.chooser)
    chooser = None if path is None else resources.chooser(settings.chooser)
    if chooser is not None and chooser.reference is None:
        resources.tell(f"Chooser {path}: no reference positions to set its strength on (python -m learn.chooser"
                       " reference): Selection calibrated draws by the error model")
