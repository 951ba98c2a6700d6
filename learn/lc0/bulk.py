"""lc0's input planes of whole games at once, on any torch device (a GPU's training reads millions).

A game is replayed once with python-chess into a row a position (:class:`Plies`): its twelve
bitboards as White sees them, the side to move, the castling rights, the rule-50 count, whether lc0
counts it a repetition, the move played (lc0's policy index) and the legal moves. :func:`planes`
then makes lc0's 112 planes of any rows from these, each with its seven positions before (none
before the game's start, as lc0 leaves them from the standard start): the same planes as lc0's own
encoder (:mod:`.inputs`), which the tests check on real games, with no call into lc0 a position.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import chess
import numpy as np
import torch

from lc0net.moves import POLICY_SIZE, move_index
from lc0net.planes import HISTORY, INPUT_PLANES, repetition_key

_PIECES = [(colour, piece) for colour in (chess.WHITE, chess.BLACK) for piece in chess.PIECE_TYPES]
_CASTLING = [chess.BB_H1, chess.BB_A1, chess.BB_H8, chess.BB_A8]


@dataclass
class Plies:
    """Positions of games, a row each, and the move played there (see the module's text)."""

    boards: np.ndarray  # N x 12 int64: White's pawns ... king, Black's, as bitboards
    white: np.ndarray  # N bool: White to move
    castling: np.ndarray  # N x 4 bool: White's king side, queen side, Black's king side, queen side
    rule50: np.ndarray  # N int16
    repeated: np.ndarray  # N bool: the same position earlier in the game (lc0's repetition plane)
    # N int16: the position's ply in its game (how many positions before it there are)
    ply: np.ndarray
    target: np.ndarray  # N int64: the move played, lc0's policy index
    wanted: np.ndarray  # N bool: a position to learn from or measure (the others are history alone)
    # N+1 int64: the legal moves of row i are legal[legal_start[i]:legal_start[i+1]]
    legal_start: np.ndarray
    legal: np.ndarray  # int16, lc0's policy indices (a wanted row's alone)

    def __len__(self) -> int:
        return len(self.target)

    @classmethod
    def concatenate(cls, parts: Sequence[Plies]) -> Plies:
        """The rows of ``parts`` one after the other."""
        names = ("boards", "white", "castling", "rule50", "repeated", "ply", "target", "wanted")
        offsets = np.cumsum([0] + [int(p.legal_start[-1]) for p in parts[:-1]])
        starts = [np.zeros(1, np.int64)] + [
            p.legal_start[1:] + offset for p, offset in zip(parts, offsets)
        ]
        rows = {name: np.concatenate([getattr(p, name) for p in parts]) for name in names}
        return cls(
            **rows,
            legal_start=np.concatenate(starts),
            legal=np.concatenate([p.legal for p in parts]),
        )


def _listed(board: chess.Board) -> list[chess.Move]:
    """The legal moves in the order :func:`codes` numbers them: by from-square, to-square,
    promotion."""
    return sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square, m.promotion or 0))


def codes(moves: Iterable[chess.Move]) -> bytes:
    """A game's moves from the standard start as a byte each: the move's place among the legal moves
    in (from, to, promotion) order (how a game travels compactly; :func:`replay` reads it back)."""
    board, out = chess.Board(), bytearray()
    for move in moves:
        out.append(_listed(board).index(move))
        board.push(move)
    return bytes(out)


def replay(
    games: Iterable[Sequence[chess.Move] | bytes],
    wanted: Iterable[Sequence[bool] | np.ndarray] | None = None,
) -> Plies:
    """Each game's positions from the standard start (the moves of ``games``, each legal in turn, or
    their :func:`codes`), and for those ``wanted`` marks (all where None) the legal moves too."""
    boards: list[list[int]] = []
    white: list[bool] = []
    castling: list[list[bool]] = []
    rule50: list[int] = []
    repeated: list[bool] = []
    ply: list[int] = []
    target: list[int] = []
    want: list[bool] = []
    legal: list[int] = []
    starts = [0]
    marks = iter(wanted) if wanted is not None else None
    for moves in games:
        board, seen = chess.Board(), set()
        keep = next(marks) if marks is not None else None
        for number, played in enumerate(moves):
            listed = None
            if isinstance(played, int):
                listed = _listed(board)
                move = listed[played]
            else:
                move = cast(chess.Move, played)
            key = repetition_key(board)
            boards.append([board.pieces_mask(piece, colour) for colour, piece in _PIECES])
            white.append(board.turn)
            castling.append([bool(board.castling_rights & bb) for bb in _CASTLING])
            rule50.append(board.halfmove_clock)
            repeated.append(key in seen)
            ply.append(number)
            target.append(move_index(board, move))
            want.append(keep is None or bool(keep[number]))
            if want[-1]:
                legal.extend(move_index(board, m) for m in (listed or board.legal_moves))
            starts.append(len(legal))
            seen.add(key)
            board.push(move)
    return Plies(
        np.array(boards, dtype=np.uint64).reshape(-1, 12).view(np.int64),
        np.array(white, dtype=bool),
        np.array(castling, dtype=bool).reshape(-1, 4),
        np.array(rule50, dtype=np.int16),
        np.array(repeated, dtype=bool),
        np.array(ply, dtype=np.int16),
        np.array(target, dtype=np.int64),
        np.array(want, dtype=bool),
        np.array(starts, dtype=np.int64),
        np.array(legal, dtype=np.int16),
    )


