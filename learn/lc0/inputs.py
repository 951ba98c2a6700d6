"""lc0's input planes of a position as numpy (N x 112 x 8 x 8, ``plane[square // 8, square % 8]``),
made by lc0's own encoder through its bindings, and the policy index of a move played."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chess
import numpy as np

from engine.style.lc0 import bindings, game_state, lc0_uci
from learn.lc0.model import INPUT_PLANES


def planes(inputs: Sequence[Any]) -> np.ndarray:
    """lc0 ``Input`` objects (``GameState.as_input``) as one float32 array."""
    masks = np.array([[inp.mask(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype="<u8")
    values = np.array([[inp.val(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype=np.float32)
    bits = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(len(inputs), INPUT_PLANES, 8, 8)
    return bits.astype(np.float32) * values[:, :, None, None]


def state_of(board: chess.Board) -> Any:
    """lc0's ``GameState`` of ``board`` with its game's history (:func:`engine.style.lc0.game_state`)."""
    return bindings().GameState(*game_state(board))


def policy_index(state: Any, board: chess.Board, move: chess.Move) -> int:
    """The index among the 1858 of ``move`` (legal on ``board``, whose lc0 state is ``state``)."""
    return int(dict(zip(state.moves(), state.policy_indices()))[lc0_uci(board, move)])
