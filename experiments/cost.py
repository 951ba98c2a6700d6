"""What a game of the card's experiment costs: thinking seconds measured on real moves at 40/90,
and the core-hours of a whole experiment projected from them.

    python -m experiments.cost measure --out bench/out/cost-guided.json
        [--judge /usr/games/stockfish] [--plies 16]
    python -m experiments.cost project bench/out/cost-guided.json [...] --lengths GAMES.pgn [...]
        [--games 630]

``measure`` plays the first ``--plies`` half-moves of a real game between two shipped experts
(default Carlsen - Ivanchuk), each side our UCI engine in guided mode (judged by ``--judge`` where
one is given), on the real clock (default 40/5400), and keeps every move's thinking seconds next to
the budget the engine's time manager gave it (``engine.search.limits.time_budget``, search.md §4) in
a JSON file. A whole 40/90 game takes two to three hours of one core, so a slice is measured and the
rest follows from the time manager: ``project`` replays the clocks of games as long as those of
``--lengths`` (real games of the same engines at any clock), every move spending the share of its
budget measured in the slice, and prints seconds per game and core-hours per experiment. One engine
thinks at a time (no pondering in the experiment) on one thread, and a judged move waits for its
judge, so a game keeps one core busy for its whole length.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.pgn

from common.paths import PROJECT_ROOT as ROOT
from engine.agents.base import Decision
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import Clock, TimeControl
from engine.search.limits import SearchLimits, time_budget
from tournament.game import play_game
from tournament.players import Lineup, Side, casebase_entrant

WHITE = ROOT / "casebases" / "carlsen-2800.npz"
BLACK = ROOT / "casebases" / "ivanchuk-2700.npz"


class _Timed:
    """A side that records each move's budget (hard limit, seconds) and the seconds it took."""

    def __init__(self, side: Side, moves: list[dict[str, float | int | str]]) -> None:
        self.side, self.moves = side, moves

    def choose(self, board: chess.Board, *, limits: SearchLimits | None = None) -> Decision:
        assert limits is not None
        remaining = limits.wtime if board.turn else limits.btime
        increment = limits.winc if board.turn else limits.binc
        budget = time_budget(remaining or 0, increment or 0, limits.movestogo)
        start = time.perf_counter()
        decision = self.side.choose(board, limits=limits)
        seconds = time.perf_counter() - start
        self.moves.append(
            {
                "ply": len(board.move_stack),
                "budget": round(budget, 3),
                "seconds": round(seconds, 3),
                "move": board.san(decision.move) if decision.move else "0000",
            }
        )
        print(
            f"ply {len(board.move_stack) + 1}: {self.moves[-1]['move']} {seconds:.1f} s of"
            f" {budget:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        return decision


def measure(args: argparse.Namespace) -> None:
    control = TimeControl.parse(args.tc)
    entrants = (casebase_entrant(args.white), casebase_entrant(args.black))
    lineup = Lineup(entrants, mode="guided", via_uci=True, judge=args.judge)
    config = parse_configurations(["balanced"])[0]
    moves: list[dict[str, float | int | str]] = []
    try:
        white = _Timed(lineup.side(entrants[0].id, config, args.seed), moves)
        black = _Timed(lineup.side(entrants[1].id, config, args.seed + 1), moves)
        record = play_game(white, black, control, max_plies=args.plies)
    finally:
        lineup.close()
    data = {
        "mode": "judged" if args.judge else "guided",
        "judge": args.judge,
        "time_control": str(control),
        "white": entrants[0].name,
        "black": entrants[1].name,
        "plies": record.plies,
        "moves": moves,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(_share_line(data), f"\n-> {args.out}")


def thinking_share(data: dict) -> float:
    """The mean share of its budget a move spent."""
    shares = [m["seconds"] / m["budget"] for m in data["moves"] if m["budget"] > 0]
    return statistics.fmean(shares) if shares else 0.0


def _share_line(data: dict) -> str:
    return (
        f"{data['mode']} at {data['time_control']}: {len(data['moves'])} moves measured,"
        f" {sum(m['seconds'] for m in data['moves']):.0f} s in all; a move spends"
        f" {thinking_share(data):.0%} of its budget on average"
    )


def game_seconds(plies: int, share: float, control: TimeControl) -> float:
    """Thinking seconds of a game of ``plies`` half-moves whose every move spends ``share`` of its
    budget."""
    clock = Clock(control)
    total = 0.0
    for ply in range(plies):
        colour = chess.WHITE if ply % 2 == 0 else chess.BLACK
        budget = time_budget(
            round(clock.remaining[colour] * 1000),
            round(control.increment * 1000),
            clock.moves_to_go(colour),
        )
        clock.charge(colour, share * budget)
        total += share * budget
    return total


def game_lengths(paths: list[Path]) -> list[int]:
    """The number of half-moves of every game in some PGN files."""
    lengths = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                lengths.append(sum(1 for _ in game.mainline_moves()))
    return lengths


def project(args: argparse.Namespace) -> None:
    lengths = game_lengths(args.lengths)
    if not lengths:
        raise SystemExit(f"{' '.join(map(str, args.lengths))}: no games")
    print(
        f"game lengths: {len(lengths)} games, mean {statistics.fmean(lengths):.0f} plies,"
        f" median {statistics.median(lengths):.0f}, longest {max(lengths)}\n"
    )
    print(
        "| engines | measured | share of budget | hours per game | core-hours for"
        f" {args.games} games |"
    )
    print("|---|---|---:|---:|---:|")
    for path in args.measured:
        data = json.loads(path.read_text(encoding="utf-8"))
        control = TimeControl.parse(data["time_control"])
        share = thinking_share(data)
        hours = statistics.fmean(game_seconds(n, share, control) for n in lengths) / 3600
        print(
            f"| {data['mode']} at {control} | {len(data['moves'])} moves,"
            f" {sum(m['seconds'] for m in data['moves']):.0f} s | {share:.0%} | {hours:.2f} |"
            f" {hours * args.games:,.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    m = commands.add_parser(
        "measure", help="play a slice of a real game and keep every move's seconds"
    )
    m.add_argument(
        "--judge", default="", help="a UCI engine judging the proposals (none: the built-in search)"
    )
    m.add_argument("--tc", default="40/5400")
    m.add_argument("--plies", type=int, default=16)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--white", type=Path, default=WHITE)
    m.add_argument("--black", type=Path, default=BLACK)
    m.add_argument("--out", type=Path, required=True)
    p = commands.add_parser("project", help="seconds per game and core-hours per experiment")
    p.add_argument("measured", nargs="+", type=Path, help="files written by measure")
    p.add_argument(
        "--lengths",
        type=Path,
        nargs="+",
        required=True,
        help="real games whose lengths to project on",
    )
    p.add_argument(
        "--games", type=int, default=630, help="games in the experiment (default 630, the card's)"
    )
    args = parser.parse_args()
    measure(args) if args.command == "measure" else project(args)


if __name__ == "__main__":
    main()
