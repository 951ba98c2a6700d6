"""The polyglot Zobrist hash, kept up to date move by move (the search's table key).

Recomputing ``chess.polyglot.zobrist_hash`` costs about half a node, so the search carries
two numbers down the tree: the *pieces* part of the hash (:func:`board_pieces_key`, changed
by :func:`pieces_delta`) and the whole key (:func:`full_key`), made from the pieces part and
the board's castling rights, en-passant square and side to move.
"""

from __future__ import annotations

import chess
import chess.polyglot

from engine.search.evaluation import castling_rook

_RANDOM = chess.polyglot.POLYGLOT_RANDOM_ARRAY
# Polyglot keys: piece index is 2 * (type - 1) + colour (Black 0, White 1).
PIECE_KEYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(
        tuple(_RANDOM[64 * (2 * (piece_type - 1) + colour) + sq] for sq in chess.SQUARES)
        if piece_type
        else ()
        for piece_type in range(7)
    )
    for colour in (0, 1)
)
_CASTLING_KEYS = (
    (chess.BB_H1, _RANDOM[768]),
    (chess.BB_A1, _RANDOM[769]),
    (chess.BB_H8, _RANDOM[770]),
    (chess.BB_A8, _RANDOM[771]),
)
_TURN_KEY = _RANDOM[780]
_HASHER = chess.polyglot.ZobristHasher(_RANDOM)
_ROOK = chess.ROOK


def zobrist_key(board: chess.Board) -> int:
    """The polyglot Zobrist hash of ``board`` (what the transposition table is keyed by)."""
    return chess.polyglot.zobrist_hash(board)


def board_pieces_key(board: chess.BaseBoard) -> int:
    """The pieces' part of the hash of ``board``."""
    return _HASHER.hash_board(board)


def _castling_key(rights: int) -> int:
    key = 0
    for bit, random in _CASTLING_KEYS:
        if rights & bit:
            key ^= random
    return key


_CASTLING = {
    rights: _castling_key(rights)
    for rights in (
        a | b | c | d
        for a in (0, chess.BB_H1)
        for b in (0, chess.BB_A1)
        for c in (0, chess.BB_H8)
        for d in (0, chess.BB_A8)
    )
}


def pieces_delta(board: chess.Board, move: chess.Move, piece: int, captured: int | None) -> int:
    """How ``move`` (of ``piece``, taking ``captured``; ``board`` before it) changes the pieces'
    part of the hash. En passant and castling are recognised from the board."""
    src, dst = move.from_square, move.to_square
    colour = board.turn
    own = PIECE_KEYS[colour]
    delta = own[piece][src] ^ own[move.promotion or piece][dst]
    if captured:
        delta ^= PIECE_KEYS[not colour][captured][dst]
    elif piece == chess.PAWN and dst == board.ep_square:
        delta ^= PIECE_KEYS[not colour][chess.PAWN][dst - 8 if colour else dst + 8]
    elif piece == chess.KING and abs(dst - src) == 2:
        rook_from, rook_to = castling_rook(src, dst)
        delta ^= own[_ROOK][rook_from] ^ own[_ROOK][rook_to]
    return delta


def full_key(board: chess.Board, pieces: int) -> int:
    """The whole hash of ``board`` from its pieces' part (``board`` as after a push: its
    castling rights are clean)."""
    key = pieces ^ _CASTLING[board.castling_rights]
    if board.ep_square is not None:
        key ^= _HASHER.hash_ep_square(board)
    return key ^ _TURN_KEY if board.turn else key
