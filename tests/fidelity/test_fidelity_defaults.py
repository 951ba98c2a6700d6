"""The fidelity bench measures the engine people play: its defaults are the engine's, and its modes
are one vocabulary (one name each; the old names are refused, on the command line and in old
runs)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from casebase.phases import PHASES
from engine.agents import defaults
from engine.agents.defaults import Selection
from engine.agents.modes import option_defaults
from engine.agents.options import WEIGHT_OPTIONS, weight_values
from engine.cbr.configurations import parse_configurations
from fidelity.__main__ import DEFAULT_CONFIG, parser, settings_of
from fidelity.__main__ import main as fidelity_main
from fidelity.modes import DEFAULT_MODES, FIDELITY_MODES, JUDGED_MODES, FidelityMode
from fidelity.replay import FORMAT
from fidelity.report import compare_markdown, load_run, summary_markdown
from fidelity.settings import DEFAULT_GUIDED_NODES, DEFAULT_JUDGE, FidelitySettings

BALANCED = parse_configurations(["balanced"])[0]


def test_every_default_of_the_settings_is_the_engines_or_named_as_the_benchs_own():
    options = option_defaults()
    the_engines = {
        # the engine's JudgeDepth 0 follows the clock: the bench does not
        "judge_depth": defaults.BENCH_DEPTH,
        "prior": options["Prior"],
        "model": options["Model"],
        "case_weight_percent": options["CaseWeight"],
        "tolerance": options["Tolerance"],
        "judge_tolerance": options["JudgeTolerance"],
        "neighbours": options["Neighbours"],
        "temperature_tenths": options["Temperature"],
        "chooser": options["Chooser"],
    }
    the_benchs = {
        "seed": 0,
        "guided_depth": None,
        "guided_nodes": DEFAULT_GUIDED_NODES,
        "guided_movetime": None,
        "judge": DEFAULT_JUDGE,
        "tables": "",
    }
    fields = {
        f.name: f.default
        for f in dataclasses.fields(FidelitySettings)
        if f.default is not dataclasses.MISSING
    }
    # a new setting must be tied to the engine or named here
    assert fields == the_engines | the_benchs


def test_the_default_agents_take_every_option_at_the_engines_default():
    options = option_defaults()
    settings = FidelitySettings("x.npz", BALANCED, judge="/sf")
    for mode in FIDELITY_MODES:
        if mode == FidelityMode.STOCKFISH:
            continue
        values = settings.values(mode)
        fixed = (
            {"Mode", "Prior", "Model"}
            if mode in (FidelityMode.GENERIC, FidelityMode.ALPHABETA)
            else {"Mode"}
        )
        # the bench names its judge, none where it judges nothing: never the one auto finds
        fixed |= {"Judge"}
        # argmax without a judge: auto would size the error model to the search (strength.md §7)
        if not mode.pure:
            fixed |= {"Selection"}
        if mode == FidelityMode.PUCT:
            fixed |= {"Search"}  # the mode is the search the network leads
        if mode == FidelityMode.PURE_LEARNED:
            fixed |= {"Similarity"}  # the mode is pure mode's learned similarity
        if mode.judged:
            # the chooser plays in its own mode alone
            fixed |= {"Judge", "JudgeDepth", "Selection", "Chooser"}
        assert {name: value for name, value in values.items() if name not in fixed} == {
            name: options[name] for name in values if name not in fixed
        }, mode
    assert weight_values(parse_configurations([DEFAULT_CONFIG])[0].weights) == {
        n: options[n] for n in WEIGHT_OPTIONS
    }


def test_the_command_lines_defaults_are_the_settings_defaults():
    args = parser().parse_args(["run", "--casebase", "x.npz", "--heldout", "x.pgn"])
    assert settings_of(args) == FidelitySettings("x.npz", parse_configurations([DEFAULT_CONFIG])[0])
    assert (
        args.modes == list(DEFAULT_MODES) == [m for m in FIDELITY_MODES if m != FidelityMode.PUCT]
    )  # its visits
    assert args.positions is None and args.cluster is None
    depth = parser().parse_args(
        ["run", "--casebase", "x.npz", "--heldout", "x.pgn", "--guided-depth", "3"]
    )
    assert (settings_of(depth).guided_depth, settings_of(depth).guided_nodes) == (3, None)
    # --case-weight is a percent, as option CaseWeight
    weighted = parser().parse_args(
        ["run", "--casebase", "x.npz", "--heldout", "x.pgn", "--case-weight", "80"]
    )
    assert settings_of(weighted).values(FidelityMode.GUIDED)["CaseWeight"] == 80


def test_modes_have_one_name_each_and_the_old_names_are_refused(capsys):
    assert [str(m) for m in FIDELITY_MODES] == [
        "pure",
        "pure-learned",
        "generic",
        "prior",
        "alphabeta",
        "guided",
        "puct",
        "judged",
        "judged-likely",
        "judged-calibrated",
        "judged-chooser",
        "stockfish",
    ]
    selections = {str(s) for s in Selection}
    assert not selections & set(FIDELITY_MODES)  # a Selection's word is never a fidelity mode's
    args = parser().parse_args(
        [
            "run",
            "--casebase",
            "x.npz",
            "--heldout",
            "x.pgn",
            "--modes",
            "alphabeta",
            "judged-calibrated",
            "pure",
        ]
    )
    assert args.modes == [FidelityMode.ALPHABETA, FidelityMode.JUDGED_CALIBRATED, FidelityMode.PURE]
    for old in ("search", "expert", "likely", "calibrated"):
        with pytest.raises(ValueError):
            FidelityMode(old)
        # the command's own entry, in this process (python -m fidelity runs it in test_fidelity.py):
        # four interpreters started only to be refused took 11 s of the suite
        with pytest.raises(SystemExit) as refused:
            fidelity_main(["compare", old, "pure", "r.json"])
        assert (
            refused.value.code == 2
            and f"'{old}' is not a mode: one of pure," in capsys.readouterr().err
        )


def test_the_judged_modes_play_the_error_models_selections_with_the_judge():
    settings = FidelitySettings("x.npz", BALANCED, judge="/sf")
    assert settings.values(FidelityMode.JUDGED_CALIBRATED)["Selection"] == Selection.CALIBRATED
    assert settings.values(FidelityMode.JUDGED_LIKELY)["Selection"] == Selection.LIKELY
    assert settings.values(FidelityMode.JUDGED)["Selection"] == Selection.ARGMAX
    assert all(
        settings.values(m)["Judge"] == "/sf"
        and settings.values(m)["JudgeDepth"] == defaults.BENCH_DEPTH
        for m in JUDGED_MODES
    )
    assert all(settings.for_mode(m).judge == "/sf" for m in (*JUDGED_MODES, FidelityMode.STOCKFISH))
    assert (
        settings.for_mode(FidelityMode.GUIDED).judge == ""
        and settings.values(FidelityMode.GUIDED)["Judge"] == "none"
    )
    unjudged = (
        FidelityMode.GENERIC,
        FidelityMode.PRIOR,
        FidelityMode.ALPHABETA,
        FidelityMode.GUIDED,
        FidelityMode.PUCT,
    )
    assert all(settings.values(m)["Selection"] == Selection.ARGMAX for m in unjudged)
    assert settings.values(FidelityMode.PUCT)[
        "Search"
    ] == "puct" and "Search" not in settings.values(FidelityMode.GUIDED)
    assert "Selection calibrated (the error model)" in settings.describe(
        FidelityMode.JUDGED_CALIBRATED
    )


def test_the_chooser_plays_in_its_own_mode_alone():
    chosen = parser().parse_args(
        [
            "run",
            "--casebase",
            "x.npz",
            "--heldout",
            "x.pgn",
            "--chooser",
            "c.npz",
            "--prior",
            "cases",
        ]
    )
    for settings, chooser in (
        (FidelitySettings("x.npz", BALANCED), defaults.CHOOSER),
        (settings_of(chosen), "c.npz"),
    ):
        assert settings.values(FidelityMode.JUDGED_CHOOSER) | {
            "Chooser": chooser
        } == settings.values(FidelityMode.JUDGED_LIKELY) | {
            "Chooser": chooser
        }  # Selection likely, the same judge
        assert settings.values(FidelityMode.JUDGED_CHOOSER)["Chooser"] == chooser
        assert all(
            settings.values(m)["Chooser"] == defaults.CHOOSER_OFF
            for m in JUDGED_MODES
            if m != FidelityMode.JUDGED_CHOOSER
        )
    assert settings_of(chosen).cargo()["chooser.npz"] == Path("c.npz")
    assert settings_of(chosen).unpacked(Path("/node")).chooser == "/node/chooser.npz"


def a_run(expert: str, hits: dict[str, list[bool]]) -> dict:
    """A run's JSON with these modes' hits (the mode names as given)."""
    n = len(next(iter(hits.values())))
    positions = [
        {
            "index": i,
            "game": 0,
            "ply": 30 + i,
            "phase": "middlegame",
            "fen": f"fen {i}",
            "expert": "e2e4",
            "moves": {mode: "e2e4" if hit[i] else "d2d4" for mode, hit in hits.items()},
        }
        for i in range(n)
    ]
    share = {"matches": 0, "positions": 0, "share": None, "ci95": [None, None]}
    results = {
        mode: {
            "engine": "E",
            "matches": sum(hit),
            "positions": n,
            "share": sum(hit) / n,
            "ci95": [0, 1],
            "by_phase": {p: share for p in PHASES},
        }
        for mode, hit in hits.items()
    }
    return {
        "format": FORMAT,
        "version": 1,
        "expert": expert,
        "elo": 2500,
        "settings": {"modes": list(hits)},
        "phases": {p: n if p == "middlegame" else 0 for p in PHASES},
        "results": results,
        "positions": positions,
    }


def test_runs_are_compared_by_the_modes_names_and_old_names_are_not_read(tmp_path):
    hits = {
        "alphabeta": [True, False, True, True],
        "judged-calibrated": [False, False, True, False],
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(a_run("X", hits)))
    run = load_run(path)
    table = compare_markdown([run], [run], FidelityMode.ALPHABETA, FidelityMode.JUDGED_CALIBRATED)
    assert "| X | 4 | 75.0 % | 25.0 % | +50.0 (" in table
    assert "alphabeta % (95 % interval)" in summary_markdown([run])
    old = tmp_path / "old.json"  # written before the renaming (CHANGELOG.md): no alias reads it
    old.write_text(
        json.dumps(a_run("X", {"search": hits["alphabeta"], "expert": hits["judged-calibrated"]}))
    )
    with pytest.raises(ValueError, match="no 'alphabeta' or no 'judged-calibrated'"):
        compare_markdown(
            [load_run(old)], [load_run(old)], FidelityMode.ALPHABETA, FidelityMode.JUDGED_CALIBRATED
        )
