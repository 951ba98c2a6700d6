"""An outside UCI engine as guided mode's judge (search.md §7): Debian's Stockfish through
python-chess's client, and engines that fail in every way the issue names."""

from __future__ import annotations

import time
from pathlib import Path

import chess
import chess.engine
import pytest
from engine_helpers import guided_agent
from judge_helpers import STOCKFISH, fake_engine, needs_stockfish, scripted_judge
from uci_helpers import popen, stop_latency

from engine.cbr.weights import Weights
from engine.outside.judge import UNBOUNDED_PROPOSAL_DEPTH, Judge, JudgeError, JudgeSettings
from engine.search.limits import Budget, SearchLimits
from engine.search.scores import MATE, from_pov_score, mate_moves
from engine.uci.explain import explain
from engine.uci.notes import note_text

# games and searches judged through outside engines' processes (Stockfish)
pytestmark = pytest.mark.slow


def test_mate_scores_from_the_judge_keep_their_distance():
    assert from_pov_score(chess.engine.Cp(-35)) == -35
    for moves in (1, 3, -2):
        assert mate_moves(from_pov_score(chess.engine.Mate(moves))) == moves
    assert from_pov_score(chess.engine.Mate(1)) > from_pov_score(chess.engine.Mate(3)) > 1000
    assert from_pov_score(chess.engine.Mate(-0)) == -MATE


# -- the judge itself ----------------------------------------------------------------


@needs_stockfish
def test_the_judge_scores_every_proposal_in_one_search_with_its_best_move():
    # 1.e4 e5 2.Nf3 Qh4??: the knight takes the queen
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Qh4"):
        board.push_san(san)
    proposals = [board.parse_san("a3"), board.parse_san("Nxh4"), board.parse_san("h3")]
    judge = Judge(JudgeSettings(STOCKFISH))
    try:
        result = judge.search(board, proposals, Budget(), depth=10, tolerance=10)
    finally:
        judge.close()
    assert set(proposals) <= set(result.scores) and result.move in result.scores
    assert result.move == board.parse_san("Nxh4")
    assert result.score == max(s.score for s in result.scores.values()) > 500
    assert result.sound() == [result.move]  # a3 and h3 leave the queen: far from within 10 cp
    assert result.depth >= 10 and result.nodes > 0


@needs_stockfish
def test_guided_mode_plays_the_most_liked_sound_proposal_and_names_its_judge(kosteniuk_casebase):
    from casebase.format import Casebase

    judge = Judge(JudgeSettings(STOCKFISH))
    agent = guided_agent(
        Casebase.load(kosteniuk_casebase),
        Weights(0.5, 0.5, 0.5),
        7,
        judge=judge,
        judge_depth=8,
        judge_tolerance=30,
    )
    board = chess.Board()
    try:
        for san in ("e4", "c5", "Nf3"):
            board.push_san(san)
        decision = agent.choose(board, limits=SearchLimits(depth=3))
    finally:
        judge.close()
    text = "\n".join(explain(decision.record))
    assert "judge Stockfish 15.1: depth 8" in text and "sound at depth 8" in text, text
    assert decision.votes > 0 and decision.score_cp is not None and abs(decision.score_cp) < 150


def test_a_missing_judge_is_refused_once_and_tried_again_when_its_program_appears(tmp_path):
    path = tmp_path / "no-such-engine"
    judge = Judge(JudgeSettings(str(path)))
    with pytest.raises(JudgeError, match="no engine at"):
        judge.start()  # as when the agent is made (there, on a thread of its own)
    notes = []
    for _ in range(2):  # not a fault (nothing to retire), and said in full once
        judge.new_game()
        with pytest.raises(JudgeError):
            judge.search(chess.Board(), [], Budget(depth=1))
        notes.append(note_text(judge.fault("x")))
    assert (
        notes[0].startswith("judge no-such-engine refused: no engine at")
        and "until option Judge" in notes[0]
    ), notes
    assert notes[1] == "judge no-such-engine refused (see above): the Python search judged", notes
    assert judge.faults == 0 and not judge.retired
    fake_engine(
        tmp_path,
        "no-such-engine",
        Path(scripted_judge(tmp_path, e2e4=10)).read_text().split("\n", 1)[1],
    )
    try:  # the program changed: it is started again
        result = judge.search(chess.Board(), [chess.Move.from_uci("e2e4")], Budget(depth=3))
    finally:
        judge.close()
    assert judge.name == "Scripted" and result.scores[chess.Move.from_uci("e2e4")].score == 10


def test_the_judges_limits_are_its_budget_through_the_one_conversion():
    judge = Judge(JudgeSettings("no-such-engine"))  # never started: a limit needs no process
    assert judge._limit(Budget(movetime=2.0, nodes=500), 0, bounded=False) == chess.engine.Limit(
        time=0.7, nodes=500
    )
    # 10 ms at least
    assert judge._limit(Budget(movetime=0.001), 0, bounded=True) == chess.engine.Limit(time=0.01)
    # JudgeDepth
    assert judge._limit(Budget(depth=20, nodes=9), 6, bounded=False) == chess.engine.Limit(depth=6)
    assert judge._limit(Budget(), 0, bounded=False) is None  # go infinite: until stop
    assert judge._limit(Budget(), 0, bounded=True) == chess.engine.Limit(
        depth=UNBOUNDED_PROPOSAL_DEPTH
    )


