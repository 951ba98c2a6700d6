"""lc0's classic 112 input planes of a python-chess board with its game's history, in numpy, as
lc0's own encoder makes them (``neural/encoder.cc``, input format 1, history filled for a FEN start
alone).

For the position to move in and the seven before it: the side to move's six kinds of pieces, the
other side's, and whether the position occurred before in the game (lc0's repetition plane); then
the castling rights (ours queen side, ours king side, theirs), Black to move, the rule-50 count, a
plane of zeros and one of ones. Everything is seen from the side to move: Black's board is flipped
rank for rank. A plane is ``plane[square // 8, square % 8]``.

The history is the board's move stack after its last null move (lc0 takes none); a Chess960 board is
its position alone (lc0 replays a Chess960 game's castlings wrongly, so it is given the FEN). Where
the history runs out before seven positions, a game from the standard start leaves the planes empty;
any other start (a FEN) repeats its first position, its pawn that just stepped twice put back where
it stood, as lc0 does.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from common.boards import bitboards

#: lc0's input planes: 8 positions x 13, then castling, side to move, rule 50, zeros, ones.
INPUT_PLANES = 112
#: The positions lc0 sees at once: the one to move in and the seven before it.
HISTORY = 8
_AUX = 13 * HISTORY
_ALL = 0xFFFF_FFFF_FFFF_FFFF
_STANDARD = chess.Board()
#: A position's key, the same for positions lc0 counts a repetition of each other.
Key = tuple[int | bool | None, ...]


def repetition_key(board: chess.Board, start: bool = False) -> Key:
    """What lc0 compares to count a repetition: the pieces, the side to move, the castling rights,
    and an en passant square where a pawn stands beside the one that stepped twice (as lc0 holds it
    after a move; python-chess's own key wants a legal capture), or at the game's ``start`` where a
    capture is legal (lc0 reads it from the FEN, which python-chess writes so)."""
    legal = board.has_legal_en_passant() if start else board.has_pseudo_legal_en_passant()
    passant = board.ep_square if legal else None
    return (
        *bitboards(board),
        board.turn,
        board.castling_rights,
        passant,
    )


def last_null(moves: Sequence[chess.Move]) -> int:
    """The index of the last null move among ``moves`` (a GUI may send ``0000``), -1 where there is
    none."""
    return max((i for i, move in enumerate(moves) if not move), default=-1)


def _pieces(board: chess.Board, us: chess.Color) -> list[int]:
    """The twelve bitboards of ``board``: ``us``'s pawns ... king, then the other side's, as White
    sees them."""
    return [
        board.pieces_mask(piece, colour) for colour in (us, not us) for piece in chess.PIECE_TYPES
    ]


def _start_is_standard(board: chess.Board) -> bool:
    return (
        board.board_fen() == _STANDARD.board_fen()
        and board.turn == chess.WHITE
        and board.clean_castling_rights() == chess.BB_CORNERS
        and board.ep_square is None
    )


def _passant_undone(pieces: list[int], board: chess.Board, us: chess.Color) -> list[int]:
    """A FEN start's ``pieces`` with its pawn that just stepped twice back where it stood (lc0's
    filled history)."""
    # the FEN lc0 is given names no other
    if board.ep_square is None or not board.has_legal_en_passant():
        return pieces
    mover = not board.turn  # the side whose pawn stepped twice
    forward = 8 if mover == chess.WHITE else -8
    landed, stood = board.ep_square + forward, board.ep_square - forward
    out = list(pieces)
    slot = 0 if mover == us else 6
    out[slot] = (out[slot] & ~chess.BB_SQUARES[landed]) | chess.BB_SQUARES[stood]
    return out


def packed(board: chess.Board) -> tuple[np.ndarray, np.ndarray]:
    """The planes of ``board`` as lc0's encoder holds them: a bitboard (uint64, as White sees the
    board) and a value for each of the 112 (see the module's text)."""
    us = board.turn
    masks = [0] * INPUT_PLANES
    if board.chess960:
        probe, available = chess.Board(board.fen(), chess960=True), 1
    else:
        probe = board.copy()
        # positions since the last null move
        available = len(probe.move_stack) - last_null(probe.move_stack)
    # the last eight positions, newest first, and every position back to where the oldest's rule-50
    # count started (none before can repeat one of them)
    seen: list[tuple[Key, list[int]]] = []
    while True:
        start = len(seen) + 1 == available
        seen.append((repetition_key(probe, start), _pieces(probe, us)))
        if start or (len(seen) >= HISTORY and probe.halfmove_clock == 0):
            break
        probe.pop()
    keys = [key for key, _ in seen]
    for back, (key, pieces) in enumerate(seen[:HISTORY]):
        masks[13 * back : 13 * back + 12] = pieces
        masks[13 * back + 12] = _ALL if key in keys[back + 1 :] else 0
    if len(seen) < HISTORY and not _start_is_standard(probe):
        first = seen[-1][1]
        filled = _passant_undone(first, probe, us)
        for back in range(len(seen), HISTORY):
            masks[13 * back : 13 * back + 12] = filled
    them = not us
    rights = (
        board.has_queenside_castling_rights(us),
        board.has_kingside_castling_rights(us),
        board.has_queenside_castling_rights(them),
        board.has_kingside_castling_rights(them),
    )
    masks[_AUX : _AUX + 4] = [_ALL if right else 0 for right in rights]
    masks[_AUX + 4] = _ALL if us == chess.BLACK else 0
    masks[_AUX + 5] = masks[_AUX + 7] = _ALL
    values = np.ones(INPUT_PLANES, dtype=np.float32)
    values[_AUX + 5] = board.halfmove_clock
    bits = np.array(masks, dtype=np.uint64)
    if us == chess.BLACK:
        bits = bits.byteswap()  # a byte is a rank: Black's board flipped rank for rank
    return bits, values


def unpack(masks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The planes (N x 112 x 8 x 8, float32) of bitboards (N x 112, uint64) and their values (N x
    112)."""
    bits = np.unpackbits(np.ascontiguousarray(masks, dtype="<u8").view(np.uint8), bitorder="little")
    return (
        bits.reshape(len(masks), INPUT_PLANES, 8, 8).astype(np.float32) * values[:, :, None, None]
    )


def planes(boards: Sequence[chess.Board]) -> np.ndarray:
    """lc0's input planes (N x 112 x 8 x 8, float32) of ``boards``, each with its game's history."""
    if not boards:
        return np.zeros((0, INPUT_PLANES, 8, 8), dtype=np.float32)
    made = [packed(board) for board in boards]
    return unpack(np.stack([m for m, _ in made]), np.stack([v for _, v in made]))
