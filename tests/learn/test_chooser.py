"""The chooser (issue #40): its fit on simulated choices, its file's checks, and its measure beside
the engine's own ``Selection likely`` (its features by hand: test_chooser_features.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
from engine_helpers import guided_agent
from uci_helpers import ROOT

from casebase.format import Casebase
from casebase.phases import Phase
from engine.agents.defaults import Selection
from engine.cbr.configurations import WEIGHT_CONFIGS
from engine.search.result import RootScore, SearchResult
from engine.strength.calibration import calibrate, choose, judged_chances
from engine.strength.chooser import Chooser, ChooserError
from engine.strength.chooser_features import FEATURES
from engine.style.loader import load_model
from engine.style.personal import choose_model
from engine.style.prior import Proposal
from learn.chooser.convert import convert, write_records
from learn.chooser.evaluate import evaluate, likely_chances
from learn.chooser.fit import fit, log_likelihood, stack
from learn.chooser.records import Record, RecordError, read_records

#: The simulated features' scales and offsets, far from the standard ones the fit works on inside.
SCALES = np.geomspace(0.05, 20, len(FEATURES))
OFFSETS = np.linspace(-3, 3, len(FEATURES))


def simulated(weights: np.ndarray, positions: int, seed: int) -> list[Record]:
    """Positions of random candidates whose played move is drawn from the chooser of ``weights``."""
    rng = np.random.default_rng(seed)
    made = []
    for i in range(positions):
        n = int(rng.integers(2, 9))
        matrix = OFFSETS + SCALES * rng.normal(size=(n, len(FEATURES)))
        p = Chooser(FEATURES, weights).probabilities(matrix)
        made.append(
            Record(
                f"sim/{i}/30",
                chess.Board(),
                [chess.Move.null()] * n,
                [0] * n,
                [1.0] * n,
                matrix,
                int(rng.choice(n, p=p)),
                Phase.MIDDLEGAME,
            )
        )
    return made


def test_the_fit_recovers_the_weights_it_was_simulated_from():
    truth = np.random.default_rng(7).normal(scale=0.7, size=len(FEATURES)) / SCALES
    positions = simulated(truth, 4000, seed=11)
    positions[0] = Record(
        "sim/x/30",
        chess.Board(),
        [chess.Move.null()] * 2,
        [0, 0],
        [1.0, 1.0],
        # the played move no candidate
        np.zeros((2, len(FEATURES))),
        -1,
        positions[0].phase,
    )
    fitted = fit(positions, l2=1e-6)
    assert (fitted.positions, fitted.left_out) == (3999, 1)
    # on the scale of one deviation
    assert np.abs((fitted.chooser.weights - truth) * SCALES).max() < 0.2
    # the penalty pulls toward 0
    assert (
        np.abs(fit(positions, l2=10.0).chooser.weights * SCALES).sum()
        < 0.5 * np.abs(truth * SCALES).sum()
    )


def test_the_gradient_is_the_finite_difference():
    data = stack(simulated(np.linspace(-1, 1, len(FEATURES)) / SCALES, 30, seed=3))
    w = np.random.default_rng(5).normal(size=len(FEATURES)) / SCALES
    _, gradient = log_likelihood(w, data)
    h = 1e-6
    numeric = [
        (log_likelihood(w + h * e, data)[0] - log_likelihood(w - h * e, data)[0]) / (2 * h)
        for e in np.eye(len(FEATURES))
    ]
    assert np.allclose(gradient, numeric, rtol=1e-5, atol=1e-6)


def test_a_chooser_file_reads_back_and_a_bad_one_is_refused(tmp_path):
    chooser = Chooser(FEATURES, np.arange(len(FEATURES), dtype=float), meta={"l2": 0.1})
    chooser.save(tmp_path / "c.npz")
    again = Chooser.load(tmp_path / "c.npz")
    assert np.array_equal(again.weights, chooser.weights) and again.meta == {"l2": 0.1}

    def refused(name: str, **members: np.ndarray) -> str:
        path = tmp_path / name
        good: dict[str, Any] = {
            "format": np.array("cbr-chess-chooser"),
            "version": np.array(1),
            "names": np.array(FEATURES),
            "weights": np.zeros(len(FEATURES)),
            "meta": np.array("{}"),
        }
        np.savez(path, **(good | members))
        with pytest.raises(ChooserError) as caught:
            Chooser.load(path)
        return str(caught.value)

    assert "not a cbr-chess-chooser file" in refused(
        "foreign.npz", format=np.array("cbr-chess-model")
    )
    assert "version 2" in refused("version.npz", version=np.array(2))
    assert "missing: vote" in refused(
        "features.npz", names=np.array([n for n in FEATURES if n != "vote"])
    )
    assert "another order" in refused("order.npz", names=np.array(FEATURES[::-1]))
    assert "not all finite" in refused("nan.npz", weights=np.full(len(FEATURES), np.nan))
    assert "damaged" in refused("meta.npz", meta=np.array("{not json"))
    (tmp_path / "text.npz").write_text("weights: 1 2 3\n")  # numpy would take it for a pickle
    with pytest.raises(
        ChooserError,
        match="text.npz: not a chooser file, or a damaged one \\(not an .npz archive\\)",
    ):
        Chooser.load(tmp_path / "text.npz")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 this is no zip")
    for path in (tmp_path / "junk.npz", tmp_path / "none.npz"):
        with pytest.raises(ChooserError, match=str(path.name)):
            Chooser.load(path)


@pytest.fixture(scope="module")
def kosteniuk_records(tmp_path_factory) -> Path:
    """Kosteniuk's play-time record made into the chooser's records (no judge: no shallow
    depths)."""
    path = tmp_path_factory.mktemp("records") / "kosteniuk.jsonl"
    name = "kosteniuk-2200"
    write_records(
        path,
        convert(
            ROOT / f"data/profiles/{name}.heldout.play.jsonl",
            ROOT / f"data/experts/{name}.pgn",
            progress=False,
        ),
    )
    return path


def test_records_read_back_and_a_broken_line_is_named(kosteniuk_records, tmp_path):
    header, positions = read_records(kosteniuk_records)
    assert header["player"] == "Alexandra Kosteniuk" and len(positions) == 400
    first = positions[0]
    assert (
        first.board.fen().startswith("1rbq1rk1/1p2bppp/p1n1pn2/2p1p3/P1B2P2")
        and first.moves[first.played].uci() == "f4e5"
    )
    lines = kosteniuk_records.read_text().split("\n")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        "\n".join([lines[0], lines[1].replace('"scores": [', '"scores": [1, '), *lines[2:]])
    )
    # as many as the engine proposed there (the record's network)
    candidates = len(json.loads(lines[1])["moves"])
    with pytest.raises(
        RecordError, match=rf"broken.jsonl:2: .*{candidates + 1} scores for {candidates} candidates"
    ):
        read_records(broken)
    broken.write_text("\n".join([*lines[:5], lines[5][:40]]))  # a killed writer's last line
    assert len(read_records(broken)[1]) == 4
    # cut off, then resumed (Journal.add)
    broken.write_text("\n".join([*lines[:3], lines[3][:40], *lines[4:6]]))
    assert [p.key for p in read_records(broken)[1]] == [
        json.loads(line)["key"] for line in (*lines[1:3], *lines[4:6])
    ]


def test_likely_is_the_engines_own_argmax(kosteniuk_records, profiled):
    casebase = Casebase.load(profiled[0])  # built here: a clone has no casebases/
    model = load_model(choose_model(casebase).path)
    calibration = calibrate(casebase, model)
    agent = guided_agent(
        casebase, WEIGHT_CONFIGS["balanced"], 1, selection=Selection.LIKELY, model=model
    )
    # the likelihood fit's
    assert agent.calibration is not None and agent.calibration.model != calibration.model
    positions = read_records(kosteniuk_records)[1][:60]
    zero = Chooser(FEATURES, np.zeros(len(FEATURES)))
    measured = evaluate(zero, positions, calibration, "kosteniuk-2200")
    for i, position in enumerate(positions):
        proposal = Proposal(prior=dict(zip(position.moves, position.prior)))
        result = SearchResult(
            move=position.moves[0],
            score=max(position.scores),
            depth=10,
            seldepth=10,
            nodes=0,
            seconds=0.0,
            pv=[],
            scores={m: RootScore(s, True) for m, s in zip(position.moves, position.scores)},
        )
        engine = choose(judged_chances(agent.calibration, proposal, result), None)
        assert position.moves[int(np.argmax(likely_chances(calibration, position)))] == engine
        assert measured.likely[i] == (
            engine == (position.moves[position.played] if position.played >= 0 else None)
        )
    # the chooser of weights 0 gives every candidate alike: its argmax is the first
    assert measured.chooser.tolist() == [p.played == 0 for p in positions]
    candidate = [p.played >= 0 for p in positions]
    assert np.allclose(
        measured.chooser_log[candidate], [-np.log(len(p.moves)) for p in positions if p.played >= 0]
    )


def test_the_fit_command_prints_the_weights_and_evaluate_the_table(
    kosteniuk_records, tmp_path, capsys
):
    from learn.chooser.__main__ import main

    assert main(["fit", str(kosteniuk_records), "--out", str(tmp_path / "c.npz")]) == 0
    out = capsys.readouterr().out
    assert "fitted on" in out and "log prior" in out
    assert json.loads(json.dumps(Chooser.load(tmp_path / "c.npz").meta))["sources"] == [
        "kosteniuk.jsonl"
    ]
    (tmp_path / "bad.npz").write_bytes(b"nothing")
    assert (
        main(
            [
                "evaluate",
                str(tmp_path / "bad.npz"),
                "--records",
                f"kosteniuk-2200={kosteniuk_records}",
            ]
        )
        == 1
    )
    assert "not a chooser file" in capsys.readouterr().err


def test_the_reference_command_gives_a_chooser_its_positions_and_strength_reads_the_draws(
    kosteniuk_records, profiled, tmp_path, capsys
):
    from learn.chooser.__main__ import main

    assert (
        main(["fit", str(kosteniuk_records), "--out", str(tmp_path / "c.npz"), "--reference", "30"])
        == 0
    )
    fitted = Chooser.load(tmp_path / "c.npz")
    assert fitted.reference is not None and len(fitted.reference.loss) == 30
    bare = tmp_path / "bare.npz"
    Chooser(FEATURES, fitted.weights).save(bare)
    folder = profiled[0].parent
    assert (
        main(
            [
                "strength",
                str(bare),
                "--records",
                f"kosteniuk-2200={kosteniuk_records}",
                "--casebase-folder",
                str(folder),
            ]
        )
        == 1
    )
    assert "no reference positions" in capsys.readouterr().err
    assert main(["reference", str(bare), str(kosteniuk_records), "--positions", "50"]) == 0
    assert "50 reference positions; the chooser as fitted loses" in capsys.readouterr().out
    again = Chooser.load(bare)
    assert again.reference is not None and len(again.reference.loss) == 50
    positions = read_records(kosteniuk_records)[1]
    assert np.allclose(
        again.reference.features[0, : len(positions[0].moves)], positions[0].matrix, atol=1e-5
    )
    assert (
        main(
            [
                "strength",
                str(bare),
                "--records",
                f"kosteniuk-2200={kosteniuk_records}",
                "--casebase-folder",
                str(folder),
            ]
        )
        == 0
    )
    row = next(
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| kosteniuk-2200 |")
    )
    calibration = calibrate(
        Casebase.load(profiled[0]), load_model(choose_model(Casebase.load(profiled[0])).path)
    )
    assert row.split(" | ")[2] == f"{again.strength_of(calibration.model):.2f}"


def test_convert_passes_over_a_cut_off_line_and_refuses_another_file(tmp_path):
    play = ROOT / "data/profiles/kosteniuk-2200.heldout.play.jsonl"
    lines = play.read_text().split("\n")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join([*lines[:3], lines[3][:30]]))
    records = convert(cut, ROOT / "data/experts/kosteniuk-2200.pgn", progress=False)
    assert [r.get("key") for r in records[1:]] == [json.loads(line)["key"] for line in lines[1:3]]
    cut.write_text("\n".join([lines[0], lines[1][:30], *lines[2:4]]))  # cut off, then resumed
    records = convert(cut, ROOT / "data/experts/kosteniuk-2200.pgn", progress=False)
    assert [r.get("key") for r in records[1:]] == [json.loads(line)["key"] for line in lines[2:4]]
    cut.write_text("\n".join([lines[0], "garbage", *lines[2:]]))
    with pytest.raises(RecordError, match="cut.jsonl:2"):
        convert(cut, ROOT / "data/experts/kosteniuk-2200.pgn", progress=False)
    with pytest.raises(RecordError, match="another file"):
        convert(play, ROOT / "data/experts/carlsen-2800.pgn", progress=False)


def test_convert_with_a_judge_scores_each_candidate_at_the_shallow_depths(tmp_path):
    from judge_helpers import scripted

    play = ROOT / "data/profiles/kosteniuk-2200.heldout.play.jsonl"
    lines = play.read_text().split("\n")
    cut = tmp_path / "two.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n")
    records = convert(
        cut, ROOT / "data/experts/kosteniuk-2200.pgn", scripted(tmp_path), progress=False
    )
    assert records[0]["shallow"] == [2, 6]
    scored = [r for r in records[1:] if "moves" in r]
    assert scored and all(
        [len(r["shallow"][d]) for d in ("2", "6")] == [len(r["moves"])] * 2 for r in scored
    )


def test_a_journal_passes_over_a_line_cut_off_anywhere_and_names_a_damaged_one(tmp_path):
    from common.journal import Journal, JournalError

    path = tmp_path / "j.jsonl"
    header = {"journal": "test", "seed": 1}
    path.write_text(
        '{"journal": "test", "seed": 1}\n{"key": "a", "moves": []}\n{"key": "b", "mo\n{"key":'
        ' "c", "moves": []}\n'
    )
    # cut off, then resumed: b is judged again
    assert set(Journal(path, dict(header)).entries) == {"a", "c"}
    path.write_text('{"journal": "test", "seed": 1}\n{"key": "a", "moves": []}\ngarbage\n')
    with pytest.raises(JournalError, match="j.jsonl:3: not a JSON line"):
        Journal(path, dict(header))
