"""The chooser in play (issue #40; search.md, "The chooser"): option Chooser, with ``Selection
likely`` and a judge, plays the chooser's likeliest judged move and says so, with ``calibrated``
draws from it at the error model's strength; ``off`` plays the error model's; a damaged file is told
and plays on; a chooser without reference positions does not draw; the shallow searches end at
``stop``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest
from chooser_helpers import (  # noqa: F401 (the fixtures judge and contrary, used by name)
    OTHERS,
    SCORES,
    contrary_chooser,
    judge_command,
)
from test_chooser_strength import reference
from uci_helpers import ROOT, popen

from engine.strength.chooser import Chooser
from engine.strength.chooser_features import FEATURES, SHALLOW_DEPTHS, features
from web.reasons import shape

pytestmark = pytest.mark.slow  # plays through engine processes

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"


@pytest.fixture(scope="module")
def sound(tmp_path_factory) -> tuple[Chooser, Path]:
    """A chooser that avoids what loses and follows the prior, with reference positions to draw at a
    strength."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("loss")], weights[FEATURES.index("log prior")] = -40.0, 1.0
    chooser = Chooser(FEATURES, weights, meta={"test": "sound"}, reference=reference(40))
    path = tmp_path_factory.mktemp("chooser") / "sound.npz"
    chooser.save(path)
    return chooser, path


def _play(
    casebase: Path, judge: str, chooser: str, selection: str = "likely"
) -> tuple[chess.Move, dict, list[str]]:
    """The move after 1.e4 with ``selection`` and the judge, its JSON record and the info
    strings."""
    engine = popen("--casebase", str(casebase), "--seed", "3")
    try:
        engine.configure(
            {"Judge": judge, "Selection": selection, "Chooser": chooser, "Explain": "json"}
        )
        board = chess.Board()
        board.push_san("e4")
        strings: list[str] = []
        with engine.analysis(
            board, chess.engine.Limit(depth=4), info=chess.engine.INFO_ALL
        ) as analysis:
            strings += [info["string"] for info in analysis if "string" in info]
            best = analysis.wait().move
    finally:
        engine.quit()
    (record,) = [json.loads(s.removeprefix("json ")) for s in strings if s.startswith("json ")]
    assert best is not None and board.is_legal(best) and record["move"]["uci"] == best.uci()
    return best, record, strings


def _chooser_chances(
    record: dict, chooser: Chooser, strength: float
) -> tuple[list[chess.Move], np.ndarray]:
    """The record's candidates after 1.e4 and the chooser's chances of them at ``strength``,
    computed here."""
    choice, proposal = record["guided"]["choice"], record["guided"]["proposal"]
    board = chess.Board()
    board.push_san("e4")
    moves = [chess.Move.from_uci(m["uci"]) for m in choice["chances"]["moves"]]
    shares = {m["uci"]: m["share"] for m in proposal["proposes"]["moves"]} | {
        m["uci"]: m["share"] for m in proposal["prior"]["moves"]
    }
    scores = [SCORES.get(m.uci(), OTHERS) for m in moves]
    matrix, _ = features(
        board,
        board.peek(),
        moves,
        scores,
        [shares.get(m.uci(), 0.0) for m in moves],
        None,
        {depth: scores for depth in SHALLOW_DEPTHS},
    )
    return moves, chooser.probabilities(matrix, strength)


def test_selection_likely_with_a_judge_plays_the_choosers_likeliest_move(
    kosteniuk_casebase, judge, contrary
):
    chooser, path = contrary
    move, record, strings = _play(kosteniuk_casebase, judge, str(path))
    choice = record["guided"]["choice"]
    assert record["reason"] == "likely"
    assert choice["chooser"] == {"depths": list(SHALLOW_DEPTHS), "missing": None, "strength": 1.0}
    # the chooser computed directly on the candidates the record names, with the judge's scores
    board = chess.Board()
    board.push_san("e4")
    moves, direct = _chooser_chances(record, chooser, 1.0)
    assert choice["chances"]["total"] == len(moves) >= 3
    # a losing move
    assert move == moves[int(np.argmax(direct))] and SCORES.get(move.uci(), OTHERS) == OTHERS
    assert [m["share"] for m in choice["chances"]["moves"]] == pytest.approx(
        direct.tolist(), abs=2e-3
    )
    assert any(
        s.startswith(
            f"played {board.san(move)}, the likeliest by the chooser with depths 2 and 6 ("
        )
        for s in strings
    )
    assert shape(record)["played"]["chooser"] is True  # the web page says so


