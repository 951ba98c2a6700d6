"""The built-in search's centipawns on the scale of the profiles' judge (issue #73): the scale
``cbr-chess-search`` says its scores on (``engine.uci.compiling.CP_SCALE``).

    python -m experiments.builtin_scale [--positions 80] [--depth 8] [--journals X.jsonl ...]

The shipped error profiles hold Stockfish 15.1's scores at depth 12 of up to ten moves in each
judged position (``data/profiles/ID.jsonl``). The compiled search scores the same moves
(``searchmoves``, one exact score each) at ``--depth``; each move's *loss* is then read on the error
model's scale, the expected score it gives away against the best of its position (strength.md §1),
as the calibrated choice reads a judge's scores. Prints the scale k that makes the compiled search's
losses of ``k × cp`` nearest Stockfish's (least squares), beside the plain least-squares fit of the
scores themselves and their correlation.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from common.cli import positive_int
from engine.compiled.search import MATE, CompiledSearch
from engine.strength.errormodel import expected_score

#: The experts whose judged positions are read by default: the ladder's ends and middle, and an
#: online player.
JOURNALS = tuple(
    Path("data/profiles") / f"{expert}.jsonl"
    for expert in (
        "kosteniuk-2200",
        "miles-2500",
        "carlsen-2800",
        "ivanchuk-2700",
        "rivergrove-lichess1800",
    )
)
#: Scores beyond this many centipawns (and mates) are left out: the loss saturates there.
CLIP = 1500
#: The scales tried (k).
SCALES = np.linspace(0.5, 2.5, 201)


def judged(journals: list[Path], positions: int, seed: int) -> list[dict[str, object]]:
    """``positions`` judged positions of each journal, drawn by ``seed``."""
    drawn: list[dict[str, object]] = []
    for journal in journals:
        with open(journal, encoding="utf-8") as f:
            entries = [json.loads(line) for line in f]
        entries = [e for e in entries if "fen" in e and "scores" in e]
        random.Random(seed).shuffle(entries)
        drawn += entries[:positions]
    return drawn


def paired(entries: list[dict[str, object]], depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each position's Stockfish scores and the compiled search's of the same moves (moves it scored
    a mate or beyond :data:`CLIP` either way left out)."""
    search = CompiledSearch()
    rows = []
    for entry in tqdm(entries, desc="positions", unit="pos"):
        board = chess.Board(str(entry["fen"]))
        moves = [str(m) for m in entry["moves"]]  # type: ignore[attr-defined]
        scores = [int(s) for s in entry["scores"]]  # type: ignore[attr-defined]
        found = search.search(
            board,
            depth=depth,
            root_moves=[chess.Move.from_uci(m) for m in moves],
            multipv=len(moves),
        )
        ours = {line.move.uci(): line.score for line in found.lines}
        kept = [
            (theirs, ours[m])
            for m, theirs in zip(moves, scores)
            if m in ours and abs(theirs) < CLIP and abs(ours[m]) < min(CLIP, MATE - 1000)
        ]
        if len(kept) >= 2:
            rows.append(
                (np.array([k[0] for k in kept], float), np.array([k[1] for k in kept], float))
            )
    return rows


def losses(scores: np.ndarray) -> np.ndarray:
    """Each move's loss of expected score against the best of its position."""
    win = expected_score(scores)
    return np.asarray(win.max() - win)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.builtin_scale", description=__doc__
    )
    parser.add_argument("--journals", type=Path, nargs="+", default=list(JOURNALS))
    parser.add_argument("--positions", type=positive_int, default=80, help="from each journal")
    parser.add_argument("--depth", type=positive_int, default=8, help="the compiled search's")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rows = paired(judged(args.journals, args.positions, args.seed), args.depth)
    theirs = np.concatenate([r[0] for r in rows])
    ours = np.concatenate([r[1] for r in rows])
    errors = [sum(float(((losses(t) - losses(k * o)) ** 2).sum()) for t, o in rows) for k in SCALES]
    by_loss = float(SCALES[int(np.argmin(errors))])
    near = (np.abs(theirs) < 400) & (np.abs(ours) < 400)
    by_score = float((theirs[near] * ours[near]).sum() / (ours[near] ** 2).sum())
    print(f"{len(rows)} positions, {len(theirs)} moves scored by both (depth {args.depth})")
    print(f"scale by the losses of expected score (what the error model reads): {by_loss:.2f}")
    print(
        f"scale by the scores within 400 cp: {by_score:.2f} (correlation"
        f" {np.corrcoef(theirs[near], ours[near])[0, 1]:.2f}, {int(near.sum())} moves)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
