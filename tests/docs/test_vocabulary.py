"""One vocabulary: the option registry every user of options reads, the typed words (selections,
priors, reasons), the engine's defaults a user expects, and where each piece of code lives."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from docs_helpers import PACKAGES
from uci_helpers import ROOT

from engine.agents.base import Reason
from engine.agents.chess0 import Chess0Agent
from engine.agents.defaults import Selection
from engine.agents.factory import Loader, make_agent, option_values
from engine.agents.modes import option_registry
from engine.agents.pure import PureAgent
from engine.cbr.weights import Weights
from engine.search.limits import SearchLimits
from tournament.__main__ import _tables
from tournament.players import Lineup, casebase_entrant, parse_options


def test_the_registry_reads_names_without_case_and_refuses_the_old_names():
    registry = option_registry()
    assert (
        registry.option("threads").name == "Threads"
        and registry.option("MULTIPV").name == "MultiPV"
    )
    assert registry.parse("Selection", "Calibrated") == (
        registry.option("Selection"),
        Selection.CALIBRATED,
    )
    for old in (
        "JudgeThreads",
        "JudgeHash",
        "Nonsense",
    ):  # old names (CHANGELOG.md) are unknown names
        with pytest.raises(ValueError, match=f"no option named '{old}'"):
            registry.option(old)
    for option, old in (("Selection", "expert"), ("Mode", "search")):
        with pytest.raises(ValueError, match=f"{option} takes one of .*, not '{old}'"):
            registry.parse(option, old)


def test_the_factory_and_the_tournament_read_the_same_registry():
    """The agent factory, the tournament's --option and the UCI engine (test_uci_guided) take the
    same names, refuse the same old ones, and the tournament's options reach the factory
    unchanged."""
    assert parse_options(["hash=32", "selection=calibrated", "UCI_Elo=1800"]) == {
        "Hash": 32,
        "Selection": "calibrated",
        "UCI_Elo": 1800,
    }
    values = option_values({"Hash": 32, "Selection": "calibrated"})
    assert values["Hash"] == 32 and values["Selection"] == "calibrated"
    for old in (["judgehash=32"], ["selection=expert"]):
        with pytest.raises(ValueError, match="--option"):
            parse_options(old)
    with pytest.raises(ValueError, match="no option named 'JudgeHash'"):
        option_values({"JudgeHash": 32})
    with pytest.raises(ValueError, match="Selection takes one of"):
        option_values({"Selection": "expert"})


def test_the_engines_defaults_are_guided_mode_and_the_default_tables():
    defaults = option_values()
    assert (
        defaults["Mode"] == "guided"
        and defaults["Selection"] == "auto"
        and defaults["Prior"] == "blend"
    )
    assert defaults["Tables"] != ""


def test_empty_tables_are_none_and_the_thesis_experiment_plays_without_them(kosteniuk_casebase):
    agent = make_agent({"Mode": "pure", "Tables": ""}, None, Loader())
    assert agent.tables is None
    assert make_agent({"Mode": "pure"}, None, Loader()).tables is not None
    assert (
        _tables(None, "pure") == ""
        and _tables(None, "guided") is None
        and _tables("t", "pure") == "t"
    )
    lineup = Lineup([casebase_entrant(kosteniuk_casebase)], tables=_tables(None, "pure"))
    side = lineup.side(Path(kosteniuk_casebase).stem, _configuration(), seed=3)
    assert side.tables is None
    # KQK: the tables would mate; the thesis's agent plays its case's move or a drawn one
    board = chess.Board("8/8/8/4k3/8/8/8/3QK3 w - - 0 1")
    assert side.choose(board).reason is not Reason.TABLES
    assert make_agent({"Mode": "pure"}, None, Loader()).choose(board).reason is Reason.TABLES


def _configuration():
    from engine.cbr.configurations import Configuration

    return Configuration("balanced", Weights(0.5, 0.5, 0.5))


def test_every_decision_says_what_decided_it(kosteniuk_casebase):
    from casebase.format import Casebase

    board = chess.Board()
    board.push_uci("e2e4")
    casebase = Casebase.load(kosteniuk_casebase)
    assert PureAgent(casebase, Weights(0.5, 0.5, 0.5), 1).choose(board).reason is Reason.CASE
    assert PureAgent(None, Weights(0.5, 0.5, 0.5), 1).choose(board).reason is Reason.RANDOM
    assert (
        Chess0Agent("classic", depth=1).choose(board, limits=SearchLimits(depth=1)).reason
        is Reason.SEARCH
    )
    guided = make_agent(
        {"Mode": "guided", "Casebase": str(kosteniuk_casebase), "Prior": "cases"},
        casebase,
        Loader(),
    )
    assert guided.choose(board, limits=SearchLimits(depth=1)).reason in (
        Reason.ARGMAX,
        Reason.SEARCH,
    )
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert PureAgent(casebase, Weights(0.5, 0.5, 0.5), 1).choose(mated).reason is Reason.NO_MOVE


def _modules() -> list[Path]:
    folders = (*PACKAGES, "tests", "bench", "experiments", "testing")
    return sorted(p for package in folders for p in (ROOT / package).rglob("*.py")) + [
        ROOT / "uci_main.py"
    ]


def test_no_module_is_over_600_lines():
    # a module holds one subject, whatever its length; a class is never split to fit a count
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert not long


def test_no_module_changes_the_import_path():
    """Every module, the benches', experiments' and testing tools' too, imports the project's
    packages as packages (``python -m experiments.NAME`` from the source tree), never by editing
    sys.path."""

    def edits_the_path(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )

    found = [
        str(p.relative_to(ROOT))
        for p in _modules()
        if any(map(edits_the_path, ast.walk(ast.parse(p.read_text()))))
    ]
    assert not found


def test_no_module_below_the_engine_runs_an_outside_engine():
    """chess.engine (python-chess's UCI client) is the engine layer's: casebase, endgame, lc0net and
    common hold data and rules only (import-linter cannot name a sub-module of python-chess)."""
    found = []
    for package in ("common", "lc0net", "casebase", "endgame"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [f"{node.module}.{a.name}" for a in node.names]
                    if isinstance(node, ast.ImportFrom) and node.module
                    else []
                )
                found += [
                    f"{path.relative_to(ROOT)}: {n}" for n in names if n.startswith("chess.engine")
                ]
    assert not found


def test_the_engine_answers_uciok_without_numpy_or_scipy():
    """What the UCI loop imports before ``uciok`` stays cheap (docs/architecture.md): import-linter
    forbids only the direct imports, so the whole import tree of a session of ``uci`` and ``quit``
    is read here, from the interpreter's own record of it (``-X importtime``)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(ROOT / "uci_main.py")],
        input="uci\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "uciok" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    heavy = {name for name in imported if name.split(".")[0] in ("numpy", "scipy", "torch")}
    assert not heavy, sorted(heavy)[:5]
