"""Shallow position similarity (cbr-agent.md §3), plain and vectorised over a casebase.

Square similarity R scores two squares' contents 4, 3, 2, 1 or 0; the position similarity
Sim is the sum of R over the 64 squares. Summed over a board, with Q the query and C a case,
every term is a population count of bitboards:

    Sim = 256 − 2·|occ Q| − 2·|occ C| + 3·|same colour| + |same type|

(both empty 4; same colour and type 3 + 1; same colour only 3; one occupied 4 − 2 = 2;
same type only 1; neither 0). :class:`SimilarityScanner` evaluates that for every case of
one colour with a handful of numpy bit operations on cache-sized chunks.
"""

from __future__ import annotations

import chess
import numpy as np

from casebase.format import encode_board

#: Cases scanned per numpy pass: the temporaries stay in the CPU cache.
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


class SimilarityScanner:
    """Sim of one query board against a fixed set of positions (fit once, query many).

    ``boards`` is an N×8 uint64 array of bitboards (casebase order); the scanner copies it
    once into column-major form, so each query streams every column once.
    """

    def __init__(self, boards: np.ndarray) -> None:
        boards = np.asarray(boards, dtype=np.uint64)
        self.columns = np.ascontiguousarray(boards.T)
        occupied = self.columns[0] | self.columns[1]
        # 256 − 2·|occ C| is the case's own part of Sim, fixed at fit time.
        self.base = 256 - 2 * np.bitwise_count(occupied).astype(np.int16)
        self._scratch = np.empty((3, min(CHUNK, max(len(boards), 1))), dtype=np.uint64)
        self._counts = np.empty((2, self._scratch.shape[1]), dtype=np.uint8)

    def __len__(self) -> int:
        return self.columns.shape[1]

    def similarities(self, board: chess.BaseBoard, out: np.ndarray | None = None) -> np.ndarray:
        """Sim(board, case) for every case, as int16 in casebase order."""
        n = len(self)
        if out is None:
            out = np.empty(n, dtype=np.int16)
        query = encode_board(board)
        constant = np.int16(-2 * int(np.bitwise_count(query[0] | query[1])))
        # Piece types the query lacks cannot match: skip their columns.
        types = [t for t in range(2, 8) if query[t]]
        acc, tmp, same_type = self._scratch
        colour_count, type_count = self._counts
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            m = stop - start
            a, t, s = acc[:m], tmp[:m], same_type[:m]
            cols = self.columns[:, start:stop]
            np.bitwise_and(cols[0], query[0], out=a)
            np.bitwise_and(cols[1], query[1], out=t)
            np.bitwise_or(a, t, out=a)
            s.fill(0)
            for k in types:
                np.bitwise_and(cols[k], query[k], out=t)
                np.bitwise_or(s, t, out=s)
            c8, t8 = colour_count[:m], type_count[:m]
            np.bitwise_count(a, out=c8)
            np.bitwise_count(s, out=t8)
            # 3·|same colour| + |same type| <= 128 fits a byte.
            np.multiply(c8, 3, out=c8)
            np.add(c8, t8, out=c8)
            np.add(self.base[start:stop], c8, out=out[start:stop], casting="unsafe")
        out += constant
        return out
