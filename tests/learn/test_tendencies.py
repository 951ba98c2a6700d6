"""Each expert's tendencies (issue #40): their fit on choices simulated from a known chooser and
deviation, their words, their file's checks, and "who played these?" on simulated records."""

from __future__ import annotations

import json

import chess
import numpy as np
import pytest

import engine.strength.tendencies
from casebase.builder import build
from casebase.games import GameFilter
from casebase.phases import Phase
from engine.strength.chooser import Chooser
from engine.strength.chooser_features import FEATURES
from engine.strength.tendencies import (
    MOVE_COLUMNS,
    MOVE_FEATURES,
    Tendencies,
    Tendency,
    TendencyError,
    describe_expert,
)
from learn.chooser.__main__ import main as chooser_main
from learn.chooser.records import Record
from learn.chooser.tendencies import chunks, fit_tendencies, fit_tendency, identification, rank

MOVE = {name: i for i, name in enumerate(MOVE_FEATURES)}
#: The shared chooser the choices are simulated from: a pull to the prior and away from the loss.
SHARED = Chooser(
    FEATURES,
    np.array(
        [1.0 if name == "log prior" else -2.0 if name == "loss" else 0.0 for name in FEATURES]
    ),
)


def deviation(**odds: float) -> np.ndarray:
    """Deviations (log-odds) by feature name (``piece_knight`` for ``piece knight``)."""
    d = np.zeros(len(MOVE_FEATURES))
    for name, value in odds.items():
        d[MOVE[name.replace("_", " ")]] = np.log(value)
    return d


def simulated(d: np.ndarray, positions: int, seed: int, games: int = 1) -> list[Record]:
    """Positions of random candidates (random prior and loss, each move feature present at random,
    distance 1..7), the move played drawn from the shared chooser plus deviations ``d``; the
    positions spread over ``games`` games by their keys."""
    rng = np.random.default_rng(seed)
    made = []
    for i in range(positions):
        n = int(rng.integers(3, 9))
        x = np.zeros((n, len(FEATURES)))
        x[:, FEATURES.index("log prior")] = np.log(rng.dirichlet(np.ones(n)))
        x[:, FEATURES.index("loss")] = rng.exponential(0.3, n)
        x[:, MOVE_COLUMNS] = rng.random((n, len(MOVE_FEATURES))) < 0.3
        x[:, FEATURES.index("distance")] = rng.integers(1, 8, n)
        p = Chooser(
            FEATURES, SHARED.weights + np.bincount(MOVE_COLUMNS, d, len(FEATURES))
        ).probabilities(x)
        made.append(
            Record(
                f"sim/{i % games}/{i}",
                chess.Board(),
                [chess.Move.null()] * n,
                [0] * n,
                [1.0] * n,
                x,
                int(rng.choice(n, p=p)),
                Phase.MIDDLEGAME,
            )
        )
    return made


def test_the_fit_recovers_a_known_deviation_within_its_interval():
    truth = deviation(recapture=2.0, check=0.5, distance=1.15)
    tendency = fit_tendency(SHARED, simulated(truth, 4000, seed=1), prior_sd=1.0)
    assert tendency.positions == 4000
    assert np.abs(tendency.deviations - truth).max() < 0.25
    low, high = tendency.interval()
    # 95 % intervals: nearly all cover the truth
    assert ((low <= truth) & (truth <= high)).mean() >= 0.85
    assert low[MOVE["recapture"]] > 0 and high[MOVE["check"]] < 0 and low[MOVE["distance"]] > 0


def test_few_positions_stay_near_the_shared_chooser():
    truth = deviation(recapture=3.0, check=0.33)
    few = fit_tendency(SHARED, simulated(truth, 8, seed=2), prior_sd=0.3)
    many = fit_tendency(SHARED, simulated(truth, 3000, seed=2), prior_sd=0.3)
    assert np.abs(few.deviations).max() < 0.25 < many.deviations[MOVE["recapture"]]
    # about the prior's own deviation (0.3): the few positions say little
    assert np.median(few.errors) > 0.25
    assert few.clear() == [] and MOVE["recapture"] in many.clear()


