"""The expert's strength without a judge (issue #67, strength.md §7): the error model plays, at the
expert's rating or the one asked, only where the expert loses more than the built-in search alone;
else the search's choice plays. With a judge nothing changes."""

from __future__ import annotations

import math

import chess
import pytest
from engine_helpers import guided_agent

from casebase.format import Casebase
from engine.agents.defaults import Selection
from engine.cbr.weights import Weights
from engine.outside.judge import Judge, JudgeSettings
from engine.search import Search
from engine.search.limits import SearchLimits
from engine.search.puct import Puct
from engine.strength.calibration import calibrate
from engine.strength.rating import loss_at, rating_of
from engine.strength.sizing import BUILTIN, OWN_LOSS, sized

WEIGHTS = Weights(0.5, 0.5, 0.5)


@pytest.fixture(scope="module")
def casebase(profiled) -> Casebase:
    path, _ = profiled
    return Casebase.load(path)


@pytest.mark.parametrize("search", sorted(OWN_LOSS))
def test_an_expert_weaker_than_the_search_is_drawn_at_the_rating_asked(casebase, search):
    base = calibrate(casebase, None)
    # a player losing 2 % of a point a move more than the search
    weak = rating_of(OWN_LOSS[search] + 0.02)
    sizing = sized(base, search, weak)
    assert (
        sizing.calibration is not None
        and math.isclose(sizing.target, loss_at(weak))
        and sizing.asked is base
    )
    # the whole loss asked: the draws among the Python search's own scores lose less than asked
    # even so (measured); the built-in judge's own mistakes add to its draws': they draw the rest
    drawn = rating_of(loss_at(weak) - OWN_LOSS[search]) if search == BUILTIN else weak
    assert sizing.calibration.rating == pytest.approx(drawn)
    assert sizing.calibration.model == base.at_rating(drawn).model
    assert "the error model draws among the search's scores" in sizing.describe()


@pytest.mark.parametrize("search", sorted(OWN_LOSS))
def test_an_expert_stronger_than_the_search_gets_its_best_move(casebase, search):
    strong = rating_of(OWN_LOSS[search] * 0.9)
    sizing = sized(calibrate(casebase, None), search, strong)
    assert sizing.calibration is None and "the search's choice plays" in sizing.describe()


def test_the_agent_without_a_judge_plays_the_sized_choice(casebase):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    weak = rating_of(OWN_LOSS[Search.ALPHABETA] + 0.03)
    agent = guided_agent(casebase, WEIGHTS, 1, rating=weak)
    assert agent.selection is Selection.CALIBRATED and agent.sizing is not None
    assert (
        agent.calibration is not None
        and agent.calibration.model == calibrate(casebase, None, weak).model
    )
    decision = agent.choose(board, limits=SearchLimits(depth=2))
    assert decision.move in board.legal_moves and decision.chances  # drawn by the error model
    strong = guided_agent(casebase, WEIGHTS, 1, rating=3000)  # beyond the search: its choice
    assert (
        strong.selection is Selection.ARGMAX
        and strong.calibration is None
        and strong.sizing is not None
    )
    plain = guided_agent(casebase, WEIGHTS, 1, selection=Selection.ARGMAX)
    limits = SearchLimits(depth=2)
    assert strong.choose(board, limits=limits).move == plain.choose(board, limits=limits).move
    assert not strong.choose(board, limits=limits).chances


def test_auto_without_a_judge_sizes_the_expert_s_own_strength(casebase):
    agent = guided_agent(casebase, WEIGHTS, 1)  # Selection auto, no judge, a profiled casebase
    own = calibrate(casebase, None)
    assert agent.sizing is not None and agent.sizing.rating is None and agent.sizing.asked == own
    assert math.isclose(agent.sizing.target, loss_at(own.rating))
    assert (agent.calibration is None) == (agent.sizing.target <= OWN_LOSS[Search.ALPHABETA])
    assert agent.sizing.describe().startswith(f"without a judge, {casebase.expert} loses about ")


def test_with_a_judge_nothing_is_sized(casebase):
    judge = Judge(JudgeSettings("/nonexistent/judge"))  # never started: it is not asked
    weak = rating_of(OWN_LOSS[Search.ALPHABETA] + 0.03)
    agent = guided_agent(casebase, WEIGHTS, 1, rating=weak, judge=judge)
    assert agent.sizing is None and agent.calibration is not None
    assert agent.calibration.model == calibrate(casebase, None, weak).model


def test_under_the_error_model_the_alpha_beta_scores_and_the_network_s_search_is_not_asked(
    casebase,
):
    def evaluate(boards):
        raise AssertionError("the network's search was asked")

    weak = rating_of(OWN_LOSS[Search.PUCT] + 0.03)
    agent = guided_agent(casebase, WEIGHTS, 1, rating=weak, puct=Puct(evaluate))
    assert (
        agent.sizing is not None
        and agent.sizing.search is Search.PUCT
        and agent.calibration is not None
    )
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    decision = agent.choose(board, limits=SearchLimits(depth=2))
    assert decision.move in board.legal_moves and decision.chances


def test_the_agent_judged_by_the_built_in_search_is_sized_by_its_own_loss(casebase):
    # only the built-in search's program is sized (any other judge plays the expert's strength)
    for command, sized_as in (
        ("/usr/bin/cbr-chess-search", BUILTIN),
        ("/usr/games/stockfish", None),
    ):
        judge = Judge(JudgeSettings(command))
        agent = guided_agent(
            casebase, WEIGHTS, 1, judge=judge, selection=Selection.CALIBRATED, rating=1500
        )
        assert (agent.sizing and agent.sizing.search) == sized_as
        if sized_as is not None:
            assert agent.sizing is not None and agent.calibration is agent.sizing.calibration
            assert "judged by the built-in search" in agent.sizing.describe()
