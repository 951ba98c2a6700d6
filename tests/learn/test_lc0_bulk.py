"""lc0's input planes of whole games made at once (learn.lc0.bulk, the GPU's training data) against
the engine's planes (which the tests hold to lc0's own encoder), position by position, and a game's
moves carried as codes."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from lc0net.planes import planes

torch = pytest.importorskip("torch")

from lc0net.moves import move_index  # noqa: E402
from learn.lc0 import bulk  # noqa: E402


def games(count: int, seed: int) -> list[list[chess.Move]]:
    """Random games (seeded) that castle, take en passant and promote when they can, and shuffle a
    knight back and forth now and then, so that positions repeat."""
    rng, out = random.Random(seed), []
    for _ in range(count):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 120:
            moves = list(board.legal_moves)
            special = [
                m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion
            ]
            knights = [m for m in moves if board.piece_type_at(m.from_square) == chess.KNIGHT]
            # undo the side's move two plies ago
            if len(board.move_stack) >= 4 and rng.random() < 0.3:
                back = board.move_stack[-2]
                retreat = chess.Move(back.to_square, back.from_square)
                if retreat in moves and board.piece_type_at(back.to_square) == chess.KNIGHT:
                    board.push(retreat)
                    continue
            board.push(
                rng.choice(special or (knights if knights and rng.random() < 0.3 else moves))
            )
        out.append(board.move_stack)
    return out


def test_the_planes_are_lc0s_own_with_history_repetitions_castling_and_en_passant() -> None:
    played = games(8, seed=3)
    plies = bulk.replay(played)
    boards = []
    for moves in played:
        board = chess.Board()
        for move in moves:
            boards.append(board.copy())
            board.push(move)
    assert len(plies) == len(boards) > 500
    assert plies.repeated.sum() >= 10 and plies.castling.any() and (~plies.castling).any()
    made = bulk.planes(bulk.PliesOn.of(plies), torch.arange(len(plies))).numpy()
    np.testing.assert_array_equal(made, planes(boards))
    assert plies.target.tolist() == [
        move_index(b, m) for b, m in zip(boards, [m for g in played for m in g])
    ]
    mask = bulk.legal_mask(bulk.PliesOn.of(plies), torch.arange(len(plies))).numpy()
    for row in range(0, len(boards), 7):
        assert sorted(np.flatnonzero(mask[row]).tolist()) == sorted(
            move_index(boards[row], m) for m in boards[row].legal_moves
        )


def test_a_game_travels_as_codes_and_wanted_positions_alone_have_legal_moves() -> None:
    played = games(3, seed=5)
    codes = [bulk.codes(moves) for moves in played]
    assert [len(c) for c in codes] == [len(m) for m in played]
    wanted = [[ply % 2 == 0 for ply in range(len(m))] for m in played]
    by_codes, by_moves = bulk.replay(codes, wanted), bulk.replay(played, wanted)
    for name in ("boards", "target", "repeated", "legal_start", "wanted"):
        np.testing.assert_array_equal(getattr(by_codes, name), getattr(by_moves, name))
    rows = torch.arange(len(by_codes))
    assert torch.equal(
        bulk.legal_mask(bulk.PliesOn.of(by_codes), rows),
        bulk.legal_mask(bulk.PliesOn.of(by_moves), rows),
    )
    counts = np.diff(by_codes.legal_start)
    assert (counts[~by_codes.wanted] == 0).all() and (counts[by_codes.wanted] > 0).all()
