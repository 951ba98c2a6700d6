"""Option Judge's default, ``auto`` (issue #67): the Stockfish installed judges, and the engine says
so in one line; ``none`` plays without one; a program ``auto`` finds that is no UCI engine is said
once and play goes on. The suite sets ``CBR_CHESS_STOCKFISH=none`` (conftest.py); these tests name
it."""

from __future__ import annotations

import os
import shutil
import stat
import time

import chess
import pytest
from uci_helpers import conversation, engine_process, strings

from engine.outside import stockfish

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
GO = ["position startpos moves e2e4", "go depth 1", "go depth 1"]


def engine_with(found: str, *commands: str, wait: float = 0.0) -> list[str]:
    """The engine's lines for ``commands`` and two moves, with ``found`` for the Stockfish
    installed; ``wait`` seconds between the moves (a judge starts on a thread of its own: the first
    move may not wait for it)."""
    env = {**os.environ, stockfish.VARIABLE: found}
    if not wait:
        return conversation([*commands, *GO], "--casebase", "", env=env)[0]
    proc = engine_process("--casebase", "", env=env)
    assert proc.stdin is not None
    for command in [*commands, GO[0], GO[1]]:
        proc.stdin.write(command + "\n")
    proc.stdin.flush()
    time.sleep(wait)  # counted in seconds, not work: what is waited for is another process's start
    out, _ = proc.communicate(GO[2] + "\n", timeout=60)
    return out.splitlines()


def test_auto_looks_where_it_is_told_then_on_path(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "stockfish"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    for named, found in (("none", None), ("", None), ("/opt/sf", "/opt/sf")):
        monkeypatch.setenv(stockfish.VARIABLE, named)
        stockfish.installed_stockfish.cache_clear()
        assert stockfish.installed_stockfish() == found
    monkeypatch.delenv(stockfish.VARIABLE)
    monkeypatch.setenv("PATH", str(fake.parent))
    stockfish.installed_stockfish.cache_clear()
    try:
        assert stockfish.installed_stockfish() == str(fake)
    finally:
        stockfish.installed_stockfish.cache_clear()


@pytest.mark.slow
@pytest.mark.skipif(
    not os.access(STOCKFISH, os.X_OK), reason="needs Stockfish (apt-get install stockfish)"
)
def test_the_installed_stockfish_judges_by_default_and_none_plays_without():
    said = strings(engine_with(STOCKFISH, wait=2.0))
    assert (
        said.count(f"judge: Stockfish at {STOCKFISH} (Judge auto; Judge none plays without it)")
        == 1
    )
    assert "judge Stockfish" in said  # the verdict's line names the judge
    said = strings(engine_with(STOCKFISH, "setoption name Judge value none"))
    assert "judge: Stockfish" not in said and "judge Stockfish" not in said


@pytest.mark.slow
def test_no_stockfish_found_plays_without_a_judge_and_says_so_once():
    lines = engine_with("none")
    assert strings(lines).count("judge: none (Judge auto found no Stockfish") == 1
    assert len([line for line in lines if line.startswith("bestmove")]) == 2


@pytest.mark.slow
def test_a_program_auto_finds_that_is_no_uci_engine_is_said_and_play_goes_on():
    lines = engine_with("/bin/cat", wait=6.0)
    said = strings(lines)
    assert "judge: Stockfish at /bin/cat" in said and "judge cat refused" in said
    board = chess.Board()
    board.push_uci("e2e4")
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert len(moves) == 2 and all(chess.Move.from_uci(m) in board.legal_moves for m in moves)
