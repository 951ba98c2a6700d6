"""The pure agent end to end: colour filter, tie statistics, fallbacks, legality, determinism."""

import math
import random

import chess
import pytest
from engine_helpers import cases_casebase, pgn_casebase
from uci_helpers import ROOT

from engine.agents.pure import PureAgent
from engine.cbr.weights import WEIGHT_CONFIGS, Weights
from engine.search.limits import SearchLimits
from engine.uci.explain import explain

DATA = ROOT / "data" / "experts"
BALANCED = WEIGHT_CONFIGS["balanced"]


def after(*sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def move(uci: str) -> chess.Move:
    return chess.Move.from_uci(uci)


@pytest.fixture(scope="module")
def kosteniuk():
    return pgn_casebase(DATA / "kosteniuk-2200.pgn", "Kosteniuk", max_games=40)


def random_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions of random games at random depths, promotions and checks included."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(1, 160)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if any(board.legal_moves):
            boards.append(board)
    return boards


def test_plays_the_expert_move_in_a_known_position():
    agent = PureAgent(cases_casebase([(after("e4"), move("c7c5"))]), BALANCED, 1)
    decision = agent.choose(after("e4"))
    assert decision.move == move("c7c5")
    assert (decision.case, decision.similarity, decision.tied_cases) == (0, 256, 1)


def test_explanation_names_case_similarity_ties_and_moves():
    casebase = cases_casebase([(after("e4"), move("c7c5")), (after("e4"), move("e7e5"))])
    decision = PureAgent(casebase, BALANCED, 1).choose(after("d4"))
    text = "\n".join(explain(decision.record))
    for part in (
        "Expert - Opponent",
        "Test",
        "2015.01.01",
        "move 1",
        "ply 1",
        "248/256",
        "2 of 2 cases",
        "case move",
        "played",
    ):
        assert part in text
    assert decision.tied_cases == 2 and decision.similarity == 248


def test_colour_filter_falls_back_to_a_uniform_legal_move():
    white_only = cases_casebase([(chess.Board(), move("e2e4")), (after("e4", "e5"), move("g1f3"))])
    agent = PureAgent(white_only, BALANCED, 3)
    board = after("e4")
    seen = set()
    for seed in range(60):
        agent.new_game(seed)
        decision = agent.choose(board)
        assert decision.case is None and decision.similarity is None
        assert board.is_legal(decision.move)
        assert "no case with Black to move" in explain(decision.record)[0]
        seen.add(decision.move)
    assert len(seen) > 5  # uniform over 20 replies, not the case move copied over


@pytest.mark.parametrize("casebase", [None, cases_casebase([])])
def test_no_casebase_or_empty_casebase(casebase):
    decision = PureAgent(casebase, BALANCED, 0).choose(chess.Board())
    assert chess.Board().is_legal(decision.move) and decision.case is None


def test_tied_cases_are_drawn_in_proportion():
    """Tied cases {X, X, Y}: X with probability 2/3 (Hoeffding: fails by chance < 1e-6)."""
    x, y = (chess.Board(), move("e2e4")), (chess.Board(), move("d2d4"))
    agent = PureAgent(cases_casebase([x, y, x]), BALANCED, 0)
    trials = 3000
    hits = 0
    for seed in range(trials):
        agent.new_game(seed)
        decision = agent.choose(chess.Board())  # all three tie at 256
        assert decision.tied_cases == 3
        hits += decision.move == move("e2e4")
    bound = math.sqrt(math.log(2e6) / (2 * trials))
    assert abs(hits / trials - 2 / 3) <= bound  # excludes 1/2 and 1/3


def test_moves_restrict_the_choice():
    casebase = cases_casebase([(chess.Board(), move("e2e4"))])
    agent = PureAgent(casebase, BALANCED, 0)
    assert agent.choose(chess.Board(), [move("d2d4"), move("a2a3")]).move == move("d2d4")
    decision = agent.choose(chess.Board(), [move("e2e5")])  # nothing legal listed: all moves
    assert (
        decision.move == move("e2e4") and "none of the listed moves" in explain(decision.record)[0]
    )


def test_no_legal_move():
    mate = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    agent = PureAgent(cases_casebase([(after("e4"), move("e7e5"))]), BALANCED, 0)
    assert agent.choose(mate).move is None and "checkmate" in explain(agent.choose(mate).record)[0]
    assert (
        agent.choose(stalemate).move is None
        and "stalemate" in explain(agent.choose(stalemate).record)[0]
    )


@pytest.mark.parametrize("name", list(WEIGHT_CONFIGS))
def test_random_positions_always_legal_and_replayable(kosteniuk, name):
    boards = random_positions(60, seed=len(name))
    runs = []
    for _ in range(2):
        agent = PureAgent(kosteniuk, WEIGHT_CONFIGS[name], 11)
        runs.append([agent.choose(b, limits=SearchLimits(movetime=10)).move for b in boards])
    assert runs[0] == runs[1]
    assert all(b.is_legal(m) for b, m in zip(boards, runs[0]))


def play(agent_white: PureAgent, agent_black: PureAgent, plies: int = 120) -> list[chess.Move]:
    board = chess.Board()
    while len(board.move_stack) < plies and not board.is_game_over(claim_draw=True):
        agent = agent_white if board.turn else agent_black
        board.push(agent.choose(board).move)
    return board.move_stack


def test_same_seed_same_game_new_game_replays(kosteniuk):
    def pair(seed_w, seed_b, w=BALANCED):
        return PureAgent(kosteniuk, w, seed_w), PureAgent(kosteniuk, w, seed_b)

    first = play(*pair(1, 2))
    assert play(*pair(1, 2)) == first
    white, black = pair(1, 2)
    play(white, black, plies=30)
    white.new_game(), black.new_game()
    assert play(white, black) == first
    others = {tuple(play(*pair(s, s + 1))) for s in range(3, 8)}
    assert len(others | {tuple(first)}) > 1
    assert (
        play(*pair(1, 2, Weights(0.8, 0.8, 0.5))) != first
        or play(*pair(1, 2, Weights(0.2, 0.5, 0.2))) != first
    )
