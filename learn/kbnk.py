"""Bergbom's study: a network with one hidden layer learns distance to mate from a table, then
plays the ending against a perfect defender (docs/results/2026-11-22-kbnk-networks.md).

Positions are random, legal and not drawn at once (no white piece en prise to the lone king,
no stalemate, won for White by the table); for KBNK the bishop is light-squared, so the mating
corners are a8 and h1. Targets are the table's distance to mate in plies, mapped linearly into
[0.1, 0.9]; White to move and Black to move have separate networks. The network chooses the
move whose successor its Black-to-move net values nearest to mate (a one-ply search); the
defender plays the table's longest defence; a game not mated within 50 moves is a draw.

Numpy alone: the networks are small enough to train on a CPU in seconds to minutes.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess
import numpy as np

from endgame.retrograde import ENDINGS
from endgame.tablebase import Tablebase

#: The inputs of the study's designs: squares' rows and columns, distances, or both, and the
#: white pieces' distances to each other; ``squares`` (ours) adds one-hot squares to all of these.
INPUTS = ("coordinates", "distances", "both", "mutual", "squares")
#: Mates within this many moves count (the study's 50).
MOVE_LIMIT = 50


@dataclass(frozen=True)
class Design:
    """A network to train: its inputs, hidden units and training."""

    inputs: str = "both"
    hidden: int = 20
    examples: int = 40_000
    epochs: int = 200
    batch: int = 256
    lr: float = 0.01
    seed: int = 0

    def describe(self) -> str:
        return (
            f"inputs {self.inputs}, {self.hidden} hidden sigmoid units, {self.examples:,}"
            f" examples, {self.epochs} epochs"
        )


def _corners(ending: str) -> list[int]:
    return [chess.A8, chess.H1] if ending == "KBNK" else [chess.A1, chess.A8, chess.H1, chess.H8]


def features(boards: list[chess.Board], inputs: str, ending: str) -> np.ndarray:
    """The network inputs of ``boards`` (White the stronger side), one row each, bias last."""
    rows = []
    corners = _corners(ending)
    for board in boards:
        wk, bk = board.king(chess.WHITE), board.king(chess.BLACK)
        assert wk is not None and bk is not None
        men = [
            next(iter(board.pieces(chess.Piece.from_symbol(p).piece_type, chess.WHITE)))
            for p in ENDINGS[ending][:1]
        ]
        men += [
            s
            for s in chess.SquareSet(board.occupied_co[chess.WHITE] & ~board.kings)
            if s not in men
        ]
        white = [wk, *men]
        row: list[float] = []
        if inputs in ("coordinates", "both", "mutual", "squares"):
            for s in (*white, bk):
                row += [chess.square_rank(s) / 7, chess.square_file(s) / 7]
        if inputs != "coordinates":
            row.append(min(chess.square_distance(bk, c) for c in corners) / 7)
            row += [chess.square_manhattan_distance(s, bk) / 14 for s in white]
        if inputs in ("mutual", "squares"):
            row += [
                chess.square_manhattan_distance(a, b) / 14
                for i, a in enumerate(white)
                for b in white[i + 1 :]
            ]
        if inputs == "squares":
            hot = np.zeros(64 * (len(white) + 1))
            for k, s in enumerate((*white, bk)):
                hot[64 * k + s] = 1.0
            row += hot.tolist()
        row.append(1.0)
        rows.append(row)
    return np.asarray(rows, dtype=np.float32)


def target(plies: np.ndarray, longest: int) -> np.ndarray:
    """Distance to mate in plies mapped into [0.1, 0.9] (the study's sigmoid targets)."""
    return 0.1 + 0.8 * plies / longest


def plies_of(outputs: np.ndarray, longest: int) -> np.ndarray:
    """The inverse of :func:`target`."""
    return (outputs - 0.1) / 0.8 * longest


def sample(
    tables: Tablebase, ending: str, count: int, white_to_move: bool, rng: np.random.Generator
) -> tuple[list[chess.Board], np.ndarray]:
    """``count`` random won positions of ``ending`` and their distances to mate in plies."""
    boards: list[chess.Board] = []
    plies: list[int] = []
    light = [s for s in chess.SQUARES if (chess.square_file(s) + chess.square_rank(s)) % 2 == 1]
    while len(boards) < count:
        board = chess.Board(None)
        squares = rng.choice(64, size=2 + len(ENDINGS[ending]), replace=False).tolist()
        if ending == "KBNK" and squares[2] not in light:
            continue
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square, letter in zip(squares[2:], ENDINGS[ending]):
            board.set_piece_at(square, chess.Piece.from_symbol(letter))
        board.turn = white_to_move
        if not board.is_valid() or _drawn_at_once(board):
            continue
        verdict = tables.probe(board)
        if verdict is None or verdict.wins is None:
            continue
        boards.append(board)
        plies.append(verdict.plies)
    return boards, np.asarray(plies, dtype=np.float32)


def _drawn_at_once(board: chess.Board) -> bool:
    """A white piece the black king may take, or a stalemate."""
    if board.is_stalemate():
        return True
    bk = board.king(chess.BLACK)
    assert bk is not None
    for square in chess.SquareSet(board.occupied_co[chess.WHITE] & ~board.kings):
        if chess.square_distance(square, bk) == 1 and not board.is_attacked_by(chess.WHITE, square):
            return True
    return False


@dataclass
class Network:
    """One hidden layer of sigmoid units and a sigmoid output, trained on squared error."""

    w1: np.ndarray
    w2: np.ndarray
    longest: int

    @classmethod
    def new(cls, inputs: int, hidden: int, longest: int, rng: np.random.Generator) -> Network:
        return cls(
            rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden)).astype(np.float32),
            rng.normal(0, 1 / np.sqrt(hidden + 1), (hidden + 1, 1)).astype(np.float32),
            longest,
        )

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = _sigmoid(x @ self.w1)
        h = np.concatenate([h, np.ones((len(h), 1), dtype=h.dtype)], axis=1)
        return h, _sigmoid(h @ self.w2)[:, 0]

    def plies(self, x: np.ndarray) -> np.ndarray:
        """Predicted distance to mate in plies."""
        return plies_of(self.forward(x)[1], self.longest)

    def fit(self, x: np.ndarray, y: np.ndarray, design: Design, rng: np.random.Generator) -> None:
        """Adam on mini-batches of squared error."""
        params = [self.w1, self.w2]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        step = 0
        for _ in range(design.epochs):
            order = rng.permutation(len(x))
            for start in range(0, len(x), design.batch):
                rows = order[start : start + design.batch]
                h, out = self.forward(x[rows])
                delta = ((out - y[rows]) * out * (1 - out))[:, None] / len(rows)
                g2 = h.T @ delta
                dh = (delta @ self.w2[:-1].T) * h[:, :-1] * (1 - h[:, :-1])
                g1 = x[rows].T @ dh
                step += 1
                for p, g, mi, vi in zip(params, (g1, g2), m, v):
                    mi *= 0.9
                    mi += 0.1 * g
                    vi *= 0.999
                    vi += 0.001 * g * g
                    p -= (
                        design.lr
                        * (mi / (1 - 0.9**step))
                        / (np.sqrt(vi / (1 - 0.999**step)) + 1e-8)
                    )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