def test_selection_calibrated_draws_from_the_chooser_at_the_error_models_strength(
    kosteniuk_casebase, judge, sound
):
    from casebase.format import Casebase
    from engine.strength.calibration import calibrate
    from engine.style.loader import load_model
    from engine.style.personal import choose_model

    chooser, path = sound
    casebase = Casebase.load(kosteniuk_casebase, tell=False)
    calibration = calibrate(casebase, load_model(choose_model(casebase).path))
    strength = chooser.strength_of(calibration.model)
    assert strength is not None and strength != pytest.approx(1.0, abs=0.05)
    move, record, strings = _play(kosteniuk_casebase, judge, str(path), "calibrated")
    choice = record["guided"]["choice"]
    assert record["reason"] == "calibrated" and choice["chooser"]["depths"] == list(SHALLOW_DEPTHS)
    # the record keeps 4 decimals
    assert choice["chooser"]["strength"] == pytest.approx(strength, abs=1e-4)
    moves, direct = _chooser_chances(record, chooser, strength)
    assert move in moves
    assert [m["share"] for m in choice["chances"]["moves"]] == pytest.approx(
        sorted(direct.tolist(), reverse=True), abs=2e-3
    )
    board = chess.Board()
    board.push_san("e4")
    assert any(
        s.startswith(
            f"played {board.san(move)}, drawn by the chooser at strength {strength:.2f} with depths"
            " 2 and 6 ("
        )
        for s in strings
    )


def test_a_chooser_without_reference_positions_does_not_draw_and_says_so(
    kosteniuk_casebase, judge, contrary
):
    _, path = contrary
    _, record, strings = _play(kosteniuk_casebase, judge, str(path), "calibrated")
    assert record["reason"] == "calibrated" and record["guided"]["choice"]["chooser"] is None
    assert any(
        s.startswith(f"Chooser {path}: no reference positions to set its strength on")
        for s in strings
    )
    assert any(" drawn by the error model (" in s for s in strings)


def test_chooser_off_plays_the_error_models_likeliest_move(kosteniuk_casebase, judge):
    move, record, strings = _play(kosteniuk_casebase, judge, "off")
    choice = record["guided"]["choice"]
    assert record["reason"] == "likely" and choice["chooser"] is None
    # a sound move, as today
    assert move.uci() == choice["chances"]["moves"][0]["uci"] and move.uci() in SCORES
    assert any(" the likeliest by the error model (" in s for s in strings)
    assert shape(record)["played"]["chooser"] is False
    assert not any("the chooser" in s for s in strings)  # off is no file


def test_a_damaged_chooser_is_told_and_the_error_model_plays(kosteniuk_casebase, judge, tmp_path):
    damaged = tmp_path / "chooser.npz"
    damaged.write_bytes(b"PK\x03\x04 not a whole archive")
    move, record, strings = _play(kosteniuk_casebase, judge, str(damaged))
    assert any(
        s.startswith(f"cannot load the chooser: {damaged}: not a chooser file, or a damaged one")
        for s in strings
    )
    assert record["guided"]["choice"]["chooser"] is None and move.uci() in SCORES


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="needs Stockfish")
def test_the_fidelity_bench_plays_the_chooser_beside_the_error_model(heldout, contrary, tmp_path):
    casebase, games = heldout
    _, path = contrary

    def run(chooser: Path, out: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "fidelity",
                "run",
                "--casebase",
                str(casebase),
                "--heldout",
                str(games),
                "--out",
                str(out),
                "--modes",
                "judged-likely",
                "judged-chooser",
                "--judge",
                STOCKFISH,
                "--judge-depth",
                "4",
                "--positions",
                "6",
                "--workers",
                "1",
                "--chooser",
                str(chooser),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )

    done = run(path, tmp_path / "f.json")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "f.json").read_text())
    assert "Selection likely by the chooser" in data["results"]["judged-chooser"]["engine"]
    differ = sum(
        p["moves"]["judged-chooser"] != p["moves"]["judged-likely"] for p in data["positions"]
    )
    assert differ >= 4  # the contrary chooser plays what loses, the error model what does not
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(b"not a chooser")
    refused = run(damaged, tmp_path / "g.json")
    assert (
        refused.returncode != 0
        and "not a chooser file" in refused.stderr
        and not (tmp_path / "g.json").exists()
    )