# -- the engine with a judge, through python-chess's client -----------------------


@needs_stockfish
def test_a_whole_game_under_a_clock_with_a_stockfish_judge(kosteniuk_casebase):
    """Our guided engine judged by Stockfish on 6 s + 0.1 s (a short clock) against Stockfish at
    depth 1: no time loss."""
    ours = popen("--casebase", str(kosteniuk_casebase), "--mode", "guided", "--seed", "3")
    rival = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    clock, board, judged = {chess.WHITE: 6.0, chess.BLACK: 6.0}, chess.Board(), 0
    try:
        ours.configure({"Judge": STOCKFISH})
        rival.configure({"Skill Level": 0})
        while not board.is_game_over(claim_draw=True) and board.ply() < 240:
            engine = ours if board.turn == chess.WHITE else rival
            limit = (
                chess.engine.Limit(
                    white_clock=clock[chess.WHITE],
                    black_clock=clock[chess.BLACK],
                    white_inc=0.1,
                    black_inc=0.1,
                )
                if engine is ours
                else chess.engine.Limit(depth=1)
            )
            started = time.monotonic()
            with engine.analysis(board, limit) as analysis:
                judged += any("judge Stockfish" in info.get("string", "") for info in analysis)
                move = analysis.wait().move
            clock[board.turn] += 0.1 - (time.monotonic() - started)
            assert clock[board.turn] > 0, (
                f"{chess.COLOR_NAMES[board.turn]} lost on time at ply {board.ply()}"
            )
            assert move in board.legal_moves
            board.push(move)
    finally:
        ours.quit()
        rival.quit()
    # most: on a loaded machine the short clock skips a few
    assert judged >= min(15, 3 * (board.ply() // 2) // 4)


@needs_stockfish
def test_stop_after_go_infinite_is_answered_within_100_ms(kosteniuk_casebase):
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided") as engine:
        engine.configure({"Judge": STOCKFISH})
        board = chess.Board()
        board.push_san("e4")
        latencies = []
        for _ in range(3):  # the best of three: a shared machine may stall any one of them
            # the judge's iterations reach the GUI
            latency, move = stop_latency(engine, board, depth=4)
            latencies.append(latency)
            assert move in board.legal_moves
        # about 10 ms on a quiet machine; a stop that waited for the judge's infinite search would
        # never be answered, one that waited for an iteration of it would take seconds: 0.5 s is
        # room for load
        assert min(latencies) < 0.5, latencies


def test_the_tournament_hands_its_judge_to_the_casebase_players():
    from engine.cbr.configurations import parse_configurations
    from tournament.players import Lineup, casebase_options

    balanced = parse_configurations(["balanced"])[0]
    assert casebase_options("x.npz", balanced, "guided", 3, judge=STOCKFISH)["Judge"] == STOCKFISH
    # never the one auto finds
    assert casebase_options("x.npz", balanced, "guided", 3)["Judge"] == "none"
    with pytest.raises(ValueError, match="a judge judges guided mode's proposals"):
        Lineup([], mode="pure", judge=STOCKFISH)


# -- the judge's normal path with a scripted engine (no Stockfish needed) ---------------


def test_the_judge_scores_each_proposal_as_the_engine_says_and_keeps_its_own_best(tmp_path):
    judge = Judge(JudgeSettings(scripted_judge(tmp_path, e2e4=30, g1f3=0, d2d4=45)))
    proposals = [chess.Move.from_uci(m) for m in ("g1f3", "e2e4", "a2a3")]
    try:
        result = judge.search(chess.Board(), proposals, Budget(), depth=5, tolerance=20)
    finally:
        judge.close()
    assert judge.name == "Scripted"
    assert {m.uci(): s.score for m, s in result.scores.items()} == {
        "d2d4": 45,
        "e2e4": 30,
        "g1f3": 0,
        "a2a3": -100,
    }
    assert all(s.exact for s in result.scores.values())
    assert result.move == chess.Move.from_uci("d2d4") and result.score == 45 and result.depth == 5
    assert [m.uci() for m in result.sound()] == ["d2d4", "e2e4"]  # within 20 cp of the best
    assert [m.uci() for m in result.sound(0)] == ["d2d4"]


@pytest.mark.parametrize(
    ("e4", "played", "why"),
    [(30, "e2e4", "first choice"), (-100, "d2d4", "no proposed move is sound")],
)
def test_guided_mode_plays_the_proposal_a_scripted_judge_finds_sound(tmp_path, e4, played, why):
    from engine_helpers import favourite_model, guided_agent

    from engine.style.model import StyleModel

    judge = Judge(JudgeSettings(scripted_judge(tmp_path, e2e4=e4, d2d4=40)))
    model = StyleModel.load(favourite_model(tmp_path / "e4.npz", chess.E4))  # proposes e4 alone
    agent = guided_agent(
        None,
        Weights(0.5, 0.5, 0.5),
        1,
        prior="model",
        model=model,
        judge=judge,
        judge_depth=7,
        judge_tolerance=25,
    )
    try:
        decision = agent.choose(chess.Board(), limits=SearchLimits(depth=2))
    finally:
        judge.close()
    text = "\n".join(explain(decision.record))
    assert decision.move == chess.Move.from_uci(played), text
    assert "judge Scripted: depth 7" in text and why in text, text
