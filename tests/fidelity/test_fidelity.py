"""The fidelity bench (fidelity/) end to end: its runs, modes, reports and errors (its positions,
sampling and determinism: test_fidelity_positions.py)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from engine_helpers import favourite_model, guided_agent, shipped_personal
from judge_helpers import FAKE_ENGINE
from uci_helpers import ROOT

from casebase.format import Casebase
from engine.cbr.configurations import parse_configurations
from engine.search.limits import SearchLimits
from fidelity.modes import FidelityMode
from fidelity.positions import read_positions
from fidelity.replay import play_positions
from fidelity.settings import FidelitySettings

# the fidelity benches' commands replay an expert's games through processes
pytestmark = pytest.mark.slow

KOSTENIUK = "Alexandra Kosteniuk"
BALANCED = parse_configurations(["balanced"])[0]


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fidelity", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _run(casebase: Path, games: Path, out: Path, *extra: object) -> dict:
    """``fidelity run``'s JSON (and what it printed); on one worker process unless ``extra`` says
    otherwise: the suite's own workers already take every core, and each process of a pool is
    spawned, importing and loading everything again (the workers' agreement is tested on its own, in
    test_fidelity_positions.py)."""
    workers = () if "--workers" in extra else ("--workers", 1)
    done = cli("run", "--casebase", casebase, "--heldout", games, "--out", out, *extra, *workers)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    data["stdout"] = done.stdout
    return data


def test_same_games_are_recalled_and_held_out_games_are_not(tmp_path, kosteniuk_casebase, heldout):
    casebase, games = heldout
    unseen = _run(casebase, games, tmp_path / "unseen.json", "--modes", "pure")
    seen = _run(
        kosteniuk_casebase, games, tmp_path / "seen.json", "--modes", "pure", "--workers", 1
    )
    assert unseen["games"]["expert_games"] == 18 and unseen["games"]["seen_in_casebase"] == 0
    assert seen["games"]["seen_in_casebase"] == 18 and "not held out" in seen["stdout"]
    positions = unseen["games"]["positions"]
    cases = len(Casebase.load(kosteniuk_casebase)) - len(Casebase.load(casebase))
    assert len(unseen["positions"]) == positions == cases
    # Its own positions retrieve their own moves (similarity 256), except where cases tie.
    assert seen["results"]["pure"]["share"] > 0.9
    assert unseen["results"]["pure"]["share"] < seen["results"]["pure"]["share"] - 0.4
    result = unseen["results"]["pure"]
    assert result["matches"] == sum(p["moves"]["pure"] == p["expert"] for p in unseen["positions"])
    assert result["ci95"][0] < result["share"] < result["ci95"][1]
    assert (
        sum(result["by_phase"][ph]["positions"] for ph in ("opening", "middlegame", "endgame"))
        == positions
    )
    row = next(line for line in unseen["stdout"].splitlines() if line.startswith("| pure |"))
    assert f"| {result['matches']}/{positions} |" in row

    summary = tmp_path / "summary.md"
    done = cli("summary", tmp_path / "unseen.json", tmp_path / "seen.json", "--out", summary)
    assert done.returncode == 0, done.stderr
    table = summary.read_text()
    assert done.stdout.strip() == table.strip()
    pooled = result["matches"] + seen["results"]["pure"]["matches"]
    assert f"| **all** | | {2 * positions} | {100 * pooled / (2 * positions):.1f} %" in table
    assert summary.with_suffix(".png").read_bytes().startswith(b"\x89PNG")


def test_uci_mode_plays_the_engines_moves_in_the_games_positions(tmp_path, heldout):
    engine = tmp_path / "first-move-engine"
    engine.write_text(f"#!{sys.executable}\n{FAKE_ENGINE}")
    engine.chmod(0o755)
    casebase, games = heldout
    data = _run(
        casebase,
        games,
        tmp_path / "uci.json",
        "--modes",
        "stockfish",
        "--judge",
        engine,
        "--positions",
        30,
        "--workers",
        2,
    )
    positions = read_positions(games, KOSTENIUK).positions
    expected = {p.index: min(m.uci() for m in p.board().legal_moves) for p in positions}
    assert len(data["positions"]) == 30
    assert all(p["moves"]["stockfish"] == expected[p["index"]] for p in data["positions"])
    assert data["results"]["stockfish"]["matches"] == sum(
        expected[p["index"]] == p["expert"] for p in data["positions"]
    )
    assert "| stockfish | FirstMove, depth 10 | " in data["stdout"]


@pytest.mark.skipif(not Path("/usr/games/stockfish").is_file(), reason="needs Debian's stockfish")
def test_judged_mode_at_tolerance_0_mostly_plays_the_judges_own_move(tmp_path, heldout):
    casebase, games = heldout
    # Depth 10: shallower, Stockfish's own choice among near-equal moves is a coin toss.
    data = _run(
        casebase,
        games,
        tmp_path / "j.json",
        "--modes",
        "judged",
        "stockfish",
        "--judge-depth",
        10,
        "--judge-tolerance",
        0,
        "--positions",
        40,
        "--workers",
        2,
    )
    boards = {p["index"]: chess.Board(p["fen"]) for p in data["positions"]}
    assert all(
        chess.Move.from_uci(p["moves"]["judged"]) in boards[p["index"]].legal_moves
        for p in data["positions"]
    )
    same = sum(p["moves"]["judged"] == p["moves"]["stockfish"] for p in data["positions"])
    # Only a proposal scoring as well as its best, in the same search, differs (27 of 40 measured;
    # at tolerance 1000, where the prior's favourite is played, 15).
    assert same >= 20
    assert (
        "judged by Stockfish 15.1, depth 10, tolerance 0 cp" in data["results"]["judged"]["engine"]
    )


def test_a_missing_engine_or_bad_input_is_a_clear_error_and_writes_nothing(tmp_path, heldout):
    casebase, games = heldout
    out = tmp_path / "x.json"
    run = ("run", "--casebase", casebase, "--heldout", games, "--out", out, "--modes", "pure")
    done = cli(*run, "stockfish", "--judge", tmp_path / "no-stockfish")
    assert done.returncode == 2 and "no engine at" in done.stderr and "--judge PATH" in done.stderr
    done = cli(*run, "--player", "Magnus Carlsen")
    assert done.returncode == 2 and "no game of 'Magnus Carlsen'" in done.stderr
    assert not out.exists()


def test_another_players_fidelity_is_not_headed_with_the_casebases_rating(tmp_path, heldout):
    casebase, games = heldout
    first = chess.pgn.read_game(io.StringIO(games.read_text(encoding="utf-8")))
    assert first is not None
    opponent = (
        first.headers["Black"] if "Kosteniuk" in first.headers["White"] else first.headers["White"]
    )
    assert "Kosteniuk" not in opponent
    run = _run(
        casebase,
        games,
        tmp_path / "other.json",
        "--modes",
        "pure",
        "--positions",
        5,
        "--player",
        opponent,
        "--exact-name",
    )
    assert run["expert"] == opponent and run["casebase"]["expert"] == KOSTENIUK
    assert run["elo"] is None and f"Elo {Casebase.load(casebase).elo}" not in run["stdout"]
    assert f"Fidelity to {opponent}:" in run["stdout"]


def test_guided_mode_plays_legal_moves_reproducibly(heldout):
    casebase, games = heldout
    positions = read_positions(games, KOSTENIUK).positions[::90]
    settings = FidelitySettings(
        casebase=str(casebase), config=BALANCED, guided_depth=1, guided_nodes=None, prior="cases"
    )
    moves = play_positions(positions, FidelityMode.GUIDED, settings, workers=1, progress=False)
    assert all(chess.Move.from_uci(moves[p.index]) in p.board().legal_moves for p in positions)
    assert (
        play_positions(positions, FidelityMode.GUIDED, settings, workers=2, progress=False) == moves
    )
    search = play_positions(positions, FidelityMode.ALPHABETA, settings, workers=1, progress=False)
    # the search alone: a guided agent without cases plays the search's best move
    for p in positions:
        alone = guided_agent(None, BALANCED.weights, 0).choose(
            p.board(), limits=SearchLimits(depth=1)
        )
        assert search[p.index] == alone.move.uci()


def test_prior_mode_plays_the_priors_favourite_and_runs_compare_paired(tmp_path, heldout):
    casebase, games = heldout
    model = favourite_model(tmp_path / "e4.npz", chess.E4)
    with_model = _run(
        casebase,
        games,
        tmp_path / "model.json",
        "--modes",
        "prior",
        "pure",
        "--prior",
        "model",
        "--model",
        model,
        "--positions",
        40,
    )
    moves = [p["moves"]["prior"] for p in with_model["positions"]]
    boards = {p["index"]: chess.Board(p["fen"]) for p in with_model["positions"]}
    likes = [
        p
        for p in with_model["positions"]
        if chess.Move.from_uci(p["moves"]["prior"]).to_square
        == (chess.E4 if boards[p["index"]].turn else chess.E5)
    ]
    assert len(moves) == 40 and likes  # wherever a move to e4 (e5 for Black) is legal, it is played
    assert "favourite of the prior: model e4.npz" in with_model["results"]["prior"]["engine"]
    cases = _run(
        casebase,
        games,
        tmp_path / "cases.json",
        "--modes",
        "prior",
        "--prior",
        "cases",
        "--positions",
        40,
    )
    done = cli(
        "compare", "prior", "prior", tmp_path / "cases.json", "--against", tmp_path / "model.json"
    )
    assert done.returncode == 0, done.stderr
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("| Alexandra")]
    a = sum(p["moves"]["prior"] == p["expert"] for p in cases["positions"])
    b = sum(p["moves"]["prior"] == p["expert"] for p in with_model["positions"])
    assert (
        f"| 40 | {100 * a / 40:.1f} % | {100 * b / 40:.1f} % | {100 * (a - b) / 40:+.1f} (" in row
    )
    done = cli("compare", "prior", "pure", tmp_path / "model.json")
    assert done.returncode == 0 and "| **all** | 40 |" in done.stdout
    done = cli(
        "run",
        "--casebase",
        casebase,
        "--heldout",
        games,
        "--modes",
        "prior",
        "--prior",
        "model",
        "--model",
        tmp_path / "missing.npz",
    )
    assert done.returncode == 2 and "no such model file" in done.stderr


def test_prior_plays_the_casebases_personal_model_and_generic_mode_the_generic_one(
    tmp_path, heldout, without_networks
):
    casebase, games = heldout
    mine = tmp_path / "k.npz"
    shutil.copy(casebase, mine)
    # a personal model that plays any move to e4 it can
    personal = shipped_personal(mine, {chess.E4: 30.0})
    run = _run(
        mine,
        games,
        tmp_path / "run.json",
        "--modes",
        "generic",
        "prior",
        "--prior",
        "model",
        "--positions",
        40,
    )
    assert run["settings"]["model"] == str(personal)
    assert "default model style.npz alone" in run["results"]["generic"]["engine"]
    to_e4 = {
        p["index"]: [
            m
            for m in chess.Board(p["fen"]).legal_moves
            if m.to_square == (chess.E4 if chess.Board(p["fen"]).turn else chess.E5)
        ]
        for p in run["positions"]
    }
    assert all(
        chess.Move.from_uci(p["moves"]["prior"]) in to_e4[p["index"]]
        for p in run["positions"]
        if to_e4[p["index"]]
    )
    assert any(
        chess.Move.from_uci(p["moves"]["generic"]) not in to_e4[p["index"]]
        for p in run["positions"]
        if to_e4[p["index"]]
    )
