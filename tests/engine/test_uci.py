"""The UCI loop as a subprocess: protocol conversations, robustness, options, holding bestmove."""

from __future__ import annotations

import subprocess
import sys

import chess
import pytest
from uci_helpers import MAIN, ROOT, Engine, bestmoves, converse, strings


def test_uci_handshake_declares_options_and_loads_lazily(kosteniuk_casebase):
    lines = converse(["uci"], "--casebase", "/nonexistent/x.npz")
    assert lines[0] == "id name cbr-chess" and lines[1].startswith("id author")
    assert lines[-1] == "uciok"
    options = {
        line.split(" name ")[1].split(" type ")[0]: line
        for line in lines
        if line.startswith("option")
    }
    assert set(options) == {
        "Casebase",
        "Mode",
        "DistanceWeight",
        "FromDistanceWeight",
        "FromContentWeight",
        "Seed",
        "Similarity",
        "Neighbours",
        "Temperature",
        "Tolerance",
        "Selection",
        "Prior",
        "Model",
        "CaseWeight",
        "Judge",
        "Search",
        "JudgeDepth",
        "JudgeTolerance",
        "Chooser",
        "UCI_LimitStrength",
        "UCI_Elo",
        "Speed",
        "Tables",
        "SyzygyPath",
        "UCI_ShowWDL",
        "Explain",
        "MultiPV",
        "Move Overhead",
        "HumanTime",
        "Ponder",
        "Threads",
        "Hash",
        "Style",
        "Depth",
        "DepthDeviation",
        "Window",
    }
    assert options["Judge"].endswith("type string default auto")  # Stockfish, where it is installed
    assert options["SyzygyPath"].endswith("type string default <empty>")
    assert options["UCI_ShowWDL"].endswith("type check default false")
    assert options["Mode"].endswith("type combo default guided var pure var guided var chess0")
    assert options["DistanceWeight"].endswith("type spin default 50 min 0 max 100")
    assert "cannot load" not in strings(lines)  # nothing read before isready


