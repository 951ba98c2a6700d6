"""Bad input meets the newer options as it meets the old ones (issue #28): a clear line, a legal
move, nothing on stderr; and what match runners and bots read of every move is complete."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.engine
import pytest
from uci_helpers import ROOT, bestmoves, conversation, popen, strings

pytestmark = pytest.mark.slow  # each test plays through the engine's process

SYZYGY = ROOT / "tests" / "data" / "syzygy"
#: The fuzzer's position where the error model once had no move to choose among.
FUZZED = (
    "position startpos moves h2h3 c7c5 f2f3 g7g6 c2c3 f7f5 c3c4 a7a5 g2g4 d8c7 d2d4 c7d6 b1a3 b7b6"
    " b2b4 c8a6 d4d5 d6d5 c1e3 e7e5"
)


@pytest.mark.parametrize("selection", ["likely", "calibrated"])
def test_a_search_that_scored_nothing_leaves_the_error_model_a_legal_move(selection):
    lines, stderr = conversation(
        [
            "setoption name UCI_LimitStrength value true",
            f"setoption name Selection value {selection}",
            FUZZED,
            "go nodes 1",
            "go depth 1",
        ],
        "--mode",
        "guided",
        "--casebase",
        "",
    )
    assert "Traceback" not in stderr and "error while choosing" not in strings(lines)
    board = chess.Board()
    for move in FUZZED.split()[3:]:
        board.push_uci(move)
    assert (
        all(board.is_legal(chess.Move.from_uci(m)) for m in bestmoves(lines))
        and len(bestmoves(lines)) == 2
    )


def test_complaints_are_bounded_whatever_the_input():
    tokens = " ".join(f"z{i}" for i in range(100_000))
    lines, stderr = conversation(
        ["position startpos", f"go depth 1 searchmoves {tokens}", f"go depth 1 {tokens}"],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    complaints = [line for line in lines if "searchmoves:" in line or "unknown parameter" in line]
    assert (
        len(complaints) == 3
        and "and 997 more" in complaints[0]
        and "and 99997 more" in complaints[2]
    )
    # issue #60
    assert "only the first 1000 words are read; the other 99000 ignored" in complaints[1]
    assert max(map(len, lines)) < 4096 and len(bestmoves(lines)) == 2 and not stderr


@pytest.mark.parametrize("folder", ["/tmp/" + "x" * 3000, "/tmp/a\x00b"])
def test_a_tables_folder_the_system_refuses_is_one_line(folder):
    lines, stderr = conversation(
        [f"setoption name Tables value {folder}", "isready", "position startpos", "go depth 1"],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert "Traceback" not in stderr and not stderr
    told = [line for line in lines if "Tables: cannot use" in line or "cannot save" in line]
    # the folder refused, or each table kept in memory
    assert 1 <= len(told) <= 2 and max(map(len, lines)) < 4096
    assert bestmoves(lines) and bestmoves(lines)[0] != "0000"


def test_one_seed_is_told_for_one_game():
    lines, _ = conversation(
        ["isready", "ucinewgame", "isready", "position startpos", "go depth 1"],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert sum(line.startswith("info string seed ") for line in lines) == 1


@pytest.mark.parametrize("mode", ["pure", "guided", "chess0"])
def test_the_last_line_before_bestmove_is_what_runners_record(kosteniuk_casebase, mode):
    """Depth, nodes, time, a score, and a principal variation that starts with the move played:
    what fastchess and lichess-bot read of the move (python-chess keeps the last line's values)."""
    board = chess.Board()
    board.push_uci("e2e4")
    with popen("--mode", mode, "--casebase", str(kosteniuk_casebase), "--seed", "2") as engine:
        for limit in (
            chess.engine.Limit(depth=2),
            chess.engine.Limit(nodes=1),
            chess.engine.Limit(time=0.05),
        ):
            result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            info = result.info
            assert info["depth"] >= 1 and info["nodes"] >= 1 and "time" in info, info
            assert info["score"].relative.score(mate_score=100_000) is not None
            assert info["pv"][0] == result.move


def test_syzygy_tables_play_won_and_drawn_endings_and_wdl_is_shown(kosteniuk_casebase):
    won = chess.Board("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1")  # the pawn queens
    drawn = chess.Board("8/8/8/8/4k3/8/4P3/4K3 w - - 0 1")  # the defender holds the opposition
    with popen("--mode", "pure", "--casebase", str(kosteniuk_casebase), "--seed", "3") as engine:
        assert (
            engine.options["SyzygyPath"].default in ("", "<empty>")
            and engine.options["UCI_ShowWDL"].type == "check"
        )
        engine.configure({"SyzygyPath": str(SYZYGY), "Tables": "", "UCI_ShowWDL": True})
        for start, result in ((won, "1-0"), (drawn, "1/2-1/2")):
            board = start.copy()
            while not board.is_game_over(claim_draw=True) and board.ply() < 120:
                played = engine.play(board, chess.engine.Limit(depth=1), info=chess.engine.INFO_ALL)
                assert "wdl" in played.info
                board.push(played.move)
            assert board.result(claim_draw=True) == result, board.fen()
        searched = engine.play(
            won, chess.engine.Limit(depth=1), root_moves=[chess.Move.from_uci("e6d6")]
        )
        assert searched.move == chess.Move.from_uci("e6d6")  # the tables keep to searchmoves


def test_a_syzygy_path_that_cannot_be_read_is_told_once(tmp_path: Path):
    lines, stderr = conversation(
        [
            f"setoption name SyzygyPath value {tmp_path / 'none'}",
            "position startpos",
            "go depth 1",
            "go depth 1",
        ],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert sum("SyzygyPath: cannot read" in line for line in lines) == 1 and not stderr
    assert len(bestmoves(lines)) == 2


def test_long_values_and_paths_are_never_echoed_whole():
    """The fuzzer's: a 5,000-character Model and Casebase declared back by ``uci``, and a casebase
    name too long for the system, which once raised while its refusal was being worded."""
    long = "x" * 5000
    lines, stderr = conversation(
        [
            f"setoption name Model value {long}",
            f"setoption name Casebase value {long}",
            "uci",
            "isready",
            "position startpos",
            "go depth 1",
        ],
        "--mode",
        "pure",
    )
    assert max(map(len, lines)) < 4096 and bestmoves(lines) and "Traceback" not in stderr
    lines, stderr = conversation(
        ["isready", "go depth 1"], "--mode", "pure", "--casebase", str(ROOT / "casebases" / long)
    )
    assert (
        "Traceback" not in stderr and "cannot load casebase" in strings(lines) and bestmoves(lines)
    )


def test_tables_that_cannot_be_saved_are_kept_in_memory_and_told():
    """The fuzzer's: a Tables folder 1,500 levels deep (mkdir recursed until Python gave up)."""
    lines, stderr = conversation(
        [
            f"setoption name Tables value {'/a' * 1500}",
            "isready",
            "position fen 8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
            "go depth 1",
        ],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert not stderr and "cannot save KQK" in strings(lines) and max(map(len, lines)) < 4096
    assert bestmoves(lines) == ["d1d7"]  # the tables' mate, made in memory


@pytest.mark.skipif(
    not Path("/usr/games/stockfish").exists(),
    reason="needs Debian's stockfish (apt-get install stockfish)",
)
@pytest.mark.parametrize("selection", ["argmax", "calibrated"])
def test_a_judges_own_best_move_keeps_to_searchmoves(selection):
    """The fuzzer's: with a judge, go searchmoves was answered by the judge's best move outside the
    list."""
    board = chess.Board()
    board.push_uci("e2e4")
    with popen("--mode", "guided", "--casebase", "", "--seed", "4") as engine:
        engine.configure({"Judge": "/usr/games/stockfish", "Selection": selection, "JudgeDepth": 6})
        listed = [chess.Move.from_uci("a7a6"), chess.Move.from_uci("h7h6")]
        for _ in range(2):
            played = engine.play(
                board, chess.engine.Limit(depth=2), root_moves=listed, info=chess.engine.INFO_ALL
            )
            assert played.move in listed, played.info
