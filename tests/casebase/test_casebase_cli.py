"""``python -m casebase build|holdout|info`` as a user runs it (real subprocesses)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import chess.pgn
import numpy as np
import pytest
from uci_helpers import ROOT

from casebase.format import Casebase


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "casebase", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_build_reports_spellings_and_writes_the_same_bytes_with_any_workers(
    tmp_path, data_dir, gaprindashvili_casebase
):
    pgn = data_dir / "experts" / "gaprindashvili-2300.pgn"
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    done = run("build", pgn, "--player", "Nona Gaprindashvili", "-o", one, "--workers", 1)
    assert done.returncode == 0, done.stderr
    assert (
        "'Gaprindashvili, Nona' (248), 'Gaprindashvili,N1' (148), 'Gaprindashvili,N' (91)"
        in done.stdout
    )
    assert "487 games used of 487 read" in done.stdout and "median own Elo 2355" in done.stdout
    assert done.stderr == ""  # no progress bar when stderr is not a terminal
    assert (
        run("build", pgn, "--player", "Gaprindashvili", "-o", two, "--workers", 2, "--quiet").stdout
        == ""
    )
    assert one.read_bytes() != two.read_bytes()  # the name given is part of the metadata
    assert Casebase.load(two).meta["counts"] == Casebase.load(one).meta["counts"]
    assert one.read_bytes() == gaprindashvili_casebase.read_bytes()  # fixture: in-process, 1 worker


def test_info_describes_a_casebase(kosteniuk_casebase):
    done = run("info", kosteniuk_casebase)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "expert:        Alexandra Kosteniuk" in out and "median Elo:    2290" in out
    assert "cases:         5613 (2874 as White, 2739 as Black)" in out
    cb = Casebase.load(kosteniuk_casebase)
    positions = {(cb.boards[i].tobytes(), bool(cb.turn[i])) for i in range(len(cb))}
    assert f"positions:     {len(positions)} distinct" in out
    white_first = [cb.move(i).uci() for i in range(len(cb)) if cb.ply[i] == 0]
    assert f"first moves as White: e4 {white_first.count('e2e4')}, " in out
    assert "kosteniuk-2200.pgn: 121 games read, sha256 " in out
    assert f"({kosteniuk_casebase.stat().st_size:,} bytes)" in out


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("cases_white", 1, "metadata says 1 cases white, the arrays hold 2874"),
        ("cases_black", 0, "metadata says 0 cases black, the arrays hold 2739"),
        ("games_used", 7, "metadata says 7 games used, the arrays hold 121"),
    ],
)
def test_info_refuses_a_file_whose_counts_disagree_with_its_arrays(
    kosteniuk_casebase, tmp_path, key, value, message
):
    with np.load(kosteniuk_casebase) as npz:
        arrays = dict(npz)
    meta = json.loads(str(arrays["meta"]))
    meta["counts"][key] = value
    arrays["meta"] = np.array(json.dumps(meta))
    bad = tmp_path / "edited.npz"
    np.savez(bad, **arrays)
    done = run("info", bad)
    assert done.returncode == 1 and done.stdout == "" and message in done.stderr


def test_info_on_a_bad_file_says_why_and_fails(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 truncated")
    done = run("info", bad)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("casebase: error: ") and "bad.npz" in done.stderr


def test_no_match_lists_closest_names_and_writes_nothing(tmp_path, data_dir):
    out = tmp_path / "x.npz"
    done = run(
        "build", data_dir / "experts" / "vanwely-2600.pgn", "--player", "Loek van Weely", "-o", out
    )
    assert done.returncode == 1
    assert "no game in vanwely-2600.pgn has a player matching 'Loek van Weely'" in done.stderr
    assert "Van Wely,L (2057 games)" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_missing_input_and_empty_result_write_nothing(tmp_path, data_dir):
    out = tmp_path / "x.npz"
    missing = run("build", tmp_path / "none.pgn", "--player", "X", "-o", out)
    assert missing.returncode == 1 and "none.pgn: no such file" in missing.stderr
    empty = run(
        "build",
        data_dir / "experts" / "kosteniuk-2200.pgn",
        "--player",
        "Kosteniuk",
        "--min-elo",
        2900,
        "-o",
        out,
    )
    assert empty.returncode == 1 and "no cases left" in empty.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_holdout_writes_the_games_left_out_by_exclude_latest(tmp_path, data_dir):
    pgn = data_dir / "experts" / "kosteniuk-2200.pgn"
    kept, heldout = tmp_path / "kept.npz", tmp_path / "heldout.pgn"
    assert (
        run(
            "build", pgn, "--player", "Kosteniuk", "--exclude-latest", 0.15, "-o", kept, "--quiet"
        ).returncode
        == 0
    )
    done = run("holdout", pgn, "--player", "Kosteniuk", "--latest", 0.15, "-o", heldout)
    assert done.returncode == 0, done.stderr
    assert "18 held-out games of Kosteniuk written" in done.stdout
    handle = io.StringIO(heldout.read_text(encoding="utf-8"))
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        games.append((game.headers["White"], game.headers["Black"], game.headers["Date"]))
    cb = Casebase.load(kept)
    kept_games = set(
        zip(cb.games["white"].tolist(), cb.games["black"].tolist(), cb.games["date"].tolist())
    )
    assert len(games) == 18 and cb.num_games == 121 - 18
    assert not kept_games & set(games)
    rest = tmp_path / "kept.pgn"  # the other games: a casebase of them is the casebase above
    done = run("holdout", pgn, "--player", "Kosteniuk", "--latest", 0.15, "--kept", "-o", rest)
    assert done.returncode == 0 and "103 kept games of Kosteniuk written" in done.stdout
    assert (
        run(
            "build", rest, "--player", "Kosteniuk", "-o", tmp_path / "rest.npz", "--quiet"
        ).returncode
        == 0
    )
    again = Casebase.load(tmp_path / "rest.npz")
    assert (
        len(again) == len(cb)
        and np.array_equal(again.boards, cb.boards)
        and np.array_equal(again.to_square, cb.to_square)
    )
