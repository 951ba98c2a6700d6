"""The guided agent (search.md §1, §3–5): proposals, vetting, selection, explanations, limits."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import chess
import pytest
from engine_helpers import cases_casebase, favourite_model, guided_agent
from search_helpers import random_positions, shuffled

from casebase.format import Casebase
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.search.alphabeta import CHECK_EVERY
from engine.search.limits import DEFAULT_NODES, Budget, SearchLimits
from engine.search.result import SearchResult
from engine.style.model import StyleModel
from engine.style.prior import MIN_SHARE
from engine.uci.explain import explain

BALANCED = WEIGHT_CONFIGS["balanced"]
DEPTH2 = SearchLimits(depth=2)


def played(sans: str) -> chess.Board:
    """The board after the moves ``sans`` (SAN, space-separated) from the start."""
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


move = chess.Move.from_uci


@pytest.fixture(scope="module")
def kosteniuk(kosteniuk_casebase: Path) -> Casebase:
    return Casebase.load(kosteniuk_casebase)


# -- legality and determinism --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"neighbours": 1},
        {"neighbours": 500, "temperature": 100.0},
        {"temperature": 0.25},
        {"tolerance": 0},
        {"tolerance": 1000, "selection": "sample"},
        {"selection": "sample"},
    ],
)
def test_every_move_is_legal(kosteniuk: Casebase, options: dict) -> None:
    agent = guided_agent(kosteniuk, WEIGHT_CONFIGS["near-to"], seed=3, **options)
    for board in random_positions(8, seed=len(options)):
        decision = agent.choose(board, limits=SearchLimits(depth=1))
        assert decision.move in board.legal_moves, board.fen()
        assert explain(decision.record)


def test_listed_moves_restrict_the_choice(kosteniuk: Casebase) -> None:
    agent = guided_agent(kosteniuk, BALANCED, seed=1)
    board = chess.Board()
    only = [move("a2a3"), move("h2h4")]
    assert agent.choose(board, only, limits=DEPTH2).move in only
    # Nothing listed is legal: every legal move is allowed again, and the reason is given.
    decision = agent.choose(board, [move("e2e5")], limits=DEPTH2)
    assert decision.move in board.legal_moves
    assert "none of the listed moves is legal" in explain(decision.record)[0]


def test_no_legal_move() -> None:
    agent = guided_agent(None, BALANCED, seed=1)
    decision = agent.choose(chess.Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), limits=DEPTH2)
    assert decision.move is None and "checkmate" in explain(decision.record)[-1]


@pytest.mark.slow
@pytest.mark.parametrize("selection", ["argmax", "sample"])
@pytest.mark.parametrize("limits", [SearchLimits(depth=2), SearchLimits(nodes=1500)])
def test_same_seed_same_game(kosteniuk: Casebase, selection: str, limits: SearchLimits) -> None:
    def play(seed: int) -> list[chess.Move]:
        agent = guided_agent(kosteniuk, BALANCED, seed, selection=selection, neighbours=16)
        board = chess.Board()
        for _ in range(10):
            board.push(agent.choose(board, limits=limits).move)
        return board.move_stack

    assert play(7) == play(7)


# -- the casebase proposes, the search vets ------------------------------------------------


def test_sound_casebase_move_is_kept() -> None:
    board = played("e4 e5")
    agent = guided_agent(cases_casebase([(board, move("g1f3"))]), BALANCED, seed=1)
    decision = agent.choose(board, limits=SearchLimits(depth=3))
    assert decision.move == move("g1f3")
    assert decision.case == 0 and decision.similarity == 256 and decision.votes == 1
    assert any(
        "played Nf3, the casebase's first choice (100%)" in line
        for line in explain(decision.record)
    )


def test_hanging_queen_is_overruled() -> None:
    # After 1.e4 d5 the case's 2.Qg4 loses the queen to ...Bxg4.
    board = played("e4 d5")
    agent = guided_agent(cases_casebase([(board, move("d1g4"))]), BALANCED, seed=1)
    decision = agent.choose(board, limits=SearchLimits(depth=3))
    assert decision.move != move("d1g4")
    assert decision.case is None  # the search's own move, proposed by no case
    text = "\n".join(explain(decision.record))
    assert "casebase move Qg4 (100%) loses" in text
    assert "no proposed move is sound" in text


def test_sound_runner_up_beats_unsound_favourite() -> None:
    board = played("e4 d5")
    cases = [(board, move("d1g4")), (board, move("d1g4")), (board, move("e4d5"))]
    agent = guided_agent(cases_casebase(cases), BALANCED, seed=1)
    decision = agent.choose(board, limits=SearchLimits(depth=3))
    assert decision.move == move("e4d5")
    assert decision.case == 2
    line = next(line for line in explain(decision.record) if line.startswith("casebase move Qg4"))
    assert "(67%) loses" in line and "played exd5 (33%) instead" in line


def test_side_ahead_does_not_repeat_into_a_draw() -> None:
    # The pure agent's shuffle (search.md §3): the case move Rb1 now makes a threefold repetition.
    board = shuffled(2)
    agent = guided_agent(
        cases_casebase([(board.copy(stack=False), move("a1b1"))]), BALANCED, seed=1
    )
    decision = agent.choose(board, limits=SearchLimits(depth=3))
    assert decision.move != move("a1b1")
    assert any("casebase move Rb1 (100%) loses" in line for line in explain(decision.record))
    # One repetition earlier the same move is no draw yet, so the casebase is followed.
    board = shuffled(1)
    assert agent.choose(board, limits=SearchLimits(depth=3)).move == move("a1b1")


def test_most_voted_sound_move_beats_the_best_scored_one() -> None:
    # From the start at depth 1, a3 scores 0 and e4 +40: both sound within 100 cp. Two cases
    # vote a3, one e4: the expert's majority is followed, not the search's preference.
    board = chess.Board()
    cases = [(board, move("a2a3")), (board, move("a2a3")), (board, move("e2e4"))]
    agent = guided_agent(cases_casebase(cases), BALANCED, seed=1, tolerance=100)
    result = agent.searcher.search(board, Budget(depth=1), tolerance=100)
    assert result.scores[move("e2e4")].score > result.scores[move("a2a3")].score
    decision = agent.choose(board, limits=SearchLimits(depth=1))
    assert decision.move == move("a2a3") and decision.votes == 2


@pytest.mark.slow
def test_sample_draws_sound_moves_by_their_votes() -> None:
    board = chess.Board()
    cases = [(board, move("e2e4")), (board, move("e2e4")), (board, move("d2d4"))]
    casebase = cases_casebase(cases)
    depth1 = SearchLimits(depth=1)
    picks = [
        guided_agent(casebase, BALANCED, seed, selection="sample").choose(board, limits=depth1).move
        for seed in range(300)
    ]
    assert set(picks) == {move("e2e4"), move("d2d4")}
    # e4 has 2/3 of the votes: 200 expected, sd 8.2; the bounds are over six sd away.
    assert 150 < picks.count(move("e2e4")) < 250
    argmax = guided_agent(casebase, BALANCED, 0).choose(board, limits=SearchLimits(depth=1))
    assert argmax.move == move("e2e4")


def test_votes_follow_similarity_and_temperature() -> None:
    board = played("e4 e5")
    near = (board, move("g1f3"))
    far = (played("d4 d5"), move("c2c4"))  # adapts to c2c4 here too
    casebase = cases_casebase([near, far])
    cool = guided_agent(casebase, BALANCED, 1, temperature=1.0).propose(
        board, list(board.legal_moves)
    )
    warm = guided_agent(casebase, BALANCED, 1, temperature=1000.0).propose(
        board, list(board.legal_moves)
    )
    assert sum(cool.prior.values()) == pytest.approx(1.0)
    assert cool.prior[move("g1f3")] > 0.99  # Sim 256 against 240: e^-16 of a vote
    assert warm.prior[move("g1f3")] == pytest.approx(0.5, abs=0.01)
    assert cool.cases == 2 and cool.sims == (256, 240)


# -- explanations --------------------------------------------------------------------------


def test_explanation_names_the_case(kosteniuk: Casebase) -> None:
    agent = guided_agent(kosteniuk, BALANCED, seed=1)
    board = chess.Board()
    decision = agent.choose(board, limits=DEPTH2)
    assert decision.case is not None
    src = kosteniuk.source(decision.case)
    line = next(line for line in explain(decision.record) if "adapted from case" in line)
    for part in (
        src.white,
        src.black,
        src.event,
        src.date,
        f"ply {src.ply}",
        f"similarity {decision.similarity}/256",
        "of the votes",
    ):
        assert part in line
    assert any(line.startswith("search depth 2") for line in explain(decision.record))


def test_without_cases_the_search_decides() -> None:
    white_only = cases_casebase([(chess.Board(), move("e2e4"))])
    board = played("e4")
    decision = guided_agent(white_only, BALANCED, seed=1).choose(board, limits=DEPTH2)
    assert decision.move in board.legal_moves and decision.case is None
    assert "no case with Black to move" in explain(decision.record)[0]
    decision = guided_agent(None, BALANCED, seed=1).choose(board, limits=DEPTH2)
    assert decision.move in board.legal_moves
    assert "no casebase loaded" in explain(decision.record)[0]


# -- limits --------------------------------------------------------------------------------


def test_search_iterations_are_passed_on() -> None:
    results: list[SearchResult] = []
    guided_agent(None, BALANCED, seed=1).choose(
        chess.Board(), limits=SearchLimits(depth=3), on_iteration=results.append
    )
    assert [result.depth for result in results] == [1, 2, 3]


def test_stop_ends_an_infinite_search(kosteniuk: Casebase) -> None:
    # The UCI loop's stop arrives through the event: already set, the search ends at its
    # first look at it.
    agent = guided_agent(kosteniuk, BALANCED, seed=1)
    board = played("e4 e5 Nf3 Nc6 Bb5 a6")
    stop = threading.Event()
    stop.set()
    decision = agent.choose(board, limits=SearchLimits(infinite=True), stop=stop)
    assert decision.move in board.legal_moves
    said = re.search(r"(\d+) nodes", "\n".join(explain(decision.record)))
    nodes = int(said.group(1))  # type: ignore[union-attr]
    assert nodes <= CHECK_EVERY + 1


def test_stop_cuts_the_proposal_short(kosteniuk: Casebase) -> None:
    # Adapting 64 cases takes tens of milliseconds: a stop already given leaves the nearest case's
    # vote.
    board = played("e4 e5 Nf3")
    stop = threading.Event()
    full = guided_agent(kosteniuk, BALANCED, seed=1).propose(board, list(board.legal_moves))
    assert (full.cases, full.retrieved) == (64, 64)
    stop.set()
    cut = guided_agent(kosteniuk, BALANCED, seed=1).propose(board, list(board.legal_moves), stop)
    assert (cut.cases, cut.retrieved) == (1, 64) and list(cut.prior.values()) == [1.0]
    decision = guided_agent(kosteniuk, BALANCED, seed=1).choose(
        board, limits=SearchLimits(infinite=True), stop=stop
    )
    assert decision.move in board.legal_moves
    assert "(stop came after 1 of 64 adaptations)" in explain(decision.record)[0]


@pytest.mark.parametrize(
    ("limits", "budget"),
    [
        # 3 s left and no increment: a budget of 3/32 s, no new iteration after half of it.
        (SearchLimits(wtime=3000, btime=3000), {"movetime": 3 / 32, "soft_time": 1.5 / 32}),
        (SearchLimits(movetime=200), {"movetime": 0.2, "soft_time": None}),
        (SearchLimits(depth=4, nodes=900), {"depth": 4, "nodes": 900, "movetime": None}),
        (SearchLimits(mate=2), {"depth": 3}),
        (SearchLimits(), {"nodes": DEFAULT_NODES}),
    ],
)
def test_go_limits_become_the_search_budget(
    limits: SearchLimits, budget: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = guided_agent(None, BALANCED, seed=1)
    board = played("e4 e5 Nf3 Nc6 Bb5 a6")
    asked: dict = {}
    real = agent.searcher.search

    def spy(board: chess.Board, given: Budget, **kwargs: Any) -> SearchResult:
        asked.update(vars(given))
        return real(board, Budget(depth=1), **kwargs)

    monkeypatch.setattr(agent.searcher, "search", spy)
    decision = agent.choose(board, limits=limits)
    assert decision.move in board.legal_moves
    for name, value in budget.items():
        # the proposal's milliseconds come off the clock
        assert asked[name] == (
            pytest.approx(value, abs=0.02) if isinstance(value, float) else value
        )


@pytest.mark.parametrize(
    "options",
    [
        {"neighbours": 0},
        {"temperature": 0.0},
        {"tolerance": -1},
        {"selection": "best"},
        {"prior": "neural"},
        {"case_weight": 1.5},
    ],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(ValueError):
        guided_agent(None, BALANCED, seed=1, **options)


# -- the style model's prior ---------------------------------------------------------------


@pytest.fixture
def likes_e4(tmp_path: Path) -> StyleModel:
    return StyleModel.load(favourite_model(tmp_path / "e4.npz", chess.E4))


def test_model_prior_proposes_the_models_favourite(likes_e4: StyleModel) -> None:
    board = chess.Board()
    agent = guided_agent(None, BALANCED, seed=1, prior="model", model=likes_e4)
    proposal = agent.propose(board, list(board.legal_moves))
    assert proposal.top() == move("e2e4") and proposal.prior[move("e2e4")] > 0.9
    assert sum(proposal.model.values()) == pytest.approx(1.0) and len(proposal.model) == 20
    assert set(proposal.prior) == {m for m, p in proposal.model.items() if p >= MIN_SHARE}
    decision = agent.choose(board, limits=DEPTH2)
    assert decision.move == move("e2e4")
    text = "\n".join(explain(decision.record))
    assert "the style model (1x4) proposes e4" in text and "the style model's first choice" in text
    # Black sees the board mirrored: its e5 is the model's e4.
    black = played("d4")
    assert agent.propose(black, list(black.legal_moves)).top() == move("e7e5")


def test_blend_lets_the_cases_vote_only_in_their_own_position(likes_e4: StyleModel) -> None:
    board = played("e4 e5")
    near = [(board, move("g1f3"))] * 3
    agent = guided_agent(
        cases_casebase(near), BALANCED, seed=1, prior="blend", model=likes_e4, case_weight=0.8
    )
    here = agent.propose(board, list(board.legal_moves))
    assert here.case_weight == 0.8 and here.top() == move("g1f3")
    assert here.prior[move("g1f3")] == pytest.approx(0.8 + 0.2 * here.model[move("g1f3")])
    decision = agent.choose(board, limits=DEPTH2)
    assert decision.move == move("g1f3") and decision.case == 0
    assert "vote Nf3 100%, weighing 80%" in explain(decision.record)[0]
    elsewhere = played("d4 d5")  # the cases are not this position: the model alone
    away = agent.propose(elsewhere, list(elsewhere.legal_moves))
    assert away.case_weight == 0 and away.prior == {
        m: p for m, p in away.model.items() if p >= MIN_SHARE
    }
    assert (
        "not the position itself, so they do not vote"
        in explain(agent.choose(elsewhere, limits=DEPTH2).record)[0]
    )


def test_without_a_model_the_cases_propose(kosteniuk: Casebase) -> None:
    agent = guided_agent(kosteniuk, BALANCED, seed=1, prior="blend", model=None)
    board = chess.Board()
    assert agent.prior_source == "cases"
    assert agent.propose(board, list(board.legal_moves)).model == {}