@pytest.mark.slow
def test_command_line_sets_option_defaults(kosteniuk_casebase):
    lines = converse(
        ["uci"],
        "--casebase",
        str(kosteniuk_casebase),
        "--weights",
        "0.8",
        "0.2",
        "0.5",
        "--seed",
        "9",
    )
    options = " ".join(line for line in lines if line.startswith("option"))
    assert f"Casebase type string default {kosteniuk_casebase}" in options
    assert "DistanceWeight type spin default 80" in options
    judged = " ".join(converse(["uci"], "--judge", "/usr/games/stockfish"))
    assert "option name Judge type string default /usr/games/stockfish" in judged
    assert "FromDistanceWeight type spin default 20" in options
    assert "Seed type spin default 9" in options
    lines = converse(["uci"], "--weights", "content-to")
    assert "FromContentWeight type spin default 20" in " ".join(lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--weights", "0.5", "0.5"], "three numbers"),
        (["--weights", "0.5", "0.5", "0.333"], "hundredths"),
        (["--seed", "-3"], "Seed takes"),
    ],
)
def test_bad_command_line_is_refused(args, message):
    proc = subprocess.run(
        [sys.executable, str(MAIN), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        input="",
    )
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


def test_help():
    proc = subprocess.run(
        [sys.executable, str(MAIN), "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert proc.returncode == 0
    for flag in ("--casebase", "--mode", "--weights", "--seed"):
        assert flag in proc.stdout


def test_plays_from_the_casebase_and_explains(kosteniuk_casebase):
    lines = converse(
        [
            "uci",
            "setoption name Seed value 3",
            "isready",
            "position startpos moves e2e4",
            "go wtime 1000 btime 1000",
        ],
        "--mode",
        "pure",
        "--casebase",
        str(kosteniuk_casebase),
    )
    text = strings(lines)
    assert "pure mode: casebase" in text and "cases" in text
    assert "similarity" in text and "/256" in text and "case move" in text
    assert lines.index("readyok") < next(
        i for i, line in enumerate(lines) if line.startswith("bestmove")
    )
    (move,) = bestmoves(lines)
    board = chess.Board()
    board.push_uci("e2e4")
    assert board.is_legal(chess.Move.from_uci(move))


def test_robust_against_bad_input(kosteniuk_casebase):
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    lines = converse(
        [
            "go",  # before any position: the start position
            "hello world",
            "\x00\x01 garbage ;;;",
            "",
            "joho debug on",  # unknown token, then a command
            "position startpos moves e2e4",
            "position startpos moves e2e4 e7e5 e1e3",  # illegal move
            "position fen not a fen",
            "position fen 8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
            "position",
            "go",  # still after 1.e4
            "setoption name NoSuchOption value 1",
            "setoption name DistanceWeight value 101",
            "setoption name DistanceWeight value lots",
            "setoption name Mode value nonsense",
            "setoption nonsense",
            "go depth x movetime",
            "register later",
            "isready",
        ],
        "--casebase",
        str(kosteniuk_casebase),
    )
    text = strings(lines)
    for complaint in (
        "unknown command 'hello world'",
        "unknown command 'joho'",
        "(e1e3) is not legal",
        "invalid FEN",
        "impossible position",
        "position needs",
        "no option named 'NoSuchOption'",
        "DistanceWeight takes 0..100, not 101",
        "takes a whole number",
        "Mode takes one of pure",
        "setoption needs",
        "go depth needs a whole number",
    ):
        assert complaint in text
    first, second, third = bestmoves(lines)
    assert chess.Board().is_legal(chess.Move.from_uci(first))
    assert after_e4.is_legal(chess.Move.from_uci(second)) and after_e4.is_legal(
        chess.Move.from_uci(third)
    )
    assert "readyok" in lines


@pytest.mark.parametrize("kind", ["missing", "corrupt", "empty"])
def test_unusable_casebase_still_plays_legal_moves(tmp_path, kind):
    path = tmp_path / "expert.npz"
    if kind == "corrupt":
        path.write_bytes(b"PK\x03\x04 not really a zip file at all")
    args = ["--mode", "pure", "--casebase", str(path) if kind != "empty" else ""]
    lines = converse(["isready", "go", "position startpos moves g2g4", "go"], *args)
    text = strings(lines)
    expected = {
        "missing": "no such casebase file",
        "corrupt": "not an .npz casebase",
        "empty": "no casebase set",
    }
    assert expected[kind] in text and "playing uniformly random legal moves" in text
    first, second = bestmoves(lines)
    assert chess.Board().is_legal(chess.Move.from_uci(first))
    assert chess.Board("rnbqkbnr/pppppppp/8/8/6P1/8/PPPPPP1P/RNBQKBNR b KQkq - 0 1").is_legal(
        chess.Move.from_uci(second)
    )


def test_switching_casebase_and_mode_options(kosteniuk_casebase, tmp_path):
    lines = converse(
        [
            "go",
            f"setoption name Casebase value {tmp_path / 'none.npz'}",
            "go",
            f"setoption name Casebase value {kosteniuk_casebase}",
            "setoption name mode value PURE",
            "go",
        ],
        "--mode",
        "pure",
        "--casebase",
        str(kosteniuk_casebase),
    )
    blocks = "\n".join(lines).split("bestmove")
    assert len(blocks) == 4
    assert "pure mode: casebase Alexandra Kosteniuk" in blocks[0]
    assert "no such casebase file" in blocks[1] and "pure mode" not in blocks[1]
    assert "pure mode: casebase Alexandra Kosteniuk" in blocks[2] and "no such" not in blocks[2]


def test_no_legal_move_answers_0000(kosteniuk_casebase):
    lines = converse(
        ["position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go movetime 100"],
        "--casebase",
        str(kosteniuk_casebase),
    )
    assert bestmoves(lines) == ["0000"] and "checkmate" in strings(lines)


def test_searchmoves_restrict_the_move(kosteniuk_casebase):
    lines = converse(
        ["position startpos", "go searchmoves a2a3 h2h4 e2e5", "go searchmoves e2e5"],
        "--casebase",
        str(kosteniuk_casebase),
    )
    first, second = bestmoves(lines)
    assert first in ("a2a3", "h2h4")
    assert "e2e5 is not a legal move here" in strings(lines) and "searching all moves" in strings(
        lines
    )
    assert chess.Board().is_legal(chess.Move.from_uci(second))


@pytest.mark.slow
def test_fixed_seed_replays_and_ucinewgame_reseeds(kosteniuk_casebase):
    def play(seed: int, games: int) -> tuple[list[list[str]], str]:
        """Opening moves of ``games`` games of the engine against itself, and its info strings."""
        engine = Engine(
            "--mode", "pure", "--casebase", str(kosteniuk_casebase), "--seed", str(seed)
        )
        result, log = [], []
        for _ in range(games):
            engine.send("ucinewgame")
            moves: list[str] = []
            for _ in range(12):
                engine.send("position startpos" + (f" moves {' '.join(moves)}" if moves else ""))
                engine.send("go")
                log += engine.until("bestmove")
                moves += bestmoves(log[-1:])
            result.append(moves)
        assert engine.close() == 0
        return result, strings(log)

    (first, again), _ = play(5, games=2)
    assert first == again
    assert play(5, games=1)[0] == [first]
    ((fresh,), text) = play(0, games=1)
    seed = int(text.split("seed ")[1].split()[0])
    assert play(seed, games=1)[0] == [fresh]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("go", "release"),
    [
        ("go infinite", "stop"),
        ("go ponder wtime 5000 btime 5000", "ponderhit"),
        ("go ponder", "stop"),
    ],
)
def test_held_search_answers_isready_and_waits_for_release(kosteniuk_casebase, go, release):
    engine = Engine("--mode", "pure", "--casebase", str(kosteniuk_casebase))
    engine.send("isready")
    engine.until("readyok")
    engine.send("position startpos moves d2d4")
    engine.send(go)
    thought = engine.until("info depth")  # the move is ready, but held
    engine.send("isready")
    held = engine.until("readyok")
    assert not any(line.startswith("bestmove") for line in thought + held)
    engine.send(release)
    (move,) = bestmoves(engine.until("bestmove"))
    assert chess.Board("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1").is_legal(
        chess.Move.from_uci(move)
    )
    assert engine.close() == 0


def test_quit_during_infinite_search_ends_cleanly(kosteniuk_casebase):
    engine = Engine("--mode", "pure", "--casebase", str(kosteniuk_casebase))
    engine.send("go infinite")
    engine.until("info depth")
    engine.send("quit")
    assert engine.proc.wait(timeout=30) == 0


@pytest.mark.slow
def test_casebase_built_after_start_is_picked_up(kosteniuk_casebase, tmp_path):
    path = tmp_path / "later.npz"
    engine = Engine("--mode", "pure", "--casebase", str(path))
    engine.send("isready")
    assert "no such casebase file" in strings(engine.until("readyok"))
    path.write_bytes(kosteniuk_casebase.read_bytes())
    engine.send("go")
    text = strings(engine.until("bestmove"))
    assert "casebase Alexandra Kosteniuk" in text and "similarity 256/256" in text
    assert engine.close() == 0
