"""The chooser's features (issue #40): a row of columns for each candidate move the engine could
play, from what it knows of each (the prior, the cases' vote, what it loses at the judge's depth
and at shallow depths, its rank, the position's score band, and the move itself), in
:data:`FEATURES`'s order. :mod:`engine.strength.chooser` weighs them (its module docstring says
how), ``learn.chooser`` fits the weights on rows made by :func:`features`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess
import numpy as np

from engine.strength.errormodel import PRIOR_FLOOR, losses

#: The shallow depths whose losses are features (what is seen at once against what needs thought).
SHALLOW_DEPTHS = (2, 6)
#: The position's score band: winning above this many centipawns for the mover (its best
#: candidate's score), losing below minus this, level between.
BAND_CP = 200
#: The pieces moved, one column each but the pawn's (the reference: the columns of a one-hot sum to
#: 1).
PIECES = {
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
    chess.KING: "king",
}
#: The features, in the order of the columns of :func:`features`.
FEATURES: tuple[str, ...] = (
    "log prior",
    "log prior squared",
    "vote",
    "loss",
    "sqrt loss",
    *(f"loss d{d}" for d in SHALLOW_DEPTHS),
    *(f"sqrt loss d{d}" for d in SHALLOW_DEPTHS),
    "best",
    "rank",
    "loss winning",
    "loss losing",
    "check",
    "capture",
    "recapture",
    *(f"piece {p}" for p in PIECES.values()),
    "pawn advance",
    "pawn to 6th/7th",
    "castling",
    "retreat",
    "queen trade",
    "distance",
    "promotion",
)


def features(
    board: chess.Board,
    last: chess.Move | None,
    moves: Sequence[chess.Move],
    scores: Sequence[int],
    prior: Sequence[float],
    votes: Sequence[float] | None = None,
    shallow: Mapping[int, Sequence[int]] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The features of each candidate (a row each, :data:`FEATURES`'s columns) of the position
    ``board`` after the opponent's move ``last`` (None: unknown): its judge's ``scores`` in
    centipawns for the mover, the ``prior`` proposed for it, the cases' share of the vote (None:
    unknown, 0), and its scores at the shallow depths (``shallow[depth]``; a depth missing: 0)."""
    n = len(moves)
    x = np.zeros((n, len(FEATURES)))
    if not n:
        return x, FEATURES
    column = {name: i for i, name in enumerate(FEATURES)}
    cp = np.asarray(scores, dtype=np.float64)
    loss = losses(cp[None])[0]
    log_prior = np.log(np.maximum(np.asarray(prior, dtype=np.float64), PRIOR_FLOOR))
    x[:, column["log prior"]] = log_prior
    x[:, column["log prior squared"]] = log_prior**2
    if votes is not None:
        x[:, column["vote"]] = votes
    x[:, column["loss"]] = loss
    x[:, column["sqrt loss"]] = np.sqrt(loss)
    for depth in SHALLOW_DEPTHS:
        if shallow is not None and depth in shallow:
            shallow_loss = losses(np.asarray(shallow[depth], dtype=np.float64)[None])[0]
            x[:, column[f"loss d{depth}"]] = shallow_loss
            x[:, column[f"sqrt loss d{depth}"]] = np.sqrt(shallow_loss)
    rank = np.empty(n)
    rank[np.argsort(-cp, kind="stable")] = np.arange(n)
    x[:, column["rank"]] = rank
    best = cp.max()
    x[:, column["best"]] = cp == best
    x[:, column["loss winning"]] = loss * (best > BAND_CP)
    x[:, column["loss losing"]] = loss * (best < -BAND_CP)
    for i, move in enumerate(moves):
        for name, value in _move_features(board, last, move).items():
            x[i, column[name]] = value
    return x, FEATURES


def _move_features(
    board: chess.Board, last: chess.Move | None, move: chess.Move
) -> dict[str, float]:
    """The columns of :data:`FEATURES` that say what the move is (those that are not 0)."""
    piece = board.piece_type_at(move.from_square)
    found: dict[str, float] = {}
    captured = board.piece_type_at(move.to_square) if not board.is_en_passant(move) else chess.PAWN
    rank_from, rank_to = chess.square_rank(move.from_square), chess.square_rank(move.to_square)
    forward = (rank_to - rank_from) * (1 if board.turn == chess.WHITE else -1)
    flags = {
        "check": board.gives_check(move),
        "capture": board.is_capture(move),
        "recapture": board.is_capture(move)
        and last is not None
        and move.to_square == last.to_square,
        "pawn advance": piece == chess.PAWN and forward > 0,
        "pawn to 6th/7th": piece == chess.PAWN
        and (rank_to if board.turn == chess.WHITE else 7 - rank_to) in (5, 6),
        "castling": board.is_castling(move),
        # a king's castling moves it sideways, never back
        "retreat": piece not in (None, chess.PAWN) and forward < 0,
        "queen trade": piece == chess.QUEEN and captured == chess.QUEEN,
        "promotion": move.promotion is not None,
    }
    found |= {name: 1.0 for name, flag in flags.items() if flag}
    if piece in PIECES:
        found[f"piece {PIECES[piece]}"] = 1.0
    found["distance"] = float(chess.square_distance(move.from_square, move.to_square))
    return found
