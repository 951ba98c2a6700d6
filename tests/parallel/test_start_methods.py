"""The worker pools under each start method: ``spawn`` (Windows' only one, macOS's default, the
local pool's everywhere) gives what ``fork`` (the casebase builder's on Linux) gives. The engine's
tests that start workers run under either with CBR_CHESS_START_METHOD (docs/architecture.md,
Portability)."""

from __future__ import annotations

import multiprocessing

import pytest

import casebase.builder as builder
from casebase.games import GameFilter
from parallel import pool

FORK = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork here"
)


class Square:
    """A worker made once a process (with an offset given when made), which squares each item."""

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def __call__(self, item: int) -> tuple[int, int]:
        return item, item * item + self.offset

    def close(self) -> None:
        pass


def test_the_pools_start_method_is_spawn_unless_the_variable_says(monkeypatch):
    monkeypatch.delenv(pool.START_METHOD_VARIABLE, raising=False)
    assert pool.start_method() == "spawn"
    monkeypatch.setenv(pool.START_METHOD_VARIABLE, "forkserver")
    assert pool.start_method() == "forkserver"


@FORK
def test_a_pool_job_under_spawn_gives_what_it_gives_under_fork_and_in_process(monkeypatch):
    results = {}
    for method in ("spawn", "fork"):
        monkeypatch.setenv(pool.START_METHOD_VARIABLE, method)
        results[method] = sorted(pool.unordered_map(Square, (7,), range(12), workers=2))
    assert (
        results["spawn"]
        == results["fork"]
        == sorted(pool.unordered_map(Square, (7,), range(12), workers=1))
    )
    assert results["spawn"][:2] == [(0, 7), (1, 8)]


@FORK
def test_a_casebase_built_under_spawn_is_byte_for_byte_the_one_built_under_fork(
    monkeypatch, data_dir, tmp_path
):
    # the builder forks on Linux and spawns elsewhere (casebase/builder.py): both make the same file
    source = data_dir / "experts" / "kosteniuk-2200.pgn"
    for method in ("spawn", "fork"):
        monkeypatch.setattr(
            builder,
            "get_context",
            lambda _default, method=method: multiprocessing.get_context(method),
        )
        builder.build([source], GameFilter("Kosteniuk", max_games=60), workers=2).save(
            tmp_path / f"{method}.npz"
        )
    assert (tmp_path / "spawn.npz").read_bytes() == (tmp_path / "fork.npz").read_bytes()
