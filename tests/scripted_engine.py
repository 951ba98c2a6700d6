"""A scripted outside UCI engine for the judge's tests where Stockfish is absent.

It scores every legal move by a fixed table (``--score MOVE=CP``, after ``--varied``'s scores that
differ from move to move, others ``--others``), answers
``go`` at once with one principal variation per move (``MultiPV``, ``searchmoves`` honoured),
best first, at the ``go``'s depth (1 when none), and its ``bestmove`` is its best; with
``--crash-after N`` it exits at the N+1-th ``go`` (a judge that crashes); with ``--load-seconds S``
it takes S seconds to answer the first ``isready`` after a ``setoption`` (an engine loading what
an option names); ``--name`` is its ``id name`` (``Scripted`` by default). Run as
``python scripted_engine.py --score e2e4=30 ...``.
"""

from __future__ import annotations

import argparse
import sys
import time

import chess


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--score", action="append", default=[], metavar="MOVE=CP")
    parser.add_argument(
        "--varied",
        action="store_true",
        help="every move from A to B scores (37 A + 11 B) %% 200 - 100",
    )
    parser.add_argument("--others", type=int, default=-100)
    parser.add_argument(
        "--crash-after", type=int, metavar="N", help="exit (a crash) at the N+1-th go"
    )
    parser.add_argument("--load-seconds", type=float, default=0.0)
    parser.add_argument("--name", default="Scripted")
    args = parser.parse_args()
    searches, loading = 0, False
    # --varied rather than its 4,032 --score flags: argparse took 0.4 s to read them at every start
    table = (
        {
            chess.square_name(a) + chess.square_name(b): (37 * a + 11 * b) % 200 - 100
            for a in range(64)
            for b in range(64)
            if a != b
        }
        if args.varied
        else {}
    )
    table.update((move, int(cp)) for move, cp in (item.split("=") for item in args.score))
    board, multipv = chess.Board(), 1
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print(
                f"id name {args.name}\nid author tests\n"
                "option name MultiPV type spin default 1 min 1 max 500\n"
                "option name Threads type spin default 1 min 1 max 64\n"
                "option name Hash type spin default 16 min 1 max 1024\nuciok",
                flush=True,
            )
        elif words[0] == "isready":
            if loading:
                time.sleep(args.load_seconds)
            loading = False
            print("readyok", flush=True)
        elif words[:3] == ["setoption", "name", "MultiPV"]:
            multipv = int(words[4])
        elif words[0] == "setoption":
            loading = True
        elif words[0] == "position":
            board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
            for move in words[words.index("moves") + 1 :] if "moves" in words else []:
                board.push_uci(move)
        elif words[0] == "go":
            if args.crash_after is not None and searches == args.crash_after:
                sys.exit(3)
            searches += 1
            depth = int(words[words.index("depth") + 1]) if "depth" in words else 1
            moves = [m.uci() for m in board.legal_moves]
            if "searchmoves" in words:
                listed = words[words.index("searchmoves") + 1 :]
                moves = [m for m in moves if m in listed]
            ranked = sorted(moves, key=lambda m: -table.get(m, args.others))[:multipv]
            for rank, move in enumerate(ranked, 1):
                print(
                    f"info depth {depth} seldepth {depth} multipv {rank} score cp"
                    f" {table.get(move, args.others)} nodes {100 * rank} pv {move}",
                    flush=True,
                )
            print(f"bestmove {ranked[0] if ranked else '0000'}", flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
