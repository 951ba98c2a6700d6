"""The guided agent made from its settings (:class:`~engine.agents.guided_options.GuidedSettings`)
with what they name loaded: the style model, the judge, the chooser, the tables, the search the
network leads, the learned similarity's precedents; what the choice of strength implies is told to
the user."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.agents.defaults import Selection
from engine.agents.guided_options import GuidedSettings
from engine.agents.modes import Resources
from engine.outside import builtin
from engine.outside.stockfish import PLACES, installed_stockfish
from engine.search import Search

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.tablebase import Tablebase
    from engine.agents.guided import GuidedAgent
    from engine.search.puct import Puct
    from engine.style.loader import PriorModel

#: The selections the chooser may play (``auto`` as it is decided: calibrated with a judge).
DRAWN_BY_CHOOSER = (Selection.LIKELY, Selection.CALIBRATED, Selection.AUTO)


def make_guided(
    casebase: Casebase | None, settings: GuidedSettings, resources: Resources
) -> GuidedAgent:
    """The guided agent of ``settings`` with what ``resources`` loads; what plays, and why, told."""
    from casebase.embeddings import embeddings_path
    from engine.agents.guided import GuidedAgent, Loaded
    from engine.agents.precedent import learned_similarity

    # its cases play on, uncalibrated
    if casebase is not None and casebase.profile_problem is not None:
        from engine.strength.profile import refusal

        resources.tell(
            f"{refusal(casebase)}; playing without calibration (Selection calibrated and likely,"
            " and UCI_LimitStrength, take the shipped experts' typical parameters)"
        )
    model = _style_model(settings.model, casebase, resources) if settings.prior.uses_model else None
    judge_command = settings.judge
    if settings.judge_auto or settings.judge_builtin:
        resources.tell(_judge_taken(settings, judge_command))
    selection, rating = settings.played_selection, settings.rating
    tablebase = resources.tablebase(settings.tables)
    judge = (
        None
        if judge_command is None
        else resources.judge(judge_command, settings.threads, settings.hash_mb)
    )
    chooser = (
        resources.chooser(settings.chooser)
        if judge is not None
        and selection in DRAWN_BY_CHOOSER
        and not (selection is Selection.LIKELY and rating is not None)
        else None
    )
    loaded = Loaded(model, judge, tablebase, chooser, _puct(settings, model, tablebase, resources))
    agent = GuidedAgent(casebase, settings, 0, loaded)
    if (
        casebase is not None
        and casebase.path is not None
        and embeddings_path(casebase.path).is_file()
    ):
        agent.precedents = learned_similarity(
            casebase, resources, "no precedents by the learned similarity"
        )
    _tell_strength(agent, casebase, settings, resources)
    return agent


def _judge_taken(settings: GuidedSettings, command: str | None) -> str:
    """What ``Judge auto`` or ``Judge builtin`` took: the judge's line the engine says."""
    if settings.judge_auto and command is not None and command == installed_stockfish():
        return f"judge: Stockfish at {command} (Judge auto; Judge none plays without it)"
    why = "Judge auto found no Stockfish; " if settings.judge_auto else ""
    if command is not None:
        return (
            f"judge: the built-in search ({builtin.PROGRAM} at {command}; {why}Judge none plays"
            " without it)"
        )
    if settings.judge_builtin:
        return f"judge: none (Judge builtin: {builtin.missing()}): the Python alpha-beta judges"
    places = ", ".join(str(Path(place).parent) for place in PLACES)
    return (
        f"judge: none (Judge auto found no Stockfish on PATH nor in {places}, and no built-in"
        f" search: {builtin.not_for_auto()}): the Python alpha-beta judges"
    )


