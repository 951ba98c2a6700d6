"""What the moves of a fidelity run lose, by mode and for the expert: do the calibrated engine's
mistakes match the expert's?

    python -m experiments.losses results/judge/*.json [--judge /usr/games/stockfish] [--depth 12]
        [--balanced 200]

Every position of the runs (``python -m fidelity run --out``) from move 9 on is judged once by the
judge at ``--depth``: its best score, and the score of each distinct move played there (the expert's
and each mode's, one search with ``searchmoves``); with ``--balanced CP``, only the positions whose
best score lies within CP centipawns of equality. Prints per mode and for the player: the mean
centipawn loss (clipped at 1000) and its ratio to the player's, the mean loss of expected score (the
error model's unit, strength.md §1), the share of moves losing 50 cp or more, of the expert's own
moves, and of the judge's first choices, pooled over the runs, then the loss distribution.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from casebase.phases import FIRST_MOVE
from common.cli import positive_int
from engine.outside.launch import launch
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.search.scores import from_pov_score
from engine.strength.errormodel import expected_score
from engine.strength.profile import CP_LOSS_CLIP, MISTAKE_CP

#: The row of the player's own moves.
PLAYER = "the player (own moves)"
#: The loss buckets of the distribution (centipawns, lower bounds).
BUCKETS = (0, 1, 20, 50, 100, 300)


def judge_moves(
    engine: chess.engine.SimpleEngine, board: chess.Board, moves: set[chess.Move], depth: int
) -> tuple[int, dict[chess.Move, int]]:
    """The judge's best score at ``depth`` (centipawns for the mover) and each move's score."""
    best = from_pov_score(engine.analyse(board, chess.engine.Limit(depth=depth))["score"].relative)
    infos = engine.analyse(
        board, chess.engine.Limit(depth=depth), multipv=len(moves), root_moves=list(moves)
    )
    scores = {
        info["pv"][0]: from_pov_score(info["score"].relative)
        for info in infos
        if info.get("pv") and "score" in info
    }
    return max([best, *scores.values()]), scores


def move_loss(best: int, score: int) -> tuple[int, float]:
    """A move's loss against the best score (centipawns for the mover): in centipawns, clipped at
    :data:`CP_LOSS_CLIP`, and in expected score (the error model's unit)."""
    return int(np.clip(best - score, 0, CP_LOSS_CLIP)), float(
        expected_score(best) - expected_score(score)
    )


def cp_losses(
    engine: chess.engine.SimpleEngine, board: chess.Board, moves: set[chess.Move], depth: int
) -> dict[chess.Move, int]:
    """Each move's loss (centipawns, clipped) against the judge's best at ``depth``."""
    best, scores = judge_moves(engine, board, moves, depth)
    return {m: move_loss(best, score)[0] for m, score in scores.items()}


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.losses",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--judge", default=DEBIAN_STOCKFISH)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument(
        "--balanced",
        type=positive_int,
        metavar="CP",
        help="only positions whose best score is within CP",
    )
    args = parser.parse_args()
    positions = []
    for path in args.runs:
        data = json.loads(path.read_text(encoding="utf-8"))
        positions += [p for p in data["positions"] if p["ply"] >= 2 * (FIRST_MOVE - 1)]
    modes = sorted({m for p in positions for m in p["moves"]})
    lost: dict[str, list[tuple[int, float, bool]]] = defaultdict(list)
    kept = 0
    engine = launch([args.judge])
    try:
        for p in tqdm(positions, unit="pos", file=sys.stderr, leave=False):
            board = chess.Board(p["fen"])
            # the player's own move is a row of its own: a mode is called "expert" too
            played = {**{m: u for m, u in p["moves"].items() if u}, PLAYER: p["expert"]}
            moves = {chess.Move.from_uci(u) for u in played.values()} & set(board.legal_moves)
            if not moves:
                continue
            best, scores = judge_moves(engine, board, moves, args.depth)
            if args.balanced is not None and abs(best) > args.balanced:
                continue
            kept += 1
            for who, uci in played.items():
                score = scores.get(chess.Move.from_uci(uci))
                if score is not None:
                    lost[who].append((*move_loss(best, score), uci == p["expert"]))
    finally:
        engine.quit()
    within = (
        ""
        if args.balanced is None
        else f", {kept} of them with the best score within {args.balanced} cp"
    )
    print(
        f"{len(positions)} positions of {len(args.runs)} runs from move {FIRST_MOVE}{within},"
        f" judged by {args.judge} at depth {args.depth}\n"
    )
    print(
        "| who | moves | mean loss cp | times the player's | expected score lost % | losing >= 50"
        " cp % | expert's move % | no"
        " loss % | " + " | ".join(f">= {b} cp %" for b in BUCKETS[1:]) + " |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (len(BUCKETS) - 1))
    own = float(np.mean([cp for cp, _, _ in lost[PLAYER]])) if lost[PLAYER] else 0.0
    for who in [PLAYER, *modes]:
        if not lost[who]:
            continue
        x = np.array([cp for cp, _, _ in lost[who]])
        lost_score = 100 * np.mean([e for _, e, _ in lost[who]])
        same = 100 * np.mean([m for _, _, m in lost[who]])
        buckets = " | ".join(f"{100 * (x >= b).mean():.1f}" for b in BUCKETS[1:])
        # the player lost nothing here: no ratio
        ratio = f"{x.mean() / own:.2f}" if own > 0 else "–"
        print(
            f"| {who} | {len(x)} | {x.mean():.1f} | {ratio} | {lost_score:.2f}"
            f" | {100 * (x >= MISTAKE_CP).mean():.1f} | {same:.1f} | {100 * (x == 0).mean():.1f} |"
            f" {buckets} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
