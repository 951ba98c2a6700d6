"""Guided mode behind the UCI loop (search.md): options, limits, info lines, stop, explanations."""

from __future__ import annotations

import re
import time

import chess
import chess.engine
import pytest
from uci_helpers import Engine, bestmoves, converse, popen, stop_latency, strings

from casebase.format import Casebase
from engine.agents.base import Candidate, Decision, Reason

pytestmark = pytest.mark.slow  # each test plays guided moves through the engine's process

#: Plies after which a test game is cut short when no rule has ended it.
MAX_PLIES = 80
AFTER_E4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")


def play_game(
    white: chess.engine.SimpleEngine,
    black: chess.engine.SimpleEngine,
    limit,
    searched: list | None = None,
) -> chess.Board:
    """A game from the start, ``limit(board)`` giving each move's limit; every move checked legal.
    ``searched`` gets White's (limit, the deepest depth and the most nodes it reported) per move."""
    board = chess.Board()
    game = object()
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        engine = white if board.turn else black
        reports: list[dict] = []
        with engine.analysis(board, limit(board), game=game) as analysis:
            reports += [info for info in analysis if "depth" in info and "nodes" in info]
            result = analysis.wait()
        assert result.move in board.legal_moves, (board.fen(), result.move)
        if searched is not None and board.turn == chess.WHITE:
            searched.append(
                (
                    limit(board),
                    max((i["depth"] for i in reports), default=0),
                    max((i["nodes"] for i in reports), default=0),
                )
            )
        board.push(result.move)
    return board


def test_guided_against_pure_with_depth_and_node_limits(
    kosteniuk_casebase, gaprindashvili_casebase
):
    guided = popen("--casebase", str(kosteniuk_casebase), "--mode", "guided", "--seed", "3")
    pure = popen("--mode", "pure", "--casebase", str(gaprindashvili_casebase), "--seed", "4")
    searched: list = []
    try:
        # Guided alternates go depth 2 and go nodes 600; pure's limit changes nothing.
        play_game(
            guided,
            pure,
            lambda b: chess.engine.Limit(depth=2) if b.ply() % 4 else chess.engine.Limit(nodes=600),
            searched,
        )
    finally:
        guided.quit()
        pure.quit()
    by_depth = [(depth, nodes) for limit, depth, nodes in searched if limit.depth == 2]
    by_nodes = [(depth, nodes) for limit, depth, nodes in searched if limit.nodes == 600]
    assert by_depth and by_nodes
    # go depth 2 searches exactly two iterations (a mate or an only move may end it sooner)...
    assert (
        all(depth <= 2 for depth, _ in by_depth)
        and sum(depth == 2 for depth, _ in by_depth) > len(by_depth) / 2
    )
    # ...go nodes 600 never counts more nodes than asked
    assert all(0 < nodes <= 600 for _, nodes in by_nodes)


def test_guided_self_play_under_a_small_clock(kosteniuk_casebase, gaprindashvili_casebase):
    white = popen("--casebase", str(kosteniuk_casebase), "--mode", "guided", "--seed", "1")
    black = popen("--casebase", str(gaprindashvili_casebase), "--mode", "guided", "--seed", "2")
    clock = {chess.WHITE: 4.0, chess.BLACK: 4.0}
    increment = 0.02
    board, game = chess.Board(), object()
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES // 2:
            engine = white if board.turn else black
            limit = chess.engine.Limit(
                white_clock=clock[chess.WHITE],
                black_clock=clock[chess.BLACK],
                white_inc=increment,
                black_inc=increment,
            )
            started = time.monotonic()
            result = engine.play(board, limit, game=game)
            clock[board.turn] += increment - (time.monotonic() - started)
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        white.quit()
        black.quit()
    # Each move gets at most a third of what is left: the flag never falls.
    assert min(clock.values()) > 0, clock


def test_new_options_are_declared_set_and_checked(kosteniuk_casebase):
    with popen("--casebase", str(kosteniuk_casebase)) as engine:
        options = engine.options
        assert (options["Neighbours"].type, options["Neighbours"].default) == ("spin", 64)
        assert (options["Neighbours"].min, options["Neighbours"].max) == (1, 1024)
        assert (options["Temperature"].default, options["Temperature"].min) == (40, 1)
        assert (
            options["Tolerance"].default,
            options["Tolerance"].min,
            options["Tolerance"].max,
        ) == (50, 0, 1000)
        assert options["Selection"].type == "combo" and options["Selection"].var == [
            "argmax",
            "sample",
            "calibrated",
            "likely",
            "auto",
        ]
    commands = [
        "setoption name Mode value guided",
        "setoption name Neighbours value 0",
        "setoption name Neighbours value 1025",
        "setoption name Temperature value 0",
        "setoption name Tolerance value -1",
        "setoption name Tolerance value 1001",
        "setoption name Selection value best",
        "setoption name Selection value expert",
        "setoption name Neighbours value 8",
        "setoption name Temperature value 25",
        "setoption name Tolerance value 0",
        "setoption name Selection value SAMPLE",
        "setoption name Seed value 5",
        "go depth 1",
    ]
    engine = Engine("--casebase", str(kosteniuk_casebase))
    for command in commands:
        engine.send(command)
    text = strings(engine.until("bestmove"))
    assert engine.close() == 0
    for complaint in (
        "Neighbours takes 1..1024, not 0; ignored",
        "Neighbours takes 1..1024, not 1025; ignored",
        "Temperature takes 1..10000, not 0; ignored",
        "Tolerance takes 0..1000, not -1; ignored",
        "Tolerance takes 0..1000, not 1001; ignored",
        "Selection takes one of argmax, sample, calibrated, likely, auto, not 'best'; ignored",
        "Selection takes one of argmax, sample, calibrated, likely, auto, not 'expert'; ignored",
    ):
        assert complaint in text
    # The values in force are the last good ones, told when the agent is made.
    assert "guided mode: casebase Alexandra Kosteniuk" in text
    assert "Neighbours 8, Temperature 25, Tolerance 0, Selection sample" in text
    assert "8 nearest cases of Alexandra Kosteniuk" in text


