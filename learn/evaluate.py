"""How well a model names the moves of a casebase, with numpy inference over legal moves only."""

from __future__ import annotations

import os

import numpy as np

from casebase.format import Casebase
from engine.style.loader import load_model


def legal_top1(model_path: str | os.PathLike[str], casebase_path: str | os.PathLike[str],
               positions: int, batch: int = 256) -> tuple[float, int]:
    """The share of ``positions`` cases (spread evenly) whose move is the model's favourite
    legal move, and how many cases were asked."""
    model = load_model(model_path)
    casebase = Casebase.load(casebase_path)
    rows = np.linspace(0, len(casebase) - 1, min(positions, len(casebase))).astype(np.int64)
    hits = 0
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch].tolist()
        boards = [casebase.board(r) for r in part]
        # A case board has no castling rights: the case's own move is always a candidate.
        moves = [[*b.legal_moves, *([casebase.move(r)] if not b.is_legal(casebase.move(r)) else [])]
                 for b, r in zip(boards, part)]
        priors = model.priors(boards, moves)
        hits += sum(max(p, key=p.__getitem__) == casebase.move(r) for p, r in zip(priors, part) if p)
    return hits / len(rows), len(rows)
