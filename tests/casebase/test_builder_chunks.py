"""The casebase builder's reading (cbr-agent.md §2): PGN cut into chunks of whole games, read over
worker processes and merged in file order, the same casebase whatever the number of workers."""

from __future__ import annotations

import io
import multiprocessing.pool
import os
import signal
import subprocess
import sys

import chess.pgn
import pytest
from pgn_helpers import game

import casebase.builder as builder
from casebase.builder import build, collect
from casebase.format import Casebase
from casebase.games import GameFilter
from casebase.sources import chunk_bounds


def test_chunks_hold_whole_games_and_never_cut_inside_a_comment():
    text = (
        game("A", "B", '1. e4 {a comment\n\n[White "not a tag"]\n} e5 *')
        + game("C", "D", "1. d4 *")
        + '[Event "x"]\n\n[White "E"]\n\n1. c4 *\n'
    )
    for size in (1, 10, 60, 1000):
        bounds = chunk_bounds(text, size)
        assert "".join(text[a:b] for a, b in bounds) == text
        headers = [h["White"] for a, b in bounds for h in _all_headers(text[a:b])]
        assert headers == ["A", "C", "E"]


def _all_headers(text: str) -> list[chess.pgn.Headers]:
    handle, found = io.StringIO(text), []
    while (headers := chess.pgn.read_headers(handle)) is not None:
        found.append(headers)
    return found


@pytest.fixture
def small_chunks(monkeypatch):
    """Cut inputs into many chunks, so that several workers share even a small file."""
    monkeypatch.setattr(builder, "CHUNK_SIZE", 20_000)


def test_same_bytes_whatever_the_number_of_workers(tmp_path, data_dir, small_chunks):
    path = data_dir / "experts" / "paehtz-2400.pgn"
    for workers in (1, 1, 2, 3):
        selection = GameFilter("Kosteniuk", max_games=40 if workers < 3 else None)
        build([path], selection, workers=workers).save(
            tmp_path / f"{workers}-{selection.max_games}.npz"
        )
    files = sorted(tmp_path.iterdir())
    assert len(files) == 3
    assert files[0].read_bytes() == files[1].read_bytes() != files[2].read_bytes()
    many = Casebase.load(files[2])  # 3 workers, all games
    assert many.num_games > 40 and many.meta["counts"]["games_read"] == 1828


def test_a_read_stopped_early_lets_the_workers_finish_and_hands_out_few_chunks_ahead(
    monkeypatch, data_dir, small_chunks
):
    # Pool.terminate waits for ever on a worker killed while it sends (CI hung 300 s so): a stop at
    # max_games closes the pool, whose workers have only the chunks handed out ahead left to do.
    def refuse(pool):
        raise AssertionError("the pool was terminated")

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", refuse)
    handed = []
    ahead = builder._ahead

    def counted(pool, function, items, window):
        return ahead(pool, function, (handed.append(item) or item for item in items), window)

    monkeypatch.setattr(builder, "_ahead", counted)
    path = data_dir / "experts" / "kosteniuk-2200.pgn"  # her games all: the first chunk holds 3
    collection = collect([path], GameFilter("Kosteniuk", max_games=3), workers=2)
    assert len(collection.games) == 3
    stopped = len(handed)
    collect([path], GameFilter("Kosteniuk", max_games=None), workers=2)
    assert stopped == builder.IN_FLIGHT_PER_WORKER * 2 < len(handed) - stopped


def test_collected_game_indices_match_sequential_reading(data_dir, small_chunks):
    path = data_dir / "experts" / "gaprindashvili-2300.pgn"
    collection = collect([path], GameFilter(all_players=True, max_games=None), workers=2)
    headers = _all_headers(path.read_text(encoding="utf-8"))
    assert collection.games_read == [len(headers)]
    for _, g in collection.games[::50]:
        assert g.tags[0] == headers[g.index]["White"]


def test_ctrl_c_during_a_build_on_workers_ends_it_at_once(data_dir):
    # the terminal's SIGINT reaches the workers too: had they died with the chunks handed to them,
    # the pool's join would wait for those for ever. The build waits on its stdin after its first
    # chunk (the test never writes it), so that it cannot end before the SIGINT on a fast machine
    code = (
        # as at a terminal: a suite started in the background (make test &) hands its processes
        # SIGINT ignored, and Python then never raises KeyboardInterrupt
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import sys; import casebase.builder as b; from casebase.games import GameFilter\n"
        "b.CHUNK_SIZE = 5_000; ahead = b._ahead\n"
        "def told(*args):\n"
        "    for i, result in enumerate(ahead(*args)):\n"
        "        if i == 0: print('first', flush=True); sys.stdin.readline()\n"
        "        yield result\n"
        "b._ahead = told\n"
        f"b.collect([{str(data_dir / 'experts' / 'paehtz-2400.pgn')!r}],"
        " GameFilter(all_players=True, max_games=None), workers=2)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "first\n"
    os.killpg(process.pid, signal.SIGINT)
    try:
        _, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:  # it hung: nothing of it is left behind
            os.killpg(process.pid, signal.SIGKILL)
    assert "KeyboardInterrupt" in errors
