"""The one way to make an agent: from option values (the engine's options, by name), typed once into
the settings every agent is made with (:class:`AgentSettings`) and the mode's own (its module's
dataclass), a casebase and what the mode may load. The UCI engine, the tournament, the fidelity
bench and the benches all call :func:`make_agent` (or :func:`agent_settings`, then
:func:`agent_of`), so the same options give the same agent everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess

from casebase.format import Casebase
from endgame.syzygy import SyzygyTables
from endgame.tablebase import Tablebase
from engine.agents.endings import TablebaseAgent
from engine.agents.modes import MODES, Resources, option_registry
from engine.agents.options import AgentSettings, OptionValue, settings_of
from engine.outside.judge import Judge, JudgeError, JudgeSettings
from engine.strength.chooser import Chooser, chooser_path
from engine.style.loader import PriorModel, load_model, model_path

if TYPE_CHECKING:
    from engine.agents.guided import GuidedAgent
    from engine.agents.record import Note
    from engine.style.prior import Proposal


def option_values(overrides: Mapping[str, OptionValue] | None = None) -> dict[str, OptionValue]:
    """Every option's value: the defaults, with ``overrides`` by name (looked up in the one
    registry; ValueError for an unknown one)."""
    return option_registry().values(overrides)


def agent_settings(values: Mapping[str, OptionValue]) -> tuple[AgentSettings, Any]:
    """The settings of ``values`` (missing options take their defaults): every agent's, and the
    mode's own (its module's dataclass, e.g.
    :class:`engine.agents.guided_options.GuidedSettings`)."""
    full = option_values(values)
    common = settings_of(AgentSettings, full)
    return common, settings_of(MODES[common.mode].maker().settings, full)


def make_agent(
    values: Mapping[str, OptionValue], casebase: Casebase | None, resources: Resources
) -> TablebaseAgent:
    """The agent of ``values`` (missing options take their defaults): :func:`agent_of` its
    settings."""
    return agent_of(*agent_settings(values), casebase, resources)


def agent_of(
    common: AgentSettings, own: Any, casebase: Casebase | None, resources: Resources
) -> TablebaseAgent:
    """The agent of the settings ``common`` and ``own`` (:func:`agent_settings`): the mode's agent,
    which plays the endgame tables' move wherever they cover the position. ``resources`` gives the
    model, the judge and the tables (:class:`Loader`, or the UCI engine's
    :class:`~engine.agents.kept.KeptResources`)."""
    mode = MODES[common.mode]
    agent = mode.maker().make(casebase if mode.casebase else None, own, resources)
    return TablebaseAgent(
        agent, resources.tablebase(common.tables), resources.syzygy(common.syzygy)
    )


class Loader:
    """What modes load, for a process without a user to tell (tournament and bench workers): each
    model, judge and table folder made once; a file that cannot be read raises
    (:class:`~engine.style.model.ModelError`, :class:`~engine.strength.chooser.ChooserError`). The
    UCI engine's keeps each while its file is the same, and tells instead
    (:class:`engine.agents.kept.KeptResources`)."""

    def __init__(self) -> None:
        self._models: dict[str, PriorModel] = {}
        self._judges: dict[JudgeSettings, Judge] = {}
        self._tables: dict[str, Tablebase] = {}
        self._syzygy: dict[str, SyzygyTables] = {}
        self._choosers: dict[str, Chooser | None] = {}

    def model(self, path: str) -> PriorModel:
        """The style model at ``path`` (a model of this project or an lc0 network, or a shipped
        one's name)."""
        if path not in self._models:
            self._models[path] = load_model(model_path(path))
        return self._models[path]

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The judge of these settings (started at its first search; a new game clears its hash)."""
        settings = JudgeSettings(command, threads, hash_mb)
        if settings not in self._judges:
            self._judges[settings] = Judge(settings)
        return self._judges[settings]

    def chooser(self, setting: str) -> Chooser | None:
        """The chooser option Chooser names; None for none (``off``, or ``auto`` with none
        shipped)."""
        if setting not in self._choosers:
            path = chooser_path(setting)
            self._choosers[setting] = None if path is None else Chooser.load(path)
        return self._choosers[setting]

    def tablebase(self, folder: str) -> Tablebase | None:
        """The endgame tables of ``folder``; None when it is empty (no tables)."""
        if not folder:
            return None
        if folder not in self._tables:
            self._tables[folder] = Tablebase.prepared(folder)
        return self._tables[folder]

    def syzygy(self, path: str) -> SyzygyTables | None:
        """The Syzygy tables of ``path``; None when it is empty."""
        if not path:
            return None
        if path not in self._syzygy:
            self._syzygy[path] = SyzygyTables(path)
        return self._syzygy[path]

    def tell(self, line: str) -> None:
        """Nobody to tell in a worker process: the benches name the model they chose themselves."""

    def embed(self, casebase: Casebase, network: Path) -> bool:
        """Nothing is made in the background of a worker: the benches' embeddings are made ahead
        (make)."""
        return False

    def close(self) -> None:
        """Quit every judge process."""
        for judge in self._judges.values():
            judge.close()
        self._judges.clear()


def play_time_agent(
    casebase: Casebase,
    loader: Loader,
    judge: str,
    judge_depth: int,
    seed: int,
    tables: str | None = None,
) -> GuidedAgent:
    """The guided agent whose choices the play-time record (:mod:`profiling.play`, strength.md §3)
    and the chooser's records (:mod:`learn.chooser.data`) hold: Mode guided, ``judge`` at
    ``judge_depth``, Selection calibrated, ``seed``; its judge started (JudgeError where it cannot
    be)."""
    from engine.agents.guided import GuidedAgent

    values: dict[str, OptionValue] = {
        "Mode": "guided",
        "Judge": judge,
        "JudgeDepth": judge_depth,
        "Selection": "calibrated",
        "Seed": seed,
        **({} if tables is None else {"Tables": tables}),
    }
    agent = make_agent(values, casebase, loader).agent
    assert isinstance(agent, GuidedAgent) and agent.judge is not None
    # one refused (slow to answer uciok, say) would leave the built-in search at the judge's depth
    agent.judge.start()
    return agent


def judged_choice(
    agent: GuidedAgent,
    board: chess.Board,
    seed: int,
    game: int | None,
    describe: Callable[[Note], str],
) -> tuple[Proposal, list[chess.Move], list[int], list[float]]:
    """What ``agent`` (:func:`play_time_agent`) chooses among in ``board``, assessed exactly as
    before choosing a move (but for the built-in search where the judge failed: this raises at
    once), with its own draws from ``seed`` (a resumed run records the same) and the cases of the
    casebase's game ``game`` held out (None: none): the proposal, and the moves its judge scored
    exactly with their scores and prior (:func:`~engine.strength.calibration.judged_candidates`).
    JudgeError where the judge scored nothing, saying why with its notes in words (``describe``:
    :func:`engine.uci.notes.note_text`, a layer above the agents)."""
    import numpy as np

    from engine.search.limits import SearchLimits
    from engine.strength.calibration import judged_candidates

    assert agent.casebase is not None
    agent.new_game(seed)
    agent.held_out = (
        None if game is None else np.flatnonzero(np.asarray(agent.casebase.game) == game)
    )
    proposal, result, judged_by, notes = agent.assess(
        board, list(board.legal_moves), SearchLimits(depth=agent.judge_depth), fallback=False
    )
    moves, scores, prior = judged_candidates(proposal, result)
    if judged_by is None or not moves:
        raise JudgeError(
            f"the engine's judge scored nothing in {board.fen()}: {' '.join(map(describe, notes))}"
        )
    return proposal, moves, scores, prior