def tendency(**odds: tuple[float, float]) -> Tendency:
    """A tendency of given odds and standard errors (in log-odds) by feature name."""
    d, errors = np.zeros(len(MOVE_FEATURES)), np.full(len(MOVE_FEATURES), 0.5)
    for name, (value, error) in odds.items():
        d[MOVE[name.replace("_", " ")]], errors[MOVE[name.replace("_", " ")]] = np.log(value), error
    return Tendency(400, d, errors)


def test_the_words_say_more_and_less_and_only_the_clear_ones():
    words = tendency(
        recapture=(1.4, 0.1), check=(0.5, 0.1), castling=(1.3, 0.3), distance=(1.2, 0.05)
    ).words()
    assert words == [
        "gives check less often than the average master (odds ×0.50, 0.41..0.61)",
        "recaptures more often than the average master (odds ×1.40, 1.15..1.70)",
        "moves further than the average master (odds ×1.20 a square, 1.09..1.32)",
    ]
    assert tendency(castling=(1.3, 0.3)).describe() == "no clear tendency (from 400 positions)"


def test_the_file_is_read_back_and_a_damaged_or_foreign_one_refused(tmp_path):
    path = tmp_path / "tendencies.json"
    Tendencies({"miles-2500": tendency(check=(0.5, 0.1))}, {"prior_sd": 0.3}).save(path)
    back = Tendencies.load(path)
    assert back.meta == {"prior_sd": 0.3} and np.allclose(
        back.experts["miles-2500"].deviations, deviation(check=0.5)
    )
    assert describe_expert(tmp_path / "miles-2500.npz", path).startswith("gives check less often")
    assert (
        describe_expert("carlsen-2800", path) == "none fitted (python -m learn.chooser tendencies)"
    )
    document = json.loads(path.read_text())
    cases = {
        "cut off": path.read_text()[:100],
        "foreign": json.dumps({**document, "format": "other"}),
        "other features": json.dumps({**document, "features": document["features"][:-1]}),
        "not finite": path.read_text().replace(
            str(document["experts"]["miles-2500"]["errors"][0]), "NaN", 1
        ),
        "too short": json.dumps(
            {
                **document,
                "experts": {"miles-2500": {"positions": 1, "deviations": [0.0], "errors": [1.0]}},
            }
        ),
    }
    for what, text in cases.items():
        path.write_text(text)
        with pytest.raises(TendencyError, match=str(path)):
            Tendencies.load(path)
        assert describe_expert("miles-2500", path).startswith("none (tendencies.json: "), what
    with pytest.raises(TendencyError, match="no such"):
        Tendencies.load(tmp_path / "missing.json")


EXPERTS = {
    "checker-2500": deviation(check=2.5),
    "capturer-2500": deviation(capture=2.5, retreat=0.5),
    "plain-2500": deviation(),
}


def test_who_ranks_the_simulating_expert_first():
    known = Tendencies({name: Tendency(0, d, np.zeros(len(d))) for name, d in EXPERTS.items()})
    for seed, (name, d) in enumerate(EXPERTS.items()):
        ranking = rank(SHARED, known, simulated(d, 300, seed=10 + seed))
        assert ranking.experts[0][0] == name and ranking.positions == 300
        assert f"{name} is " in ranking.report().splitlines()[-1]


