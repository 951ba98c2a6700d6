"""lc0's input planes of a position as numpy (N x 112 x 8 x 8, ``plane[square // 8, square % 8]``),
made by lc0's own encoder through its bindings; kept packed (a bitboard and a value a plane) until a
batch needs them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chess
import numpy as np

from engine.style.lc0 import bindings, game_state
from learn.lc0.model import INPUT_PLANES


def packed(inputs: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """lc0 ``Input`` objects (``GameState.as_input``) as bitboards (N x 112, uint64) and values (N x 112)."""
    masks = np.array([[inp.mask(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype="<u8").reshape(-1, INPUT_PLANES)
    values = np.array([[inp.val(i) for i in range(INPUT_PLANES)] for inp in inputs], dtype=np.float32)
    return masks, values.reshape(-1, INPUT_PLANES)


def unpack(masks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The planes (N x 112 x 8 x 8, float32) of :func:`packed`'s arrays."""
    bits = np.unpackbits(np.ascontiguousarray(masks, dtype="<u8").view(np.uint8), bitorder="little")
    return bits.reshape(len(masks), INPUT_PLANES, 8, 8).astype(np.float32) * values[:, :, None, None]


def planes(inputs: Sequence[Any]) -> np.ndarray:
    """lc0 ``Input`` objects as one float32 array of planes."""
    return unpack(*packed(inputs))


def state_of(board: chess.Board) -> Any:
    """lc0's ``GameState`` of ``board`` with its game's history (:func:`engine.style.lc0.game_state`)."""
    return bindings().GameState(*game_state(board))