def test_command_line_selects_guided_mode():
    lines = converse(["uci"], "--mode", "guided")
    assert "option name Mode type combo default guided var pure var guided var chess0" in lines


@pytest.mark.parametrize("limit", [chess.engine.Limit(depth=2), chess.engine.Limit(nodes=1500)])
def test_same_seed_same_limit_same_move(kosteniuk_casebase, limit):
    board = chess.Board()
    for san in ("d4", "Nf6", "c4", "e6", "Nc3"):
        board.push_san(san)
    options = {"Mode": "guided", "Seed": 11, "Selection": "sample", "Tolerance": 200}

    def moves(engine: chess.engine.SimpleEngine) -> list[chess.Move]:
        engine.configure(options)
        # A new game object: python-chess sends ucinewgame, which restarts the generator.
        return [engine.play(board, limit, game=object()).move for _ in range(2)]

    with popen("--casebase", str(kosteniuk_casebase)) as engine:
        first = moves(engine)
    with popen("--casebase", str(kosteniuk_casebase)) as engine:
        again = moves(engine)
    assert first[0] in board.legal_moves
    assert first == again and len(set(first)) == 1


def test_info_lines_and_explanation(kosteniuk_casebase):
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided", "--seed", "2") as engine:
        with engine.analysis(AFTER_E4, chess.engine.Limit(depth=3)) as analysis:
            infos = list(analysis)
            best = analysis.wait()
    depths = [info for info in infos if "depth" in info]
    # each iteration, then the move played's line
    assert [info["depth"] for info in depths] == [1, 2, 3, 3]
    for info in depths:
        assert {"seldepth", "score", "nodes", "nps", "time", "pv"} <= set(info)
        assert info["pv"][0] in AFTER_E4.legal_moves
    assert best.move in AFTER_E4.legal_moves
    text = "\n".join(info["string"] for info in infos if "string" in info)
    assert "nearest cases of Alexandra Kosteniuk" in text and "search depth 3" in text
    # The case line names the very case: its players, event, date and ply, similarity, vote share.
    san = AFTER_E4.san(best.move)
    match = re.search(
        rf"^{re.escape(san)} adapted from case (\d+) of Alexandra Kosteniuk: (.*)$", text, re.M
    )
    assert match, text
    src = Casebase.load(kosteniuk_casebase).source(int(match[1]))
    for part in (
        f"{src.white} - {src.black}",
        src.event,
        src.date,
        f"ply {src.ply}",
        "/256",
        "of the votes",
    ):
        assert part in match[2]


def test_stop_during_go_infinite(kosteniuk_casebase):
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided") as engine:
        board = AFTER_E4.copy()
        latencies = []
        for depth in (None, 2):  # stop during the proposal, then during the search
            latency, move = stop_latency(engine, board, depth)
            latencies.append(latency)
            assert move in board.legal_moves
        # Typically about 10 ms; the bound only allows for a loaded machine.
        assert max(latencies) < 1.0, latencies
        assert engine.play(board, chess.engine.Limit(depth=1)).move in board.legal_moves


def test_a_go_during_a_search_stops_it_and_input_is_always_read(kosteniuk_casebase):
    engine = Engine("--casebase", str(kosteniuk_casebase), "--mode", "guided")
    engine.send("position startpos moves e2e4")
    engine.send("go depth 40")  # minutes of search
    engine.until("info depth 2")
    engine.send("isready")
    assert not bestmoves(engine.until("readyok"))  # answered while the search goes on
    engine.send("go nodes 10")
    first = engine.until("bestmove")  # the first search stops and answers...
    second = engine.until("bestmove")  # ...then the second one runs
    engine.send("stop")
    engine.send("isready")
    engine.until("readyok")
    assert len(bestmoves(first)) == 1 and len(bestmoves(second)) == 1
    for move in bestmoves(first + second):
        assert AFTER_E4.is_legal(chess.Move.from_uci(move))
    assert engine.close() == 0


