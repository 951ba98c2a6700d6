"""Positions as lc0 sees them, for training on the CPU: each board of a game with its history as
lc0's packed input planes, the legal moves' mask and the move played (:mod:`learn.master`'s and
:mod:`learn.own_network`'s; :mod:`.bulk` makes them from whole games on any device)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import chess
import chess.pgn
import numpy as np
import torch

from lc0net.moves import POLICY_SIZE, move_index
from lc0net.planes import INPUT_PLANES, packed, unpack


@dataclass
class Positions:
    """Positions as lc0 sees them (packed planes), the legal moves' mask and the move played."""

    masks: np.ndarray
    values: np.ndarray
    legal: np.ndarray
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.target)

    def take(self, rows: np.ndarray) -> Positions:
        return Positions(self.masks[rows], self.values[rows], self.legal[rows], self.target[rows])

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        planes = torch.from_numpy(unpack(self.masks, self.values))
        return planes, torch.from_numpy(self.legal.astype(bool)), torch.from_numpy(self.target)


def replay(games: Sequence[str]) -> Iterator[tuple[chess.Board, chess.Move]]:
    """Every position of ``games`` (one board a game, with its moves behind it, pushed on after
    each) and the move played there; a game that does not replay, or one from a set-up position, is
    left out."""
    for text in games:
        game = chess.pgn.read_game(io.StringIO(text))
        if game is None or game.errors or game.board() != chess.Board():
            continue
        board = game.board()
        for move in game.mainline_moves():
            yield board, move
            board.push(move)


def positions(games: Sequence[str]) -> Positions:
    """Every position of ``games`` as lc0 sees it (:func:`replay`), and the move played."""
    return positions_of(replay(games))


def positions_of(played: Iterable[tuple[chess.Board, chess.Move]]) -> Positions:
    """Each board of ``played`` as lc0 sees it (with its game's history: its move stack), and the
    move played there."""
    masks, values, legal, target = [], [], [], []
    for board, move in played:
        bits, value = packed(board)
        masks.append(bits)
        values.append(value)
        row = np.zeros(POLICY_SIZE, dtype=np.uint8)
        row[[move_index(board, m) for m in board.legal_moves]] = 1
        legal.append(row)
        target.append(move_index(board, move))
    return Positions(
        np.array(masks, dtype="<u8").reshape(-1, INPUT_PLANES),
        np.array(values, dtype=np.float32).reshape(-1, INPUT_PLANES),
        np.array(legal, dtype=np.uint8).reshape(-1, POLICY_SIZE),
        np.array(target, dtype=np.int64),
    )
