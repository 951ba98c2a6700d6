"""Does the calibrated engine's strength follow the machine's load? (issue #29)

    python -m experiments.load casebases/heldout/kosteniuk-2200.npz --positions 80 --movetime 300
        --busy 1

The calibrated choice (``Selection calibrated``, a Stockfish judge) plays each of the casebase's
profiled positions on a clock (``go movetime``), once on a quiet machine and once with ``--busy``
cores kept busy by processes that spin, side by side, position after position. Each time, what
its choice is expected to lose is reckoned from its chances (``Decision.chances``) and the moves'
losses judged as the profiles judge (Stockfish at depth 12, experiments.losses.cp_losses): the
expected centipawn loss and the expected share of mistakes (50 cp or more). Two judges are
compared: ``JudgeDepth 0`` (the default: the depth the choice was calibrated at, within what the
clock allows, strength.md §3) and ``--judge-depth`` plies within the clock (99: whatever the clock
leaves, the default before issue #29). Prints a table and the changes under load.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from engine.agents.factory import Loader, make_agent
from engine.agents.guided import GuidedAgent
from engine.outside.launch import launch
from engine.outside.stockfish import DEBIAN_STOCKFISH
from engine.search.limits import SearchLimits
from engine.strength.profile import MISTAKE_CP, Profile
from experiments.losses import cp_losses


def spinners(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that each keep one core busy until they are killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("casebase", type=Path, help="a casebase with an error profile")
    parser.add_argument("--judge", default=DEBIAN_STOCKFISH)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument(
        "--movetime", type=int, default=300, help="milliseconds a move (go movetime)"
    )
    parser.add_argument(
        "--referee-depth",
        type=int,
        default=12,
        help="the depth the referee judges the moves' losses at",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--busy", type=int, default=1, help="cores kept busy in the loaded runs")
    parser.add_argument(
        "--judge-depth",
        type=int,
        default=99,
        help="the judge depth compared with the default (99: whatever the clock leaves)",
    )
    args = parser.parse_args()
    casebase = Casebase.load(args.casebase)
    profile = Profile.of(casebase)
    if profile is None:
        raise SystemExit(f"{args.casebase}: no error profile")
    boards = profile.positions()[: args.positions]
    loader = Loader()
    judges = {
        "JudgeDepth 0 (the calibrated depth)": 0,
        f"JudgeDepth {args.judge_depth}": args.judge_depth,
    }
    agents = {}
    for name, depth in judges.items():
        values = {
            "Mode": "guided",
            "Judge": args.judge,
            "Selection": "calibrated",
            "Seed": args.seed,
            "JudgeDepth": depth,
        }
        agents[name] = make_agent(values, casebase, loader)
        guided = agents[name].agent
        assert isinstance(guided, GuidedAgent) and guided.judge is not None
        guided.judge.start()  # as isready would: the built-in search judges while it starts
    referee = launch([args.judge])
    loss: dict[tuple[str, str], list[float]] = defaultdict(list)
    mistakes: dict[tuple[str, str], list[float]] = defaultdict(list)
    limits = SearchLimits(movetime=args.movetime)
    busy = f"{args.busy} {'core' if args.busy == 1 else 'cores'} busy"
    try:
        for i, board in enumerate(tqdm(boards, unit="pos", file=sys.stderr)):
            chances: dict[tuple[str, str], dict[chess.Move, float]] = {}
            for load in ("quiet", busy):
                spinning = spinners(args.busy if load == busy else 0)
                try:
                    for name, agent in agents.items():
                        agent.new_game(args.seed + i)
                        decision = agent.choose(board, limits=limits)
                        assert decision.move is not None
                        chances[name, load] = decision.chances or {decision.move: 1.0}
                finally:
                    for process in spinning:
                        process.kill()
                        process.wait()
            moves = {m for drawn in chances.values() for m in drawn}
            lost = cp_losses(referee, board, moves, args.referee_depth)
            for key, drawn in chances.items():
                total = sum(p for m, p in drawn.items() if m in lost)
                loss[key].append(sum(p * lost[m] for m, p in drawn.items() if m in lost) / total)
                mistakes[key].append(
                    sum(p for m, p in drawn.items() if m in lost and lost[m] >= MISTAKE_CP) / total
                )
    finally:
        referee.quit()
        loader.close()
    print(
        f"{casebase.expert}: {len(boards)} profiled positions, Selection calibrated, judge"
        f" {args.judge}, go movetime {args.movetime}; losses judged at depth {args.referee_depth}\n"
    )
    print("| judge | load | expected loss cp | expected mistakes % |")
    print("|---|---|---:|---:|")
    for (name, load), lost_cp in loss.items():
        print(
            f"| {name} | {load} | {np.mean(lost_cp):.1f} |"
            f" {100 * np.mean(mistakes[name, load]):.1f} |"
        )
    print()
    for name in judges:
        quiet, loaded = np.mean(loss[name, "quiet"]), np.mean(loss[name, busy])
        print(
            f"{name}: the expected loss changes by {100 * (loaded - quiet) / quiet:+.1f} %"
            f" with {busy}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
