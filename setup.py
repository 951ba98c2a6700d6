"""The wheel's build: setuptools as pyproject.toml configures it, and the shipped experts' files of
data/ copied into the casebase package (``casebase/data/``, the same paths under it), where an
installed engine finds them (casebase/shipped.py) and ``cbr-chess setup`` makes their casebases and
profiles from them.

They stay in data/, where the Makefile and the tests read them; an editable install reads them there
too. MANIFEST.in puts the same files in an sdist.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = Path(__file__).resolve().parent / "data"
#: Each expert's journals its error profile is fitted from (the Makefile's PROFILE;
#: casebase/shipped.py's JOURNALS).
JOURNALS = ("{id}.jsonl", "{id}.play.jsonl", "{id}.games.jsonl", "{id}.games.play.jsonl")


def shipped_files() -> list[str]:
    """The files of data/ that ship, relative to it: the registry, each expert's games and journals,
    the round robin the games records were drawn from."""
    registry = DATA / "experts.tsv"
    if not registry.is_file():
        raise SystemExit(
            f"{registry}: missing: the wheel carries the shipped experts' games (build from a clone"
            " or an sdist)"
        )
    with open(registry, newline="", encoding="utf-8") as f:
        ids = [row["file"] for row in csv.DictReader(f, delimiter="\t")]
    names = [
        "experts.tsv",
        "games/round-robin-40-20.pgn",
        *(f"experts/{expert}.pgn" for expert in ids),
        *(f"profiles/{journal.format(id=expert)}" for expert in ids for journal in JOURNALS),
    ]
    return [name for name in names if (DATA / name).is_file()]


class BuildWithExperts(build_py):
    """build_py, then the shipped experts' files into the built casebase package (not for an
    editable install, which reads data/ itself)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in shipped_files():
            target = Path(self.build_lib) / "casebase" / "data" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(DATA / name, target)


setup(cmdclass={"build_py": BuildWithExperts})
