"""Outside engines the tests start: the scripted judge (tests/scripted_engine.py) as one executable,
and a first-move engine; Debian's Stockfish, engines that hang, fake engines' executables and their
processes, and the scripted engine as a judge scoring the moves it is given. It imports nothing of
the project: tests/cluster_scenario.py imports it as a script, whose path starts with tests/, where
a folder of tests named as a package (tests/casebase/) would stand for it."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

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

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(
    not Path(STOCKFISH).is_file(),
    reason="Debian's stockfish is not installed (apt-get install stockfish)",
)

#: A UCI engine that answers the handshake and isready but never a go (nor stop).
HANGS = """
import sys
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print(
            "id name Hang\\noption name MultiPV type spin default 1 min 1 max 500\\nuciok",
            flush=True,
        )
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:1] == ["quit"]:
        break
"""


def answering_go(go: str, name: str = "Hang") -> str:
    """:data:`HANGS` named ``name`` and answering a go with ``go``: Python lines, each indented by
    eight spaces (the body of the go's branch; ``sys``, ``words`` and ``time`` are there)."""
    return (
        HANGS.replace("import sys\n", "import sys, time\n")
        .replace("id name Hang", f"id name {name}")
        .replace(
            '    elif words[:1] == ["quit"]:',
            f'    elif words[:1] == ["go"]:\n{go}    elif words[:1] == ["quit"]:',
        )
    )


def fake_engine(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(f"#!{sys.executable}\n{source}", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (Linux: the parent is field 4 of /proc/N/stat)."""
    found: list[int] = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` has ended (and been reaped) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:  # reaped (OSError: maybe while its /proc entry was read), or a zombie
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def scripted_judge(tmp_path: Path, **scores: int) -> str:
    """A judge command: the scripted engine scoring ``scores`` (UCI move -> cp), others -100."""
    words = " ".join(f"--score {move}={cp}" for move, cp in scores.items())
    return fake_engine(
        tmp_path,
        "scripted",
        f"import runpy, sys\nsys.argv = ['scripted'] + {words.split()!r}\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n",
    )