def test_the_cost_bench_times_moves_with_and_without_the_chooser(
    kosteniuk_casebase, judge, contrary, capsys, monkeypatch
):
    import bench.chooser
    from engine.search.limits import SearchLimits

    _, path = contrary
    # a depth instead of a clock: whether the shallow searches fit in a move's time is the bench's
    # finding, not a test's
    monkeypatch.setattr(bench.chooser, "CONTROLS", {"depth 4": SearchLimits(depth=4)})
    assert (
        bench.chooser.main(
            [
                "--judge",
                judge,
                "--chooser",
                str(path),
                "--casebase",
                str(kosteniuk_casebase),
                "--positions",
                "2",
            ]
        )
        == 0
    )
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 and rows[1].startswith("| depth 4 | ") and rows[1].endswith(" | 2 of 2 |")
    assert (
        bench.chooser.main(
            ["--judge", judge, "--chooser", "off", "--casebase", str(kosteniuk_casebase)]
        )
        == 1
    )
    assert "names no chooser" in capsys.readouterr().err


def test_the_chooser_plays_with_a_judge_alone_and_at_a_rating_only_where_it_draws(
    kosteniuk_casebase, judge, contrary, sound
):
    from casebase.format import Casebase
    from engine.agents.factory import Loader, make_agent

    _, path = contrary
    casebase, loader = Casebase.load(kosteniuk_casebase, tell=False), Loader()
    likely = {"Mode": "guided", "Judge": judge, "Selection": "likely", "Chooser": str(path)}
    try:

        def chooser(**values: object) -> Chooser | None:
            return make_agent(likely | values, casebase, loader).agent.chooser  # type: ignore[attr-defined]

        assert chooser() is not None
        assert (
            chooser(Chooser="off") is None
            and chooser(Judge="") is None
            and chooser(Selection="argmax") is None
        )
        # no reference positions: the error model draws
        assert chooser(Selection="calibrated") is None
        assert chooser(Chooser="") is None  # a GUI's cleared field is off, not a file named ""
        told: list[str] = []
        loader.tell = told.append  # type: ignore[method-assign]
        # a rating is the error model's, and that is said
        assert chooser(UCI_LimitStrength=True) is None
        assert any(line.startswith("Chooser: not played at a rating") for line in told)
        drawn = {"Selection": "calibrated", "Chooser": str(sound[1])}
        told.clear()
        assert chooser(**drawn) is not None and chooser(**drawn, Judge="") is None
        drawing = make_agent(likely | drawn, casebase, loader).agent
        strength = drawing.chooser_strength()  # type: ignore[attr-defined]
        assert any(
            line.startswith("strength: ")
            and line.endswith(
                f"; the chooser draws at strength {strength:.2f}, to"
                " lose as much (search.md §9); UCI_LimitStrength with"
                " UCI_Elo sets another"
            )
            for line in told
        )
        told.clear()
        # drawn at the rating's strength
        assert chooser(**drawn, UCI_LimitStrength=True) is not None
        assert any(
            line.startswith("strength limited to ") and "; the chooser draws at strength " in line
            for line in told
        )
    finally:
        loader.close()
