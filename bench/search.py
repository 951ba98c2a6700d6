"""Speed of the guided mode's search: nodes per second, the cost of the root's exact scores,
the Zobrist key options, a guided move end to end, and the visits a second of the search the
network leads (option Search puct, search.md §10).

    python -m bench.search [--depth 4] [--puct-seconds 3]

Needs nothing outside the repository (the guided move uses the shipped Kosteniuk PGN).
"""

from __future__ import annotations

import argparse
import time
import timeit

import chess
import chess.polyglot

from casebase.builder import build
from casebase.games import GameFilter
from common.paths import PROJECT_ROOT as ROOT
from engine.agents.guided import GuidedAgent
from engine.agents.guided_options import GuidedSettings
from engine.agents.modes import default_settings
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget, SearchLimits
from engine.search.zobrist import board_pieces_key, full_key, pieces_delta

POSITIONS = {
    "start": chess.STARTING_FEN,
    "Italian, move 4": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "QGD middlegame": "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PPQ1BPPP/R1B2RK1 w - - 0 9",
    "rook endgame": "8/5pk1/6p1/3R4/r4P2/6KP/8/8 w - - 0 40",
}


def search_table(depth: int) -> None:
    print(
        f"\nSearch to depth {depth} (one fresh table per search). Exact root scores down to the"
        " tolerance cost extra nodes;\nthe guided mode asks them only of the proposed moves"
        " (here: the 6 best at depth 1, a stand-in for a casebase's proposals)\n"
    )
    print(
        f"{'position':<18} {'root scores':<26} {'nodes':>9} {'seconds':>8} {'nodes/s':>8}"
        f" {'sound':>6}"
    )
    for name, fen in POSITIONS.items():
        board = chess.Board(fen)
        shallow = Searcher().search(board, Budget(depth=1), tolerance=10_000)
        proposed = sorted(shallow.scores, key=lambda m: -shallow.scores[m].score)[:6]
        for label, tolerance, exact in (
            ("best only (tolerance 0)", 0, None),
            ("all exact to -50 cp", 50, None),
            ("6 proposed exact to -50", 50, proposed),
        ):
            start = time.perf_counter()
            result = Searcher().search(board, Budget(depth=depth), tolerance=tolerance, exact=exact)
            seconds = time.perf_counter() - start
            print(
                f"{name:<18} {label:<26} {result.nodes:>9} {seconds:>8.2f}"
                f" {result.nodes / seconds:>8.0f} {len(result.sound()):>6}"
            )


def key_table() -> None:
    """The table's key per node: recomputed polyglot hash against the incremental update."""
    board = chess.Board(POSITIONS["QGD middlegame"])
    move = chess.Move.from_uci("c4d5")
    pieces = board_pieces_key(board)
    piece, captured = board.piece_type_at(move.from_square), board.piece_type_at(move.to_square)
    assert piece is not None

    def push_pop() -> None:
        board.push(move)
        board.pop()

    def full() -> None:
        board.push(move)
        chess.polyglot.zobrist_hash(board)
        board.pop()

    def incremental() -> None:
        delta = pieces_delta(board, move, piece, captured)
        board.push(move)
        full_key(board, pieces ^ delta)
        board.pop()

    def transposition_key() -> None:
        board.push(move)
        board._transposition_key()
        board.pop()

    n = 20_000
    base = timeit.timeit(push_pop, number=n) / n
    print("\nKey per node, on top of push + pop (microseconds)\n")
    print(f"{'key':<36} {'us':>6}")
    for name, fn in (
        ("chess.polyglot.zobrist_hash", full),
        ("polyglot, incremental (used)", incremental),
        ("board._transposition_key()", transposition_key),
    ):
        print(f"{name:<36} {(timeit.timeit(fn, number=n) / n - base) * 1e6:>6.1f}")
    print(f"{'(push + pop itself)':<36} {base * 1e6:>6.1f}")


def guided_table() -> None:
    casebase = build(
        [ROOT / "data" / "experts" / "kosteniuk-2200.pgn"],
        GameFilter("Alexandra Kosteniuk"),
        workers=1,
        progress=False,
    )
    print(
        f"\nGuided moves, Kosteniuk's casebase ({len(casebase)} cases), 64 neighbours, 12 plies"
        " from the start\n"
    )
    print(f"{'limit':<14} {'s/move (mean)':>13} {'s/move (max)':>12}")
    for limits, label in (
        (SearchLimits(depth=2), "depth 2"),
        (SearchLimits(depth=3), "depth 3"),
        (SearchLimits(nodes=10_000), "nodes 10000"),
    ):
        agent = GuidedAgent(
            casebase, default_settings(GuidedSettings, weights=WEIGHT_CONFIGS["balanced"]), seed=1
        )
        board, times = chess.Board(), []
        for _ in range(12):
            start = time.perf_counter()
            move = agent.choose(board, limits=limits).move
            assert move is not None
            board.push(move)
            times.append(time.perf_counter() - start)
        print(f"{label:<14} {sum(times) / len(times):>13.3f} {max(times):>12.3f}")


def puct_table(seconds: float) -> None:
    from engine.search.puct import POLICY_TEMPERATURE, Puct
    from engine.style.lc0 import load_network
    from engine.style.personal import personal_folder

    network = load_network(personal_folder() / "carlsen-2800.pb.gz")
    print(
        f"\nThe search the network leads, {network.describe()}, {seconds:g} s a position from"
        " a fresh tree\n"
    )
    print(f"{'position':<18} {'visits':>8} {'visits/s':>9} {'depth':>6} {'seldepth':>9}")
    visits = spent = 0.0
    for name, fen in POSITIONS.items():
        search = Puct(lambda boards: network.evaluate(boards, POLICY_TEMPERATURE))
        result = search.search(chess.Board(fen), Budget(movetime=seconds))
        visits, spent = visits + result.nodes, spent + result.seconds
        print(
            f"{name:<18} {result.nodes:>8} {result.nodes / result.seconds:>9.0f}"
            f" {result.depth:>6} {result.seldepth:>9}"
        )
    print(f"{'all':<18} {visits:>8.0f} {visits / spent:>9.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--depth", type=int, default=4, help="search depth of the first table (default 4)"
    )
    parser.add_argument(
        "--puct-seconds",
        type=float,
        default=3.0,
        help="seconds a position of the last table (default 3)",
    )
    args = parser.parse_args()
    search_table(args.depth)
    key_table()
    guided_table()
    puct_table(args.puct_seconds)


if __name__ == "__main__":
    main()
