"""The expert's strength without a judge (issue #67, strength.md §7): the error model draws only what the
built-in search does not lose by itself, at the rating of that rest; where the expert loses no more than the
search alone, the search's best move plays. With a judge nothing changes."""

from __future__ import annotations

import math

import chess
import pytest

from casebase.format import Casebase
from engine.agents.defaults import Selection
from engine.agents.guided import GuidedAgent
from engine.cbr.weights import Weights
from engine.search.limits import SearchLimits
from engine.strength.calibration import calibrate
from engine.strength.rating import loss_at, rating_of
from engine.strength.sizing import OWN_LOSS, sized

WEIGHTS = Weights(0.5, 0.5, 0.5)


@pytest.fixture(scope="module")
def casebase(profiled) -> Casebase:
    path, _ = profiled
    return Casebase.load(path)


@pytest.mark.parametrize("search", sorted(OWN_LOSS))
def test_the_error_model_draws_what_the_search_does_not_lose_by_itself(casebase, search):
    base = calibrate(casebase, None)
    weak = rating_of(OWN_LOSS[search] + 0.02)  # a player losing 2 % of a point a move more than the search
    sizing = sized(base, search, weak)
    assert sizing.calibration is not None and math.isclose(sizing.target, loss_at(weak))
    # the rest, as the rating line reads it, and reached on the positions the calibration is set on
    assert math.isclose(sizing.calibration.rating, rating_of(0.02), abs_tol=1e-6)
    assert math.isclose(sizing.calibration.model.sensitivity, base.at_rating(rating_of(0.02)).model.sensitivity,
                        rel_tol=1e-6)
    assert "the error model draws the rest" in sizing.describe()


@pytest.mark.parametrize("search", sorted(OWN_LOSS))
def test_an_expert_stronger_than_the_search_gets_its_best_move(casebase, search):
    strong = rating_of(OWN_LOSS[search] * 0.9)
    sizing = sized(calibrate(casebase, None), search, strong)
    assert sizing.calibration is None and "its best move plays" in sizing.describe()


def test_a_search_losing_more_asks_less_of_the_error_model(casebase):
    base = calibrate(casebase, None)
    rating = rating_of(max(OWN_LOSS.values()) + 0.01)
    ratings = {search: sized(base, search, rating).calibration for search in OWN_LOSS}
    assert all(c is not None for c in ratings.values())
    worst = max(OWN_LOSS, key=OWN_LOSS.__getitem__)
    best = min(OWN_LOSS, key=OWN_LOSS.__getitem__)
    assert ratings[worst].rating > ratings[best].rating  # type: ignore[union-attr]


def test_the_agent_without_a_judge_plays_the_sized_choice(casebase):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    weak = rating_of(OWN_LOSS["alphabeta"] + 0.03)
    agent = GuidedAgent(casebase, WEIGHTS, 1, rating=weak)
    assert agent.selection is Selection.CALIBRATED and agent.sizing is not None
    assert agent.calibration is not None and math.isclose(agent.calibration.rating, rating_of(0.03), abs_tol=1e-6)
    decision = agent.choose(board, limits=SearchLimits(depth=2))
    assert decision.move in board.legal_moves and decision.chances  # drawn by the error model
    strong = GuidedAgent(casebase, WEIGHTS, 1, rating=3000)  # beyond the search: its best move
    assert strong.selection is Selection.ARGMAX and strong.calibration is None and strong.sizing is not None
    plain = GuidedAgent(casebase, WEIGHTS, 1, selection=Selection.ARGMAX)
    limits = SearchLimits(depth=2)
    assert strong.choose(board, limits=limits).move == plain.choose(board, limits=limits).move
    assert not strong.choose(board, limits=limits).chances