def test_identification_counts_the_chunks_that_name_the_true_expert():
    records = {
        name: simulated(d, 400, seed=20 + i, games=40)
        for i, (name, d) in enumerate(EXPERTS.items())
    }
    fitted = fit_tendencies(
        SHARED,
        {name: simulated(d, 2000, seed=30 + i) for i, (name, d) in enumerate(EXPERTS.items())},
    )
    text = identification(SHARED, fitted, records, games=20)
    assert "| checker-2500 | 2 | 2/2 | 1 |" in text and "ranked first in 6 of 6 chunks" in text
    row = (
        next(line for line in text.splitlines() if line.startswith("| capturer-2500 |"))
        .strip("| ")
        .split(" | ")
    )
    # the capturer's own tendencies explain its moves better than the shared chooser
    assert float(row[5]) > float(row[-1])


def test_chunks_split_by_game_and_a_short_last_one_joins_the_one_before():
    positions = simulated(deviation(), 45, seed=3, games=45)
    assert [len(c) for c in chunks(positions, 20)] == [20, 25]
    assert [len(c) for c in chunks(positions, 13)] == [13, 13, 19]
    # half a chunk stays on its own
    assert [len(c) for c in chunks(positions, 10)] == [10, 10, 10, 10, 5]
    assert len(chunks(positions, 100)) == 1


def test_the_commands_fit_and_rank(tmp_path, capsys):
    lines = [json.dumps({"journal": "cbr-chess-chooser-data"})]
    board = chess.Board()
    # each position: three openings, the prior's first played
    for i, move in enumerate(("e2e4", "d2d4", "e2e4")):
        lines.append(
            json.dumps(
                {
                    "key": f"sim/{i}/0",
                    "fen": board.fen(),
                    "last": None,
                    "moves": ["e2e4", "d2d4", "g1f3"],
                    "scores": [30, 25, 20],
                    "prior": [0.5, 0.3, 0.2],
                    "votes": None,
                    "played": move,
                }
            )
        )
    records = tmp_path / "records.jsonl"
    records.write_text("\n".join(lines) + "\n")
    chooser, out = tmp_path / "chooser.npz", tmp_path / "tendencies.json"
    SHARED.save(chooser)
    assert (
        chooser_main(
            [
                "tendencies",
                "--chooser",
                str(chooser),
                "--records",
                f"a-2500={records}",
                f"b-2500={records}",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "a-2500 (3 positions): no clear tendency" in capsys.readouterr().out
    assert (
        chooser_main(["who", str(records), "--chooser", str(chooser), "--tendencies", str(out)])
        == 0
    )
    assert "these 3 moves" in capsys.readouterr().out
    # another shared chooser than they were fitted over
    Chooser(FEATURES, SHARED.weights * 2).save(chooser)
    assert (
        chooser_main(["who", str(records), "--chooser", str(chooser), "--tendencies", str(out)])
        == 1
    )
    assert "fitted over another chooser" in capsys.readouterr().err
    out.write_text("{")
    assert (
        chooser_main(["who", str(records), "--chooser", str(chooser), "--tendencies", str(out)])
        == 1
    )
    assert "not a tendencies file" in capsys.readouterr().err


def test_cbr_chess_info_adds_the_tendencies_line(tmp_path, capsys, monkeypatch):
    import uci_main

    pgn = tmp_path / "games.pgn"
    pgn.write_text(
        '[White "Miles, Anthony"]\n[Black "Someone"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n'
    )
    casebase = tmp_path / "miles-2500.npz"
    build([pgn], GameFilter("Anthony Miles"), workers=1).save(casebase)
    tendencies = tmp_path / "t.json"
    Tendencies({"miles-2500": tendency(check=(0.5, 0.1))}).save(tendencies)
    monkeypatch.setattr(engine.strength.tendencies, "shipped_tendencies", lambda: tendencies)
    assert uci_main.main(["info", str(casebase)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "expert:        Anthony Miles"
    assert (
        "tendencies:    gives check less often than the average master (odds ×0.50, 0.41..0.61)"
        in lines
    )
    assert uci_main.main(["info", str(tmp_path / "nobody.npz")]) == 1
    assert "cbr-chess info: error:" in capsys.readouterr().err