def test_a_long_casebase_name_on_the_command_line_gets_an_answer():
    lines = converse(
        ["isready", "go depth 1"], "--casebase", "x" * 300 + ".npz", "--mode", "guided"
    )
    assert "readyok" in lines and chess.Board().is_legal(chess.Move.from_uci(bestmoves(lines)[0]))
    assert "cannot load casebase" in strings(lines) and "the style model proposes alone" in strings(
        lines
    )


def test_multipv_shows_the_move_played_then_the_experts_most_likely_moves_through_python_chess(
    kosteniuk_casebase,
):
    with popen("--mode", "guided", "--casebase", str(kosteniuk_casebase), "--seed", "3") as engine:
        infos = engine.analyse(AFTER_E4, chess.engine.Limit(depth=2), multipv=3)
        lines: list[str] = []
        with engine.analysis(AFTER_E4, chess.engine.Limit(depth=2), multipv=3) as analysis:
            lines += [
                info["string"] for info in analysis if info.get("string", "").startswith("line ")
            ]
            played = analysis.wait().move
        single = engine.analyse(AFTER_E4, chess.engine.Limit(depth=2), multipv=1)
    moves = [info["pv"][0] for info in infos]
    assert len(moves) == 3 == len(set(moves)) and all(m in AFTER_E4.legal_moves for m in moves)
    assert all(info["depth"] == 2 for info in infos)
    # line 1 is the move played, with its nodes (the move's own line, sent last, is line 1 too)
    assert moves[0] == played and infos[0]["nodes"] > 0
    # then the expert's next likeliest moves: the people's lines name the same moves, shares falling
    shares = [int(re.search(r", (\d+)% of the prior", line).group(1)) for line in lines]
    assert [line.split(":")[1].split(",")[0].strip() for line in lines] == [
        AFTER_E4.san(m) for m in moves
    ]
    assert shares[1:] == sorted(shares[1:], reverse=True) and shares[1] > 0
    # MultiPV 1: the lines of before, no more
    assert len(single) == 1 and "multipv" not in single[0]


def test_multipv_puts_a_played_move_the_expert_did_not_propose_first():
    decision = Decision(
        move=chess.Move.from_uci("d2d4"),
        reason=Reason.ENGINE,
        score=-5,
        depth=18,
        candidates=[
            Candidate(chess.Move.from_uci(uci), share, 10, True, 8)
            for uci, share in (("e2e4", 0.5), ("c2c4", 0.3), ("g1f3", 0.2))
        ],
    )
    ranked = decision.analysis_lines(3)
    assert [c.move.uci() for c in ranked] == ["d2d4", "e2e4", "c2c4"]
    assert (ranked[0].share, ranked[0].score, ranked[0].depth) == (0.0, -5, 18)
    decision.move = chess.Move.from_uci("c2c4")
    assert [c.move.uci() for c in decision.analysis_lines(4)] == ["c2c4", "e2e4", "g1f3"]
    assert decision.analysis_lines(1) == []


def test_multipv_in_a_mode_without_a_prior_gives_one_line():
    lines = converse(
        ["setoption name MultiPV value 3", "position startpos", "go depth 1"],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert not any(" multipv " in line for line in lines) and bestmoves(lines)


def test_pondering_thinks_on_the_opponents_time_and_the_clock_starts_at_ponderhit(
    kosteniuk_casebase,
):
    engine = Engine("--mode", "guided", "--casebase", str(kosteniuk_casebase))
    try:
        engine.send("position startpos moves e2e4 c7c5")
        # 2 s on the clock: 60 ms a move, but no time limit until ponderhit
        engine.send("go ponder wtime 2000 btime 2000")
        pondered = engine.until("info depth 4")  # deeper than 60 ms reach here: it thinks on
        engine.send("ponderhit")
        lines = engine.until("bestmove")  # only the clock, started at ponderhit, ends the search
        move = chess.Move.from_uci(lines[-1].split()[1])
        board = chess.Board()
        for uci in ("e2e4", "c7c5"):
            board.push_uci(uci)
        assert move in board.legal_moves and not any(
            line.startswith("bestmove") for line in pondered
        )
    finally:
        assert engine.close() == 0


def test_a_pondering_game_through_python_chess(kosteniuk_casebase, gaprindashvili_casebase):
    # a fixed depth, not a clock: on a busy machine a clock's budget may end every search before
    # it has a reply to ponder on (go ponder on a clock is tested in test_uci.py, by protocol lines)
    with (
        popen("--mode", "guided", "--casebase", str(kosteniuk_casebase), "--seed", "3") as ponderer,
        popen(
            "--mode", "pure", "--casebase", str(gaprindashvili_casebase), "--seed", "5"
        ) as opponent,
    ):
        assert ponderer.options["Ponder"].type == "check"
        board, predicted, game = chess.Board(), 0, object()
        limit = chess.engine.Limit(depth=3)
        while not board.is_game_over(claim_draw=True) and board.ply() < 24:
            if board.turn == chess.WHITE:
                result = ponderer.play(board, limit, game=game, ponder=True)
                predicted += result.ponder is not None
            else:
                result = opponent.play(board, chess.engine.Limit(depth=1), game=object())
            assert result.move in board.legal_moves
            board.push(result.move)
    assert predicted > 0  # it named replies to ponder on, and pondered on them