@dataclass
class Trained:
    """The two networks of a design and their validation errors (mean absolute, in plies)."""

    design: Design
    ending: str
    white: Network
    black: Network
    error_white: float
    error_black: float
    seconds: float

    def value(self, boards: list[chess.Board]) -> np.ndarray:
        """The Black-to-move net's predicted plies to mate (a :data:`Valuer`)."""
        return self.black.plies(features(boards, self.design.inputs, self.ending))


def train(tables: Tablebase, ending: str, design: Design, validation: int = 5000) -> Trained:
    """Train the White-to-move and Black-to-move networks of ``design`` on fresh samples."""
    started = time.perf_counter()
    rng = np.random.default_rng(design.seed)
    fixed = np.random.default_rng(10_000)  # the same validation set for every design
    nets, errors = [], []
    for white_to_move in (True, False):
        boards, plies = sample(tables, ending, design.examples, white_to_move, rng)
        held, held_plies = sample(tables, ending, validation, white_to_move, fixed)
        longest = 2 * 33 if ending == "KBNK" else int(plies.max()) + 1
        x = features(boards, design.inputs, ending)
        net = Network.new(x.shape[1], design.hidden, longest, rng)
        net.fit(x, target(plies, longest).astype(np.float32), design, rng)
        nets.append(net)
        errors.append(
            float(np.abs(net.plies(features(held, design.inputs, ending)) - held_plies).mean())
        )
    return Trained(
        design, ending, nets[0], nets[1], errors[0], errors[1], time.perf_counter() - started
    )


#: A Black-to-move network as a player sees it: predicted plies to mate of boards.
Valuer = Callable[[list[chess.Board]], np.ndarray]


