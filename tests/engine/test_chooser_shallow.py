"""The chooser's shallow searches (issue #40; search.md, "The chooser"): they end at ``stop``;
without them their features are 0 and the record says why, in words too; one candidate is chosen
without them."""

from __future__ import annotations

import threading
from pathlib import Path

import chess
import pytest
from chooser_helpers import (  # noqa: F401 (the fixtures judge and contrary, used by name)
    OTHERS,
    SCORES,
    contrary_chooser,
    judge_command,
)
from judge_helpers import STOCKFISH

from engine.agents.choosing import chooser_chances
from engine.outside.judge import Judge, JudgeSettings
from engine.outside.shallow import Unscored, shallow_scores
from engine.search.result import RootScore, SearchResult
from engine.strength.chooser_features import features
from engine.style.prior import Proposal

pytestmark = pytest.mark.slow  # plays through engine processes


def _after_e4() -> tuple[chess.Board, list[chess.Move]]:
    board = chess.Board()
    board.push_san("e4")
    return board, [chess.Move.from_uci(m) for m in ("c7c5", "e7e5", "g8f6")]


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="needs Stockfish")
def test_the_shallow_searches_end_at_stop():
    board, moves = _after_e4()
    judge = Judge(JudgeSettings(STOCKFISH))
    try:
        judge.start()
        found = shallow_scores(judge, board, moves, (2, 6), None)
        assert list(found) == [2, 6] and all(len(scores) == 3 for scores in found.values())
        stop = threading.Event()
        threading.Timer(0.2, stop.set).start()
        with pytest.raises(Unscored, match="stop came"):
            # depth 60 ends at stop (else its time)
            shallow_scores(judge, board, moves, (2, 60), 5.0, stop)
        with pytest.raises(Unscored, match="time ran out before depth 60"):
            shallow_scores(judge, board, moves, (60,), 0.2)
        # the judge answers on
        assert shallow_scores(judge, board, moves, (2,), None) == {2: found[2]}
    finally:
        judge.close()


def test_without_the_shallow_searches_their_features_are_0_and_the_record_says_why(contrary, judge):
    chooser, _ = contrary
    board, moves = _after_e4()
    scores = [SCORES.get(m.uci(), OTHERS) for m in moves]
    proposal = Proposal(prior=dict(zip(moves, (0.5, 0.3, 0.2), strict=True)))
    result = SearchResult(
        move=moves[0],
        score=10,
        depth=4,
        seldepth=4,
        nodes=1,
        seconds=0.0,
        pv=[moves[0]],
        scores={m: RootScore(s, True) for m, s in zip(moves, scores, strict=True)},
        tolerance=25,
    )
    stop = threading.Event()
    stop.set()
    scripted = Judge(JudgeSettings(judge))
    try:
        chances, said, notes = chooser_chances(
            chooser, scripted, board, proposal, result, None, stop
        )
    finally:
        scripted.close()
    matrix, _ = features(board, board.peek(), moves, scores, [0.5, 0.3, 0.2], [0.0] * 3, None)
    assert said.depths == [] and said.missing == "stop came" and not notes
    assert list(chances.values()) == pytest.approx(chooser.probabilities(matrix).tolist())


def test_the_words_say_the_chooser_chose_and_without_what():
    from engine.agents.record import (
        ByChooser,
        Choice,
        Guided,
        Named,
        Proposal,
        Record,
        Share,
        Verdict,
    )
    from engine.style.prior import PriorSource
    from engine.uci.explain import explain

    e4, d4 = Share("e2e4", "e4", 0.7), Share("d2d4", "d4", 0.3)
    for reason, chooser, words in (
        (
            "likely",
            ByChooser([2, 6]),
            "the likeliest by the chooser with depths 2 and 6 (70% of 2 moves",
        ),
        (
            "likely",
            ByChooser([], "stop came"),
            "the likeliest by the chooser without its shallow depths, stop came, (70% of 2 moves",
        ),
        ("likely", None, "the likeliest by the error model (70% of 2 moves"),
        (
            "calibrated",
            ByChooser([2, 6], None, 1.234),
            "drawn by the chooser at strength 1.23 with depths 2 and 6 (70% of 2 moves",
        ),
        ("calibrated", None, "drawn by the error model (70% of 2 moves"),
    ):
        choice = Choice(
            reason,
            e4,
            e4,
            20,
            True,
            20,
            chances=[e4, d4],
            loss=0.0,
            expert="X",
            phase="opening",
            often=1.0,
            calibration="X's profile",
            chooser=chooser,
        )
        guided = Guided(
            Proposal(PriorSource.MODEL, [e4, d4], "8x96", [e4, d4]),
            Verdict("sf", 10, 1, 0.1, Named("e2e4", "e4"), 20, 2, 2, 2, 25),
            choice,
        )
        assert any(
            f"played e4, {words} judge sf scored)" in line for line in explain(Record([], guided))
        )


def test_one_candidate_is_chosen_without_the_shallow_searches(contrary):
    chooser, _ = contrary
    board, moves = _after_e4()
    result = SearchResult(
        move=moves[0],
        score=10,
        depth=4,
        seldepth=4,
        nodes=1,
        seconds=0.0,
        pv=[moves[0]],
        scores={moves[0]: RootScore(10, True)},
        tolerance=25,
    )
    judge = Judge(JudgeSettings("/nonexistent/judge"))  # never started: it is not asked
    chances, said, notes = chooser_chances(
        chooser, judge, board, Proposal(prior={moves[0]: 1.0}), result, 1.0, None
    )
    assert chances == {moves[0]: 1.0} and said.depths == [] and said.missing and not notes
