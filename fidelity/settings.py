"""What determines a fidelity run's moves, besides the positions: the settings of every mode.

Their defaults are the engine's (:mod:`engine.agents.defaults`, the options' defaults), so that
the bench measures the engine people play; only what the engine leaves to the clock is fixed
here, so that results do not depend on the machine's load: the built-in search's nodes and the
outside engine's depth.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from casebase.format import Casebase
from casebase.profilefile import with_profile
from engine.agents import defaults
from engine.agents.options import OptionValue, weight_values
from engine.cbr.configurations import Configuration
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.style.loader import default_model, model_file_name, model_path
from engine.style.personal import choose_model
from engine.style.prior import PriorSource
from fidelity.modes import JUDGED_MODES, FidelityMode
from parallel.cluster import table_files

#: The outside engine of the judged modes and of stockfish mode (``--judge``).
DEFAULT_JUDGE = DEBIAN_STOCKFISH
#: The guided mode's default search: reproducible (nodes, not time), about 0.4 s a position here.
DEFAULT_GUIDED_NODES = 10_000


@dataclass(frozen=True)
class FidelitySettings:
    """What determines a run's moves (besides the positions)."""

    casebase: str  # path of the .npz
    config: Configuration
    seed: int = 0
    guided_depth: int | None = None
    guided_nodes: int | None = DEFAULT_GUIDED_NODES
    #: Milliseconds a move instead of a depth or nodes (as a clock plays: not reproducible on a busy
    #: machine).
    guided_movetime: int | None = None
    #: The outside engine, alone (stockfish mode) and as guided mode's judge (option Judge).
    judge: str = DEFAULT_JUDGE
    #: The depth of the outside engine, alone and as judge (option JudgeDepth).
    judge_depth: int = defaults.BENCH_DEPTH
    #: Guided mode's prior (engine.style.prior) and, for a model's, the model file and the cases'
    #: weight.
    prior: PriorSource = defaults.PRIOR
    #: A model file, or ``auto``: the casebase's personal model where there is one
    #: (engine.style.personal).
    model: str = defaults.MODEL
    #: Option CaseWeight (percent).
    case_weight_percent: int = defaults.CASE_WEIGHT_PERCENT
    #: Guided mode's Tolerance and JudgeTolerance (centipawns).
    tolerance: int = defaults.TOLERANCE
    judge_tolerance: int = defaults.JUDGE_TOLERANCE
    #: Guided mode's Neighbours and Temperature (tenths of a similarity point).
    neighbours: int = defaults.NEIGHBOURS
    temperature_tenths: int = defaults.TEMPERATURE_TENTHS
    #: The endgame tables' folder (option Tables); "" for the engine's default.
    tables: str = ""
    #: Option Chooser of the judged-chooser mode (the other judged modes: off).
    chooser: str = defaults.CHOOSER

    def describe(self, mode: FidelityMode, engine_name: str | None = None) -> str:
        """How ``mode`` plays, for the table and the JSON."""
        weights = f"weights {self.config.name} ({self.config.label})"
        prior = {
            PriorSource.CASES: "the cases' votes",
            PriorSource.MODEL: f"model {Path(self.model).name}",
            PriorSource.BLEND: f"model {Path(self.model).name} and the cases"
            f" (weight {self.case_weight_percent} %)",
        }[self.prior]
        if mode.pure:
            return f"PureAgent, {weights}" + (
                ", the learned similarity" if mode == FidelityMode.PURE_LEARNED else ""
            )
        if mode == FidelityMode.PRIOR:
            return f"favourite of the prior: {prior}, {weights}"
        if mode == FidelityMode.GENERIC:
            return f"favourite of the shipped default model {default_model()[0].name} alone"
        bound = (
            f"depth {self.guided_depth}"
            if self.guided_depth is not None
            else f"{self.guided_movetime} ms a move"
            if self.guided_movetime is not None
            else f"{self.guided_nodes} nodes"
        )
        if mode == FidelityMode.ALPHABETA:
            return f"the guided search's own best move, {bound}"
        engine = f"{engine_name or self.judge}, depth {self.judge_depth}"
        if mode in (FidelityMode.GUIDED, FidelityMode.PUCT):
            search = ", Search puct" if mode == FidelityMode.PUCT else ""
            return (
                f"GuidedAgent, prior: {prior}, {weights}, {bound}, tolerance {self.tolerance}"
                f" cp{search}"
            )
        if mode == FidelityMode.JUDGED:
            return (
                f"GuidedAgent, prior: {prior}, {weights}, judged by {engine}, tolerance"
                f" {self.judge_tolerance} cp"
            )
        if mode == FidelityMode.JUDGED_CHOOSER:
            return (
                f"GuidedAgent, prior: {prior}, {weights}, judged by {engine}, Selection likely by"
                f" the chooser {self.chooser}"
            )
        if mode.judged:
            return (
                f"GuidedAgent, prior: {prior}, {weights}, judged by {engine}, Selection"
                f" {mode.selection} (the error model)"
            )
        return engine

    def values(self, mode: FidelityMode) -> dict[str, OptionValue]:
        """The engine's options that make ``mode``'s agent
        (:func:`engine.agents.factory.make_agent`): the alphabeta mode is guided mode with neither
        cases nor model, so it plays the search's move."""
        tables: dict[str, OptionValue] = {"Tables": self.tables} if self.tables else {}
        if mode.pure:
            similarity = "learned" if mode == FidelityMode.PURE_LEARNED else "shallow"
            return {
                "Mode": "pure",
                "Similarity": similarity,
                **weight_values(self.config.weights),
                **tables,
            }
        if mode == FidelityMode.GENERIC:
            return {
                **tables,
                "Mode": "guided",
                "Prior": "model",
                "Model": str(default_model()[0]),
                "Judge": defaults.JUDGE_NONE,
                "Selection": mode.selection,
            }
        values: dict[str, OptionValue] = {
            **tables,
            "Mode": "guided",
            **weight_values(self.config.weights),
            "Prior": PriorSource.CASES if mode == FidelityMode.ALPHABETA else self.prior,
            "Model": self.model,
            "CaseWeight": self.case_weight_percent,
            "Tolerance": self.tolerance,
            "JudgeTolerance": self.judge_tolerance,
            "Neighbours": self.neighbours,
            "Temperature": self.temperature_tenths,
            "Judge": defaults.JUDGE_NONE,
            # argmax but for the error model's modes: the engine's auto would draw (§7)
            "Selection": mode.selection,
        }
        if mode == FidelityMode.PUCT:
            values["Search"] = "puct"
        if mode.judged:
            values |= {
                "Judge": self.judge,
                "JudgeDepth": self.judge_depth,
                "Selection": mode.selection,
                "Chooser": self.chooser
                if mode == FidelityMode.JUDGED_CHOOSER
                else defaults.CHOOSER_OFF,
            }
        return values

    def resolved(self) -> FidelitySettings:
        """These settings with model ``auto`` made the file it means for the casebase (so that the
        results name it and a cluster's nodes get it)."""
        if self.model != defaults.MODEL:
            return self
        return dataclasses.replace(self, model=choose_model(Casebase.load(self.casebase)).path)

    def for_mode(self, mode: FidelityMode) -> FidelitySettings:
        """These settings as ``mode`` needs them: without the outside engine where it plays no
        part."""
        return (
            self
            if mode in (*JUDGED_MODES, FidelityMode.STOCKFISH)
            else dataclasses.replace(self, judge="")
        )

    # what a cluster's workers need (parallel.cluster.Portable)

    def cargo(self) -> dict[str, Path]:
        model: dict[str, Path] = {}
        if self.prior != PriorSource.CASES:
            path = model_path(self.resolved().model)
            model = {model_file_name("model", path): Path(path)}
        return {
            **with_profile("casebase.npz", Path(self.casebase)),
            **model,
            **table_files(self.tables),
            **({"chooser.npz": Path(self.chooser)} if self._chooser_file else {}),
        }

    def unpacked(self, root: Path) -> Self:
        model = (
            str(root / model_file_name("model", model_path(self.model)))
            if self.prior != PriorSource.CASES
            else self.model
        )
        chooser = str(root / "chooser.npz") if self._chooser_file else self.chooser
        return dataclasses.replace(
            self,
            casebase=str(root / "casebase.npz"),
            model=model,
            tables=str(root / "tables"),
            chooser=chooser,
        )

    @property
    def _chooser_file(self) -> bool:
        """Whether option Chooser names a file of its own (shipped to a cluster's nodes with the
        casebase)."""
        return self.chooser not in (defaults.CHOOSER_AUTO, defaults.CHOOSER_OFF, "")

    def programs(self) -> list[str]:
        return [self.judge] if self.judge else []
