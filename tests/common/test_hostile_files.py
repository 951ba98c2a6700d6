"""Hostile files meet a bound (issue #69): each reader given a file that claims gigabytes (a gzip
bomb, an ``.npz`` member that inflates to 2 GiB or declares billions of cases, a 1 GiB line) refuses
it or passes it over, naming the bound, with the reading process's peak resident memory (``VmHWM``)
measured: in a fresh interpreter for each reader, and in the engine's own process for what option
Model, option Casebase and the learned similarity read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import chess
import numpy as np
import pytest
from uci_helpers import ROOT, Engine

from testing.bombs import gzip_zeros, npz_with

GIB = 1 << 30
#: The peak resident memory a reader or the engine may reach with any of these files (the engine
#: plays in about 90 MiB; each bound lets at most 64 MiB of a bomb in).
MOST_RESIDENT = 400 << 20


def peak(pid: int | str = "self") -> int:
    """The peak resident memory of process ``pid`` in bytes (Linux's VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


pytestmark = pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="VmHWM is Linux's")


def arrays_of(path: Path, leave_out: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` at ``path`` but ``leave_out``."""
    with zipfile.ZipFile(path) as zf:
        return {
            info.filename.removesuffix(".npy"): np.lib.format.read_array(zf.open(info))
            for info in zf.infolist()
            if info.filename != f"{leave_out}.npy"
        }


def read_in_fresh_process(code: str) -> tuple[str, int]:
    """What ``code`` (run in a new interpreter from the repository) printed, and that process's peak
    resident memory."""
    script = (
        textwrap.dedent(code)
        + "\nfrom pathlib import Path\nprint('PEAK', Path('/proc/self/status').read_text()"
        ".split('VmHWM:')[1].split()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    said, _, kib = done.stdout.rpartition("PEAK ")
    return said.strip(), int(kib) * 1024


@pytest.fixture(scope="module")
def bombs(tmp_path_factory, kosteniuk_casebase) -> dict[str, Path]:
    """The crafted files, made once (about a second)."""
    folder = tmp_path_factory.mktemp("bombs")
    casebase = folder / "cases.npz"
    shutil.copy(kosteniuk_casebase, casebase)
    cases = arrays_of(casebase, "boards")
    embed = {
        "format": np.array("cbr-chess-embeddings"),
        "version": np.array(1),
        "meta": np.array(json.dumps({})),
    }
    learned = folder / "learned.npz"
    shutil.copy(kosteniuk_casebase, learned)
    return {
        "network": gzip_zeros(folder / "zeros.pb.gz", 2 * GIB),
        "casebase": npz_with(folder / "bomb.npz", cases, "boards", (GIB // 32, 8), "uint64"),
        "billions": npz_with(
            folder / "billions.npz", cases, "boards", (4 * 10**9, 8), "uint64", holds=16 << 20
        ),
        "casebase copy": casebase,
        "learned": learned,
        "embeddings": npz_with(folder / "vectors.npz", embed, "vectors", (8 * 2**20, 256), "int8"),
        "pgn": gzip_zeros(folder / "zeros.pgn.gz", 2 * GIB),
        "model": npz_with(
            folder / "model.npz",
            {"format": np.array("cbr-chess-model")},
            "stem.w",
            (2**20, 1024),
            "float16",
        ),
        "chooser": npz_with(
            folder / "chooser.npz",
            {"format": np.array("cbr-chess-chooser")},
            "weights",
            (2**28,),
            "float64",
        ),
        "table": npz_with(
            folder / "KBNK.npz",
            {"format": np.array("cbr-chess-endgame")},
            "white_to_move",
            (10, 64, 64, 64, 64 * 8),
            "int8",
        ),
    }


@pytest.mark.parametrize(
    "kind, code, refusal",
    [
        ("network", "from lc0net.weights import read_network as r", "inflates past 64 MiB"),
        (
            "casebase",
            "from casebase.format import Casebase; r = Casebase.load",
            "declares (33554432, 8) uint64 (2,048 MiB), over the 512 MiB the arrays of one"
            " casebase may take together",
        ),
        (
            "billions",
            "from casebase.format import Casebase; r = Casebase.load",
            "declares (4000000000, 8) uint64 (244,141 MiB) but holds 16 MiB: damaged",
        ),
        ("pgn", "from casebase.sources import read_source as r", "inflates past 64 MiB"),
        (
            "model",
            "from engine.style.model import StyleModel; r = StyleModel.load",
            "over the 256 MiB the arrays of one model",
        ),
        (
            "chooser",
            "from engine.strength.chooser import Chooser; r = Chooser.load",
            "over the 16 MiB the arrays of one chooser",
        ),
        (
            "table",
            "from endgame.tablebase import Stored; r = Stored.load",
            "over the 6 MiB the arrays of one endgame table",
        ),
    ],
)
def test_each_reader_refuses_a_file_over_its_bound_before_taking_the_memory(
    bombs, kind, code, refusal
):
    said, resident = read_in_fresh_process(f"""
        {code}
        try:
            r({str(bombs[kind])!r})
        except Exception as exc:
            print(type(exc).__name__, exc)
        """)
    assert refusal in said and str(bombs[kind]) in said
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"


def test_embeddings_that_inflate_to_2_gib_are_refused_and_name_the_bound(bombs):
    shutil.copy(bombs["embeddings"], bombs["casebase copy"].with_suffix(".embed.npz"))
    said, resident = read_in_fresh_process(f"""
        from casebase.embeddings import read_embeddings
        from casebase.format import Casebase
        try:
            read_embeddings(Casebase.load({str(bombs["casebase copy"])!r}))
        except Exception as exc:
            print(type(exc).__name__, exc)
        """)
    assert (
        "vectors.npy declares (8388608, 256) int8 (2,048 MiB), over the 1,024 MiB the arrays"
        " of one file of embeddings" in said
    )
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"


def test_a_line_of_1_gib_is_passed_over_in_a_journal_a_cache_and_a_pgn_stream(tmp_path):
    journal = tmp_path / "j.jsonl"
    with open(journal, "wb") as f:
        f.write(b'{"journal": "x"}\n{"key": "a"}\n')
        # a sparse run of NULs: a line of 1 GiB without a newline, then one more entry
        f.seek(GIB, 1)
        f.write(b'\n{"key": "b"}\n')
    said, resident = read_in_fresh_process(f"""
        from pathlib import Path
        from common.journal import read_journal
        print(read_journal(Path({str(journal)!r})))
        """)
    assert said == "({'journal': 'x'}, [(2, {'key': 'a'}), (4, {'key': 'b'})], [3])"
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"
    pgn = gzip_zeros(tmp_path / "line.pgn.gz", GIB)
    said, resident = read_in_fresh_process(f"""
        from pathlib import Path
        from learn.chooser.positions import open_pgn
        with open_pgn(Path({str(pgn)!r})) as f:
            print([len(line) for line in f])
        """)
    assert said == f"[{(1 << 20) + 1}]"  # cut at 1 MiB, its newline kept
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"


def test_the_judged_cache_passes_over_a_long_line_and_keeps_the_rest(tmp_path, monkeypatch):
    from common import bounded
    from profiling.cache import _File

    header = {"journal": "cbr-chess-judged", "depth": 1}
    path = tmp_path / "c.jsonl"
    entry = {"key": "F e2e4", "fen": "F", "moves": ["e2e4"], "scores": [0], "played": 0}
    path.write_text(json.dumps(header) + "\n" + "x" * 200 + "\n" + json.dumps(entry) + "\n")
    monkeypatch.setattr("common.journal.lines", lambda f: bounded.lines(f, 100))
    cache = _File(path, header)
    assert list(cache.entries) == ["F e2e4"] and cache.damaged == 1


@pytest.mark.parametrize(
    "option, refusal",
    [
        ("Model", "cannot load model: {path} (a network): inflates past 64 MiB"),
        (
            "Casebase",
            "cannot load casebase: {path}: boards.npy declares (33554432, 8) uint64 (2,048 MiB),"
            " over the 512 MiB",
        ),
    ],
)
def test_the_engine_refuses_the_option_and_plays_on_within_its_memory(bombs, option, refusal):
    path = bombs["network" if option == "Model" else "casebase"]
    engine = Engine()
    try:
        engine.send("uci")
        engine.until("uciok")
        engine.send(f"setoption name {option} value {path}")
        engine.send("isready")
        said = engine.until("readyok")
        engine.send("position startpos")
        engine.send("go nodes 200")
        best = engine.until("bestmove")[-1].split()[1]
        resident = peak(engine.proc.pid)
    finally:
        assert engine.close() == 0
    assert refusal.format(path=path) in "\n".join(said)
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"


def test_the_engine_with_the_learned_similarity_refuses_embeddings_that_inflate_to_2_gib(bombs):
    shutil.copy(bombs["embeddings"], bombs["learned"].with_suffix(".embed.npz"))
    engine = Engine("--casebase", str(bombs["learned"]), "--mode", "pure")
    try:
        engine.send("uci")
        engine.until("uciok")
        engine.send("setoption name Similarity value learned")
        engine.send("position startpos moves e2e4")
        engine.send("go nodes 200")
        said = engine.until("bestmove")
        resident = peak(engine.proc.pid)
    finally:
        assert engine.close() == 0
    assert "over the 1,024 MiB the arrays of one file of embeddings may take together" in "\n".join(
        said
    )
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(said[-1].split()[1]) in board.legal_moves
    assert resident < MOST_RESIDENT, f"{resident >> 20} MiB"
