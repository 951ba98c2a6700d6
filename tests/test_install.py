"""Installed like any Python tool (``pip install .`` into a fresh virtual environment, as pipx
does), the engine keeps its style model and finds the casebases it builds by name."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # it builds the wheel and installs it in a fresh environment

ROOT = Path(__file__).resolve().parent.parent
#: What the wheel is made of.
PACKAGED = ("pyproject.toml", "README.md", "uci_main.py", "common", "casebase", "endgame", "engine", "learn",
            "parallel", "profiling", "fidelity", "tournament")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the project's wheel (its dependencies, already
    installed for the tests, are lent from this environment: the test needs no network)."""
    folder = tmp_path_factory.mktemp("install")
    source = folder / "source"  # what a wheel is built from, without the tree's own build/ leftovers
    source.mkdir()
    for name in PACKAGED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(folder / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    [wheel] = (folder / "dist").glob("cbr_chess-*.whl")
    env = folder / "env"
    venv.create(env)  # without a pip of its own (ensurepip takes seconds): this one's installs into it
    python = env / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the dependencies from this environment, after the wheel's own packages on the path
    (Path(site) / "lent-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # but not matplotlib, which only the extra plots brings: the engine must play without it
    (Path(site) / "matplotlib").mkdir()
    (Path(site) / "matplotlib" / "__init__.py").write_text("raise ImportError('not installed: the plots extra')\n")
    metadata = next(Path(site).glob("cbr_chess-*.dist-info")) / "METADATA"
    requires = [line for line in metadata.read_text().splitlines() if line.startswith("Requires-Dist:")]
    pictures = [line for line in requires if "matplotlib" in line]
    assert 'Requires-Dist: matplotlib>=3.7; extra == "plots"' in pictures and all("; extra ==" in line for line in pictures)
    return env


def run(env: Path, tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A command of the installed environment, run away from the source tree, with its own data folder."""
    variables = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    return subprocess.run([str(env / "bin" / args[0]), *args[1:]], input=stdin, capture_output=True, text=True,
                          cwd=tmp_path, env=variables, timeout=120)


def test_the_installed_engine_plays_guided_with_its_style_model(installed, tmp_path):
    declared = run(installed, tmp_path, "cbr-chess", stdin="uci\nquit\n")
    assert "option name Mode type combo default guided var pure var guided var chess0" in declared.stdout
    done = run(installed, tmp_path, "cbr-chess", "--mode", "guided", "--casebase", "",
               stdin="uci\nisready\nposition startpos\ngo nodes 300\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the wheel carries the default network and what it says of itself (lc0's bindings are lent from here)
    assert "cannot load model" not in out and "the style model (Maia-1900 fine-tuned on master games (lc0 network" in out, out
    assert str(ROOT) not in out  # nothing comes from the source tree
    assert out.splitlines()[-1].startswith("bestmove ") and out.splitlines()[-1] != "bestmove 0000"


def test_the_installed_tools_build_a_casebase_that_the_engine_finds_by_name(installed, tmp_path, data_dir):
    built = run(installed, tmp_path, "python", "-m", "casebase", "build",
                str(data_dir / "experts" / "kosteniuk-2200.pgn"), "--player", "Kosteniuk", "-o", "kosteniuk",
                "--workers", "1", "--quiet")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "data" / "cbr-chess" / "casebases" / "kosteniuk.npz").is_file()
    done = run(installed, tmp_path, "cbr-chess", "--casebase", "kosteniuk", "--mode", "guided",
               stdin="isready\nposition startpos\ngo nodes 300\n")
    assert "guided mode: casebase Kosteniuk (5613 cases" in done.stdout, done.stdout
    info = run(installed, tmp_path, "python", "-m", "casebase", "info", "kosteniuk")
    assert info.returncode == 0 and "expert:        Kosteniuk" in info.stdout
    missing = run(installed, tmp_path, "cbr-chess", "--casebase", "nobody", stdin="isready\n")
    assert "python -m casebase build GAMES.pgn --player NAME -o nobody" in missing.stdout
    # without matplotlib, a round robin's report has its tables and no picture
    casebase = tmp_path / "data" / "cbr-chess" / "casebases" / "kosteniuk.npz"
    shutil.copy(casebase, tmp_path / "twin.npz")
    played = run(installed, tmp_path, "python", "-m", "tournament", "run", "--casebases", str(casebase),
                 str(tmp_path / "twin.npz"), "--configs", "balanced", "--rounds", "1", "--tc", "40/60",
                 "--workers", "1", "--out", "rr")
    assert played.returncode == 0, played.stderr
    assert "## Terminations" in played.stdout and "strength.png" not in played.stdout
    assert not (tmp_path / "rr" / "strength.png").exists()
