"""Outside engines the tests start: the scripted judge (tests/scripted_engine.py) as one executable,
and a first-move engine. It imports nothing of the project: tests/cluster_scenario.py imports it as
a script, whose path starts with tests/, where a folder of tests named as a package
(tests/casebase/) would stand for it."""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "scripted_engine.py"

#: A score for every move from one square to another (tests/scripted_engine.py's ``--varied``), so
#: that the judged moves differ: a judge that scores every move alike gives the error model nothing
#: to fit, and such a profile is refused.
VARIED = ["--varied"]


def scripted(tmp_path: Path, *args: str) -> str:
    """A judge: the scripted engine (tests/scripted_engine.py) with ``args`` (after scores that
    differ from move to move), as one executable."""
    path = tmp_path / "judge"
    path.write_text(
        f"#!{sys.executable}\nimport runpy, sys\n"
        f"sys.argv = ['scripted'] + {VARIED + list(args)!r}\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return str(path)


#: A UCI engine that plays the first of the legal moves by their UCI names (the fidelity bench's
#: mode ``stockfish`` with it as the judge, and the tournament's effort files).
FAKE_ENGINE = """\
import sys
import chess
import chess.pgn

board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name FirstMove\\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        moves = words.index("moves") if "moves" in words else len(words)
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:moves]))
        for move in words[moves + 1:]:
            board.push_uci(move)
    elif words[0] == "go":
        print("bestmove", min(move.uci() for move in board.legal_moves), flush=True)
    elif words[0] == "quit":
        break
"""
