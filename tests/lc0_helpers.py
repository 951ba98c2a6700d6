"""What the tests of lc0 networks share: random games that castle, take en passant and promote, and
a tiny network of Maia's kind with random weights (lc0's own backend, the reference:
bench.lc0_backend)."""

from __future__ import annotations

import random

import chess
import numpy as np

from lc0net import proto
from lc0net.weights import Network


def special_games(games: int, seed: int) -> list[chess.Board]:
    """Every position of ``games`` random games (seeded) that castle, take en passant and promote
    whenever they can, and push pawns more often than not, each board with its move stack."""
    rng, boards = random.Random(seed), []
    for _ in range(games):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160:
            boards.append(board.copy())
            moves = list(board.legal_moves)
            special = [
                m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion
            ]
            pawns = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN]
            board.push(rng.choice(special or (pawns if pawns and rng.random() < 0.6 else moves)))
    return boards


def parity_boards() -> list[chess.Board]:
    """About 50 positions with history: those where castling, en passant or a promotion is legal,
    and others."""
    boards = special_games(6, seed=11)
    special = [
        b
        for b in boards
        if any(b.is_castling(m) or b.is_en_passant(m) or m.promotion for m in b.legal_moves)
    ]
    kinds = {
        kind: sum(any(test(b, m) for m in b.legal_moves) for b in special)
        for kind, test in {
            "castling": chess.Board.is_castling,
            "en passant": chess.Board.is_en_passant,
            "promotion": lambda b, m: bool(m.promotion),
        }.items()
    }
    assert min(kinds.values()) >= 3, kinds
    return special[:: max(1, len(special) // 30)] + boards[5 :: len(boards) // 20]


def random_network(blocks: int = 1, filters: int = 8, seed: int = 0) -> Network:
    """A network of Maia's kind (SE units, a convolutional policy, WDL) with random weights."""
    rng = np.random.default_rng(seed)
    net = proto.Net(magic=proto.MAGIC)
    net.min_version.minor = 21
    net.format.weights_encoding = proto.LINEAR16
    nf = net.format.network_format
    nf.input, nf.output, nf.network = (
        proto.INPUT_CLASSICAL_112_PLANE,
        2,
        proto.NETWORK_SE_WITH_HEADFORMAT,
    )
    nf.policy, nf.value = proto.POLICY_CONVOLUTION, proto.VALUE_WDL
    network = Network(net)
    w = net.weights
    arrays: dict[str, np.ndarray] = {}

    def layer(message, name: str, shape: tuple[int, ...], kind: str = "weights") -> None:
        message.params = b"\0\0" * int(np.prod(shape))  # sized here, set by with_arrays
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        arrays[name] = {
            "weights": rng.normal(0, 1.5 / np.sqrt(fan_in), shape),
            "bias": rng.normal(0, 0.3, shape),
            "variance": rng.uniform(0.5, 2, shape),
            "gamma": rng.uniform(0.5, 1.5, shape),
        }[kind]

    def conv(block, name: str, cin: int, cout: int, size: int, norm: bool = True) -> None:
        layer(block.weights, f"{name}.weights", (cout, cin, size, size))
        if not norm:
            layer(block.biases, f"{name}.biases", (cout,), "bias")
            return
        for field, kind in (
            ("bn_means", "bias"),
            ("bn_stddivs", "variance"),
            ("bn_gammas", "gamma"),
            ("bn_betas", "bias"),
        ):
            layer(getattr(block, field), f"{name}.{field}", (cout,), kind)

    conv(w.input, "input", 112, filters, 3)
    for i in range(blocks):
        r = w.residual.add()
        conv(r.conv1, f"residual.{i}.conv1", filters, filters, 3)
        conv(r.conv2, f"residual.{i}.conv2", filters, filters, 3)
        layer(r.se.w1, f"residual.{i}.se.w1", (4, filters))
        layer(r.se.b1, f"residual.{i}.se.b1", (4,), "bias")
        layer(r.se.w2, f"residual.{i}.se.w2", (2 * filters, 4))
        layer(r.se.b2, f"residual.{i}.se.b2", (2 * filters,), "bias")
    conv(w.policy1, "policy1", filters, filters, 3)
    conv(w.policy, "policy", filters, 80, 3, norm=False)
    conv(w.value, "value", filters, 4, 1)
    layer(w.ip1_val_w, "ip1_val_w", (16, 4 * 64))
    layer(w.ip1_val_b, "ip1_val_b", (16,), "bias")
    layer(w.ip2_val_w, "ip2_val_w", (3, 16))
    layer(w.ip2_val_b, "ip2_val_b", (3,), "bias")
    return network.with_arrays(arrays)


def reference_planes(board: chess.Board) -> np.ndarray:
    """lc0's classic 112 input planes of ``board`` written from its definitions with python-chess
    alone: for the position and the 7 before it, the side to move's pieces, the other side's, and
    whether the position occurred before in the game; the castling rights (ours queen side, ours
    king side, theirs), Black to move, the rule-50 count, a plane of ones; everything seen from the
    side to move. Before a set-up start its position is repeated, its pawn that just stepped twice
    put back (lc0's filled history)."""
    us = board.turn
    out = np.zeros((112, 64), dtype=np.float32)
    history, i = board.copy(), 0

    def draw(position: chess.Board, slot: int) -> None:
        for j, (color, piece) in enumerate((c, p) for c in (us, not us) for p in chess.PIECE_TYPES):
            for square in position.pieces(piece, color):
                out[13 * slot + j, square if us == chess.WHITE else chess.square_mirror(square)] = 1

    while i < 8:
        draw(history, i)
        key, earlier, probe = history._transposition_key(), 0, history.copy()
        while probe.move_stack:
            probe.pop()
            earlier += probe._transposition_key() == key
        out[13 * i + 12] = earlier >= 1
        i += 1
        if not history.move_stack:
            break
        history.pop()
    if (
        i < 8 and history != chess.Board()
    ):  # a set-up start: its position again, as it stood a move before
        if history.ep_square is not None and history.has_legal_en_passant():
            before = history.copy()
            step = 8 if history.turn == chess.BLACK else -8
            pawn = before.remove_piece_at(history.ep_square + step)
            before.set_piece_at(history.ep_square - step, pawn)
            history = before
        while i < 8:
            draw(history, i)
            i += 1
    them = not us
    for plane, right in enumerate(
        (
            board.has_queenside_castling_rights(us),
            board.has_kingside_castling_rights(us),
            board.has_queenside_castling_rights(them),
            board.has_kingside_castling_rights(them),
        )
    ):
        out[104 + plane] = right
    out[108] = us == chess.BLACK
    out[109] = board.halfmove_clock
    out[111] = 1
    return out.reshape(112, 8, 8)