@dataclass
class PliesOn:
    """:class:`Plies` as tensors on a device."""

    boards: torch.Tensor
    white: torch.Tensor
    castling: torch.Tensor
    rule50: torch.Tensor
    repeated: torch.Tensor
    ply: torch.Tensor
    target: torch.Tensor
    legal_start: torch.Tensor
    legal: torch.Tensor

    @classmethod
    def of(cls, plies: Plies, device: str | torch.device = "cpu") -> PliesOn:
        names = (
            "boards",
            "white",
            "castling",
            "rule50",
            "repeated",
            "ply",
            "target",
            "legal_start",
        )
        tensors = {
            name: torch.from_numpy(np.ascontiguousarray(getattr(plies, name))).to(device)
            for name in names
        }
        return cls(**tensors, legal=torch.from_numpy(plies.legal.astype(np.int64)).to(device))


def legal_mask(plies: PliesOn, rows: torch.Tensor) -> torch.Tensor:
    """Whether each of lc0's 1858 moves is legal in the positions ``rows`` (wanted ones:
    :func:`replay`)."""
    start, stop = plies.legal_start[rows], plies.legal_start[rows + 1]
    counts = stop - start
    which = torch.repeat_interleave(torch.arange(len(rows), device=rows.device), counts)
    offsets = torch.arange(int(counts.sum()), device=rows.device) - torch.repeat_interleave(
        counts.cumsum(0) - counts, counts
    )
    mask = torch.zeros(len(rows), POLICY_SIZE, dtype=torch.bool, device=rows.device)
    mask[which, plies.legal[torch.repeat_interleave(start, counts) + offsets]] = True
    return mask


_BITS = torch.arange(64)


def _bits(boards: torch.Tensor) -> torch.Tensor:
    """Bitboards (any shape, int64) as their 64 squares (float, the shape x 8 x 8: rank, file)."""
    bits = (boards.unsqueeze(-1) >> _BITS.to(boards.device)) & 1
    return bits.reshape(*boards.shape, 8, 8).float()


def planes(plies: PliesOn, rows: torch.Tensor) -> torch.Tensor:
    """lc0's 112 input planes (len(rows) x 112 x 8 x 8, float32) of the positions ``rows``, on their
    device."""
    n = len(rows)
    out = torch.zeros(n, INPUT_PLANES, 8, 8, device=rows.device)
    white = plies.white[rows]
    for back in range(HISTORY):
        seen = plies.ply[rows] >= back  # lc0 leaves the planes before the standard start empty
        earlier = torch.where(seen, rows - back, rows)
        boards = plies.boards[earlier]
        ours = torch.where(white[:, None], boards[:, :6], boards[:, 6:])
        theirs = torch.where(white[:, None], boards[:, 6:], boards[:, :6])
        repeated = plies.repeated[earlier].float()[:, None, None, None].expand(n, 1, 8, 8)
        block = torch.cat([_bits(ours), _bits(theirs), repeated], 1)
        out[:, 13 * back : 13 * back + 13] = block * seen.float()[:, None, None, None]
    castling = plies.castling[rows].float()
    # ours first, queen side before king side; Black's board is seen from Black's side (flipped
    # below)
    out[:, 104] = torch.where(white, castling[:, 1], castling[:, 3])[:, None, None]
    out[:, 105] = torch.where(white, castling[:, 0], castling[:, 2])[:, None, None]
    out[:, 106] = torch.where(white, castling[:, 3], castling[:, 1])[:, None, None]
    out[:, 107] = torch.where(white, castling[:, 2], castling[:, 0])[:, None, None]
    out[:, 108] = (~white).float()[:, None, None]
    out[:, 109] = plies.rule50[rows].float()[:, None, None]
    out[:, 111] = 1.0
    return torch.where(white[:, None, None, None], out, out.flip(2))
