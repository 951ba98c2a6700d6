"""What ``UCI_Elo`` loses without a judge (issue #67, strength.md §7).

    python -m experiments.unjudged casebases/kosteniuk-2200.npz carlsen-2800.json --elo 1500
        [--movetime 1000]

Guided mode with ``Judge none`` and ``UCI_LimitStrength`` at ``--elo`` plays each position of a
fidelity run (``python -m fidelity run --out RUN.json``) from move 9 on, on a clock (``go
movetime``), twice: as the engine plays (the error model at the rating asked) and by the rule first
tried (the error model at the rating of the asked loss less the built-in search's own,
:data:`engine.strength.sizing.OWN_LOSS`); both moves judged as the profiles judge (Stockfish at
depth 12). Prints each one's loss a move beside the loss the rating asks.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from casebase.phases import FIRST_MOVE
from engine.agents import defaults
from engine.agents.factory import Loader, make_agent, option_values
from engine.agents.guided import GuidedAgent
from engine.outside.launch import launch
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.search import Search
from engine.search.limits import SearchLimits
from engine.strength.profile import MISTAKE_CP
from engine.strength.rating import loss_at, rating_of
from engine.strength.sizing import OWN_LOSS
from experiments.losses import judge_moves, move_loss


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.unjudged",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("casebase", type=Path)
    parser.add_argument("run", type=Path, help="a fidelity run's JSON: its positions are played")
    parser.add_argument("--elo", type=int, default=1500)
    parser.add_argument(
        "--movetime", type=int, default=1000, help="milliseconds a move (default 1000)"
    )
    parser.add_argument("--model", default="auto", help="option Model (default auto)")
    parser.add_argument("--judge", default=DEBIAN_STOCKFISH)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args()
    positions = [
        p
        for p in json.loads(args.run.read_text(encoding="utf-8"))["positions"]
        if p["ply"] >= 2 * (FIRST_MOVE - 1)
    ]
    casebase, loader = Casebase.load(args.casebase), Loader()
    values = option_values(
        {
            "Mode": "guided",
            "Judge": defaults.JUDGE_NONE,
            "UCI_LimitStrength": True,
            "UCI_Elo": args.elo,
            "Model": args.model,
        }
    )
    played, tried = make_agent(values, casebase, loader), make_agent(values, casebase, loader)
    agent = tried.agent
    assert (
        isinstance(agent, GuidedAgent)
        and agent.sizing is not None
        and agent.calibration is not None
    )
    # the rule tried: the search's own loss taken off
    rest = loss_at(args.elo) - OWN_LOSS[Search.ALPHABETA]
    agent.calibration = agent.all_games = agent.sizing.asked.at_rating(rating_of(rest))
    print(agent.sizing.describe(), file=sys.stderr)
    lost: dict[str, list[tuple[int, float]]] = {
        "the whole loss drawn (the engine)": [],
        "the rest drawn (tried)": [],
    }
    judge = launch([args.judge])
    try:
        for i, p in enumerate(tqdm(positions, unit="pos", file=sys.stderr, leave=False)):
            board = chess.Board(p["fen"])
            moves = {}
            for name, player in zip(lost, (played, tried), strict=True):
                player.new_game(1000 + i)
                moves[name] = player.choose(board, limits=SearchLimits(movetime=args.movetime)).move
            best, scores = judge_moves(
                judge, board, {m for m in moves.values() if m is not None}, args.depth
            )
            for name, move in moves.items():
                if move in scores:
                    lost[name].append(move_loss(best, scores[move]))
    finally:
        judge.quit()
        loader.close()
    print(
        f"{casebase.expert}'s casebase, UCI_Elo {args.elo} (asks {100 * loss_at(args.elo):.2f} % of"
        f" a point a move), no judge, {args.movetime} ms a move, on {len(positions)} positions of"
        f" {args.run.name} from move {FIRST_MOVE}; judged by {args.judge} at depth {args.depth}\n"
    )
    print(
        "| choice | moves | mean loss cp | expected score lost % | losing >= 50 cp % |\n"
        "|---|---:|---:|---:|---:|"
    )
    for name, rows in lost.items():
        cp = np.array([c for c, _ in rows])
        print(
            f"| {name} | {len(rows)} | {cp.mean():.1f} | {100 * np.mean([e for _, e in rows]):.2f}"
            f" | {100 * (cp >= MISTAKE_CP).mean():.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
