"""One way to make an agent: the UCI engine, the tournament and the fidelity bench get the same
agent from the same options (engine.agents.factory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import pytest
from engine_helpers import favourite_model

from engine.agents.defaults import Selection
from engine.agents.endings import TablebaseAgent
from engine.agents.factory import Loader, make_agent, option_values
from engine.agents.guided import GuidedAgent, automatic_selection
from engine.agents.pure import PureAgent
from engine.cbr.configurations import Configuration
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.uci.resources import AgentBuilder
from fidelity.replay import _PositionWorker
from fidelity.settings import FidelitySettings
from tournament.players import Lineup, casebase_entrant

SIMPLE = (int, float, str, bool)


def configuration(agent: TablebaseAgent) -> dict[str, Any]:
    """What makes an agent play as it does: its class, every setting, the seed, the weights, which
    model, judge and tables it uses (not its state: generators, indexes, tables' contents)."""
    inner = agent.agent
    found: dict[str, Any] = {
        "class": type(inner).__name__,
        "tables": None if agent.tables is None else str(agent.tables.folder),
    }
    for name, value in vars(inner).items():
        if isinstance(value, SIMPLE) or name == "weights":
            found[name] = value
    model = getattr(inner, "model", None)
    found["model"] = None if model is None else str(model.path)
    judge = getattr(inner, "judge", None)
    found["judge"] = None if judge is None else judge.settings
    searcher = getattr(inner, "searcher", None)
    if searcher is not None:
        found["search tables"] = (
            str(searcher.tablebase.folder) if searcher.tablebase is not None else None
        )
    return found


def uci_agent(values: dict[str, Any]) -> TablebaseAgent:
    builder = AgentBuilder()
    agent = builder.agent(option_values(values))
    assert isinstance(agent, TablebaseAgent)
    return agent


def test_the_defaults_are_one_set():
    """The agents' settings default to the engine's options."""
    defaults = option_values()
    agent = make_agent({"Mode": "guided"}, None, Loader())
    guided = agent.agent
    assert isinstance(guided, GuidedAgent)
    assert (
        guided.neighbours,
        guided.temperature * 10,
        guided.tolerance,
        guided.judge_tolerance,
    ) == (
        defaults["Neighbours"],
        defaults["Temperature"],
        defaults["Tolerance"],
        defaults["JudgeTolerance"],
    )
    # the Selection default is decided by what the agent has: no judge and no profile here
    assert defaults["Selection"] == Selection.AUTO and guided.selection == automatic_selection(None)
    with pytest.raises(ValueError, match="no option named 'Tolerence'"):
        option_values({"Tolerence": 1})


def test_pure_mode_is_the_same_agent_through_uci_and_the_tournament(kosteniuk_casebase):
    config = Configuration("near-to", WEIGHT_CONFIGS["near-to"])
    lineup = Lineup([casebase_entrant(kosteniuk_casebase)])
    side = lineup.side(Path(kosteniuk_casebase).stem, config, seed=7)
    assert isinstance(side, TablebaseAgent) and isinstance(side.agent, PureAgent)
    uci = uci_agent(
        {
            "Casebase": str(kosteniuk_casebase),
            "Mode": "pure",
            "Seed": 7,
            "DistanceWeight": 80,
            "FromDistanceWeight": 20,
            "FromContentWeight": 50,
        }
    )
    assert configuration(side) == configuration(uci)
    assert side.agent.weights == WEIGHT_CONFIGS["near-to"]
    board = chess.Board()
    assert [side.choose(board).move for _ in range(5)] == [uci.choose(board).move for _ in range(5)]


@pytest.mark.parametrize("mode", ["guided", "judged"])
def test_guided_mode_is_the_same_agent_through_uci_and_the_fidelity_bench(
    tmp_path, kosteniuk_casebase, mode
):
    model = favourite_model(tmp_path / "e4.npz", chess.E4)
    judge = "/usr/games/stockfish"  # never started: the agent is only made
    settings = FidelitySettings(
        str(kosteniuk_casebase),
        Configuration("balanced", WEIGHT_CONFIGS["balanced"]),
        model=str(model),
        judge=judge,
        judge_depth=8,
    )
    worker = _PositionWorker(mode, settings)
    bench = worker.player.make(11)
    values = {
        "Casebase": str(kosteniuk_casebase),
        "Mode": "guided",
        "Seed": 11,
        "Model": str(model),
    }
    if mode == "judged":
        values |= {"Judge": judge, "JudgeDepth": 8}
    uci = uci_agent(values)
    assert configuration(bench) == configuration(uci)
    found = configuration(bench)
    assert (
        found["class"] == "GuidedAgent"
        and found["prior_source"] == "blend"
        and found["model"] == str(model)
    )
    assert found["search tables"] == found["tables"]  # the bench's guided agent has the tables too
    assert (found["judge"] is not None) == (mode == "judged")
    worker.close()
