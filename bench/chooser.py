"""What the chooser costs at play time (issue #40, item 6): the move time of ``Selection likely``
with a judge, with option Chooser off and on, at 0.3 s a move, at 40 moves in 20 s and at the card's
40 moves in 90 minutes (``--card``), each a game's first ``go`` on a handful of positions.

    python -m bench.chooser --judge /usr/games/stockfish [--chooser FILE]
        [--casebase carlsen-2800] [--card]

The chooser adds the candidates' searches at depths 2 and 6 (one search a depth, after the judge's
hash is cleared) and its features; the table says how many moves had them done in the time they were
given (search.md §9, where its numbers go).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import chess

from casebase.checks import CasebaseError
from casebase.format import Casebase
from common.cli import positive_int
from common.paths import casebase_path
from engine.agents import defaults
from engine.agents.base import Decision
from engine.agents.factory import Loader, make_agent
from engine.agents.options import OptionValue
from engine.agents.record import Guided
from engine.outside.judge import JudgeError
from engine.search.limits import SearchLimits
from engine.strength.chooser import ChooserError

#: A handful of positions: an opening, two middlegames, an endgame.
POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9",
    "2r2rk1/pp1bqppp/2n1pn2/3p4/3P4/P1NBPN2/1P3PPP/R2Q1RK1 b - - 2 13",
    "8/5pk1/6p1/3R4/r4P2/6KP/8/8 w - - 0 40",
]
#: The time controls: a name and the ``go`` of a game's first move.
CONTROLS = {
    "0.3 s a move": SearchLimits(movetime=300),
    "40/20": SearchLimits(wtime=20_000, btime=20_000, movestogo=40),
}
CARD = {"40/90 (the card)": SearchLimits(wtime=5_400_000, btime=5_400_000, movestogo=40)}


def timed(
    values: dict[str, OptionValue],
    casebase: Casebase,
    loader: Loader,
    board: chess.Board,
    limits: SearchLimits,
) -> tuple[float, Decision]:
    """The seconds of one move of a new agent of ``values`` (its making not counted), and its
    decision."""
    agent = make_agent(values, casebase, loader)
    agent.new_game(1)
    started = time.perf_counter()
    decision = agent.choose(board, limits=limits)
    return time.perf_counter() - started, decision


def shallow_done(decision: Decision) -> bool:
    """Whether the chooser saw the shallow depths in this move."""
    detail = decision.record.detail
    return (
        isinstance(detail, Guided)
        and detail.choice.chooser is not None
        and bool(detail.choice.chooser.depths)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.chooser", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--judge", required=True, metavar="PATH", help="the judge (e.g. /usr/games/stockfish)"
    )
    parser.add_argument(
        "--chooser",
        default=defaults.CHOOSER,
        metavar="FILE",
        help="the chooser, as option Chooser (default auto: the shipped one)",
    )
    parser.add_argument("--casebase", default=defaults.CASEBASE, metavar="X.npz", help="the expert")
    parser.add_argument("--card", action="store_true", help="also 40 moves in 90 minutes")
    parser.add_argument(
        "--positions", type=positive_int, default=len(POSITIONS), help="how many of the positions"
    )
    args = parser.parse_args(argv)
    loader = Loader()
    try:
        return _table(args, loader)
    except (ChooserError, CasebaseError, JudgeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        loader.close()


def _table(args: argparse.Namespace, loader: Loader) -> int:
    if loader.chooser(args.chooser) is None:
        print(
            f"error: --chooser {args.chooser} names no chooser (python -m learn.chooser fit"
            " makes one)",
            file=sys.stderr,
        )
        return 1
    casebase = Casebase.load(casebase_path(args.casebase), tell=False)
    # its start is not a move's time
    loader.judge(args.judge, defaults.THREADS, defaults.HASH_MB).start()
    boards = [chess.Board(fen) for fen in POSITIONS[: args.positions]]
    print(
        f"{casebase.expert}, judge {args.judge}, chooser {args.chooser}; {len(boards)} positions, a"
        " game's first move each\n"
    )
    print(
        "| time control | without: median, max (ms) | with the chooser: median, max (ms) |"
        " depths 2, 6 seen |"
    )
    print("|---|---|---|---|")
    for name, limits in (CONTROLS | (CARD if args.card else {})).items():
        runs = {}
        for chooser in (defaults.CHOOSER_OFF, args.chooser):
            values: dict[str, OptionValue] = {
                "Mode": "guided",
                "Judge": args.judge,
                "Selection": "likely",
                "Chooser": chooser,
            }
            runs[chooser] = [timed(values, casebase, loader, board, limits) for board in boards]
        cells = [
            f"{1000 * statistics.median(s for s, _ in run):.0f},"
            f" {1000 * max(s for s, _ in run):.0f}"
            for run in runs.values()
        ]
        seen = sum(shallow_done(d) for _, d in runs[args.chooser])
        print(f"| {name} | {cells[0]} | {cells[1]} | {seen} of {len(boards)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