def choose(
    value: Valuer, board: chess.Board, ending: str = "KBNK", fresh: bool = False
) -> chess.Move:
    """The move whose successor the Black-to-move net ``value`` puts nearest to mate (a mate
    at once first; a successor drawn at once last); ``fresh``: never one whose successor the
    game has seen before while another is left (a one-ply player otherwise cycles forever)."""
    children: list[chess.Board] = []
    moves: list[chess.Move] = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            board.pop()
            return move
        if (
            chess.popcount(board.occupied) == 2 + len(ENDINGS[ending])
            and not _drawn_at_once(board)
            and not (fresh and board.is_repetition(2))
        ):
            children.append(board.copy(stack=False))
            moves.append(move)
        board.pop()
    if not moves and fresh:
        return choose(value, board, ending)
    if not moves:
        return next(iter(board.legal_moves))
    values = value(children)
    return moves[int(np.argmin(values))]


@dataclass
class PlayReport:
    """Games from random won positions against the table's defence."""

    games: int = 0
    mates: int = 0
    optimal_moves: list[int] = field(default_factory=list)  # the table's mate distance at the start
    plies: list[int] = field(default_factory=list)  # half-moves to the mate, of the mated games
    mated: list[bool] = field(default_factory=list)  # game by game

    def mates_first(self, games: int) -> int:
        """Mates in the first ``games`` games (the study played 10)."""
        return sum(self.mated[:games])


def play(
    value: Valuer,
    ending: str,
    tables: Tablebase,
    positions: int,
    seed: int = 1,
    fresh: bool = False,
    on_game: Callable[[int, bool], None] | None = None,
) -> PlayReport:
    """Play ``positions`` random positions (White to move) to mate or :data:`MOVE_LIMIT` moves
    (``fresh`` as in :func:`choose`)."""
    rng = np.random.default_rng(seed)
    report = PlayReport()
    for board in sample(tables, ending, positions, True, rng)[0]:
        start = tables.probe(board)
        assert start is not None
        report.optimal_moves.append(start.moves)
        for _ in range(2 * MOVE_LIMIT):
            if board.is_game_over():
                break
            if board.turn == chess.WHITE:
                board.push(choose(value, board, ending, fresh))
            else:
                found = tables.best(board)
                assert found is not None
                board.push(found[0])
        mated = board.is_checkmate()
        report.games += 1
        report.mates += mated
        report.mated.append(mated)
        if mated:
            report.plies.append(len(board.move_stack))
        if on_game is not None:
            on_game(report.games, mated)
    return report


#: The designs compared: the study's (coordinates and distances, a few tens of hidden units, a
#: few tens of thousands of examples), the study's fourth inputs, and the best we made on a CPU.
DESIGNS = {
    "study": Design(inputs="both", hidden=20, examples=40_000, epochs=100),
    "mutual": Design(inputs="mutual", hidden=40, examples=40_000, epochs=100),
    "best": Design(inputs="squares", hidden=128, examples=100_000, epochs=20, lr=0.003),
}


def report(
    folder: str | os.PathLike[str],
    ending: str,
    designs: list[str],
    positions: int,
    deep: str | os.PathLike[str] | None = None,
) -> str:
    """Train and play each design; a table in Markdown (with progress on stderr)."""
    if ending not in ("KBNK", "KRK"):
        raise ValueError(f"the study's endings are KBNK and KRK, not {ending!r}")
    unknown = [d for d in designs if d not in DESIGNS]
    if unknown:
        raise ValueError(f"no such design: {', '.join(unknown)} (there are {', '.join(DESIGNS)})")
    tables = Tablebase(folder)
    if tables.table(ending) is None:
        raise ValueError(f"no {ending} table in {folder}: run make tables")
    rows = [
        "| network | error, White / Black to move (plies) | mates in the first 10 | mates in"
        f" {positions} | the same, never repeating a position | training |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    players: list[tuple[str, Valuer, str, str]] = []
    for name in designs:
        print(f"{name}: training ({DESIGNS[name].describe()})", file=sys.stderr)
        trained = train(tables, ending, DESIGNS[name])
        players.append(
            (
                f"{name}: {DESIGNS[name].describe()}",
                trained.value,
                f"{trained.error_white:.2f} / {trained.error_black:.2f}",
                f"{trained.seconds:.0f} s",
            )
        )
    if deep is not None:
        from learn.kbnk_deep import DeepNetwork, encode

        net = DeepNetwork.load(deep)
        players.append(
            (f"deep: {deep}", lambda boards: net.plies(encode(boards)), "see kbnk-deep", "GPU")
        )
    for label, value, error, seconds in players:
        results = []
        for fresh in (False, True):
            print(
                f"{label}: playing {positions} positions{' (never repeating)' if fresh else ''}",
                file=sys.stderr,
            )
            results.append(play(value, ending, tables, positions, fresh=fresh))
        plain, fresh_result = results
        rows.append(
            f"| {label} | {error} | {plain.mates_first(10)}/10 | {plain.mates}/{plain.games} |"
            f" {fresh_result.mates}/{fresh_result.games} | {seconds} |"
        )
    return "\n".join(rows)
