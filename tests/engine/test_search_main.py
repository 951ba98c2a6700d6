"""``cbr-chess-search``, the compiled search's UCI engine (issue #73): driven by python-chess's
client as a GUI drives it (``go perft`` alone read raw: python-chess does not parse it), and as the
guided engine's judge (``Judge builtin``, and ``auto`` where no Stockfish is found).

The processes share one compiled cache (:func:`search_cache`, compiled once for all the workers
under its lock); the fast tests drive the loop in this process without starting the compile, so
that the Python search answers them.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.engine
import pytest
from judge_helpers import children
from judge_helpers import gone as ended
from uci_helpers import conversation, engine_process, strings

from engine.compiled.board import reference_perft
from engine.outside import builtin, stockfish
from engine.uci.search_main import SearchEngine

PROGRAM = str(Path(sys.executable).parent / builtin.PROGRAM)
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#: White mates in 2: 1. Nf6+ gxf6 2. Bxf7#.
MATE_IN_2 = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1"

needs_program = pytest.mark.skipif(
    not os.access(PROGRAM, os.X_OK), reason=f"{builtin.PROGRAM} not installed (pip install -e .)"
)


def loop(*commands: str) -> list[str]:
    """The loop's lines for ``commands`` in this process, the compile never started (the Python
    search plays)."""
    out = io.StringIO()
    engine = SearchEngine(out=out)
    for command in commands:
        if not engine.handle(command):
            break
    engine._finish_search()
    return out.getvalue().splitlines()


def test_malformed_lines_are_said_and_the_session_goes_on():
    lines = loop(
        "uci",
        "nonsense here",
        "setoption name Hash value lots",
        "setoption name Colour value red",
        "setoption",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves e2e5",
        "go depth x nodes 50",
        "go perft",
    )
    said = "\n".join(line for line in lines if line.startswith("info string"))
    for expected in (
        "unknown command 'nonsense here' ignored",
        "Hash takes a whole number from 1 to 4096, not 'lots'; ignored",
        "no option named 'Colour'; ignored",
        "setoption needs",
        "invalid FEN",
        "move 1 (e2e5) is not legal",
        "go depth needs a whole number; ignored",
        "go perft needs a depth of 1 or more",
    ):
        assert expected in said, said
    assert "uciok" in lines and "option name Threads type spin default 1 min 1 max 1" in lines
    [best] = [line for line in lines if line.startswith("bestmove")]
    assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves


@pytest.mark.parametrize(
    ("fen", "score"),
    [("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "mate 0"), ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "cp 0")],
)
def test_a_position_with_no_legal_move_gets_0000(fen, score):
    lines = loop(f"position fen {fen}", "go depth 3")
    assert lines[-2:] == [f"info depth 0 score {score}", "bestmove 0000"], lines


def test_go_nodes_0_and_depth_beyond_the_most_answer_a_legal_move():
    lines = loop("position startpos moves e2e4", "go nodes 0 depth 2", "go depth 200 nodes 300")
    said = "\n".join(lines)
    assert "go nodes 0 is below 1: ignored" in said
    assert "go depth 200 is beyond the search's 64 plies: searching 64" in said
    board = chess.Board()
    board.push_uci("e2e4")
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert len(moves) == 2 and all(chess.Move.from_uci(m) in board.legal_moves for m in moves)
    # said once: the Python search plays while the compile runs
    assert said.count("the compiled search is compiling") == 1


# -- the program, compiled -------------------------------------------------------------


@pytest.fixture(scope="session")
def search_cache() -> None:
    """The compiled search loaded, or compiled once for the suite's workers: in the numba cache
    folder the suite shares (tests/conftest.py), where the first process compiles under the
    cache's lock and the others load what it wrote (``go perft`` waits for the compile)."""
    if os.access(PROGRAM, os.X_OK):
        done = subprocess.run(
            [PROGRAM],
            input="position startpos\ngo perft 1\nquit\n",
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        assert "Nodes searched: 20" in done.stdout and "cannot run" not in done.stdout, done


def open_search(cache: Path | None = None) -> chess.engine.SimpleEngine:
    """The program, with the suite's shared cache or its own ``cache`` folder."""
    env = {**os.environ, **({"NUMBA_CACHE_DIR": str(cache)} if cache is not None else {})}
    return chess.engine.SimpleEngine.popen_uci([PROGRAM], env=env, timeout=300)


def said_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The ``info string`` lines python-chess received (its log, at debug)."""
    return [
        record.getMessage().split(">> info string ", 1)[1]
        for record in caplog.records
        if ">> info string " in record.getMessage()
    ]


@pytest.mark.slow
@needs_program
@pytest.mark.parametrize(("fen", "depth"), [(chess.STARTING_FEN, 4), (KIWIPETE, 3)])
def test_go_perft_counts_as_python_chess_does(search_cache, fen, depth):
    proc = subprocess.run(
        [PROGRAM],
        input=f"position fen {fen}\ngo perft {depth}\nisready\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    # (an info string first where this process compiled anything; readyok wherever isready came
    # during the count, which UCI answers at once)
    lines = [
        line
        for line in proc.stdout.splitlines()
        if not line.startswith("info") and line != "readyok"
    ]
    [total] = [i for i, line in enumerate(lines) if line.startswith("Nodes searched: ")]
    split = dict(line.split(": ") for line in lines[: total - 1])
    assert lines[total - 1] == "" and lines[total + 1] == "" and "readyok" in proc.stdout
    assert "cannot run" not in proc.stdout  # counted by the compiled move generator
    board = chess.Board(fen)
    expected = {}
    for move in board.legal_moves:
        board.push(move)
        expected[move.uci()] = str(reference_perft(board, depth - 1))
        board.pop()
    assert split == expected
    assert lines[total] == f"Nodes searched: {sum(int(n) for n in expected.values())}"


@pytest.mark.slow
@needs_program
def test_a_mate_in_2_is_found_and_said_in_moves(search_cache, caplog):
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    with open_search() as engine:
        info = engine.analyse(chess.Board(MATE_IN_2), chess.engine.Limit(depth=6))
    assert info["score"].relative == chess.engine.Mate(2) and info["pv"][0].uci() == "d5f6"
    # the compiled search's (isready waited for its load from the cache), not the Python search's
    said = said_lines(caplog)
    assert any(line.startswith("the compiled search loaded") for line in said), said
    assert not any("Python search" in line for line in said), said


@pytest.mark.slow
@needs_program
def test_searchmoves_with_multipv_3_gives_three_exact_lines(search_cache):
    board = chess.Board(KIWIPETE)
    among = [chess.Move.from_uci(m) for m in ("e2a6", "d5e6", "g2h3", "a2a3")]
    with open_search() as engine:
        infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3, root_moves=among)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    firsts = [info["pv"][0] for info in infos]
    assert len(set(firsts)) == 3 and set(firsts) <= set(among)
    scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
    assert scores == sorted(scores, reverse=True)
    assert not any(info.get("upperbound") or info.get("lowerbound") for info in infos)


@pytest.mark.slow
@needs_program
def test_stop_ends_go_infinite_at_once_and_limits_beyond_the_most_are_clipped(search_cache, caplog):
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    board = chess.Board(KIWIPETE)
    with open_search() as engine:
        with engine.analysis(board) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 3 and "score" in info:
                    break
            started = time.monotonic()
            analysis.stop()
            best = analysis.wait()
        assert time.monotonic() - started < 2.0  # a generous bound on a ms's work, for a busy box
        assert best.move in board.legal_moves
        for limit in (chess.engine.Limit(depth=200, nodes=20_000), chess.engine.Limit(nodes=0)):
            assert engine.play(board, limit).move in board.legal_moves
    said = "\n".join(said_lines(caplog))
    assert "go depth 200 is beyond the search's 100 plies: searching 100" in said, said


def compiled_said(caplog: pytest.LogCaptureFixture, within: float) -> list[str]:
    """The info strings said, once one of them says a compile ended (waited for ``within``
    seconds at most: a generous bound on a busy machine's cold compile)."""
    deadline = time.monotonic() + within
    while not any(line.startswith("compiled in ") for line in said_lines(caplog)):
        assert time.monotonic() < deadline, said_lines(caplog)
        time.sleep(0.5)  # the compile's end, waited for
    return said_lines(caplog)


@pytest.mark.slow
@pytest.mark.scenario  # a cold compile, half a minute of a core: make test-all
@needs_program
def test_go_while_compiling_and_two_processes_compiling_into_one_cache(tmp_path, caplog):
    """A fresh cache: isready is answered at once and the first go is the Python search's (said);
    two processes compiling into one folder both work, and one of them compiled."""
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    cache = tmp_path / "numba"
    first, second = open_search(cache), open_search(cache)
    try:
        board = chess.Board()
        played = first.play(board, chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        assert played.move in board.legal_moves
        assert "the compiled search is compiling" in played.info.get("string", "")
        said = compiled_said(caplog, 240)
        for engine in (first, second):
            engine.ping()
            assert engine.play(board, chess.engine.Limit(depth=4)).move in board.legal_moves
    finally:
        first.quit()
        second.quit()
    assert sum(line.startswith("compiled in ") for line in said) == 1, said
    assert not any("cannot run" in line for line in said_lines(caplog)), said_lines(caplog)


@pytest.mark.slow
@pytest.mark.scenario  # compiles again: make test-all
@needs_program
def test_a_damaged_cache_is_compiled_again(search_cache, tmp_path, caplog):
    """numba cannot read an index file of the cache (garbage written into it): the cache is
    cleared and compiled again, and the compiled search plays."""
    from engine.compiled import jit

    caplog.set_level(logging.DEBUG, logger="chess.engine")
    copy = tmp_path / jit.cache_dir().name
    shutil.copytree(jit.cache_dir(), copy)
    damaged = sorted(copy.rglob("*.nbi"))
    assert damaged
    for index in damaged:
        index.write_bytes(b"x" * 64)
    with open_search(copy) as engine:
        said = compiled_said(caplog, 240)
        board = chess.Board()
        assert engine.play(board, chess.engine.Limit(depth=4)).move in board.legal_moves
    assert not any("cannot run" in line for line in said_lines(caplog)), said


# -- the built-in search as the guided engine's judge ------------------------------------


def judged(*commands: str, builtin_variable: str | None = None) -> list[str]:
    env = {**os.environ, stockfish.VARIABLE: "none"}
    env.pop(builtin.VARIABLE, None)
    if builtin_variable is not None:
        env[builtin.VARIABLE] = builtin_variable
    return conversation(list(commands), "--casebase", "", env=env)[0]


@pytest.mark.slow
@needs_program
def test_judge_builtin_and_auto_without_stockfish_take_the_built_in_search(search_cache):
    go = ("position startpos moves e2e4", "go depth 2")
    for option in ("setoption name Judge value builtin", "isready"):
        lines = judged(option, *go)
        said = strings(lines)
        assert f"judge: the built-in search ({builtin.PROGRAM} at" in said, said
        assert ("Judge auto found no Stockfish" in said) == (option == "isready")
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    # the suite's way: auto finds no built-in search either
    said = strings(judged(*go, builtin_variable="none"))
    assert "judge: none (Judge auto found no Stockfish" in said and "CBR_CHESS_BUILTIN=none" in said


@pytest.mark.slow
@needs_program
def test_the_built_in_search_killed_mid_game_is_said_once_and_play_goes_on(search_cache):
    env = {**os.environ, stockfish.VARIABLE: "none"}
    env.pop(builtin.VARIABLE, None)
    proc = engine_process("--casebase", "", env=env)
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []

    def move(board: chess.Board) -> None:
        proc.stdin.write(f"position fen {board.fen()}\ngo depth 2\n")
        proc.stdin.flush()
        while not (seen and seen[-1].startswith("bestmove")):
            seen.append(proc.stdout.readline().strip())
        played = chess.Move.from_uci(seen[-1].split()[1])
        assert played in board.legal_moves, seen
        board.push(played)
        seen.append("")

    try:
        board = chess.Board()
        move(board)
        deadline = time.monotonic() + 60
        while f"judge {builtin.PROGRAM} is" in "\n".join(seen) and time.monotonic() < deadline:
            seen.clear()
            time.sleep(0.2)  # another process's start: waited for, not timed
            move(board)
        [judge] = children(proc.pid)
        os.kill(judge, 9)
        assert ended(judge)
        for _ in range(3):
            move(board)
        said = strings(seen)
        assert said.count(f"{builtin.PROGRAM} failed") == 1, said
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_builtin_is_found_beside_python_and_auto_respects_the_variable(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / builtin.PROGRAM
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake.parent / "python"))
    try:
        for named, found, auto in (
            (None, str(fake), str(fake)),
            ("none", str(fake), None),
            ("/opt/search", "/opt/search", "/opt/search"),
        ):
            if named is None:
                monkeypatch.delenv(builtin.VARIABLE, raising=False)
            else:
                monkeypatch.setenv(builtin.VARIABLE, named)
            builtin.installed_search.cache_clear()
            assert (builtin.installed_search(), builtin.search_for_auto()) == (found, auto)
        monkeypatch.delenv(builtin.VARIABLE)
        monkeypatch.setattr(sys, "executable", "/nowhere/python")
        monkeypatch.setenv("PATH", str(tmp_path))
        builtin.installed_search.cache_clear()
        assert builtin.installed_search() is None
    finally:
        builtin.installed_search.cache_clear()
