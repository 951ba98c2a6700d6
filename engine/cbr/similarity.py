"""Shallow position similarity (cbr-agent.md §3), plain and vectorised over a casebase.

Square similarity R scores two squares' contents 4, 3, 2, 1 or 0; the position similarity
Sim is the sum of R over the 64 squares. Summed over a board, with Q the query and C a case,
every term is a population count of bitboards:

    Sim = 256 − 2·|occ Q| − 2·|occ C| + 3·|same colour| + |same type|

(both empty 4; same colour and type 3 + 1; same colour only 3; one occupied 4 − 2 = 2;
same type only 1; neither 0). "Same colour" and "same type" count squares occupied on both
boards. :class:`SimilarityScanner` evaluates that for every case of a casebase with a handful
of numpy bit operations on cache-sized chunks.

To read and combine fewer bitboards per case, the scanner stores the six piece-type
bitboards as three bit planes of the type's number (pawn 1 … king 6, empty 0): two squares
hold the same type exactly where all three planes agree. The query's empty squares get the
number 7, which no case square has, so the agreement needs no occupancy mask.
"""

from __future__ import annotations

import chess
import numpy as np

from casebase.format import encode_board

#: Cases per numpy pass: the temporaries stay in the CPU's level-2 cache.
CHUNK = 1 << 15


def square_similarity(a: chess.Piece | None, b: chess.Piece | None) -> int:
    """R(a, b) of cbr-agent.md §3 for the contents of one square on two boards."""
    if a is None and b is None:
        return 4
    if a is None or b is None:
        return 2
    same_colour = a.color == b.color
    same_type = a.piece_type == b.piece_type
    if same_colour:
        return 4 if same_type else 3
    return 1 if same_type else 0


def board_similarity(b1: chess.BaseBoard, b2: chess.BaseBoard) -> int:
    """Sim(b1, b2): R summed square by square (the reference for the vectorised scan)."""
    return sum(square_similarity(b1.piece_at(s), b2.piece_at(s)) for s in chess.SQUARES)


def scan_columns(boards: np.ndarray) -> list[np.ndarray]:
    """White, black and the three type planes (bit k of the piece type's number) of N×8
    bitboards."""
    white, black, pawns, knights, bishops, rooks, queens, kings = (boards[..., i] for i in range(8))
    return [
        white,
        black,
        pawns | bishops | queens,  # 1, 3, 5
        knights | bishops | kings,  # 2, 3, 6
        rooks | queens | kings,  # 4, 5, 6
    ]


class SimilarityScanner:
    """Sim of one query board against a fixed set of positions (fit once, query many).

    ``boards`` is an N×8 uint64 array of bitboards in casebase order (a memory map will do),
    of which only ``rows`` are scanned when given. The scanner keeps its own copy as five
    contiguous columns (see the module docstring), so each query streams 40 bytes per case.
    Queries reuse scratch buffers: one scanner serves one thread at a time.
    """

    def __init__(self, boards: np.ndarray, rows: np.ndarray | None = None) -> None:
        rows = np.arange(len(boards)) if rows is None else np.asarray(rows)
        n = len(rows)
        self.columns = np.empty((5, n), dtype=np.uint64)
        self.base = np.empty(n, dtype=np.int16)
        for start in range(0, n, CHUNK):  # in chunks: a large casebase is never copied whole
            stop = min(start + CHUNK, n)
            part = np.asarray(boards[rows[start:stop]], dtype=np.uint64)
            for column, values in zip(self.columns, scan_columns(part)):
                column[start:stop] = values
            # 256 − 2·|occ C| is the case's own part of Sim, fixed at fit time.
            occupied = np.bitwise_count(part[:, 0] | part[:, 1]).astype(np.int16)
            self.base[start:stop] = 256 - 2 * occupied
        size = min(CHUNK, max(n, 1))
        self._masks = np.empty((2, size), dtype=np.uint64)
        self._counts = np.empty((2, size), dtype=np.int16)

    def __len__(self) -> int:
        return self.columns.shape[1]

    def similarities(self, board: chess.BaseBoard, out: np.ndarray | None = None) -> np.ndarray:
        """Sim(board, case) for every case, as int16 in casebase order."""
        n = len(self)
        if out is None:
            out = np.empty(n, dtype=np.int16)
        q_white, q_black, *q_types = scan_columns(encode_board(board))
        q_empty = ~(q_white | q_black)
        # x ^ ~(q | empty) has a bit set where case plane x agrees with the query's (7 on empty
        # squares).
        agree = [~(plane | q_empty) for plane in q_types]
        constant = np.int16(-2 * int(np.bitwise_count(~q_empty)))
        white, black, *types = self.columns
        colour, kind = self._masks
        colour_count, type_count = self._counts
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            m = stop - start
            c, t, cn, tn = colour[:m], kind[:m], colour_count[:m], type_count[:m]
            np.bitwise_and(white[start:stop], q_white, out=c)
            np.bitwise_and(black[start:stop], q_black, out=t)
            np.bitwise_or(c, t, out=c)
            np.bitwise_count(c, out=cn)
            np.bitwise_xor(types[0][start:stop], agree[0], out=t)
            for plane, mask in zip(types[1:], agree[1:]):
                np.bitwise_xor(plane[start:stop], mask, out=c)
                np.bitwise_and(t, c, out=t)
            np.bitwise_count(t, out=tn)
            np.multiply(cn, 3, out=cn)
            np.add(cn, tn, out=cn)
            np.add(self.base[start:stop], cn, out=out[start:stop])
        out += constant
        return out
