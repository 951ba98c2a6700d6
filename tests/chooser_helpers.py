"""Judged moves after 1.e4 for the chooser's tests in play (tests/engine/test_chooser_play.py,
test_chooser_shallow.py): the scripted judge's scores and a chooser that likes what loses, the
fixtures ``judge`` and ``contrary``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from judge_helpers import SCRIPT

from engine.strength.chooser import Chooser
from engine.strength.chooser_features import FEATURES

#: The judge's scores after 1.e4: c5 and e5 level, every other move 150 cp worse.
SCORES = {"c7c5": 10, "e7e5": 0}
OTHERS = -150


@pytest.fixture(scope="module", name="judge")
def judge_command(tmp_path_factory) -> str:
    """The scripted judge (tests/scripted_engine.py) behind a wrapper: the same scores at every
    depth."""
    path = tmp_path_factory.mktemp("judge") / "judge"
    args = [*(f"--score={m}={cp}" for m, cp in SCORES.items()), f"--others={OTHERS}"]
    path.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv = ['scripted'] + {args!r}\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module", name="contrary")
def contrary_chooser(tmp_path_factory) -> tuple[Chooser, Path]:
    """A chooser that likes what loses (unlike the error model) and, among those, what the prior
    likes."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("loss")], weights[FEATURES.index("log prior")] = 20.0, 1.0
    chooser = Chooser(FEATURES, weights, meta={"test": "contrary"})
    path = tmp_path_factory.mktemp("chooser") / "chooser.npz"
    chooser.save(path)
    return chooser, path