def _puct(
    settings: GuidedSettings,
    model: PriorModel | None,
    tablebase: Tablebase | None,
    resources: Resources,
) -> Puct | None:
    """The search the network leads, where option Search asks for it and the model is an lc0 network
    (a value head); None for the alpha-beta, said where ``puct`` was asked for and cannot be."""
    from engine.search.puct import POLICY_TEMPERATURE, Puct
    from engine.style.lc0 import Lc0Network

    if settings.search is Search.ALPHABETA:
        return None
    if not isinstance(model, Lc0Network):
        if settings.judge is None:
            lacking = (
                "no style model"
                if model is None
                else f"{model.describe()}, which has no value head"
            )
            resources.tell(
                f"Search puct: {lacking} (an lc0 network leads it): the alpha-beta searches"
            )
        return None
    network = model
    return Puct(lambda boards: network.evaluate(boards, POLICY_TEMPERATURE), tablebase)


def _style_model(
    setting: str, casebase: Casebase | None, resources: Resources
) -> PriorModel | None:
    """The model of option Model: a file named (or a shipped model's name), or (``auto``) the
    expert's own network, else the shipped default network (engine.style.personal); the choice is
    told."""
    from engine.agents import defaults

    if setting != defaults.MODEL:
        from engine.style.loader import model_path

        return resources.model(model_path(setting))
    from engine.style.personal import choose_model

    choice = choose_model(casebase)  # a personal model comes loaded: it was read to be checked
    resources.tell(choice.note)
    return choice.model if choice.model is not None else resources.model(choice.path)


def _tell_strength(
    agent: GuidedAgent, casebase: Casebase | None, settings: GuidedSettings, resources: Resources
) -> None:
    """Say at what strength ``agent`` plays, and by what (strength.md §2-4)."""
    from engine.strength.chooser import chooser_path

    selection, rating = settings.played_selection, settings.rating
    _tell_chooser(agent, settings, resources)
    if agent.sizing is not None:
        said = "strength: " if rating is None else f"strength limited to {rating}: "
        # where the expert's loss comes from
        source = (agent.calibration or agent.sizing.asked).source
        resources.tell(f"{said}{agent.sizing.describe()}: {source}")
    elif rating is not None and agent.calibration is not None:
        resources.tell(f"strength limited to {rating}: {agent.calibration.source}{_drawn(agent)}")
        if (
            selection is Selection.LIKELY
            and settings.judge is not None
            and chooser_path(settings.chooser) is not None
        ):
            resources.tell(
                "Chooser: not played at a rating (UCI_LimitStrength): the error model's likeliest"
                " move"
            )
    # Selection calibrated or likely: the strength the profile implies
    elif agent.calibration is not None:
        why = (
            "Selection auto, with a judge and the casebase's error profile: "
            if selection is Selection.AUTO
            else ""
        )
        resources.tell(
            f"strength: {agent.calibration.expert}'s own, about {agent.calibration.rating:.0f} on"
            " the experts' rating line (strength.md §2):"
            f" {why}{agent.calibration.source}{_drawn(agent)}; UCI_LimitStrength with UCI_Elo sets"
            " another"
        )
    elif selection is Selection.AUTO and casebase is not None and casebase.profile is None:
        resources.tell(
            f"strength: not {casebase.expert}'s own (the sound move the prior likes best):"
            " Selection auto plays the expert's error model only with an error profile in the"
            " casebase (strength.md §4); UCI_LimitStrength with UCI_Elo sets a rating"
        )


def _drawn(agent: GuidedAgent) -> str:
    """What the strength line adds where the chooser draws the calibrated choice: its strength."""
    strength = agent.chooser_strength()
    if agent.selection is not Selection.CALIBRATED or strength is None:
        return ""
    return f"; the chooser draws at strength {strength:.2f}, to lose as much (search.md §9)"


def _tell_chooser(agent: GuidedAgent, settings: GuidedSettings, resources: Resources) -> None:
    """Say that a chooser named cannot draw the calibrated choice: it has no reference positions to
    set its strength on (search.md §9)."""
    from engine.strength.chooser import chooser_path

    if (
        agent.selection is not Selection.CALIBRATED
        or settings.judge is None
        or agent.chooser is not None
    ):
        return
    path = chooser_path(settings.chooser)
    chooser = None if path is None else resources.chooser(settings.chooser)
    if chooser is not None and chooser.reference is None:
        resources.tell(
            f"Chooser {path}: no reference positions to set its strength on (python -m"
            " learn.chooser reference): Selection calibrated draws by the error model"
        )
