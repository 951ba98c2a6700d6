"""The guided mode's settings, typed once from the option values
(:func:`engine.agents.options.settings_of`): what the guided agent plays by, and the names of what
it is made with (:mod:`engine.agents.guided_maker`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.agents.defaults import Selection
from engine.agents.modes import WEIGHT_OPTIONS, option_registry, weights_from
from engine.agents.options import setting, settings_of
from engine.cbr.weights import Weights
from engine.style.prior import PriorSource


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

    @classmethod
    def of(cls, **fields: Any) -> GuidedSettings:
        """The settings of the options' defaults, with ``fields`` (by field name) in their place
        (the benches' and the tests' agents; the engine's come from its option values)."""
        return dataclasses.replace(settings_of(cls, option_registry().defaults()), **fields)

    @property
    def judge(self) -> str:
        """The judge's command: the program option Judge names, the Stockfish installed (``auto``),
        or "" (none)."""
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
        return (
            Selection.CALIBRATED
            if self.rating is not None and not self.selection.calibrated
            else self.selection
        )

    def files(self, casebase: str) -> list[str]:
        """The files these settings may read (the agent is remade when one changes): option Model's
        (the one named, or, ``auto``, the default network, the generic model and where the
        casebase's own models are looked for) and the chooser's."""
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
        return [
            str(default_model()[0]),
            str(generic_model()),
            *map(str, candidates(casebase)),
            *(str(p) for network in networks for p in (network, sidecar(network))),
            *named,
        ]
